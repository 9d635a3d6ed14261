// The hybrid analyzer's model side: turns an (arch, op, compute unit) into the plain parameters of
// templates/cost_model.h and ranks sieve candidates with it.
#pragma once

#include <vector>

#include "cost_model.h"
#include "cuda/gpu_model.h"
#include "sieve/sieve.h"

namespace strata {

// Model parameters for one compute unit of `arch` running `op`. Bandwidths are what one parallel unit of a
// level sees: an instance's bandwidth divided by the units of that level that share it.
strata_model::Machine make_machine(const Arch& arch, const Op& op, const SieveResult& sieve);

// Modelled seconds of each level-0 candidate of a GPU sieve, 0 for every other candidate and target, which the flop
// count models (so a caller without profile records calls it for any target).
// CUDA cores: one warp tile's k steps, each bound by the slowest of the sub-partition's FMA pipe, its instruction
// issue (FMAs, shared-memory loads, f16 widening) and its share of the SM's shared-memory wavefronts. The flop count
// alone ranks a 16x1 thread tile (17 loads per 16 FMAs) with an 8x16 one (24 per 128); on an H100 the kernels it
// picked that way ran at 4-13 TFLOP/s against cuBLAS's 51.
// Tensor Cores, where the descriptor models occupancy (IsaInfo::models_occupancy): each k16 step issues the warp's
// mma.sync fragments at the mma.sync peak (ComputeSpec::mma_sync_gflops) and loads its A and B fragments (ldmatrix)
// at its sub-partition's share of the SM's shared-memory bandwidth, one after the other: the kernel loads a step's
// fragments, then issues its MMAs. A 32x32 warp tile reads 4 KB of fragments per 8 MMAs, a 64x64 one 4 KB per 32.
std::vector<double> gpu_level0_seconds(const Arch& arch, const Op& op, const SieveResult& sieve);

// The SM limits and block-loop costs of templates/cuda/gpu_model.h from the descriptor; disabled (all 0) where the
// descriptor does not model occupancy or is not a GPU.
strata_gpu::Sm gpu_sm(const Arch& arch);

// Blocks per SM of the level-1 candidate `block` built from level-0 candidate `warp` (its registers per thread and
// warps; the block's shared memory is its footprint); 1 where sm is disabled.
int64_t gpu_occupancy(const strata_gpu::Sm& sm, const SieveResult& sieve, int block, int warp);

// One complete tiling: a candidate index per level, L0 first, each a cross-layer child of the next.
struct RankedTiling {
  std::vector<int> chain;
  strata_model::Tiling tiling{};
  strata_model::Estimate estimate{};
  double score_s = 0;     // the dynamic programme's score: estimate_padded() of this tiling (GPU path: estimate)
  int64_t occupancy = 0;  // GPU with occupancy modelled: blocks per SM (see gpu_occupancy); else 0
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
  // GPU with occupancy modelled: [level-1 candidate] blocks per SM with its child (exec_s[1] is then one round of
  // that many blocks, templates/cuda/gpu_model.h); empty otherwise.
  std::vector<int64_t> occupancy;
};
// sm (GPU): the block and grid levels of templates/cuda/gpu_model.h, where enabled; a level-1 candidate's child is
// then the warp tile with the least round time per resident block.
SubTilings best_sub_tilings(const strata_model::Machine& machine, const SieveResult& sieve,
                            const std::vector<double>& level0_seconds = {},
                            const std::vector<bool>& level0_allowed = {}, const Level1Profile& level1 = {},
                            const strata_gpu::Sm* sm = nullptr);

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

// estimate_whole(..., 2) with the block and grid levels of templates/cuda/gpu_model.h for a kernel whose SMs hold
// `occupancy` blocks (the same as estimate_whole where sm is disabled). The CUDA dispatcher's estimate_blocks
// evaluates the same formula.
strata_model::Estimate estimate_gpu(const strata_model::Machine& machine, const strata_gpu::Sm& sm,
                                    const strata_model::Tiling& t, int64_t occupancy, const int64_t shape[kNumAxes]);

// The best `count` tilings for `shape` (m, n, k), fastest first. Shape-independent parts are solved once per
// candidate by dynamic programming over the cross-layer map: the best way to build a level-L tile is the best
// of its children, since a tile's execution time only grows with its sub-tile's.
// gpu (enabled, three levels): ranked as select_kernels ranks Tensor Core blocks, by estimate_gpu over every
// buildable outermost candidate, each level-1 candidate built from its child of least round time per resident block.
std::vector<RankedTiling> rank_tilings(const strata_model::Machine& machine, const SieveResult& sieve,
                                       const std::array<int64_t, kNumAxes>& shape, size_t count,
                                       const std::vector<double>& level0_seconds = {},
                                       const strata_gpu::Sm* gpu = nullptr);

}  // namespace strata
