#include "analyze/model.h"

#include <algorithm>
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
    throw Error({arch.file, 0, 0}, "more levels than the model supports (" +
                                       std::to_string(strata_model::kMaxLevels) + ")");
  for (int l = 0; l < m.num_levels; ++l) {
    const LevelSpec& level = arch.levels[static_cast<size_t>(l)];
    m.level[l] = level_params(arch.memory_of(level), level.parallel_units);
    for (int a = 0; a < kNumAxes; ++a) m.level[l].loop[a] = loop_kind(rkernel->levels[static_cast<size_t>(l)].loops[a]);
  }
  m.problem = level_params(arch.outermost_memory(), 1);
  m.problem.loop[kAxisM] = m.problem.loop[kAxisN] = strata_model::kTemporal;
  m.problem.loop[kAxisK] = strata_model::kReduction;
  m.unit_flops = sieve.peak_gflops * 1e9 / static_cast<double>(arch.level0_units());
  m.launch_s = arch.launch_overhead_ns * 1e-9;
  m.a_bytes = op.a_bytes();
  m.b_bytes = op.b_bytes();
  m.c_bytes = op.c_bytes();
  return m;
}

std::vector<RankedTiling> rank_tilings(const strata_model::Machine& machine, const SieveResult& sieve,
                                       const std::array<int64_t, kNumAxes>& shape, size_t count) {
  const size_t levels = sieve.levels.size();
  // best_exec[l][i]: the fastest execution of candidate i of level l over its possible sub-tilings;
  // best_child[l][i]: the child achieving it.
  std::vector<std::vector<double>> best_exec(levels);
  std::vector<std::vector<int>> best_child(levels);
  for (size_t l = 0; l < levels; ++l) {
    const auto& cands = sieve.levels[l].candidates;
    best_exec[l].assign(cands.size(), std::numeric_limits<double>::infinity());
    best_child[l].assign(cands.size(), -1);
    for (size_t i = 0; i < cands.size(); ++i) {
      if (l == 0) {
        best_exec[0][i] = strata_model::level0_cost(machine, cands[i].tile.data(), 0).exec_s;
        continue;
      }
      for (int child : cands[i].children) {
        const auto& sub = sieve.levels[l - 1].candidates[static_cast<size_t>(child)];
        const double t = strata_model::level_cost(machine, machine.level[l], cands[i].tile.data(), sub.tile.data(),
                                                  best_exec[l - 1][static_cast<size_t>(child)])
                             .exec_s;
        if (t < best_exec[l][i]) {
          best_exec[l][i] = t;
          best_child[l][i] = child;
        }
      }
    }
  }
  // Rank the outermost candidates on the problem level, then unroll each chain.
  const auto& top = sieve.levels[levels - 1].candidates;
  std::vector<std::pair<double, int>> scored;
  scored.reserve(top.size());
  const bool empty = shape[0] <= 0 || shape[1] <= 0 || shape[2] <= 0;  // no work: every tiling costs the launch
  for (size_t i = 0; i < top.size(); ++i) {
    const double t = empty ? 0.0 : strata_model::level_cost(machine, machine.problem, shape.data(), top[i].tile.data(),
                                              best_exec[levels - 1][i])
                         .exec_s;
    scored.emplace_back(t, static_cast<int>(i));
  }
  count = std::min(count, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<long>(count), scored.end());
  std::vector<RankedTiling> out;
  for (size_t r = 0; r < count; ++r) {
    RankedTiling t;
    t.chain.assign(levels, -1);
    int index = scored[r].second;
    for (size_t l = levels; l-- > 0;) {
      t.chain[l] = index;
      const auto& tile = sieve.levels[l].candidates[static_cast<size_t>(index)].tile;
      std::copy(tile.begin(), tile.end(), t.tiling.tile[l]);
      index = best_child[l][static_cast<size_t>(index)];
    }
    t.tiling.l0_measured_s = 0;
    t.score_s = machine.launch_s + scored[r].first;
    t.estimate = strata_model::estimate(machine, t.tiling, shape.data());
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace strata
