// The block and grid levels of Strata's model for CUDA thread blocks: occupancy and the block's k loop.
//
// Like cost_model.h, this one file is used twice: the generator includes it to rank block tiles, and every CUDA
// package carries a verbatim copy that its dispatcher uses to choose a kernel per call. Plain C++17, no includes
// beyond cost_model.h and the standard library.
//
// Eqs. 5-7 at the block level see one block alone on its SM's sub-partitions, with nothing between its k tiles.
// On an H100 that ranked a 64x128x256 block of four warps and 198 KB of shared memory (one block, one warp per
// sub-partition: 133 TFLOP/s on 4096^3) above a 128x128x64 block of four 64x64 warp tiles (two blocks per SM: 233).
// What a GPU does that the equations leave out:
//  - Occupancy. An SM holds as many blocks at once as its registers, shared memory, threads and block slots allow
//    (blocks_per_sm). Their warps share its sub-partitions: one sub-partition runs `wsp` warps in turn.
//  - Latency hiding. A warp alone on its sub-partition waits, every k16 step, for its fragments to arrive from
//    shared memory (step_latency_s); with more warps there the others fill that time. So a round of the block
//    level costs max(wsp x one warp's work, one warp's work + its waits): the issue-bound and the latency-bound time.
//  - The k loop. Every k tile a block waits at a barrier for its slowest warp and for the stage's copies, and issues
//    the next stage's (sync_s); the stage's bytes also land in shared memory (shared_Bps). Fewer, deeper k tiles pay
//    this less often; co-resident blocks pay it together, once per round.
// So level 1 is one round: each of the `occupancy` blocks of an SM runs one k tile,
//   T_round = max(wsp * T_warp, max(T_warp, steps * step_floor) + steps * step_latency)
//             + occupancy * Bytes(k tile) / shared_Bps + sync_s,
// with T_warp the level-0 time of the warp's share of the k tile (step_floor is 0 for mma.sync and FMA warps; a
// wgmma slice's dependent instructions take a fixed time however narrow the tile). Level 2 (the grid over the SMs)
// then has SMs x occupancy parallel units, each with 1 / occupancy of its SM's L2 bandwidth, and its blocks keep
// their sums in registers across k (no partial sums move between k tiles) and drain C once, at their share of DRAM
// among the blocks resident at once. The grid is every block of the call, each spanning its whole k range as the
// kernel's blocks do, and an SM holds no more of them than fall to it; the problem level overlaps the DRAM stream
// with the blocks' work.
#ifndef STRATA_GPU_MODEL_H_
#define STRATA_GPU_MODEL_H_

#include <cstdint>

#include "cost_model.h"

// strata_gpu in the generator; a package names its own (STRATA_GPU_NAMESPACE), as for cost_model.h.
#ifndef STRATA_GPU_NAMESPACE
#define STRATA_GPU_NAMESPACE strata_gpu
#endif

namespace STRATA_GPU_NAMESPACE {

namespace strata_model = ::STRATA_MODEL_NAMESPACE;

// The SM as the block level sees it; all zero (blocks_per_sm_max == 0) turns the terms above off, leaving Eqs. 5-7.
struct Sm {
  int64_t registers;          // 32-bit registers per SM
  int64_t register_unit;      // registers a warp is given at a time
  int64_t shared_bytes;       // shared memory per SM
  int64_t shared_reserved;    // shared memory the system takes per block
  int64_t threads;            // resident threads per SM
  int64_t blocks_per_sm_max;  // resident blocks per SM
  int64_t warp_size;          // threads per warp
  int64_t step_k;             // k of one warp step (one mma.sync k16, or 16 FMA k steps)
  double sync_s;              // per block k tile: barrier, pipeline wait, next stage's copies issued
  double step_latency_s;      // per warp step a warp alone on its sub-partition waits for its operands
  double shared_Bps;          // shared-memory bandwidth of one SM (the stages' copies land there); 0: the copies
                              // run on the tensor copy engine beside the block's work and cost it nothing
  double step_floor_s;        // a warp step takes at least this long however little it computes (wgmma: a slice's
                              // dependent wgmma instructions); 0: no floor
};

inline bool enabled(const Sm& sm) { return sm.blocks_per_sm_max > 0; }

// How many blocks of `threads` threads, `registers` registers each and `shared_bytes` of shared memory one SM could
// hold by each of its limits (blocks_per_sm is the least of them; the generator reports each).
struct BlockLimits {
  int64_t by_threads, by_registers, by_shared, by_slots;
};
inline BlockLimits block_limits(const Sm& sm, int64_t threads, int64_t registers, int64_t shared_bytes) {
  const int64_t warps = strata_model::ceil_div(threads, sm.warp_size);
  const int64_t per_warp = strata_model::ceil_div(registers * sm.warp_size, sm.register_unit) * sm.register_unit;
  BlockLimits l;
  l.by_threads = sm.threads / (warps * sm.warp_size);
  l.by_registers = per_warp > 0 ? sm.registers / (per_warp * warps) : sm.blocks_per_sm_max;
  l.by_shared = sm.shared_bytes / (shared_bytes + sm.shared_reserved);
  l.by_slots = sm.blocks_per_sm_max;
  return l;
}

// Blocks of `threads` threads, `registers` registers each and `shared_bytes` of shared memory that one SM holds at
// once (0: none fits).
inline int64_t blocks_per_sm(const Sm& sm, int64_t threads, int64_t registers, int64_t shared_bytes) {
  if (!enabled(sm)) return 1;
  const BlockLimits l = block_limits(sm, threads, registers, shared_bytes);
  int64_t n = l.by_slots;
  if (l.by_threads < n) n = l.by_threads;
  if (l.by_registers < n) n = l.by_registers;
  if (l.by_shared < n) n = l.by_shared;
  return n;
}

// Level 1 on a GPU: one round of `occupancy` co-resident blocks of `block`, each running one k tile of its warps'
// `warp` tiles (warp_s: the level-0 time of one warp tile); p is level 1's parameters (its units: sub-partitions).
inline strata_model::LevelCost block_round(const strata_model::Machine& m, const strata_model::LevelParams& p,
                                           const Sm& sm, const int64_t block[strata_model::kAxes],
                                           const int64_t warp[strata_model::kAxes], double warp_s,
                                           int64_t occupancy) {
  strata_model::LevelCost c{};
  const int64_t warps = strata_model::ceil_div(block[0], warp[0]) * strata_model::ceil_div(block[1], warp[1]);
  const int64_t wsp = strata_model::ceil_div(occupancy * warps, p.parallel_units);
  const double warp_k_s = static_cast<double>(strata_model::ceil_div(block[2], warp[2])) * warp_s;
  const double steps = static_cast<double>(strata_model::ceil_div(block[2], sm.step_k));
  const double issue_s = static_cast<double>(wsp) * warp_k_s;
  const double floor_s = steps * sm.step_floor_s;
  const double chain_s = (warp_k_s > floor_s ? warp_k_s : floor_s) + steps * sm.step_latency_s;
  c.n_parallel = warps;
  c.n_temporal = strata_model::ceil_div(block[2], warp[2]);
  c.waves = wsp;
  c.compute_s = issue_s > chain_s ? issue_s : chain_s;
  c.load_s =
      sm.shared_Bps > 0 ? static_cast<double>(occupancy) * strata_model::input_bytes(m, block) / sm.shared_Bps : 0.0;
  c.store_s = 0;
  c.temporal_s = c.compute_s + c.load_s + sm.sync_s;
  c.exec_s = c.temporal_s;
  return c;
}

// Level 2's parameters when each SM holds `occupancy` blocks.
inline strata_model::LevelParams grid_params(strata_model::LevelParams p, int64_t occupancy) {
  p.parallel_units *= occupancy;
  p.bandwidth_Bps /= static_cast<double>(occupancy);
  return p;
}

// Level 2's cost of a grid tile made of blocks whose round (block_round) takes round_s. A block's epilogue writes its
// C tile from the accumulators (4-byte stores, half a 32-byte sector each, read and written as Eq. 2 counts C) after
// its last k tile, and the blocks of a wave finish together: each drains at its share of DRAM among the blocks
// resident at once. That, not all of DRAM, is what a wave of blocks with few k tiles (split-K, short K) waits for.
inline strata_model::LevelCost grid_cost(const strata_model::Machine& m, const int64_t grid[strata_model::kAxes],
                                         const int64_t block[strata_model::kAxes], double round_s,
                                         int64_t occupancy) {
  const strata_model::LevelParams p = grid_params(m.level[2], occupancy);
  strata_model::LevelCost c = strata_model::level_cost(m, p, grid, block, round_s, true);
  const int64_t resident = c.n_parallel < p.parallel_units ? c.n_parallel : p.parallel_units;
  const double store_s =
      2.0 * strata_model::output_bytes(m, block) * static_cast<double>(resident) / m.problem.bandwidth_Bps;
  c.temporal_s += store_s - c.store_s;
  c.store_s = store_s;
  c.exec_s = static_cast<double>(c.waves) * c.temporal_s;
  return c;
}

// The problem level on a GPU: every block of the call is one grid (waves over SMs x occupancy, level 2), and the
// blocks stream A and B from DRAM and drain C there while others compute, so the call takes the longer of the two
// after one DRAM latency (Eq. 5 with the loads overlapped, as at the levels below).
inline strata_model::LevelCost problem_cost(const strata_model::Machine& m, const int64_t shape[strata_model::kAxes],
                                            double grid_s) {
  strata_model::LevelCost c{};
  c.n_temporal = c.n_parallel = c.waves = 1;
  const double bytes = strata_model::input_bytes(m, shape) + strata_model::output_bytes(m, shape);
  c.load_s = m.problem.latency_s;
  c.compute_s = grid_s;
  const double stream_s = bytes / m.problem.bandwidth_Bps;
  c.temporal_s = c.load_s + (stream_s > grid_s ? stream_s : grid_s);
  c.exec_s = c.temporal_s;
  return c;
}

// The whole call for tiles[0..1] (warp and block tile, whole) on shape; l0_s > 0: the level-0 time of one warp tile.
// The grid is every block of the call (tiles[2] is not used: the kernel's blocks span their whole k range, and the
// SMs take them in waves). Three-level machines only.
inline strata_model::Estimate estimate(const strata_model::Machine& m, const Sm& sm,
                                       const int64_t tiles[strata_model::kMaxLevels][strata_model::kAxes],
                                       double l0_s, int64_t occupancy, const int64_t shape[strata_model::kAxes]) {
  if (!enabled(sm) || m.num_levels != 3 || occupancy < 1) return strata_model::estimate_tiles(m, tiles, l0_s, shape);
  strata_model::Estimate e{};
  int64_t grid[strata_model::kAxes];
  for (int a = 0; a < strata_model::kAxes; ++a) {
    grid[a] = strata_model::ceil_div(shape[a], tiles[1][a]) * tiles[1][a];
    if (grid[a] < tiles[1][a]) grid[a] = tiles[1][a];
  }
  // Blocks go to idle SMs first: with fewer blocks than SMs x occupancy, an SM holds only as many as fall to it.
  const int64_t blocks = (grid[0] / tiles[1][0]) * (grid[1] / tiles[1][1]);
  const int64_t filled = strata_model::ceil_div(blocks, m.level[2].parallel_units);
  if (filled < occupancy) occupancy = filled < 1 ? 1 : filled;
  e.level[0] = strata_model::level0_cost(m, tiles[0], l0_s);
  e.level[1] = block_round(m, m.level[1], sm, tiles[1], tiles[0], e.level[0].exec_s, occupancy);
  e.level[2] = grid_cost(m, grid, tiles[1], e.level[1].exec_s, occupancy);
  e.level[3] = problem_cost(m, shape, e.level[2].exec_s);
  e.total_s = m.launch_s + e.level[3].exec_s;
  return e;
}

// Split-K's reduction (every partial sum and C read, C written): the bytes at DRAM's bandwidth and `latency_waits`
// DRAM latencies, plus a launch where it is a second kernel. The reduction reads a thread's `splits` partial sums one
// after another, so a kernel whose blocks this model prices waits one per split; Eqs. 5-7's kernels (blocks_per_sm
// 0) are priced with one. The wgmma kernels reduce in the same launch (second_launch false): the last split of each
// tile does it.
inline double splitk_reduce_s(const strata_model::Machine& m, int64_t rows, int64_t cols, int splits,
                              int latency_waits, bool second_launch = true) {
  const double bytes = static_cast<double>(rows) * static_cast<double>(cols) * 4.0 * (splits + 2);
  return (second_launch ? m.launch_s : 0.0) + m.problem.latency_s * static_cast<double>(latency_waits) +
         bytes / m.problem.bandwidth_Bps;
}

}  // namespace STRATA_GPU_NAMESPACE

#endif  // STRATA_GPU_MODEL_H_
