// The hybrid analyzer's model side: turns an (arch, op, compute unit) into the plain parameters of
// templates/cost_model.h and ranks sieve candidates with it.
#pragma once

#include <vector>

#include "cost_model.h"
#include "sieve/sieve.h"

namespace strata {

// Model parameters for one compute unit of `arch` running `op`. Bandwidths are what one parallel unit of a
// level sees: an instance's bandwidth divided by the units of that level that share it.
strata_model::Machine make_machine(const Arch& arch, const Op& op, const SieveResult& sieve);

// Modelled seconds of each level-0 candidate of a GPU sieve that runs on CUDA cores, 0 for every other candidate and
// target, which the flop count models (so a caller without profile records calls it for any target): one warp tile's
// k steps, each bound by the slowest of the sub-partition's FMA pipe, its instruction issue (FMAs, shared-memory
// loads, f16 widening) and its share of the SM's shared-memory wavefronts.
// The flop count alone ranks a 16x1 thread tile (17 loads per 16 FMAs) with an 8x16 one (24 per 128); on an H100
// the kernels it picked that way ran at 4-13 TFLOP/s against cuBLAS's 51.
std::vector<double> cuda_core_level0_seconds(const Arch& arch, const Op& op, const SieveResult& sieve);

// One complete tiling: a candidate index per level, L0 first, each a cross-layer child of the next.
struct RankedTiling {
  std::vector<int> chain;
  strata_model::Tiling tiling{};
  strata_model::Estimate estimate{};
  double score_s = 0;  // the dynamic programme's score: estimate_padded() of this tiling
};

// Profiled level-1 tiles: for each level-1 candidate, the measured time of each (level-0 child, tile) pair that was
// timed, children ascending. Empty when level 1 is modelled; when not, a level-1 candidate with no measured child
// cannot be built (as a level-0 tile outside level0_allowed cannot).
using Level1Profile = std::vector<std::vector<std::pair<int, strata_model::Level1Measured>>>;

// For every candidate of every level, the fastest way to build it from the level below (dynamic programming over
// the cross-layer map). level0_seconds[i] > 0 replaces the model for level-0 candidate i (a profiled time);
// level0_allowed, when not empty, restricts level 0 to the candidates marked true.
struct SubTilings {
  std::vector<std::vector<double>> exec_s;           // [level][candidate]; infinity when it cannot be built
  std::vector<std::vector<int>> child;               // [level][candidate]; the child achieving exec_s, -1 at level 0
  std::vector<strata_model::Level1Measured> level1;  // [level-1 candidate]: the measurement used; empty: modelled
};
SubTilings best_sub_tilings(const strata_model::Machine& machine, const SieveResult& sieve,
                            const std::vector<double>& level0_seconds = {},
                            const std::vector<bool>& level0_allowed = {}, const Level1Profile& level1 = {});

// Whether the sub-tiles of `level` (1 = level 1, ..., num_levels = the problem) are profiled level-1 tiles, whose
// time already includes moving their data (strata_model::level_cost's sub_measured).
inline bool sub_tiles_measured(int level, const Level1Profile& level1) { return level == 2 && !level1.empty(); }

// The tiling that builds top-level candidate `top` the fastest way.
strata_model::Tiling unroll_tiling(const SieveResult& sieve, const SubTilings& best, int top, std::vector<int>* chain,
                                   const std::vector<double>& level0_seconds = {});

// The model for kernels whose tiles do not shrink at the edges of the problem (GPU thread blocks): a block whose
// tile hangs over the edge still runs every warp's full MMA or FMA tile on zero-filled rows, and only whole blocks
// are launched. Levels below `whole_levels` keep their full tiles (Helix's padded reading); the levels above are
// clamped to the problem rounded up to whole tiles of level whole_levels - 1. The CUDA package's dispatcher
// (templates/cuda/dispatch.cpp.tpl, estimate_blocks) evaluates the same formula with whole_levels = 2.
strata_model::Estimate estimate_whole(const strata_model::Machine& machine, const strata_model::Tiling& t,
                                      const int64_t shape[kNumAxes], int whole_levels);

// The best `count` tilings for `shape` (m, n, k), fastest first. Shape-independent parts are solved once per
// candidate by dynamic programming over the cross-layer map: the best way to build a level-L tile is the best
// of its children, since a tile's execution time only grows with its sub-tile's.
std::vector<RankedTiling> rank_tilings(const strata_model::Machine& machine, const SieveResult& sieve,
                                       const std::array<int64_t, kNumAxes>& shape, size_t count,
                                       const std::vector<double>& level0_seconds = {});

}  // namespace strata
