#include "select/select.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace strata {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double level0_gflops(const strata_model::Machine& machine, const Candidate& c, double measured_s) {
  const double flops = 2.0 * static_cast<double>(c.tile[0] * c.tile[1] * c.tile[2]);
  return flops / strata_model::level0_cost(machine, c.tile.data(), measured_s).exec_s * 1e-9;
}

// The best register tiles overall, plus partners for skinny shapes: the best tile with few rows (1, 2, up to 4)
// and the best tile one vector wide. Order: the tiles within the tolerance of the best throughput by their
// tie-break key, then the others by throughput, best first; indices unique.
std::vector<int> ranked_pool(const SieveResult& sieve, const strata_model::Machine& machine,
                             const std::vector<double>& level0_seconds, const SelectOptions& options) {
  const auto& cands = sieve.levels[0].candidates;
  const std::vector<bool>& allowed = options.level0_allowed;
  std::vector<std::pair<int, double>> rated;  // candidate, GFLOP/s
  double best = 0;
  for (size_t i = 0; i < cands.size(); ++i)
    if (allowed.empty() || allowed[i]) {
      rated.emplace_back(static_cast<int>(i),
                         level0_gflops(machine, cands[i], i < level0_seconds.size() ? level0_seconds[i] : 0));
      best = std::max(best, rated.back().second);
    }
  // (tier, score, candidate): tier 0 holds the tiles the profile cannot tell from the best, scored by tie-break.
  std::vector<std::tuple<int, double, int>> ranked;
  for (const auto& [i, gflops] : rated) {
    const bool tied = !options.level0_tie_break.empty() && gflops >= best * (1.0 - options.level0_tolerance);
    ranked.emplace_back(tied ? 0 : 1, tied ? options.level0_tie_break[static_cast<size_t>(i)] : -gflops, i);
  }
  std::sort(ranked.begin(), ranked.end());
  const size_t count = options.level0_pool;
  std::vector<int> pool;
  auto add_best = [&](auto accept) {
    for (const auto& [tier, score, i] : ranked)
      if (accept(cands[static_cast<size_t>(i)])) {
        if (std::find(pool.begin(), pool.end(), i) == pool.end()) pool.push_back(i);
        return;
      }
  };
  for (size_t r = 0; r < ranked.size() && pool.size() < count; ++r) pool.push_back(std::get<2>(ranked[r]));
  int64_t narrowest = std::numeric_limits<int64_t>::max();
  for (const auto& [tier, score, i] : ranked) narrowest = std::min(narrowest, cands[static_cast<size_t>(i)].tile[1]);
  for (int64_t rows : {1, 2, 4}) add_best([&](const Candidate& c) { return c.tile[0] <= rows; });
  add_best([&](const Candidate& c) {
    return c.tile[1] == narrowest && (options.narrow_partner_rows == 0 || c.tile[0] <= options.narrow_partner_rows);
  });
  return pool;
}

// Runs body(begin, end) over [0, count) split into one contiguous range per hardware thread.
template <typename Body>
void parallel_chunks(size_t count, Body body) {
  const size_t threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { body(count * t / threads, count * (t + 1) / threads); });
  for (auto& th : pool) th.join();
}

// Runs body(i) for i in [0, count) on all hardware threads, each taking a contiguous range.
template <typename Body>
void parallel_ranges(size_t count, Body body) {
  parallel_chunks(count, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) body(i);
  });
}

// The CPU outermost candidates of finite time, each tile extent stored as its index among the distinct extents of
// its axis: a shape's tile counts then take one division per distinct extent instead of three per candidate, which
// is most of the coarse scan's work.
struct OutermostTable {
  std::vector<int> candidate;
  std::vector<double> sub_s;  // the candidate's best time for one tile
  std::array<std::vector<int64_t>, kNumAxes> extents;
  std::vector<std::array<uint32_t, kNumAxes>> extent_of;

  // The candidate of least modelled time on `shape` (ties: the lower index), tried first against `hint` (a
  // neighbouring shape's winner, or -1): a candidate whose (tile count) x (one tile's time) already loses is not
  // priced, since Eq. 5 runs every tile's compute.
  int best_for(const strata_model::Machine& machine, const std::array<int64_t, kNumAxes>& shape,
               const std::vector<Candidate>& top, bool top_over_measured, int hint) const {
    std::array<std::vector<double>, kNumAxes> counts;
    for (size_t a = 0; a < kNumAxes; ++a)
      for (int64_t e : extents[a]) counts[a].push_back(static_cast<double>(strata_model::ceil_div(shape[a], e)));
    double best_t = kInf;
    int best_i = -1;
    const auto price = [&](size_t row) {
      const int i = candidate[row];
      const double time =
          strata_model::level_cost(machine, machine.problem, shape.data(), top[static_cast<size_t>(i)].tile.data(),
                                   sub_s[row], false, top_over_measured)
              .exec_s;
      if (time < best_t || (time == best_t && i < best_i)) {
        best_t = time;
        best_i = i;
      }
    };
    if (hint >= 0) {
      const auto at = std::lower_bound(candidate.begin(), candidate.end(), hint);
      if (at != candidate.end() && *at == hint) price(static_cast<size_t>(at - candidate.begin()));
    }
    for (size_t row = 0; row < candidate.size(); ++row) {
      const auto& e = extent_of[row];
      const double bound = counts[0][e[0]] * counts[1][e[1]] * counts[2][e[2]] * sub_s[row];
      if (bound > best_t || (bound == best_t && candidate[row] >= best_i)) continue;  // the hint is priced
      price(row);
    }
    return best_i;
  }
};

OutermostTable outermost_table(const std::vector<Candidate>& top, const std::vector<double>& sub_s) {
  OutermostTable t;
  for (size_t i = 0; i < top.size(); ++i)
    if (sub_s[i] != kInf) {
      t.candidate.push_back(static_cast<int>(i));
      t.sub_s.push_back(sub_s[i]);
      for (size_t a = 0; a < kNumAxes; ++a) t.extents[a].push_back(top[i].tile[a]);
    }
  for (auto& axis : t.extents) {
    std::sort(axis.begin(), axis.end());
    axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
  }
  for (int i : t.candidate) {
    std::array<uint32_t, kNumAxes> at{};
    for (size_t a = 0; a < kNumAxes; ++a) {
      const auto& axis = t.extents[a];
      at[a] = static_cast<uint32_t>(std::lower_bound(axis.begin(), axis.end(), top[static_cast<size_t>(i)].tile[a]) -
                                    axis.begin());
    }
    t.extent_of.push_back(at);
  }
  return t;
}

double problem_time(const strata_model::Machine& machine, const strata_model::Tiling& t,
                    const std::array<int64_t, kNumAxes>& shape, int whole_levels, const strata_gpu::Sm* gpu,
                    int64_t occupancy) {
  if (gpu != nullptr) return estimate_gpu(machine, *gpu, t, occupancy, shape.data()).total_s;
  if (whole_levels > 0) return estimate_whole(machine, t, shape.data(), whole_levels).total_s;
  return strata_model::estimate(machine, t, shape.data()).total_s;
}

}  // namespace

std::vector<int> level0_pool(const SieveResult& sieve, const strata_model::Machine& machine,
                             const std::vector<double>& level0_seconds, const SelectOptions& options) {
  return ranked_pool(sieve, machine, level0_seconds, options);
}

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
  sel.level0_pool = level0_pool(sieve, machine, level0_seconds, options);
  if (!options.level0_tie_break.empty()) sel.level0_tolerance = options.level0_tolerance;
  std::vector<bool> allowed(sieve.levels[0].candidates.size(), false);
  for (int i : sel.level0_pool) allowed[static_cast<size_t>(i)] = true;
  static const Level1Profile kModelled;
  const Level1Profile& level1 = options.level1 ? *options.level1 : kModelled;
  const strata_gpu::Sm* gpu =
      strata_gpu::enabled(options.gpu) && level1.empty() && sieve.levels.size() == 3 ? &options.gpu : nullptr;
  const SubTilings best = best_sub_tilings(machine, sieve, level0_seconds, allowed, level1, gpu);
  // GPU: the occupancy of the chain that builds top-level candidate i.
  auto occupancy_of = [&](const std::vector<int>& chain) {
    return gpu != nullptr ? best.occupancy[static_cast<size_t>(chain[1])] : int64_t{1};
  };
  const bool top_over_measured = sub_tiles_measured(static_cast<int>(sieve.levels.size()), level1);

  const size_t top_level = sieve.levels.size() - 1;
  const auto& top = sieve.levels[top_level].candidates;
  const std::vector<int64_t> axis = shape_grid_axis(8192);
  const std::vector<int64_t> m_axis = shape_grid_axis(options.grid_max_m);
  std::vector<std::array<int64_t, kNumAxes>> grid;
  for (int64_t m : m_axis)
    for (int64_t n : axis)
      for (int64_t k : axis) grid.push_back({m, n, k});
  sel.grid_shapes = static_cast<int64_t>(grid.size());

  // Step 2: the model's best outermost candidate per shape of a coarser grid (powers of two only: scanning every
  // outermost candidate is the expensive part of selection, and neighbouring shapes share winners).
  std::vector<int> winners;
  std::vector<int64_t> coarse_axis;
  for (int64_t v : axis)
    if ((v & (v - 1)) == 0) coarse_axis.push_back(v);
  std::vector<int64_t> coarse_m_axis;
  for (int64_t v : m_axis)
    if ((v & (v - 1)) == 0) coarse_m_axis.push_back(v);
  std::vector<std::array<int64_t, kNumAxes>> coarse;
  for (int64_t m : coarse_m_axis)
    for (int64_t n : coarse_axis)
      for (int64_t k : coarse_axis) coarse.push_back({m, n, k});
  // Scanning is independent per shape: spread it over the cores, then merge in shape order (deterministic).
  std::vector<int> best_of(coarse.size(), -1);
  // GPU: the whole-call model of every buildable outermost candidate (its grid tile spans the block's k range, so the
  // problem level's time is not the Eq. 5 bound OutermostTable prunes with).
  std::vector<strata_model::Tiling> top_tilings;
  std::vector<int64_t> top_occupancy;
  if (gpu != nullptr) {
    top_tilings.resize(top.size());
    top_occupancy.assign(top.size(), 0);
    for (size_t i = 0; i < top.size(); ++i) {
      if (best.exec_s[top_level][i] == kInf) continue;
      std::vector<int> chain;
      top_tilings[i] = unroll_tiling(sieve, best, static_cast<int>(i), &chain, level0_seconds);
      top_occupancy[i] = occupancy_of(chain);
    }
  }
  const OutermostTable cpu_top = gpu == nullptr ? outermost_table(top, best.exec_s[top_level]) : OutermostTable{};
  parallel_chunks(coarse.size(), [&](size_t begin, size_t end) {
    int previous = -1;
    for (size_t s = begin; s < end; ++s) {
      if (gpu == nullptr) {
        best_of[s] = previous = cpu_top.best_for(machine, coarse[s], top, top_over_measured, previous);
        continue;
      }
      double best_t = kInf;
      for (size_t i = 0; i < top.size(); ++i) {
        if (top_occupancy[i] < 1) continue;
        const double time = estimate_gpu(machine, *gpu, top_tilings[i], top_occupancy[i], coarse[s].data()).total_s;
        if (time < best_t) {
          best_t = time;
          best_of[s] = static_cast<int>(i);
        }
      }
    }
  });
  // Keep the winners of the most coarse shapes (ties: lower index): near-ties that win a single shape each would
  // only make the greedy cover slower, not better.
  std::map<int, int64_t> wins;
  for (int i : best_of)
    if (i >= 0) ++wins[i];
  std::vector<std::pair<int64_t, int>> by_wins;
  for (const auto& [i, n] : wins) by_wins.emplace_back(-n, i);
  std::sort(by_wins.begin(), by_wins.end());
  if (by_wins.size() > options.max_winners) by_wins.resize(options.max_winners);
  for (const auto& entry : by_wins) winners.push_back(entry.second);

  // Step 3: greedy cover. times[w][s]: modelled time of winner w on grid shape s.
  std::vector<strata_model::Tiling> tilings(winners.size());
  std::vector<std::vector<int>> chains(winners.size());
  std::vector<std::vector<double>> times(winners.size(), std::vector<double>(grid.size()));
  std::vector<double> best_any(grid.size(), kInf);
  for (size_t w = 0; w < winners.size(); ++w)
    tilings[w] = unroll_tiling(sieve, best, winners[w], &chains[w], level0_seconds);
  parallel_ranges(winners.size(), [&](size_t w) {
    if (options.price) {
      times[w] = options.price(tilings[w], grid);
      return;
    }
    for (size_t s = 0; s < grid.size(); ++s)
      times[w][s] = problem_time(machine, tilings[w], grid[s], options.whole_levels, gpu, occupancy_of(chains[w]));
  });
  // The grid's cases: its shapes, once per thread count the prices weigh (case c is shape c % grid.size()).
  const size_t cases = times.empty() ? grid.size() : times[0].size();
  for (const auto& t : times)
    if (t.size() != cases || cases % grid.size() != 0)
      throw std::logic_error("selection: prices do not fit the grid");
  sel.grid_cases = static_cast<int64_t>(cases);
  best_any.assign(cases, kInf);
  for (size_t w = 0; w < winners.size(); ++w)
    for (size_t s = 0; s < cases; ++s) best_any[s] = std::min(best_any[s], times[w][s]);
  // The greedy objective is a sum of logarithms: take them once.
  std::vector<std::vector<double>> log_times(winners.size(), std::vector<double>(cases));
  for (size_t w = 0; w < winners.size(); ++w)
    for (size_t s = 0; s < cases; ++s) log_times[w][s] = std::log(times[w][s]);
  std::vector<double> current(cases, kInf), current_logs(cases, kInf);
  std::vector<size_t> chosen;
  double current_log = kInf;
  // A winner whose register tile is already in the set is a blocking variant (see variant_gain).
  const auto shares_register_tile = [&](size_t w) {
    for (size_t c : chosen)
      if (chains[c][0] == chains[w][0]) return true;
    return false;
  };
  while (chosen.size() < options.max_kernels && chosen.size() < winners.size()) {
    size_t pick = winners.size(), variant = winners.size();
    double pick_log = kInf, variant_log = kInf;
    for (size_t w = 0; w < winners.size(); ++w) {
      if (std::find(chosen.begin(), chosen.end(), w) != chosen.end()) continue;
      double log_sum = 0;
      for (size_t s = 0; s < cases; ++s) log_sum += std::min(current_logs[s], log_times[w][s]);
      if (log_sum < pick_log) {
        pick_log = log_sum;
        pick = w;
      }
      if (log_sum < variant_log && shares_register_tile(w)) {
        variant_log = log_sum;
        variant = w;
      }
    }
    const auto gain_of = [&](double log_sum) {
      return current_log == kInf ? kInf : std::exp((current_log - log_sum) / static_cast<double>(cases)) - 1.0;
    };
    if (pick == winners.size()) break;
    if (!chosen.empty() && gain_of(pick_log) < options.min_gain) {
      if (options.variant_gain <= 0 || variant == winners.size() || gain_of(variant_log) < options.variant_gain)
        break;
      pick = variant;
      pick_log = variant_log;
    }
    chosen.push_back(pick);
    current_log = 0;
    for (size_t s = 0; s < cases; ++s) {
      current[s] = std::min(current[s], times[pick][s]);
      current_logs[s] = std::min(current_logs[s], log_times[pick][s]);
      current_log += current_logs[s];
    }
  }

  // Credit each chosen kernel with the shapes it wins inside the set.
  double log_ratio = 0;
  for (size_t c = 0; c < chosen.size(); ++c) {
    SelectedKernel k;
    k.chain = chains[chosen[c]];
    k.tiling = tilings[chosen[c]];
    k.occupancy = occupancy_of(k.chain);
    sel.kernels.push_back(k);
  }
  std::vector<double> margin(chosen.size(), -1);
  for (size_t s = 0; s < cases; ++s) {
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
      k.example_shape = grid[s % grid.size()];
    }
    log_ratio += std::log(current[s] / best_any[s]);
  }
  sel.geomean_vs_unrestricted = std::exp(log_ratio / static_cast<double>(cases));
  return sel;
}

}  // namespace strata
