// The interface between the dispatcher and the micro-kernels: the arguments of one kernel call, and the rules
// about tiles that both sides apply (how thin tiles split their k loop, when B is held in registers, when a strip
// goes along m). Fixed text, copied verbatim into every package; its machine constants come from config.h.
#ifndef STRATA_TILE_ARGS_H_
#define STRATA_TILE_ARGS_H_

#include <cstdint>

#include "config.h"

namespace STRATA_PACKAGE_INTERNAL {

// C[0:rows, 0:cols] = alpha * A * B + beta * C over depth k: one register tile (rows <= MR, cols <= NR of the
// kernel) for the packed and streamed variants, a column strip of register tiles (any rows, cols <= NR) for the
// direct one, all of C's columns for row streams and wide rows. beta == 0 never reads C.
//   packed:  A is a packed micro-panel, element (r, p) at a[p * MR + r]; B a packed micro-panel, (p, j) at
//            b[p * NR + j]; lda and ldb are ignored.
//   direct:  A is read in place, (r, p) at a[r * lda + p]; B in place, (p, j) at b[p * ldb + j].
//   streamed: one register tile, A a packed micro-panel (as packed), B in place (as direct); lda is ignored.
//   row streams (at most kStreamRowsMax rows) and wide rows: A and B in place, as direct.
struct TileArgs {
  int64_t k;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
  float alpha;
  float beta;
  int64_t rows;
  int32_t cols;
  // Direct and wide rows only: the strip's rows of A are not in the cache its tiles run from (the dispatcher's
  // kStreamABytes), so each full tile fetches the next tile's rows of A during its own k loop, and wide rows do not
  // read A once per held strip.
  bool fetch_a_ahead = false;
  // Direct only: A's rows go on below the strip's (the next row block's), so the strip's last full tile fetches
  // those ahead as well.
  bool a_continues = false;
  // Direct and wide rows only: C is larger than the cache A streams through (the dispatcher's kStreamABytes), so even
  // a shallow tile asks for its rows of C before its k loop, and wide rows write each row whole, not in held strips.
  bool c_from_beyond = false;
  // Packed only: rows of the B block the thread packs next (next_rows rows of next_cols floats, next_ldb apart) to
  // ask into L2 during the k loop, one row per unrolled step (see the kernels' fetch_next_b); none when next_rows is
  // 0.
  const float* next_b = nullptr;
  int64_t next_ldb = 0;
  int32_t next_rows = 0, next_cols = 0;
  // Row streams only: B's rows lie a multiple of a way of L1 apart, so that all of them share a set, and B comes
  // from the outer cache (see row_streams in the kernels).
  bool b_rows_collide = false;
  // Streamed: the tile is the first of its column strip to read this k slice of B, which comes from the outer cache,
  // so it fetches B's rows ahead of its k loop. Direct: the same for every tile of a single row of tiles over deep k
  // slices (the dispatcher's direct_b_ahead).
  // Dots: B is larger than the outer cache, so each group of columns asks for the next group's rows.
  bool fetch_b_ahead = false;
};

// How many k steps ahead a tile that reads B in place from beyond the inner caches asks for B's rows (see
// fetch_b_ahead in the kernels, and outer_keeps_up in the dispatcher).
constexpr int kBRowsAhead = 32;

// The most bytes of B's rows a direct one-vector tile taller than the dispatcher's kDirectRows reads before it runs
// as two shorter tiles over them (see tile_body in the kernels; the dispatcher's direct_work models the split).
constexpr int64_t kSplitBytes = int64_t{16} << 10;

STRATA_CONFIG_CONSTEXPR int thin_sets(int rows, int vectors) {
  return rows * vectors * 2 > kChains ? 1 : kChains / (rows * vectors);
}

// The kernels' dot products (dot_rows and dots in kernel_paths.h; the dispatcher's dots_work prices them): at most
// kDotColumns columns of B at a time, each of their vectors shared by dot_rows_at_once() rows of A, as many as the
// vector registers hold next to the columns' vectors and the row's, and each element of C folded from a vector by a
// horizontal sum of dot_sum_slots() vector instructions (the shuffle-and-add steps and the store).
constexpr int kDotColumns = 4;
STRATA_CONFIG_CONSTEXPR int dot_rows_at_once(int cols) {
  const int fit = (kVectorRegisters - cols - 1) / cols;
  return fit < 1 ? 1 : fit > 4 ? 4 : fit;
}
constexpr int dot_sum_slots(int64_t lanes) { return lanes == 16 ? 6 : lanes == 8 ? 5 : 3; }

// The most rows of C a direct call reads B for in row streams (see row_streams in the kernels and row_streams_pay in
// the dispatcher).
constexpr int kStreamRowsMax = 5;

// The most vectors of C a direct call runs a row at a time across its whole width (see rows_whole in the kernels and
// wide_rows_pay in the dispatcher).
constexpr int kWideVectors = 8;

// Whether the kernels' direct path runs a strip of `rows` x `cols` over `depth` along m (see along_m_pays in the
// kernels, which adds that A is cached), for vectors of `lanes` floats: at most half a vector of columns, rows
// enough to fill half a vector, and k at least a transposed block deep. Shared with the dispatcher, whose wide rows
// leave such strips to it (see wide_rows_pay).
constexpr bool goes_along_m(int64_t rows, int64_t cols, int64_t depth, int64_t lanes) {
  return 2 * cols <= lanes && 2 * rows >= lanes && depth >= lanes;
}

// Whether a wide-rows call holds all of B, `depth` rows of `vectors` vectors, in registers (see rows_held in the
// kernels), next to a row's accumulators and kHeldSpare more: the broadcast element of A, alpha, beta, C's loaded
// vector and AVX2's two masks (vectors there). With fewer spare, GCC 12 spilled B in the AVX2 kernels. No deeper than
// kHeldDepth, which bounds the instantiations.
constexpr int64_t kHeldDepth = 16;
constexpr int64_t kHeldSpare = 6;
STRATA_CONFIG_CONSTEXPR bool b_held(int64_t vectors, int64_t depth) {
  return vectors >= 1 && vectors <= kWideVectors && depth >= 1 && depth <= kHeldDepth &&
         vectors * (depth + 1) + kHeldSpare <= kVectorRegisters;
}

// The most vectors of B's columns held at once at `depth` (see b_held), 0 for none: the width of a held strip (see
// held_strips in the kernels), which runs every row of C over it. Its rows' accumulators are its FMA chains, so it
// takes at least kChains of them (rows times this width) to keep the FMA pipes busy.
STRATA_CONFIG_CONSTEXPR int64_t held_width(int64_t depth) {
  if (depth < 1 || depth > kHeldDepth) return 0;
  const int64_t fit = (kVectorRegisters - kHeldSpare) / (depth + 1);  // the largest vectors b_held allows
  return fit < kWideVectors ? fit : kWideVectors;
}

// Whether `rows` rows of C are enough FMA chains for held strips at `depth` (see held_width); fewer are bound by the
// FMA latency (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "held-strips-rows"). The kernels' wide
// rows and the dispatcher's held_strips_pay both ask this.
STRATA_CONFIG_CONSTEXPR bool held_strips_have_rows(int64_t rows, int64_t depth) {
  return rows * held_width(depth) >= kChains;
}

using TileFn = void (*)(const TileArgs& args);
// Packs rows x depth of A (row-major, lda) into MR-tall micro-panels, or depth x cols of B (row-major, ldb) into
// NR-wide micro-panels, in the layouts the packed micro-kernel reads.
using PackFn = void (*)(const float* src, int64_t ld, int64_t extent, int64_t depth, float* out);
// Convolution packages: gathers rows [row, row + rows) of a convolution's implicit A over k [p, p + depth) from its
// input, in pack_a's layout (see conv_gather.h). Null in the kernel tables of GEMM packages.
struct ConvGeometry;
using GatherFn = void (*)(const ConvGeometry& conv, int64_t row, int64_t p, int64_t rows, int64_t depth, float* out);

}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_TILE_ARGS_H_
