// Selection: the compact kernel set a package ships (Helix's select stage). Sample-free: the shapes considered
// are a grid the architecture implies (powers of two and three-times-powers-of-two from 1 to 8192 per axis), never
// user samples.
//
// 1. Level 0: a pool of the best register tiles (profiled GFLOP/s, or the model when not profiled; on a CPU, tiles
//    within 1% of the best are ranked by vector loads per FMA instead), plus the best "partner" tiles for skinny
//    shapes (few rows; a single vector of columns, short enough to run in place whole).
// 2. For every shape of a coarse grid (powers of two), the model's best full tiling (L0 from the pool, L1 and L2
//    from the cross-layer map); the tilings that win most shapes go on.
// 3. Greedy set cover over those winners: add the kernel that most improves the geometric mean of the best
//    modelled time over the grid, until `max_kernels` or until the gain drops below `min_gain` (for a blocking
//    variant of a register tile in the set, below `variant_gain`).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "analyze/model.h"

namespace strata {

struct SelectedKernel {
  std::vector<int> chain;  // candidate index per level, L0 first
  strata_model::Tiling tiling{};
  int64_t occupancy = 1;                          // GPU: blocks per SM (SelectOptions::gpu), else 1
  int64_t shapes_won = 0;                         // grid cases on which it is the selected set's best
  std::array<int64_t, kNumAxes> example_shape{};  // the grid shape it wins by the largest margin
};

struct Selection {
  std::vector<SelectedKernel> kernels;  // in the order they were chosen (most useful first)
  int64_t grid_shapes = 0;
  int64_t grid_cases = 0;        // the grid's shapes, each priced once per thread count SelectOptions::price asks for
  std::vector<int> level0_pool;  // level-0 candidates considered
  double level0_tolerance = 0;   // ties within it ranked by the tie-break (0: throughput alone)
  double geomean_vs_unrestricted = 1.0;  // model: best-of-set time / best-of-all-winners time, geometric mean
};

// The level-0 pool for a GPU, whose level 0 is modelled (see cmd_generate and the CUDA package's partners).
constexpr size_t kGpuLevel0Pool = 32;

struct SelectOptions {
  size_t max_kernels = 12;
  size_t level0_pool = 6;  // best register tiles by level-0 throughput
  // Level-0 tiles within this fraction of the best throughput count as equally fast, and among them the lower
  // level0_tie_break[i] ranks first (empty: throughput alone). A profile on a shared machine repeats to about 1%:
  // on Zen 4 the k-unroll variants of one tile spread over 116.0-117.3 GFLOP/s, and some fifty register tiles
  // reached the peak within that, so ranking them by throughput ranked them by noise.
  double level0_tolerance = 0.01;
  std::vector<double> level0_tie_break;
  // The one-vector partner serves shapes of at most one tile of columns, which a CPU package runs in place; there a
  // one-vector tile of more rows than direct_tile_rows() runs split in two or keeps its row offsets on the stack
  // (see the kernels' tile_body), so the partner is the best tile of at most this many rows (0: any).
  int64_t narrow_partner_rows = 0;
  double min_gain = 0.005;  // stop adding kernels that improve the grid's geometric mean by less than this
  // Where > 0, a blocking variant of a register tile already in the set is added while it improves the grid's
  // geometric mean by at least this, after no other kernel reaches min_gain. On a CPU a variant adds a row to the
  // kernel table and no code (its kernels share one micro-kernel file); on a GPU it is another instantiation.
  double variant_gain = 0;
  size_t max_winners = 96;  // best tilings of the coarse grid carried into the greedy cover
  // When not empty, level-0 candidate i may be used only if level0_allowed[i]: a backend whose templates emit a
  // subset of what the sieve keeps (e.g. only one MMA instruction shape) restricts selection to that subset.
  std::vector<bool> level0_allowed;
  // The grid's M axis stops here (default: the full 8192). A backend choosing partner kernels for shapes with few
  // rows selects over that corner of the grid only.
  int64_t grid_max_m = 8192;
  // 0: grid shapes are timed with strata_model::estimate() (tiles shrink at the edges, as CPU micro-kernels do);
  // L > 0: with estimate_whole(..., L), for kernels whose levels below L always run whole tiles (GPU blocks).
  int whole_levels = 0;
  // Profiled level-1 tiles (see Level1Profile), or null: level 1 modelled. Only the pool's level-0 tiles need be
  // measured: level-1 tiles of others are not considered anyway.
  const Level1Profile* level1 = nullptr;
  // GPU: the block and grid levels of templates/cuda/gpu_model.h (occupancy, the block's k loop), where enabled;
  // disabled (the default): estimate_whole(..., whole_levels).
  strata_gpu::Sm gpu{};
  // Where set, the greedy cover prices a kernel's tiling over the grid with it instead of the model's packed
  // estimate: the time of each grid case, its shapes in grid order, once per thread count the backend weighs, one
  // after another (a CPU package's planner, see emit/package.cpp). Called from several threads at once.
  std::function<std::vector<double>(const strata_model::Tiling&, const std::vector<std::array<int64_t, kNumAxes>>&)>
      price;
};

// A compute unit's kernels beside a package's main selection (a GPU package's CUDA-core partners, its Hopper wgmma
// kernels): the unit's candidates, model and selection, made by the pipeline before anything is rendered.
struct UnitSelection {
  ComputeUnit unit = ComputeUnit::cuda_core;
  bool wgmma = false;  // analyze/wgmma_family.h's kernels
  SieveResult sieve;   // the unit's candidates (the wgmma family for wgmma)
  strata_model::Machine machine{};
  strata_gpu::Sm sm{};  // wgmma: the family's SM parameters; else unused (the package's gpu_sm)
  Selection selection;
  int64_t grid_max_m = 8192;  // the selection grid's largest M
};

// level0_seconds: per level-0 candidate, the profiled time of one tile (0 = modelled).
Selection select_kernels(const SieveResult& sieve, const strata_model::Machine& machine,
                         const std::vector<double>& level0_seconds, const SelectOptions& options);

// Step 1 alone: the level-0 candidates selection draws on (indices into sieve.levels[0]), best first. A profiled
// level 1 times the level-1 tiles of these.
std::vector<int> level0_pool(const SieveResult& sieve, const strata_model::Machine& machine,
                             const std::vector<double>& level0_seconds, const SelectOptions& options);

// The grid of one axis: 1, 2, 3, 4, 6, 8, 12, ... up to and including `limit`.
std::vector<int64_t> shape_grid_axis(int64_t limit);

}  // namespace strata
