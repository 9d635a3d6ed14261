#include "analyze/model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata {
namespace {

strata_model::LoopKind loop_kind(LoopType t) {
  switch (t) {
    case LoopType::PL: return strata_model::kParallel;
    case LoopType::TNL: return strata_model::kTemporal;
    case LoopType::TRL: return strata_model::kReduction;
  }
  return strata_model::kTemporal;
}

strata_model::LevelParams level_params(const MemorySpec& memory, int64_t parallel_units) {
  strata_model::LevelParams p{};
  p.latency_s = memory.latency_ns * 1e-9;
  const int64_t sharers = std::max<int64_t>(1, std::min<int64_t>(memory.shared_by, parallel_units));
  p.bandwidth_Bps = memory.bandwidth_gbps * 1e9 / static_cast<double>(sharers);
  p.parallel_units = parallel_units;
  return p;
}

}  // namespace

strata_model::Machine make_machine(const Arch& arch, const Op& op, const SieveResult& sieve) {
  const RKernel* rkernel = op.rkernel_for(arch.target);
  strata_model::Machine m{};
  m.num_levels = static_cast<int>(arch.levels.size());
  if (m.num_levels > strata_model::kMaxLevels)
    throw Error({arch.file, 0, 0},
                "more levels than the model supports (" + std::to_string(strata_model::kMaxLevels) + ")");
  for (int l = 0; l < m.num_levels; ++l) {
    const LevelSpec& level = arch.levels[static_cast<size_t>(l)];
    m.level[l] = level_params(arch.memory_of(level), level.parallel_units);
    const RKernelLevel& rk = rkernel->levels[static_cast<size_t>(l)];
    for (int a = 0; a < kNumAxes; ++a) m.level[l].loop[a] = loop_kind(rk.loops[a]);
    m.level[l].serial_load = !rk.load_overlaps_compute;
  }
  m.problem = level_params(arch.outermost_memory(), 1);
  m.problem.loop[kAxisM] = m.problem.loop[kAxisN] = strata_model::kTemporal;
  m.problem.loop[kAxisK] = strata_model::kReduction;
  m.unit_flops = sieve.peak_gflops * 1e9 / static_cast<double>(arch.level0_units());
  m.launch_s = arch.launch_overhead_ns * 1e-9;
  m.fma_latency_s = arch.is_gpu() ? 0.0 : arch.isa.fma_latency_cycles / (arch.clock_ghz * 1e9);
  m.a_bytes = op.a_bytes();
  m.b_bytes = op.b_bytes();
  m.c_bytes = op.c_bytes();
  return m;
}

std::vector<double> gpu_level0_seconds(const Arch& arch, const Op& op, const SieveResult& sieve) {
  const auto& cands = sieve.levels.at(0).candidates;
  std::vector<double> seconds(cands.size(), 0.0);
  if (!arch.is_gpu() || arch.levels.size() < 2) return seconds;
  const double clock_hz = arch.clock_ghz * 1e9;
  const double warp = arch.isa.warp_size;
  const double unit_flops = sieve.peak_gflops * 1e9 / static_cast<double>(arch.level0_units());
  // Shared memory serves one wavefront (a warp's request to distinct 4-byte banks, 128 B) at a time; the SM's
  // bandwidth is split between the sub-partitions that level 1 runs on.
  constexpr double kWavefrontBytes = 128;
  const LevelSpec& block = arch.levels[1];
  const double shared_Bps =
      arch.memory_of(block).bandwidth_gbps * 1e9 / static_cast<double>(std::max<int64_t>(1, block.parallel_units));
  const double elem = static_cast<double>(op.a_bytes());
  const bool widen = op.a_type == DataType::f16;
  const bool b_row_major = op.b_layout == Layout::row_major;
  // Tensor Cores: mma.sync at its own peak, where the descriptor gives one, on each of the level-0 units.
  double mma_flops = 0;
  for (const ComputeSpec& c : arch.compute)
    if (c.unit == ComputeUnit::tensor_core && c.input == op.a_type)
      mma_flops = (c.mma_sync_gflops > 0 ? c.mma_sync_gflops : c.peak_gflops) * 1e9 /
                  static_cast<double>(arch.level0_units());
  for (size_t i = 0; i < cands.size(); ++i) {
    const Candidate& c = cands[i];
    if (c.mma_index >= 0) {
      if (!arch.isa.models_occupancy() || sieve.unit != ComputeUnit::tensor_core || mma_flops <= 0) continue;
      const MmaShape& mma = arch.isa.mma.at(static_cast<size_t>(c.mma_index));
      const double wm = static_cast<double>(c.tile[kAxisM]), wn = static_cast<double>(c.tile[kAxisN]);
      const double mmas = (wm / mma.m) * (wn / mma.n);
      const double mma_s = mmas * 2.0 * mma.m * mma.n * mma.k / mma_flops;
      const double fragment_bytes = (wm * size_of(mma.a) + wn * size_of(mma.b)) * mma.k;
      const double steps = std::ceil(static_cast<double>(c.tile[kAxisK]) / mma.k);
      seconds[i] = steps * (mma_s + fragment_bytes / shared_Bps);
      continue;
    }
    if (c.thread_m <= 0) continue;
    const double tm = c.thread_m, tn = c.thread_n, cols = c.warp_cols;
    // Per k step, as the kernel (gemm_cuda_core) reads: one load of A per row, broadcast within a warp row, its
    // rows in different banks (the sieve keeps warp rows within the conflict-free count); B in groups of four
    // neighbours where its rows run along n, one wavefront per 128 B the warp reads, else one load per column.
    const bool grouped = b_row_major && c.thread_n % 4 == 0;
    const double b_loads = grouped ? tn / 4 : tn;
    const double b_wavefronts = grouped ? b_loads * std::ceil(cols * 4 * elem / kWavefrontBytes) : tn;
    const double wavefronts = tm + b_wavefronts;
    const double widening = widen ? tm + (grouped ? b_loads * 2 : tn) : 0;
    const double fma_s = tm * tn * warp * 2 / unit_flops;
    const double issue_s = (tm * tn + tm + b_loads + widening) / clock_hz;
    const double shared_s = wavefronts * kWavefrontBytes / shared_Bps;
    seconds[i] = static_cast<double>(c.tile[kAxisK]) * std::max({fma_s, issue_s, shared_s});
  }
  return seconds;
}

strata_gpu::Sm gpu_sm(const Arch& arch) {
  strata_gpu::Sm sm{};
  if (!arch.is_gpu() || !arch.isa.models_occupancy() || arch.levels.size() != 3) return sm;
  const IsaInfo& isa = arch.isa;
  const double cycle_s = 1e-9 / arch.clock_ghz;
  sm.registers = isa.registers_per_sm;
  sm.register_unit = isa.register_allocation_unit;
  sm.shared_bytes = isa.shared_memory_per_sm_bytes;
  sm.shared_reserved = isa.shared_memory_reserved_per_block_bytes;
  sm.threads = isa.threads_per_sm_max;
  sm.blocks_per_sm_max = isa.blocks_per_sm_max;
  sm.warp_size = isa.warp_size;
  sm.step_k = 16;
  sm.sync_s = isa.block_sync_cycles * cycle_s;
  sm.step_latency_s = isa.warp_step_latency_cycles * cycle_s;
  sm.shared_Bps = arch.memory_of(arch.levels[1]).bandwidth_gbps * 1e9;
  return sm;
}

int64_t gpu_occupancy(const strata_gpu::Sm& sm, const SieveResult& sieve, int block, int warp) {
  const Candidate& b = sieve.levels.at(1).candidates.at(static_cast<size_t>(block));
  const Candidate& w = sieve.levels.at(0).candidates.at(static_cast<size_t>(warp));
  if (b.blocks_per_sm > 0) return strata_gpu::enabled(sm) ? b.blocks_per_sm : 1;
  const int64_t warps = (b.tile[kAxisM] / w.tile[kAxisM]) * (b.tile[kAxisN] / w.tile[kAxisN]);
  return strata_gpu::blocks_per_sm(sm, warps * std::max<int64_t>(1, sm.warp_size), w.registers, b.footprint_bytes);
}

SubTilings best_sub_tilings(const strata_model::Machine& machine, const SieveResult& sieve,
                            const std::vector<double>& level0_seconds, const std::vector<bool>& level0_allowed,
                            const Level1Profile& level1, const strata_gpu::Sm* sm) {
  const size_t levels = sieve.levels.size();
  SubTilings best;
  best.exec_s.resize(levels);
  best.child.resize(levels);
  const bool gpu = sm != nullptr && strata_gpu::enabled(*sm) && levels == 3 && level1.empty();
  if (gpu) best.occupancy.assign(sieve.levels[1].candidates.size(), 0);
  if (!level1.empty() && levels > 1) best.level1.assign(sieve.levels[1].candidates.size(), {});
  for (size_t l = 0; l < levels; ++l) {
    const auto& cands = sieve.levels[l].candidates;
    best.exec_s[l].assign(cands.size(), std::numeric_limits<double>::infinity());
    best.child[l].assign(cands.size(), -1);
    for (size_t i = 0; i < cands.size(); ++i) {
      if (l == 0) {
        if (!level0_allowed.empty() && !level0_allowed[i]) continue;
        const double measured = i < level0_seconds.size() ? level0_seconds[i] : 0;
        best.exec_s[0][i] = strata_model::level0_cost(machine, cands[i].tile.data(), measured).exec_s;
        continue;
      }
      if (l == 1 && !best.level1.empty()) {  // profiled: the fastest measured child
        if (i >= level1.size()) continue;
        for (const auto& [child, m] : level1[i]) {
          if (best.exec_s[0][static_cast<size_t>(child)] == std::numeric_limits<double>::infinity()) continue;
          const double t = m.pack_a_s + m.pack_b_s + m.tiles_s;
          if (t < best.exec_s[1][i]) {
            best.exec_s[1][i] = t;
            best.child[1][i] = child;
            best.level1[i] = m;
          }
        }
        continue;
      }
      if (gpu && l == 1) {  // the warp tile whose round costs least per resident block
        double best_per_block = std::numeric_limits<double>::infinity();
        for (int child : cands[i].children) {
          const double sub = best.exec_s[0][static_cast<size_t>(child)];
          if (sub == std::numeric_limits<double>::infinity()) continue;
          const int64_t occupancy = gpu_occupancy(*sm, sieve, static_cast<int>(i), child);
          if (occupancy < 1) continue;
          const auto& sub_tile = sieve.levels[0].candidates[static_cast<size_t>(child)].tile;
          const double t = strata_gpu::block_round(machine, machine.level[1], *sm, cands[i].tile.data(),
                                                   sub_tile.data(), sub, occupancy)
                               .exec_s;
          if (t / static_cast<double>(occupancy) < best_per_block) {
            best_per_block = t / static_cast<double>(occupancy);
            best.exec_s[1][i] = t;
            best.child[1][i] = child;
            best.occupancy[i] = occupancy;
          }
        }
        continue;
      }
      if (gpu && l == 2) {
        for (int child : cands[i].children) {
          const double sub = best.exec_s[1][static_cast<size_t>(child)];
          if (sub == std::numeric_limits<double>::infinity()) continue;
          const auto& sub_tile = sieve.levels[1].candidates[static_cast<size_t>(child)].tile;
          const double t = strata_gpu::grid_cost(machine, cands[i].tile.data(), sub_tile.data(), sub,
                                                 best.occupancy[static_cast<size_t>(child)])
                               .exec_s;
          if (t < best.exec_s[2][i]) {
            best.exec_s[2][i] = t;
            best.child[2][i] = child;
          }
        }
        continue;
      }
      for (int child : cands[i].children) {
        const double sub = best.exec_s[l - 1][static_cast<size_t>(child)];
        if (sub == std::numeric_limits<double>::infinity()) continue;
        const auto& sub_tile = sieve.levels[l - 1].candidates[static_cast<size_t>(child)].tile;
        const double t = strata_model::level_cost(machine, machine.level[l], cands[i].tile.data(), sub_tile.data(),
                                                  sub, l == 1, sub_tiles_measured(static_cast<int>(l), level1))
                             .exec_s;
        if (t < best.exec_s[l][i]) {
          best.exec_s[l][i] = t;
          best.child[l][i] = child;
        }
      }
    }
  }
  return best;
}

strata_model::Tiling unroll_tiling(const SieveResult& sieve, const SubTilings& best, int top, std::vector<int>* chain,
                                   const std::vector<double>& level0_seconds) {
  const size_t levels = sieve.levels.size();
  strata_model::Tiling tiling{};
  std::vector<int> indices(levels, -1);
  int index = top;
  for (size_t l = levels; l-- > 0;) {
    indices[l] = index;
    const auto& tile = sieve.levels[l].candidates[static_cast<size_t>(index)].tile;
    std::copy(tile.begin(), tile.end(), tiling.tile[l]);
    if (l > 0) index = best.child[l][static_cast<size_t>(index)];
  }
  const size_t l0 = static_cast<size_t>(indices[0]);
  tiling.l0_measured_s = l0 < level0_seconds.size() ? level0_seconds[l0] : 0;
  if (!best.level1.empty()) tiling.l1 = best.level1[static_cast<size_t>(indices[1])];
  if (chain) *chain = std::move(indices);
  return tiling;
}

strata_model::Estimate estimate_whole(const strata_model::Machine& machine, const strata_model::Tiling& t,
                                      const int64_t shape[kNumAxes], int whole_levels) {
  if (strata_model::empty_problem(shape)) {
    strata_model::Estimate e{};
    e.total_s = machine.launch_s;
    return e;
  }
  int64_t tiles[strata_model::kMaxLevels][kNumAxes] = {};
  for (int l = machine.num_levels - 1; l >= 0; --l)
    for (int a = 0; a < kNumAxes; ++a) {
      if (l < whole_levels) {
        tiles[l][a] = t.tile[l][a];
        continue;
      }
      const int64_t above = l == machine.num_levels - 1 ? shape[a] : tiles[l + 1][a];
      const int64_t unit = whole_levels > 0 ? t.tile[whole_levels - 1][a] : 1;
      tiles[l][a] = std::min(t.tile[l][a], strata_model::ceil_div(above, unit) * unit);
    }
  return strata_model::estimate_tiles(machine, tiles, t.l0_measured_s, shape);
}

strata_model::Estimate estimate_gpu(const strata_model::Machine& machine, const strata_gpu::Sm& sm,
                                    const strata_model::Tiling& t, int64_t occupancy, const int64_t shape[kNumAxes]) {
  if (!strata_gpu::enabled(sm) || machine.num_levels != 3) return estimate_whole(machine, t, shape, 2);
  if (strata_model::empty_problem(shape)) {
    strata_model::Estimate e{};
    e.total_s = machine.launch_s;
    return e;
  }
  int64_t tiles[strata_model::kMaxLevels][kNumAxes] = {};
  for (int a = 0; a < kNumAxes; ++a) {
    tiles[0][a] = t.tile[0][a];
    tiles[1][a] = t.tile[1][a];
    tiles[2][a] = std::min(t.tile[2][a], strata_model::ceil_div(shape[a], t.tile[1][a]) * t.tile[1][a]);
  }
  return strata_gpu::estimate(machine, sm, tiles, t.l0_measured_s, occupancy, shape);
}

std::vector<RankedTiling> rank_tilings(const strata_model::Machine& machine, const SieveResult& sieve,
                                       const std::array<int64_t, kNumAxes>& shape, size_t count,
                                       const std::vector<double>& level0_seconds, const strata_gpu::Sm* gpu) {
  const size_t levels = sieve.levels.size();
  if (gpu != nullptr && (!strata_gpu::enabled(*gpu) || levels != 3)) gpu = nullptr;
  const SubTilings best = best_sub_tilings(machine, sieve, level0_seconds, {}, {}, gpu);
  const auto& top = sieve.levels[levels - 1].candidates;
  if (gpu != nullptr) {  // every buildable outermost candidate under the whole-call model the selection ranks by
    std::vector<RankedTiling> out;
    std::vector<bool> seen_blocks(sieve.levels[1].candidates.size(), false);
    for (size_t i = 0; i < top.size(); ++i) {
      if (best.exec_s[levels - 1][i] == std::numeric_limits<double>::infinity()) continue;
      // The model's grid is every block of the call, whatever the grid tile: one entry per block tile.
      const int block = best.child[levels - 1][i];
      if (seen_blocks[static_cast<size_t>(block)]) continue;
      seen_blocks[static_cast<size_t>(block)] = true;
      RankedTiling t;
      t.tiling = unroll_tiling(sieve, best, static_cast<int>(i), &t.chain, level0_seconds);
      t.occupancy = best.occupancy[static_cast<size_t>(t.chain[1])];
      if (t.occupancy < 1) continue;
      t.estimate = estimate_gpu(machine, *gpu, t.tiling, t.occupancy, shape.data());
      t.score_s = t.estimate.total_s;
      out.push_back(std::move(t));
    }
    std::stable_sort(out.begin(), out.end(), [](const RankedTiling& a, const RankedTiling& b) {
      return a.estimate.total_s < b.estimate.total_s;
    });
    out.resize(std::min(count, out.size()));
    return out;
  }
  // Rank the outermost candidates on the problem level, then unroll each chain.
  std::vector<std::pair<double, int>> scored;
  scored.reserve(top.size());
  const bool empty = shape[0] <= 0 || shape[1] <= 0 || shape[2] <= 0;  // no work: every tiling costs the launch
  for (size_t i = 0; i < top.size(); ++i) {
    const double sub = best.exec_s[levels - 1][i];
    if (sub == std::numeric_limits<double>::infinity()) continue;
    const double t =
        empty
            ? 0.0
            : strata_model::level_cost(machine, machine.problem, shape.data(), top[i].tile.data(), sub, false).exec_s;
    scored.emplace_back(t, static_cast<int>(i));
  }
  // The dynamic programme ranks with full (padded) tiles; the best of those are re-ranked with the clamped model
  // the dispatcher uses, which only differs near the edges of small problems.
  const size_t shortlist = std::min(scored.size(), std::max<size_t>(count * 8, 64));
  std::partial_sort(scored.begin(), scored.begin() + static_cast<long>(shortlist), scored.end());
  std::vector<RankedTiling> out;
  for (size_t r = 0; r < shortlist; ++r) {
    RankedTiling t;
    t.tiling = unroll_tiling(sieve, best, scored[r].second, &t.chain, level0_seconds);
    t.score_s = machine.launch_s + scored[r].first;
    t.estimate = strata_model::estimate(machine, t.tiling, shape.data());
    out.push_back(std::move(t));
  }
  std::stable_sort(out.begin(), out.end(), [](const RankedTiling& a, const RankedTiling& b) {
    return a.estimate.total_s < b.estimate.total_s;
  });
  out.resize(std::min(count, out.size()));
  return out;
}

}  // namespace strata
