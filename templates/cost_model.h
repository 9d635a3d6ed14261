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
//   T_load   = T_latency + Bytes(S) / BW                                               (Eq. 2)
//   T_store  = T_latency + OutputBytes(S) / BW                                         (Eq. 2)
//   T_comp   = T_exec of the sub-tile                                                  (Eq. 4)
//   T_temp   = T_load + (N_temp - 1) * max(T_step, T_comp) + T_comp + T_store          (Eq. 5)
//   F_spat   = ceil(N_par / ParallelUnits)                                             (Eq. 6)
//   T_exec   = F_spat * T_temp                                                         (Eq. 7)
// Three readings of the paper's equations, each because the literal one ranks tiles wrongly:
//  - Eq. 6 prints a floor; a floor is zero when there are fewer sub-tiles than units, which would make a partly
//    idle machine free. The number of waves is the ceiling, so that is what we use.
//  - T_latency is exposed once, in the pipeline fill (the first T_load). In the steady state consecutive
//    sub-tiles stream (hardware prefetch, cp.async), so an iteration costs T_step = Bytes(S) / BW. Charging the
//    latency on every iteration makes every level latency-bound and all tile sizes look alike.
//  - Bytes(S) counts the sub-tile's inputs, plus, when the sub-tile is not a register tile and the level iterates
//    over k (n_k > 1), reading and writing its partial sums: 2 * OutputBytes(S) * (n_k - 1) / n_k. Register
//    tiles keep partial sums in registers; larger sub-tiles keep them in memory. This is what makes a deep k
//    block (BLIS's KC) worth having.
//  - A level whose loads the computing unit performs itself (serial_load: a CPU packing panels) cannot overlap
//    them with its compute: each iteration costs T_step + T_comp instead of max(T_step, T_comp).
//  - Register sub-tiles drain their accumulators one after another, so a level made of register tiles pays
//    T_store for every output sub-tile, not only the last: T_temp += (temporal m x n sub-tiles - 1) * T_store.
//    And a drain goes to C where C lives: kernels stage A and B but never C, so a register tile's T_store reads
//    and writes its C rows at the outermost memory's bandwidth (2 * OutputBytes / BW_problem; the micro-kernel
//    prefetches C, which hides the latency). Every k slice drains every register tile once, so this is the cost
//    a deeper level-1 k block (BLIS's KC) saves; charged at the level's own memory it was too small to see.
// Level 0 has no sub-tiles: its compute time is FLOPs / F (Eq. 3) with F the peak of one level-0 unit, its
// operands come from the memory it is staged in, and N_temp = N_par = 1. A profiled level 0 replaces all of
// that with the measured time of one level-0 tile.
// A profiled level 1 replaces Eqs. 2-7 at level 1 with the measured time of one level-1 tile, which includes what
// the model would charge the level above for it: packing its A and B panels from where they live (the memory of
// the level above) and reading and writing its C. So the level above pays no load or store for such a sub-tile,
// only its execution, and the measurement comes in three parts that scale differently when the problem clamps the
// tile: packing A with the tile's m x k, packing B with its k x n, the register tiles with its m x n x k counted in
// whole register tiles (never below the FMA latency chain of each register tile's k steps).
// The whole call: T_runtime = T_launch + T_exec(problem level)                        (Eq. 8)
//
// Edges. estimate_padded() is Helix's model as printed: partial tiles cost as much as full ones. estimate()
// clamps every level's tile to the problem's extent (a tile never exceeds the one above it), because Strata's
// kernels do no padding work: edge tiles run exact-size instantiations, and a profiled level-0 time is scaled by
// the fraction of the register tile in use, but never below the FMA latency chain of its k steps. For the same
// reason estimate() charges a level's last, partial sub-tile along an axis its share of a full one, counted in
// register tiles, a partial register tile at least the FMA latency chain of its k steps (see EdgeRule): a temporal
// loop runs it as a shorter iteration, and a parallel loop's busiest unit runs it in its last wave only where no
// other unit has a full sub-tile in that wave (see wave_count). Charged as a full sub-tile, a 1000-row problem over
// 640-row tiles costs 1280 rows, which ranked kernels with large blocks last on the shapes they run fastest
// (docs/perf/2026-12-02-zen5-edges/). The dispatcher uses estimate(); the generator's dynamic programme, which ranks
// tiles independently of any shape, uses the padded form.
#ifndef STRATA_COST_MODEL_H_
#define STRATA_COST_MODEL_H_

#include <cstdint>

// The namespace is strata_model in the generator. A package compiles this file in a namespace of its own, named by
// defining STRATA_MODEL_NAMESPACE (<package>_model) before including it: two packages linked into one program then
// share no symbol, not even the weak definitions the inline functions below become without optimisation. Code that
// uses the model says strata_model:: in both, through an alias in the package's own namespace.
#ifndef STRATA_MODEL_NAMESPACE
#define STRATA_MODEL_NAMESPACE strata_model
#endif

namespace STRATA_MODEL_NAMESPACE {

constexpr int kAxes = 3;  // m, n, k
constexpr int kMaxLevels = 4;

enum LoopKind : unsigned char { kParallel = 0, kTemporal = 1, kReduction = 2 };

struct LevelParams {
  double latency_s;        // T_latency of the memory this level's tile is staged in
  double bandwidth_Bps;    // BW of that memory as one parallel unit sees it (instance bandwidth / sharers)
  int64_t parallel_units;  // |ParallelUnit| of this level
  LoopKind loop[kAxes];
  bool serial_load;  // the computing unit moves the sub-tiles itself (software packing): no overlap
};

struct Machine {
  int num_levels;                 // tiled levels, 1..kMaxLevels
  LevelParams level[kMaxLevels];  // L0 first
  LevelParams problem;            // the level above the outermost tile: DRAM, 1 unit, all temporal
  double unit_flops;              // F of Eq. 3: peak FLOP/s of one level-0 unit
  double fma_latency_s;           // one dependent FMA: the least time a k step takes, however few rows (0: none)
  double launch_s;                // T_launch of Eq. 8
  double a_bytes, b_bytes, c_bytes;
};

// The modelled cost of one level for one tile.
struct LevelCost {
  double load_s, compute_s, store_s, temporal_s, exec_s;
  int64_t n_temporal, n_parallel, waves;
};

inline int64_t ceil_div(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

// ceil_div for the common cases without a division: the CPU dispatcher runs this model for every kernel and thread
// count when it meets a new shape, and a 64-bit division costs about as much as the rest of a level's arithmetic. A
// tile clamped to the problem is often its sub-tile (a count of 1), and most levels have a single parallel unit.
// Counts of sub-tiles multiply to more than 2^63 on shapes near the 64-bit limits (a plan of 2^30 cubed); the
// product saturates there, pricing such a call as impossibly long instead of overflowing.
inline int64_t saturating_product(int64_t a, int64_t b) {
  int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? INT64_MAX : product;
}

inline int64_t count_of(int64_t a, int64_t b) { return a == b && b > 0 ? 1 : b == 1 ? a : ceil_div(a, b); }

inline double input_bytes(const Machine& m, const int64_t t[kAxes]) {
  return static_cast<double>(t[0]) * static_cast<double>(t[2]) * m.a_bytes +
         static_cast<double>(t[2]) * static_cast<double>(t[1]) * m.b_bytes;
}

inline double output_bytes(const Machine& m, const int64_t t[kAxes]) {
  return static_cast<double>(t[0]) * static_cast<double>(t[1]) * m.c_bytes;
}

inline double transfer_s(const LevelParams& p, double bytes) { return p.latency_s + bytes / p.bandwidth_Bps; }

// The waves a parallel loop of n_parallel sub-tiles takes on `units` units (Eq. 6, as a ceiling). exact_edges (see
// "Edges" above): the sub-tiles are dealt to the units in turn, the partial one (edge_share of a full one, the
// product of each parallel axis's share of its last sub-tile) last, so it lengthens the last wave alone only where
// it is the only sub-tile of that wave; with one unit every sub-tile is a wave of its own and `parallel_share` (the
// sub-tiles counted by their shares) is the time.
inline double wave_count(int64_t n_parallel, int64_t units, double parallel_share, double edge_share,
                         bool exact_edges) {
  const int64_t waves = count_of(n_parallel, units);
  if (!exact_edges || waves <= 1) return static_cast<double>(waves);
  if (units <= 1) return parallel_share;
  return n_parallel % units == 1 ? static_cast<double>(waves - 1) + edge_share : static_cast<double>(waves);
}

// How estimate() charges partial tiles (see "Edges" above): in register tiles of `granule` rows and columns, a
// partial register tile at least `least_share` of a full one, the FMA latency chain of a k step over a full tile's
// k step (its few accumulators wait on each other).
struct EdgeRule {
  int64_t granule[kAxes];
  double least_share;
};

// The extent that a tile `extent` long of a `full` one costs (see EdgeRule).
inline double edge_extent(int64_t extent, int64_t full, int64_t granule, double least_share) {
  if (extent >= full) return static_cast<double>(full);
  if (granule <= 1) return static_cast<double>(extent);
  const int64_t whole = extent / granule * granule, part = extent - whole;
  const double least = least_share * static_cast<double>(granule);
  double cost = static_cast<double>(whole);
  if (part > 0) cost += static_cast<double>(part) > least ? static_cast<double>(part) : least;
  return cost < static_cast<double>(full) ? cost : static_cast<double>(full);
}

// Eq. 5 to 7 for a tile made of sub-tiles whose execution time is sub_exec_s. sub_in_registers: the sub-tile is
// a register tile, which keeps its partial sums in registers across k. sub_measured: sub_exec_s is a profiled
// level-1 time, which already moved the sub-tile's inputs and outputs (see above). edges, where not null: a partial
// sub-tile costs its share of a full one (see "Edges" above); the counts in the result stay whole.
inline LevelCost level_cost(const Machine& m, const LevelParams& p, const int64_t tile[kAxes],
                            const int64_t sub[kAxes], double sub_exec_s, bool sub_in_registers,
                            bool sub_measured = false, const EdgeRule* edges = nullptr) {
  const bool exact_edges = edges != nullptr;
  LevelCost c{};
  c.n_temporal = 1;
  c.n_parallel = 1;
  int64_t n[kAxes];
  // The sub-tiles counted by their shares of a full one (exact_edges), per loop kind, and the last parallel one's.
  double temporal_share = 1.0, parallel_share = 1.0, edge_share = 1.0;
  for (int a = 0; a < kAxes; ++a) {
    n[a] = count_of(tile[a], sub[a]);
    const double share = n[a] == 1 || !exact_edges
                             ? static_cast<double>(n[a])
                             : static_cast<double>(n[a] - 1) + edge_extent(tile[a] - (n[a] - 1) * sub[a], sub[a],
                                                                           edges->granule[a], edges->least_share) /
                                                                   static_cast<double>(sub[a]);
    if (p.loop[a] == kParallel) {
      c.n_parallel = saturating_product(c.n_parallel, n[a]);
      parallel_share *= share;
      edge_share *= share - static_cast<double>(n[a] - 1);
    } else {
      c.n_temporal = saturating_product(c.n_temporal, n[a]);
      temporal_share *= share;
    }
  }
  const double iterations = exact_edges ? temporal_share : static_cast<double>(c.n_temporal);
  double bytes = input_bytes(m, sub);
  const int64_t n_k = n[2];
  if (!sub_in_registers && n_k > 1)
    bytes += 2.0 * output_bytes(m, sub) * static_cast<double>(n_k - 1) / static_cast<double>(n_k);
  const double step_s = sub_measured ? 0.0 : bytes / p.bandwidth_Bps;
  c.load_s = p.latency_s + step_s;
  c.store_s = sub_measured       ? 0.0
              : sub_in_registers ? 2.0 * output_bytes(m, sub) / m.problem.bandwidth_Bps
                                 : transfer_s(p, output_bytes(m, sub));
  c.compute_s = sub_exec_s;
  const double per_iteration_s = p.serial_load ? step_s + c.compute_s : (step_s > c.compute_s ? step_s : c.compute_s);
  c.temporal_s = c.load_s + (iterations - 1.0) * per_iteration_s + c.compute_s + c.store_s;
  // Register sub-tiles drain their accumulators one after another: every output sub-tile of this tile pays a
  // store, not just the last (the micro-kernel's epilogue does not overlap the next call's FMAs).
  if (sub_in_registers) {
    int64_t outputs = 1;
    for (int a = 0; a < 2; ++a)
      if (p.loop[a] != kParallel) outputs = saturating_product(outputs, n[a]);
    c.temporal_s += static_cast<double>(outputs - 1) * c.store_s;
  }
  c.waves = count_of(c.n_parallel, p.parallel_units);
  c.exec_s = wave_count(c.n_parallel, p.parallel_units, parallel_share, edge_share, exact_edges) * c.temporal_s;
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
  const double flops =
      2.0 * static_cast<double>(tile[0]) * static_cast<double>(tile[1]) * static_cast<double>(tile[2]);
  c.compute_s = flops / m.unit_flops;
  c.load_s = transfer_s(p, input_bytes(m, tile));
  c.store_s = transfer_s(p, output_bytes(m, tile));
  c.temporal_s = c.load_s + c.compute_s + c.store_s;
  c.exec_s = c.temporal_s;
  return c;
}

// The profiled time of one full level-1 tile, in its three parts (see "A profiled level 1" above); all 0 when
// level 1 is modelled.
struct Level1Measured {
  double pack_a_s;  // packing the tile's A block (M1 x K1)
  double pack_b_s;  // packing its B block (K1 x N1)
  double tiles_s;   // running its register tiles over the packed panels, C read and written
};

inline bool measured(const Level1Measured& l1) { return l1.tiles_s > 0; }

// A full tiling: one tile per level, each an integer multiple of the one below.
struct Tiling {
  int64_t tile[kMaxLevels][kAxes];
  double l0_measured_s;  // > 0: profiled time of one level-0 tile
  Level1Measured l1;     // profiled level 1, or all 0
};

struct Estimate {
  LevelCost level[kMaxLevels + 1];  // [num_levels] is the problem level
  double total_s;                   // Eq. 8
};

// A level-1 tile's measured cost: its execution time, with nothing modelled inside it.
inline LevelCost measured_cost(double exec_s) {
  LevelCost c{};
  c.n_temporal = c.n_parallel = c.waves = 1;
  c.compute_s = c.temporal_s = c.exec_s = exec_s;
  return c;
}

// Level l's cost (1 <= l <= num_levels; num_levels is the problem over the outermost tiles) on p (that level's
// parameters), from the tiles and its sub-tiles' execution time. l1_s > 0: the measured time of the level-1 tile as
// given (already scaled to its extent), replacing the model there.
inline LevelCost level_at(const Machine& m, const LevelParams& p, int l, const int64_t tiles[kMaxLevels][kAxes],
                          const int64_t shape[kAxes], double l1_s, double sub_exec_s,
                          const EdgeRule* edges = nullptr) {
  const bool l1_measured = l1_s > 0 && m.num_levels > 1;
  if (l == 1 && l1_measured) return measured_cost(l1_s);
  return level_cost(m, p, l == m.num_levels ? shape : tiles[l], tiles[l - 1], sub_exec_s, l == 1,
                    l == 2 && l1_measured, edges);
}

// Eq. 8 over the given tiles (t.tile[num_levels] is ignored); shape must be non-empty. l1_s: see level_at().
inline Estimate estimate_tiles(const Machine& m, const int64_t tiles[kMaxLevels][kAxes], double l0_s,
                               const int64_t shape[kAxes], double l1_s = 0.0, const EdgeRule* edges = nullptr) {
  Estimate e{};
  e.level[0] = level0_cost(m, tiles[0], l0_s);
  for (int l = 1; l <= m.num_levels; ++l)
    e.level[l] =
        level_at(m, l < m.num_levels ? m.level[l] : m.problem, l, tiles, shape, l1_s, e.level[l - 1].exec_s, edges);
  e.total_s = m.launch_s + e.level[m.num_levels].exec_s;
  return e;
}

// The measured time of a level-1 tile clamped from full[] to extent[] (see "A profiled level 1" above); mr and nr
// are the register tile's rows and columns. A packed block serves several level-1 tiles, and each of them is
// charged its share: an A block every tile of its rows along N (a_uses; the CPU dispatcher keeps packed A blocks
// for the level-2 tiles to the right), a B block every tile of its column in a level-2 tile (b_uses). Both count
// the tiles by their shares of a full one, as estimate() does (see "Edges" above), so that each block is charged
// once in all.
inline double level1_seconds(const Machine& m, const Level1Measured& l1, const int64_t full[kAxes],
                             const int64_t extent[kAxes], int64_t mr, int64_t nr, double a_uses, double b_uses,
                             double least_share) {
  const auto d = [](int64_t x) { return static_cast<double>(x); };
  const double pack_a = l1.pack_a_s * d(extent[0]) * d(extent[2]) / (d(full[0]) * d(full[2]) * a_uses);
  const double pack_b = l1.pack_b_s * d(extent[2]) * d(extent[1]) / (d(full[2]) * d(full[1]) * b_uses);
  const double tiles = l1.tiles_s * edge_extent(extent[0], full[0], mr, least_share) *
                       edge_extent(extent[1], full[1], nr, least_share) * d(extent[2]) /
                       (d(full[0]) * d(full[1]) * d(full[2]));
  const double chains = d(ceil_div(extent[0], mr)) * d(ceil_div(extent[1], nr)) * d(extent[2]) * m.fma_latency_s;
  return pack_a + pack_b + (tiles > chains ? tiles : chains);
}

inline bool empty_problem(const int64_t shape[kAxes]) { return shape[0] <= 0 || shape[1] <= 0 || shape[2] <= 0; }

// Helix's model as printed: full tiles everywhere. A problem with a zero extent costs the launch only.
inline Estimate estimate_padded(const Machine& m, const Tiling& t, const int64_t shape[kAxes]) {
  if (empty_problem(shape)) {
    Estimate e{};
    e.total_s = m.launch_s;
    return e;
  }
  const double l1_s = measured(t.l1) ? t.l1.pack_a_s + t.l1.pack_b_s + t.l1.tiles_s : 0.0;
  return estimate_tiles(m, t.tile, t.l0_measured_s, shape, l1_s);
}

// A tiling clamped to a problem (see "Edges" above): every level's tile, and the profiled times scaled to them.
struct Clamped {
  int64_t tile[kMaxLevels][kAxes];
  double l0_s;  // > 0: the profiled level-0 time, scaled
  double l1_s;  // > 0: the profiled level-1 time, scaled
  EdgeRule edges;
};

inline Clamped clamp(const Machine& m, const Tiling& t, const int64_t shape[kAxes]) {
  Clamped c;  // (not zeroed: the levels up to num_levels are set below, and no one reads past them)
  for (int l = m.num_levels - 1; l >= 0; --l)
    for (int a = 0; a < kAxes; ++a) {
      const int64_t above = l == m.num_levels - 1 ? shape[a] : c.tile[l + 1][a];
      c.tile[l][a] = above < t.tile[l][a] ? above : t.tile[l][a];
    }
  c.l0_s = t.l0_measured_s;
  if (c.l0_s > 0) {
    for (int a = 0; a < kAxes; ++a)  // (a whole tile's factor is exactly 1: no division for it)
      if (c.tile[0][a] != t.tile[0][a])
        c.l0_s *= static_cast<double>(c.tile[0][a]) / static_cast<double>(t.tile[0][a]);
    // A tile with few rows is bound by FMA latency, not throughput: every accumulator's k steps are a chain.
    const double chain_s = static_cast<double>(c.tile[0][2]) * m.fma_latency_s;
    if (c.l0_s < chain_s) c.l0_s = chain_s;
  }
  // A full register tile's k step, measured or at the peak, against the FMA latency (see EdgeRule).
  const double ku = static_cast<double>(t.tile[0][2]);
  const double step_s = t.l0_measured_s > 0 ? t.l0_measured_s / ku
                                            : 2.0 * static_cast<double>(t.tile[0][0] * t.tile[0][1]) / m.unit_flops;
  const double least = step_s > 0 ? m.fma_latency_s / step_s : 1.0;
  c.edges.granule[0] = t.tile[0][0];
  c.edges.granule[1] = t.tile[0][1];
  c.edges.granule[2] = 1;
  c.edges.least_share = least < 1.0 ? least : 1.0;
  c.l1_s = 0.0;
  if (measured(t.l1) && m.num_levels > 1) {
    const auto share = [](int64_t extent, int64_t tile) {
      return static_cast<double>(extent) / static_cast<double>(tile);
    };
    const double a_uses = share(shape[1], c.tile[1][1]);
    const double b_uses = m.num_levels > 2 ? share(c.tile[2][0], c.tile[1][0]) : 1.0;
    c.l1_s = level1_seconds(m, t.l1, t.tile[1], c.tile[1], t.tile[0][0], t.tile[0][1], a_uses, b_uses,
                            c.edges.least_share);
  }
  return c;
}

// The model with tiles clamped to the problem (see "Edges" above).
inline Estimate estimate(const Machine& m, const Tiling& t, const int64_t shape[kAxes]) {
  if (empty_problem(shape)) {
    Estimate e{};
    e.total_s = m.launch_s;
    return e;
  }
  const Clamped c = clamp(m, t, shape);
  return estimate_tiles(m, c.tile, c.l0_s, shape, c.l1_s, &c.edges);
}

// estimate()'s total for each of `count` parallel-unit counts of tiled level `level` (units[i]), into total_s[i]. The
// levels below `level` do not depend on it and are worked out once: the CPU dispatcher tries every kernel on several
// thread counts when it meets a new shape.
inline void estimate_units(const Machine& m, const Tiling& t, const int64_t shape[kAxes], int level,
                           const int64_t* units, int count, double* total_s) {
  if (empty_problem(shape)) {
    for (int i = 0; i < count; ++i) total_s[i] = m.launch_s;
    return;
  }
  const Clamped c = clamp(m, t, shape);
  const int first = level > 1 ? level : 1;  // level 0's cost does not involve its units
  double below_s = level0_cost(m, c.tile[0], c.l0_s).exec_s;
  for (int l = 1; l < first; ++l)
    below_s = level_at(m, m.level[l], l, c.tile, shape, c.l1_s, below_s, &c.edges).exec_s;
  LevelParams varied = m.level[level];
  for (int i = 0; i < count; ++i) {
    varied.parallel_units = units[i];
    double exec_s = below_s;
    for (int l = first; l <= m.num_levels; ++l) {
      const LevelParams& p = l == level ? varied : l < m.num_levels ? m.level[l] : m.problem;
      exec_s = level_at(m, p, l, c.tile, shape, c.l1_s, exec_s, &c.edges).exec_s;
    }
    total_s[i] = m.launch_s + exec_s;
  }
}

}  // namespace STRATA_MODEL_NAMESPACE

#endif  // STRATA_COST_MODEL_H_
