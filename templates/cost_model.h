// Strata's performance model (Helix, SC'25, §5.2, Eqs. 1-8), header-only and dependency-free.
//
// This one file is used twice: the generator includes it to rank tile candidates, and every emitted package
// carries a verbatim copy that its dispatcher uses to choose a kernel and blocking per call. Keep it plain
// C++17 with no includes beyond the C++ standard library.
//
// Levels. A level-L tile (L = 0 innermost) is made of level-(L-1) sub-tiles. Each level has the memory its
// tile is staged in (latency, bandwidth) and a number of parallel units. Above the outermost level sits the
// problem itself: tiled by the outermost tiles, streamed from DRAM, on one unit, all loops temporal.
//
// For a level L >= 1 with tile T and sub-tile S:
//   n_a      = ceil(T_a / S_a) for each axis a of (m, n, k)
//   N_par    = product of n_a over the axes whose loop at L is parallel (PL)
//   N_temp   = product of n_a over the other axes (TNL, TRL)
//   T_load   = T_latency + InputBytes(S) / BW                                          (Eq. 2)
//   T_store  = T_latency + OutputBytes(S) / BW                                         (Eq. 2)
//   T_comp   = T_exec of the sub-tile                                                  (Eq. 4)
//   T_temp   = T_load + (N_temp - 1) * max(T_load, T_comp) + T_comp + T_store          (Eq. 5)
//   F_spat   = ceil(N_par / ParallelUnits)                                             (Eq. 6)
//   T_exec   = F_spat * T_temp                                                         (Eq. 7)
// Eq. 6 in the paper prints a floor; a floor is zero when there are fewer sub-tiles than units, which would
// make a partly idle machine free. The number of waves is the ceiling, so that is what we use.
// Level 0 has no sub-tiles: its compute time is FLOPs / F (Eq. 3) with F the peak of one level-0 unit, its
// operands come from the memory it is staged in, and N_temp = N_par = 1. A profiled level 0 replaces all of
// that with the measured time of one level-0 tile.
// The whole call: T_runtime = T_launch + T_exec(problem level)                        (Eq. 8)
//
// Partial tiles at the edges cost as much as full ones (the ceilings above): alignment confines padding to
// the outermost level, as in Helix §5.1.
#ifndef STRATA_COST_MODEL_H_
#define STRATA_COST_MODEL_H_

#include <cstdint>

namespace strata_model {

constexpr int kAxes = 3;  // m, n, k
constexpr int kMaxLevels = 4;

enum LoopKind : unsigned char { kParallel = 0, kTemporal = 1, kReduction = 2 };

struct LevelParams {
  double latency_s;        // T_latency of the memory this level's tile is staged in
  double bandwidth_Bps;    // BW of that memory as one parallel unit sees it (instance bandwidth / sharers)
  int64_t parallel_units;  // |ParallelUnit| of this level
  LoopKind loop[kAxes];
};

struct Machine {
  int num_levels;                  // tiled levels, 1..kMaxLevels
  LevelParams level[kMaxLevels];   // L0 first
  LevelParams problem;             // the level above the outermost tile: DRAM, 1 unit, all temporal
  double unit_flops;               // F of Eq. 3: peak FLOP/s of one level-0 unit
  double launch_s;                 // T_launch of Eq. 8
  double a_bytes, b_bytes, c_bytes;
};

// The modelled cost of one level for one tile.
struct LevelCost {
  double load_s, compute_s, store_s, temporal_s, exec_s;
  int64_t n_temporal, n_parallel, waves;
};

inline int64_t ceil_div(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

inline double input_bytes(const Machine& m, const int64_t t[kAxes]) {
  return static_cast<double>(t[0]) * static_cast<double>(t[2]) * m.a_bytes +
         static_cast<double>(t[2]) * static_cast<double>(t[1]) * m.b_bytes;
}

inline double output_bytes(const Machine& m, const int64_t t[kAxes]) {
  return static_cast<double>(t[0]) * static_cast<double>(t[1]) * m.c_bytes;
}

inline double transfer_s(const LevelParams& p, double bytes) { return p.latency_s + bytes / p.bandwidth_Bps; }

// Eq. 5 to 7 for a tile made of sub-tiles whose execution time is sub_exec_s.
inline LevelCost level_cost(const Machine& m, const LevelParams& p, const int64_t tile[kAxes],
                            const int64_t sub[kAxes], double sub_exec_s) {
  LevelCost c{};
  c.n_temporal = 1;
  c.n_parallel = 1;
  for (int a = 0; a < kAxes; ++a) {
    const int64_t n = ceil_div(tile[a], sub[a]);
    if (p.loop[a] == kParallel)
      c.n_parallel *= n;
    else
      c.n_temporal *= n;
  }
  c.load_s = transfer_s(p, input_bytes(m, sub));
  c.store_s = transfer_s(p, output_bytes(m, sub));
  c.compute_s = sub_exec_s;
  const double step_s = c.load_s > c.compute_s ? c.load_s : c.compute_s;
  c.temporal_s = c.load_s + static_cast<double>(c.n_temporal - 1) * step_s + c.compute_s + c.store_s;
  c.waves = ceil_div(c.n_parallel, p.parallel_units);
  c.exec_s = static_cast<double>(c.waves) * c.temporal_s;
  return c;
}

// Level 0 (Eq. 3, or the profiled time when measured_s > 0).
inline LevelCost level0_cost(const Machine& m, const int64_t tile[kAxes], double measured_s) {
  LevelCost c{};
  c.n_temporal = c.n_parallel = c.waves = 1;
  if (measured_s > 0) {
    c.compute_s = c.temporal_s = c.exec_s = measured_s;
    return c;
  }
  const LevelParams& p = m.level[0];
  const double flops = 2.0 * static_cast<double>(tile[0]) * static_cast<double>(tile[1]) * static_cast<double>(tile[2]);
  c.compute_s = flops / m.unit_flops;
  c.load_s = transfer_s(p, input_bytes(m, tile));
  c.store_s = transfer_s(p, output_bytes(m, tile));
  c.temporal_s = c.load_s + c.compute_s + c.store_s;
  c.exec_s = c.temporal_s;
  return c;
}

// A full tiling: one tile per level, each an integer multiple of the one below.
struct Tiling {
  int64_t tile[kMaxLevels][kAxes];
  double l0_measured_s;  // > 0: profiled time of one level-0 tile
};

struct Estimate {
  LevelCost level[kMaxLevels + 1];  // [num_levels] is the problem level
  double total_s;                   // Eq. 8
};

// Eq. 8 for a problem of shape[m, n, k]. A problem with any zero extent does no work: launch cost only.
inline Estimate estimate(const Machine& m, const Tiling& t, const int64_t shape[kAxes]) {
  Estimate e{};
  if (shape[0] <= 0 || shape[1] <= 0 || shape[2] <= 0) {
    e.total_s = m.launch_s;
    return e;
  }
  e.level[0] = level0_cost(m, t.tile[0], t.l0_measured_s);
  for (int l = 1; l < m.num_levels; ++l)
    e.level[l] = level_cost(m, m.level[l], t.tile[l], t.tile[l - 1], e.level[l - 1].exec_s);
  const int top = m.num_levels;
  e.level[top] = level_cost(m, m.problem, shape, t.tile[top - 1], e.level[top - 1].exec_s);
  e.total_s = m.launch_s + e.level[top].exec_s;
  return e;
}

}  // namespace strata_model

#endif  // STRATA_COST_MODEL_H_
