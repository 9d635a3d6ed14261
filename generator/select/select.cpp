#include "select/select.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace strata {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double level0_gflops(const strata_model::Machine& machine, const Candidate& c, double measured_s) {
  const double flops = 2.0 * static_cast<double>(c.tile[0] * c.tile[1] * c.tile[2]);
  return flops / strata_model::level0_cost(machine, c.tile.data(), measured_s).exec_s * 1e-9;
}

// The best register tiles overall, plus partners for skinny shapes: the best tile with few rows (1, 2, up to 4)
// and the best tile one vector wide. Order: by throughput, best first; indices unique.
std::vector<int> level0_pool(const SieveResult& sieve, const strata_model::Machine& machine,
                             const std::vector<double>& level0_seconds, size_t count) {
  const auto& cands = sieve.levels[0].candidates;
  std::vector<std::pair<double, int>> ranked;
  for (size_t i = 0; i < cands.size(); ++i)
    ranked.emplace_back(-level0_gflops(machine, cands[i], i < level0_seconds.size() ? level0_seconds[i] : 0),
                        static_cast<int>(i));
  std::sort(ranked.begin(), ranked.end());
  std::vector<int> pool;
  auto add_best = [&](auto accept) {
    for (const auto& [score, i] : ranked)
      if (accept(cands[static_cast<size_t>(i)])) {
        if (std::find(pool.begin(), pool.end(), i) == pool.end()) pool.push_back(i);
        return;
      }
  };
  for (size_t r = 0; r < ranked.size() && pool.size() < count; ++r) pool.push_back(ranked[r].second);
  const int64_t narrowest = std::min_element(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
                              return a.tile[1] < b.tile[1];
                            })->tile[1];
  for (int64_t rows : {1, 2, 4}) add_best([&](const Candidate& c) { return c.tile[0] <= rows; });
  add_best([&](const Candidate& c) { return c.tile[1] == narrowest; });
  return pool;
}

double problem_time(const strata_model::Machine& machine, const strata_model::Tiling& t,
                    const std::array<int64_t, kNumAxes>& shape) {
  return strata_model::estimate(machine, t, shape.data()).total_s;
}

}  // namespace

std::vector<int64_t> shape_grid_axis(int64_t limit) {
  std::vector<int64_t> out;
  for (int64_t p = 1; p <= limit; p *= 2) {
    out.push_back(p);
    if (p >= 2 && p + p / 2 <= limit) out.push_back(p + p / 2);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Selection select_kernels(const SieveResult& sieve, const strata_model::Machine& machine,
                         const std::vector<double>& level0_seconds, const SelectOptions& options) {
  Selection sel;
  sel.level0_pool = level0_pool(sieve, machine, level0_seconds, options.level0_pool);
  std::vector<bool> allowed(sieve.levels[0].candidates.size(), false);
  for (int i : sel.level0_pool) allowed[static_cast<size_t>(i)] = true;
  const SubTilings best = best_sub_tilings(machine, sieve, level0_seconds, allowed);

  const size_t top_level = sieve.levels.size() - 1;
  const auto& top = sieve.levels[top_level].candidates;
  const std::vector<int64_t> axis = shape_grid_axis(8192);
  std::vector<std::array<int64_t, kNumAxes>> grid;
  for (int64_t m : axis)
    for (int64_t n : axis)
      for (int64_t k : axis) grid.push_back({m, n, k});
  sel.grid_shapes = static_cast<int64_t>(grid.size());

  // Step 2: the model's best outermost candidate per shape of a coarser grid (powers of two only: scanning every
  // outermost candidate is the expensive part of selection, and neighbouring shapes share winners).
  std::map<int, size_t> winner_slot;  // top candidate -> index in winners
  std::vector<int> winners;
  std::vector<int64_t> coarse_axis;
  for (int64_t v : axis)
    if ((v & (v - 1)) == 0) coarse_axis.push_back(v);
  std::vector<std::array<int64_t, kNumAxes>> coarse;
  for (int64_t m : coarse_axis)
    for (int64_t n : coarse_axis)
      for (int64_t k : coarse_axis) coarse.push_back({m, n, k});
  for (const auto& shape : coarse) {
    double best_t = kInf;
    int best_i = -1;
    for (size_t i = 0; i < top.size(); ++i) {
      const double sub = best.exec_s[top_level][i];
      if (sub == kInf) continue;
      const double t =
          strata_model::level_cost(machine, machine.problem, shape.data(), top[i].tile.data(), sub, false).exec_s;
      if (t < best_t) {
        best_t = t;
        best_i = static_cast<int>(i);
      }
    }
    if (best_i >= 0 && winner_slot.emplace(best_i, winners.size()).second) winners.push_back(best_i);
  }

  // Step 3: greedy cover. times[w][s]: modelled time of winner w on grid shape s.
  std::vector<strata_model::Tiling> tilings(winners.size());
  std::vector<std::vector<int>> chains(winners.size());
  std::vector<std::vector<double>> times(winners.size(), std::vector<double>(grid.size()));
  std::vector<double> best_any(grid.size(), kInf);
  for (size_t w = 0; w < winners.size(); ++w) {
    tilings[w] = unroll_tiling(sieve, best, winners[w], &chains[w], level0_seconds);
    for (size_t s = 0; s < grid.size(); ++s) {
      times[w][s] = problem_time(machine, tilings[w], grid[s]);
      best_any[s] = std::min(best_any[s], times[w][s]);
    }
  }
  std::vector<double> current(grid.size(), kInf);
  std::vector<size_t> chosen;
  double current_log = kInf;
  while (chosen.size() < options.max_kernels && chosen.size() < winners.size()) {
    size_t pick = winners.size();
    double pick_log = kInf;
    for (size_t w = 0; w < winners.size(); ++w) {
      if (std::find(chosen.begin(), chosen.end(), w) != chosen.end()) continue;
      double log_sum = 0;
      for (size_t s = 0; s < grid.size(); ++s) log_sum += std::log(std::min(current[s], times[w][s]));
      if (log_sum < pick_log) {
        pick_log = log_sum;
        pick = w;
      }
    }
    const double gain = current_log == kInf ? kInf : std::exp((current_log - pick_log) / grid.size()) - 1.0;
    if (pick == winners.size() || (!chosen.empty() && gain < options.min_gain)) break;
    chosen.push_back(pick);
    current_log = pick_log;
    for (size_t s = 0; s < grid.size(); ++s) current[s] = std::min(current[s], times[pick][s]);
  }

  // Credit each chosen kernel with the shapes it wins inside the set.
  double log_ratio = 0;
  for (size_t c = 0; c < chosen.size(); ++c) {
    SelectedKernel k;
    k.chain = chains[chosen[c]];
    k.tiling = tilings[chosen[c]];
    sel.kernels.push_back(k);
  }
  std::vector<double> margin(chosen.size(), -1);
  for (size_t s = 0; s < grid.size(); ++s) {
    size_t best_c = 0;
    double second = kInf;
    for (size_t c = 0; c < chosen.size(); ++c)
      if (times[chosen[c]][s] < times[chosen[best_c]][s]) best_c = c;
    for (size_t c = 0; c < chosen.size(); ++c)
      if (c != best_c) second = std::min(second, times[chosen[c]][s]);
    SelectedKernel& k = sel.kernels[best_c];
    ++k.shapes_won;
    const double m = second == kInf ? 1.0 : second / times[chosen[best_c]][s];
    if (m > margin[best_c]) {
      margin[best_c] = m;
      k.example_shape = grid[s];
    }
    log_ratio += std::log(current[s] / best_any[s]);
  }
  sel.geomean_vs_unrestricted = std::exp(log_ratio / static_cast<double>(grid.size()));
  return sel;
}

}  // namespace strata
