// The dispatcher's view of a micro-kernel: its entry points and its tile hierarchy. Fixed text; the table of the
// package's kernels is kernel_table.h.
#ifndef STRATA_DISPATCH_KERNEL_H_
#define STRATA_DISPATCH_KERNEL_H_

#include "config.h"
#include "cost_model.h"
#include "post_ops.h"
#include "tile_args.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace strata_model = ::STRATA_MODEL_NAMESPACE;
namespace {

struct Kernel {
  const char* name;
  TileFn packed;
  TileFn streamed;
  TileFn direct;
  TileFn row_streams;
  TileFn wide_rows;
  TileFn dots;  // C over a B stored N x K, as dot products along k
  PackFn pack_a;
  PackFn pack_b;
  PackFn pack_a_transposed;             // from an A stored K x M
  PackFn pack_b_transposed;             // from a B stored N x K
  PackFn copy_transposed;               // a transposed operand's row-major copy
  PostFn post;                          // the post-ops on a finished block of C
  GatherFn gather_a;                    // convolution packages: A gathered from the input; else null
  int32_t mr, nr, ku;                   // level 0: register tile and k unroll
  int64_t m1, n1, k1;                   // level 1: the cache block a thread packs and runs
  int64_t m2, n2, k2;                   // level 2: the block of cache blocks spread over threads
  double level0_seconds;                // profiled time of one mr x nr x ku tile step; 0 when modelled
  strata_model::Level1Measured level1;  // profiled time of one level-1 tile in its parts; all 0 when modelled
};

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_KERNEL_H_
