// Part of the dispatcher (see dispatch_rules.h): the prices of the direct, streamed and held-row paths, the
// thread counts worth trying, and the lower bounds that skip kernels which cannot win.
#ifndef STRATA_DISPATCH_PRICES_H_
#define STRATA_DISPATCH_PRICES_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// A multi-threaded call runs one parallel region (a pool hand-off and join), which costs about this much; the model
// has no term for it, so the plan adds it. An estimate for a warm pool, whose workers are still spinning; waking a
// sleeping worker costs more (tens of microseconds in a VM), and the plan does not see that.
constexpr double kParallelRegionSeconds = 4e-6;

// What one strip of a direct call (a column of tiles of one row block and k slice, see direct_all) costs beyond its
// tiles, in T_launch: each strip is a call into the micro-kernel, which sets up its masks and tiles again. Without
// it, the small calls whose estimate is all memory time look alike for every kernel and the first one wins, where
// fewer, wider strips are faster (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "strip-call-price").
constexpr double kStripCallLaunches = 0.5;

// The direct path's cost on `threads` threads. The model's levels describe the packed blocks, which the direct path
// does not make: it runs register tiles over A and B in place, each tile its exact size. So its cost is the sum over
// C's tiles of the profiled tile step scaled to the tile's rows, columns and depth (never below the FMA latency chain
// of its k steps, nor below its loads) plus the tile's C traffic at level 0's bandwidth (the cache register tiles
// load from): the busiest thread's share of that, or the time to bring A, B and C from where they live, whichever is
// longer; and then the busiest thread's share of the strips' calls. The calls are not overlapped with the memory
// time: where a call streams B from memory, every kernel's estimate would be that stream's time, and the first
// kernel, with the most calls, would win. Charging every edge tile as much as a full one, as the model does, makes
// tall register tiles look worse than they are on small M (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "direct-price").
// direct_work() is the part that does not depend on the thread count, worked out once per kernel and call: a cold
// plan tries every kernel on every thread count, and counting the strips again for each is a visible share of a plan.
struct DirectWork {
  double compute_s;  // every tile, on one thread
  double calls_s;    // every strip's call, on one thread
  int64_t tiles;
  double bytes;     // A, B and C read, and C written
  double per_tile;  // 1 / tiles (0 for none): once per kernel, not per thread count (see direct_seconds)
};
DirectWork direct_work_of(double compute_s, double calls_s, int64_t tiles, double bytes) {
  return DirectWork{compute_s, calls_s, tiles, bytes, tiles > 0 ? 1.0 / static_cast<double>(tiles) : 0.0};
}

// A k step of a tile in place loads one element of A per row (a broadcast) and its vectors of B: a tile with few rows
// or columns has few FMAs per load, and its loads bound it, which scaling the profiled step by the tile's share of
// the FMAs does not see. A load takes a vector's bytes at level 0's bandwidth, or less where the profiled full tile,
// bound by its FMAs, shows the core loading faster (broadcasts are narrow loads). What of that does not depend on the
// shape is worked out here, at compile time, per kernel: a plan for a new shape runs direct_work() for every kernel,
// and its divisions are a good part of it. So is each kernel's twin: use_direct(), direct_work() and the direct path
// itself read only the micro-kernel, its profiled step and the level-1 depth, so two kernels that differ only in
// their packed blocking (several levels 1 and 2 over one register tile) run a direct call alike, and the model gives
// them the same time. The later one can then only tie the earlier, which wins ties, and a plan skips it. The level-1
// depth matters only where B is larger than the direct cache's kDirectBytes (it sets the k slices of a B that does
// not stay there) or for use_direct's choice itself, so two kernels that differ in it too are twins for a call whose
// B fits and which both run in place, loose twins (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
// "direct-loads-twins").
struct DirectConstants {
  double fma_s;        // one FMA of the tile step: the (profiled) step over its mr x nr x ku FMAs
  double load_s;       // one load in place
  int32_t twin;        // the first earlier kernel with the same direct path, or -1
  int32_t loose_twin;  // the first earlier kernel with the same direct path but for the level-1 depth, or -1
};

struct DirectTable {
  DirectConstants of[kKernelSlots];
};

// Whether two kernel names ("k<id>_<micro-kernel>") name the same micro-kernel. (Not by comparing the function
// pointers: two functions' addresses are not a constant expression under every build, e.g. with sanitizers.)
constexpr bool same_micro_kernel(const char* a, const char* b) {
  while (*a != '\0' && *a != '_') ++a;
  while (*b != '\0' && *b != '_') ++b;
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

STRATA_CONFIG_CONSTEXPR DirectTable direct_table() {
  DirectTable table{};
  const strata_model::Machine& m = kMachine;
  for (int32_t id = 0; id < kKernelCount; ++id) {
    const Kernel& k = kKernels[id];
    const double step_s =
        k.level0_seconds > 0 ? k.level0_seconds : 2.0 * static_cast<double>(k.mr * k.nr * k.ku) / m.unit_flops;
    const int64_t full_vectors = (k.nr + kVectorFloats - 1) / kVectorFloats;
    const double vector_load_s = static_cast<double>(kVectorFloats) * m.b_bytes / m.level[0].bandwidth_Bps;
    const double step_load_s = step_s / static_cast<double>(k.ku * (k.mr + full_vectors));
    int32_t twin = -1, loose_twin = -1;
    for (int32_t j = id - 1; j >= 0; --j) {
      const Kernel& e = kKernels[j];
      if (same_micro_kernel(e.name, k.name) && e.mr == k.mr && e.nr == k.nr && e.ku == k.ku &&
          e.level0_seconds == k.level0_seconds) {
        loose_twin = j;
        if (e.k1 == k.k1) twin = j;
      }
    }
    table.of[id] = DirectConstants{step_s / static_cast<double>(k.mr * k.nr * k.ku),
                                   vector_load_s < step_load_s ? vector_load_s : step_load_s, twin, loose_twin};
  }
  return table;
}

STRATA_DERIVED(DirectTable, kDirect, direct_table());

// The least time a k step of a tile of `accumulators` vector accumulators takes, its FMA chains run side by side in
// thin_sets() sets when K has that many steps (see step_s in tiles_work): by accumulator count, worked out here. A
// cold plan prices every kernel's edge tiles, whose heights are known only then, and the integer and floating-point
// divisions of working it out per tile were on its critical path.
struct ChainStep {
  int64_t sets;      // thin_sets() of the tile
  double latency_s;  // one FMA's latency over the sets
};
struct ChainSteps {
  ChainStep of[kChainSlots];  // [0]: the tiles of more than kChains / 2 accumulators, one set; then 1 to kChains / 2
  const ChainStep& operator()(int64_t accumulators) const {
    return of[accumulators * 2 > kChains ? 0 : accumulators];
  }
};
STRATA_CONFIG_CONSTEXPR ChainSteps chain_steps() {
  ChainSteps steps{};
  steps.of[0] = ChainStep{1, kMachine.fma_latency_s};
  for (int a = 1; a <= kChains / 2; ++a) {
    const int sets = thin_sets(a, 1);
    steps.of[a] = ChainStep{sets, kMachine.fma_latency_s / static_cast<double>(sets)};
  }
  return steps;
}
STRATA_DERIVED(ChainSteps, kChainSteps, chain_steps());

// Reading and writing one element of C, at level 0's bandwidth.
STRATA_CONFIG_CONSTEXPR double direct_c_element_seconds() {
  return 2.0 * kMachine.c_bytes / kMachine.level[0].bandwidth_Bps;
}
STRATA_DERIVED(double, kDirectCElementSeconds, direct_c_element_seconds());

// A, B and C read once, and C written: what a call moves at least. An empty C (a call that returns at once) reads
// nothing: its plan then costs every kernel the same.
double call_bytes(int64_t M, int64_t N, int64_t K) {
  const strata_model::Machine& m = kMachine;
  if (M == 0 || N == 0) return 0.0;
  return static_cast<double>(M * K) * m.a_bytes + static_cast<double>(K * N) * m.b_bytes +
         2.0 * static_cast<double>(M * N) * m.c_bytes;
}

DirectWork tiles_work(int32_t id, int64_t M, int64_t N, int64_t K, int64_t slice, int64_t block_rows, double bytes,
                      bool b_outer);  // see below

DirectWork direct_work(int32_t id, int64_t M, int64_t N, int64_t K) {
  using strata_model::ceil_div;
  const Kernel& k = kKernels[id];
  const DirectConstants& rates = kDirect.of[id];
  const strata_model::Machine& m = kMachine;
  const double bytes = call_bytes(M, N, K);
  // Row streams (see row_streams_pay): per k step and vector of C's columns, M FMAs and a load of B; per pass of 8 k
  // steps, C's M vectors loaded and stored. One call, whose threads share C's vectors. From memory, a thread reads
  // its share of B no faster than its core's share of the memory's bandwidth: priced only as a call's data (see
  // direct_seconds), which counts a thread as fast as the outer cache's share, one thread would look as fast as two,
  // and such calls would run alone, slower (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
  // "row-streams-price").
  if (row_streams_pay(k, M, N, K, false)) {
    const int64_t vectors = ceil_div(N, kVectorFloats);
    const double step_s = std::max(static_cast<double>(M * kVectorFloats) * rates.fma_s,
                                   (1.0 + 2.0 * static_cast<double>(M) / 8.0) * rates.load_s);
    double compute_s = static_cast<double>(K * vectors) * step_s;
    const double b_bytes = static_cast<double>(K * N) * m.b_bytes;
    if (b_bytes > static_cast<double>(kOuterBytes)) {
      const double core_share_Bps =
          m.problem.bandwidth_Bps / static_cast<double>(m.level[m.num_levels - 1].parallel_units);
      compute_s = std::max(compute_s, b_bytes / core_share_Bps);
    }
    return direct_work_of(compute_s, kStripCallLaunches * m.launch_s, vectors, bytes);
  }
  // A single row of tiles over a streamed B (see direct_streams_b) runs few slices; on two threads without split-K
  // (see split_k) the tiles run the shallow ones in place, which this then prices low.
  if (direct_streams_b(k, M, N, K, N)) {
    const int64_t slice = streamed_depth(k, M, K, kStreamedAFloats);
    return tiles_work(id, M, N, K, slice, M, bytes, true);
  }
  const int64_t slice = direct_depth(k, M, N, K, N);
  return tiles_work(id, M, N, K, slice, direct_block_rows(k, M, N, std::min(slice, K)), bytes, false);
}

// C's register tiles over B in place, in k slices of `slice` and row blocks of `block_rows` rows: each column strip
// of a block is a call per k slice (see kStripCallLaunches). b_outer: B is streamed from the outer cache (see
// run_streamed), and each strip's first tile waits on its rows.
DirectWork tiles_work(int32_t id, int64_t M, int64_t N, int64_t K, int64_t slice, int64_t block_rows, double bytes,
                      bool b_outer) {
  using strata_model::ceil_div;
  const Kernel& k = kKernels[id];
  const DirectConstants& rates = kDirect.of[id];
  const strata_model::Machine& m = kMachine;
  // A tile's k step: its FMAs, its loads (see DirectConstants) or the FMA latency, whichever is longest; a tile of
  // few accumulators at least as deep as thin_sets() runs its k steps as that many chains side by side (see
  // tile_args.h).
  auto step_s = [&](int64_t rows, int64_t cols, int64_t vectors) {
    const double elements = static_cast<double>(rows * cols);
    const ChainStep& chains = kChainSteps(rows * vectors);
    const double latency_s = K >= chains.sets ? chains.latency_s : m.fma_latency_s;
    return std::max({elements * rates.fma_s, static_cast<double>(rows + vectors) * rates.load_s, latency_s});
  };
  // A one-vector tile taller than kDirectRows over slices of at most kSplitBytes of B runs as two shorter tiles, each
  // loading B's vector again (see tile_body in the kernels). Priced whole, the tallest one-vector tiles look as fast
  // in place as wider ones that run faster (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
  // "split-tile-price").
  const bool halves = std::min(slice, K) * kVectorFloats * static_cast<int64_t>(sizeof(float)) <= kSplitBytes;
  // Then its C.
  auto tile_s = [&](int64_t rows, int64_t cols) {
    const int64_t vectors = (cols + kVectorFloats - 1) / kVectorFloats;
    double k_step_s = step_s(rows, cols, vectors);
    if (vectors == 1 && rows > kDirectRows && halves)
      k_step_s = step_s((rows + 1) / 2, cols, 1) + step_s(rows - (rows + 1) / 2, cols, 1);
    return static_cast<double>(K) * k_step_s + static_cast<double>(rows * cols) * kDirectCElementSeconds;
  };
  const int64_t full_m = M / k.mr, edge_m = M % k.mr, full_n = N / k.nr, edge_n = N % k.nr;
  double compute_s = static_cast<double>(full_m * full_n) * tile_s(k.mr, k.nr);
  if (edge_n > 0) compute_s += static_cast<double>(full_m) * tile_s(k.mr, edge_n);
  if (edge_m > 0) compute_s += static_cast<double>(full_n) * tile_s(edge_m, k.nr);
  if (edge_m > 0 && edge_n > 0) compute_s += tile_s(edge_m, edge_n);
  const int64_t strips_n = full_n + (edge_n > 0 ? 1 : 0);
  const int64_t slices = slice >= K ? 1 : ceil_div(K, slice), blocks = block_rows >= M ? 1 : ceil_div(M, block_rows);
  // A streamed B's rows reach a strip's first tile kBRowsAhead k steps after it asks for them (see outer_keeps_up),
  // through a unit's share of the outer cache's bandwidth: its k steps take at least the longer of the two shares.
  // The strip's later tiles find the rows in the direct cache. Without this wait, estimates where the outer cache is
  // far fall well short of the measured times (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
  // "streamed-b-wait").
  if (b_outer) {
    const strata_model::LevelParams& outer = m.level[m.num_levels - 1];
    const double b_step_s =
        std::max(outer.latency_s / kBRowsAhead, static_cast<double>(k.nr) * m.b_bytes / outer.bandwidth_Bps);
    const double wait_s = b_step_s - step_s(std::min<int64_t>(M, k.mr), k.nr, ceil_div(k.nr, kVectorFloats));
    if (wait_s > 0) compute_s += static_cast<double>(blocks * strips_n * K) * wait_s;
  }
  const double calls_s = static_cast<double>(slices * blocks * strips_n) * kStripCallLaunches * m.launch_s;
  return direct_work_of(compute_s, calls_s, (full_m + (edge_m > 0 ? 1 : 0)) * strips_n, bytes);
}

// The inverse of a level's bandwidth, for direct_seconds.
constexpr double seconds_per_byte(const strata_model::LevelParams& level) { return 1.0 / level.bandwidth_Bps; }

// (share: 1 / threads.) Multiplies rather than divides, for the reason ThreadCounts gives: the busiest thread's
// tiles, ceil(tiles / threads), come from tiles * share, which is within a few parts in 2^53 of the quotient (an
// integer exactly when threads divides tiles, else at least 1 / threads above one), truncated after adding 1 - 1e-6.
double direct_seconds(const DirectWork& work, int64_t threads, double share) {
  const strata_model::Machine& m = kMachine;
  double busiest = 1.0;  // the busiest thread's share of the tiles
  if (work.tiles == 0) {
    busiest = 0.0;
  } else if (threads > 1) {
    const double tiles = static_cast<double>(work.tiles);
    busiest = static_cast<double>(static_cast<int64_t>(tiles * share + (1.0 - 1e-6))) * work.per_tile;
  }
  const double compute_s = work.compute_s * busiest;
  // Each thread streams its share at its own bandwidth: the direct cache's, or the outer cache's per-unit share
  // (which was measured with every unit reading at once) when they do not fit there. Only what does not fit in the
  // outer cache either shares the memory's bandwidth: capping data that stays in the outer cache at it makes two
  // threads look no faster than one, and such calls run alone, slower (measurements:
  // docs/perf/2026-11-27-cpu-runtime-evidence.md, "direct-bandwidth").
  STRATA_CONFIG_CONSTEXPR double kDirectByteS = seconds_per_byte(kMachine.level[1]);
  STRATA_CONFIG_CONSTEXPR double kOuterByteS = seconds_per_byte(kMachine.level[kMachine.num_levels - 1]);
  STRATA_CONFIG_CONSTEXPR double kMemoryByteS = seconds_per_byte(kMachine.problem);
  const bool cached = work.bytes <= static_cast<double>(kDirectBytes);
  const double latency_s = cached ? m.level[1].latency_s : m.level[m.num_levels - 1].latency_s;
  const double byte_s = cached ? kDirectByteS : kOuterByteS;
  double thread_byte_s = byte_s * share;
  if (work.bytes > static_cast<double>(kOuterBytes))
    thread_byte_s = std::max(thread_byte_s, std::min(byte_s, kMemoryByteS));
  const double memory_s = latency_s + work.bytes * thread_byte_s;
  return m.launch_s + std::max(compute_s, memory_s) + work.calls_s * busiest;
}

// A packed call whose B is streamed (see streamed_rows and run_streamed) runs its register tiles over B in place, as
// a direct call does, in blocks of `rows` rows, each of which reads all of B and packs its rows of A one k slice at a
// time into the thread's `a_floats` floats; and each tile of a strip is a call of its own. So it is priced as the
// direct path's tiles, plus packing A, not as the model's packed blocks, which charge it for packing B it does not
// pack (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "streamed-price").
DirectWork streamed_work(int32_t id, int64_t M, int64_t N, int64_t K, int64_t rows, int64_t a_floats) {
  using strata_model::ceil_div;
  const Kernel& k = kKernels[id];
  const strata_model::Machine& m = kMachine;
  const int64_t blocks = ceil_div(M, rows);
  const double bytes = call_bytes(M, N, K) + static_cast<double>((blocks - 1) * K * N) * m.b_bytes;
  DirectWork work =
      tiles_work(id, M, N, K, streamed_depth(k, rows, K, a_floats), rows, bytes, matrix_bytes(K, N) > kDirectBytes);
  work.calls_s *= static_cast<double>(ceil_div(rows, k.mr));
  // Packing A, a transpose the thread does before its tiles start, from wherever A lives.
  const int64_t a_bytes = matrix_bytes(M, K);
  const strata_model::LevelParams& from = a_bytes <= kDirectBytes ? m.level[1] : m.level[m.num_levels - 1];
  work.calls_s += static_cast<double>(a_bytes) / from.bandwidth_Bps;
  return work;
}

// The thread counts a plan tries: powers of two, then the maximum.
constexpr int thread_count_slots() {
  int slots = 1;
  for (int32_t threads = 1; threads < kMaxThreads; threads *= 2) ++slots;
  return slots;
}

// With each count, a thread's share (1 / count), which prices multiply by: a cold plan prices every kernel on every
// count, and a division per price would lie on its critical path.
struct ThreadCounts {
  int64_t count[thread_count_slots()];
  double share[thread_count_slots()];
  int size;
};

ThreadCounts thread_counts(int32_t max_threads) {
  // Only the slots below size are ever read, so only they are written: cleared whole, the struct is a `rep stos`,
  // whose stores the prices' loads of the counts cannot take from the store buffer.
  ThreadCounts t;
  t.size = 0;
  for (int32_t threads = 1; threads <= max_threads;
       threads = threads == max_threads ? max_threads + 1 : std::min(threads * 2, max_threads)) {
    t.count[t.size] = threads;
    t.share[t.size++] = 1.0 / static_cast<double>(threads);
  }
  return t;
}

// ---- Lower bounds ------------------------------------------------------------------------------------------------
//
// A cold plan prices every kernel, and on small calls that is a measurable share of the call (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "lower-bounds"). A kernel whose estimate cannot beat the best so far
// need not be priced in full: every path's estimate is at least its multiply-adds at a profiled rate, spread over the
// threads.
//  - Direct and streamed calls (direct_seconds): each tile's k step is at least its FMAs at the register tile's
//    profiled rate, and the busiest thread has at least 1 / threads of the tiles.
//  - Packed calls (the model, cost_model.h): every level pays at least its sub-tiles' execution, in waves of at
//    most its parallel units, so the call pays at least every register tile's time (level 1 modelled) or every
//    level-1 tile's profiled time (level 1 profiled: its tiles, and packing A and B, each element at least once, B's
//    blocks at what packed_b_block_s prices them), over the product of the levels' units.
// Each bound is shaved by a part in a billion, so that the full estimate's other order of operations can never round
// below it.
struct WorkFloor {
  double mac_s;         // per multiply-add, at the register tile's profiled rate (or the core's peak)
  double packed_mac_s;  // a packed call's: at level 1's profiled rate where it is profiled, else mac_s
  double pack_a_s;      // a packed call's, per element of A packed (level 1 profiled; else 0)
};

struct WorkFloors {
  WorkFloor of[kKernelSlots];
};

constexpr double kFloorShave = 1.0 - 1e-9;

STRATA_CONFIG_CONSTEXPR WorkFloors work_floors() {
  WorkFloors floors{};
  for (int32_t id = 0; id < kKernelCount; ++id) {
    const Kernel& k = kKernels[id];
    const double mac_s = kDirect.of[id].fma_s * kFloorShave;
    WorkFloor& f = floors.of[id];
    f = WorkFloor{mac_s, mac_s, 0.0};
    if (k.level1.tiles_s > 0) {
      const double m1 = static_cast<double>(k.m1), n1 = static_cast<double>(k.n1), k1 = static_cast<double>(k.k1);
      f.packed_mac_s = k.level1.tiles_s / (m1 * n1 * k1) * kFloorShave;
      f.pack_a_s = k.level1.pack_a_s / (m1 * k1) * kFloorShave;
    }
  }
  return floors;
}

STRATA_DERIVED(WorkFloors, kWorkFloors, work_floors());

// The parallel units of the model's levels other than the top level, whose units are the thread count.
STRATA_CONFIG_CONSTEXPR double fixed_units() {
  double units = 1.0;
  for (int l = 1; l < kMachine.num_levels; ++l)
    if (l != kTopLevel) units *= static_cast<double>(kMachine.level[l].parallel_units);
  return units;
}

// Whether a kernel whose work takes at least work_s on one unit would be no better, on any of `counts` threads, than
// beat_s (nor, on one thread, than beat_alone_s).
bool cannot_beat(double work_s, const ThreadCounts& counts, double beat_s, double beat_alone_s) {
  const double spread_s = work_s / fixed_units();
  for (int i = 0; i < counts.size; ++i) {
    const double floor_s =
        kMachine.launch_s + spread_s * counts.share[i] + (counts.count[i] > 1 ? kParallelRegionSeconds : 0.0);
    if (floor_s < beat_s || (counts.count[i] == 1 && floor_s < beat_alone_s)) return false;
  }
  return true;
}

// Whether a thread of a packed call, its block of C `rows` tall, has its tiles ask for the B block it packs next (see
// run_block): where B comes from beyond the direct cache (larger than it), from the outer cache as well as from
// memory, since an outer cache shared with other tenants keeps less of B than its size says. Only for a thread with
// one level-2 row of tiles: with more, the next i2 starts on B blocks it may hold already, see b_slots (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "next-b-block-outer").
bool asks_b_ahead(const Kernel& k, int64_t rows, int64_t N, int64_t K) {
  return matrix_bytes(K, N) > kStreamABytes && rows <= k.m2;
}

// What packing one B block of kernel k costs in a packed call. Where the call's tiles ask for the next B block ahead
// (asks_b_ahead, taking all of C's rows for a thread's), packing the block copies it from L2, and its trip from
// memory overlaps the tiles before it: the block costs the copy, at L2's bandwidth each way, and whatever of the trip
// the tiles of its level-2 row of level-1 tiles do not cover. Elsewhere, and never above, the profiled pack_b_s,
// which packed it from memory with nothing before it. Priced at the profiled pack_b_s, such calls' plans pick slower
// kernels (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "pack-b-price").
double packed_b_block_s(const Kernel& k, int64_t M, int64_t N, int64_t K) {
  if (!asks_b_ahead(k, M, N, K)) return k.level1.pack_b_s;
  const strata_model::Machine& m = kMachine;
  const double block_bytes = static_cast<double>(k.k1 * k.n1) * m.b_bytes;
  const double trip_s = block_bytes / m.level[m.num_levels - 1].bandwidth_Bps;
  const double copy_s = 2.0 * block_bytes / m.level[1].bandwidth_Bps;
  const double tiles_s = k.level1.tiles_s * static_cast<double>(std::min(M, k.m2)) / static_cast<double>(k.m1);
  return std::min(k.level1.pack_b_s, copy_s + std::max(0.0, trip_s - tiles_s));
}

// The depth of the k slices the dot products run over (see dots_work): all of K where A's rows fit the direct cache,
// else as deep as fits, in whole vectors; 0 where not even a vector's depth of M rows fits.
int64_t dots_depth(int64_t M, int64_t K) {
  const int64_t fits = M > 0 ? kDirectBytes / matrix_bytes(M, 1) : K;
  return fits >= K ? K : fits / kVectorFloats * kVectorFloats;
}

// Whether a call over a B stored transposed can run as dot products: a slice of at least a vector of k fits.
bool dots_fit(int64_t M, int64_t K, int32_t layout) { return (layout & kTransB) != 0 && dots_depth(M, K) > 0; }

// A call in place over a B stored transposed, as dot products (see dots in the kernels): each element of C is the dot
// product of a row of A and a row of the stored B, both contiguous, so B is read once, in order, and not copied.
// Per group of kDotColumns columns and dot_rows_at_once() rows (the rows left over one at a time), each vector of k
// takes the group's FMAs, its loads of A and B or one FMA latency, whichever is longest, and each element of C a
// horizontal sum. A is read again for each group, so the dot products run over k slices of A that stay in the direct
// cache (see dots_depth), each slice's sums added onto C. The threads share C's column groups.
DirectWork dots_work(int32_t id, int64_t M, int64_t N, int64_t K) {
  using strata_model::ceil_div;
  const DirectConstants& rates = kDirect.of[id];
  const int64_t depth = dots_depth(M, K), slices = ceil_div(K, depth);
  const double vectors =
      static_cast<double>((K / depth) * ceil_div(depth, kVectorFloats) + ceil_div(K % depth, kVectorFloats));
  const double vector_fma_s = static_cast<double>(kVectorFloats) * rates.fma_s;
  const auto group_s = [&](int64_t rows, int64_t cols) {
    const double step_s = std::max({static_cast<double>(rows * cols) * vector_fma_s,
                                    static_cast<double>(rows + cols) * rates.load_s, kMachine.fma_latency_s});
    const double sums_s = static_cast<double>(dot_sum_slots(kVectorFloats)) * vector_fma_s + kDirectCElementSeconds;
    return vectors * step_s + static_cast<double>(slices * rows * cols) * sums_s;
  };
  const auto columns_s = [&](int64_t cols) {
    const int64_t rows = dot_rows_at_once(static_cast<int>(cols));
    return static_cast<double>(M / rows) * group_s(rows, cols) + static_cast<double>(M % rows) * group_s(1, cols);
  };
  const int64_t groups = N / kDotColumns, edge = N % kDotColumns;
  const double compute_s = static_cast<double>(groups) * columns_s(kDotColumns) + (edge > 0 ? columns_s(edge) : 0.0);
  return direct_work_of(compute_s, kMachine.launch_s, groups + (edge > 0 ? 1 : 0), call_bytes(M, N, K));
}

// What a call in place pays for its transposed operands: a row-major copy of each (see kTransA), read from where the
// operand lives (the direct cache, the outer cache or memory) and written, on the calling thread.
double transposes_s(int64_t M, int64_t N, int64_t K, int32_t layout) {
  const strata_model::Machine& m = kMachine;
  const auto copy_s = [&](int64_t rows, int64_t cols) {
    const int64_t bytes = matrix_bytes(rows, cols);
    const double bandwidth = bytes <= kDirectBytes  ? m.level[1].bandwidth_Bps
                             : bytes <= kOuterBytes ? m.level[m.num_levels - 1].bandwidth_Bps
                                                    : m.problem.bandwidth_Bps;
    return 2.0 * static_cast<double>(bytes) / bandwidth;
  };
  return ((layout & kTransA) != 0 ? copy_s(M, K) : 0.0) + ((layout & kTransB) != 0 ? copy_s(K, N) : 0.0);
}

// What gathering a convolution's A block costs beyond packing a plain one (see conv_gather.h): each of its rows is
// copied as runs of `run` input channels, one per filter tap it meets, and each run starts from an address worked
// out from the row's pixel and the tap, whose first load waits a first-level cache latency (the descriptor's). Only
// where level 1 is profiled: a modelled level 1 prices no packing.
double gather_runs_s(const Kernel& k, int64_t run) {
  if (k.level1.pack_a_s <= 0) return 0.0;
  const int64_t runs_per_row = strata_model::ceil_div(k.k1, run) + 1;  // a block's k slice may start mid-run
  return static_cast<double>(k.m1 * runs_per_row) * kMachine.level[1].latency_s;
}

// A convolution in place runs its output rows together (see dispatch_conv_direct.h): as many as keep their column
// strips of C (out_w pixels by a register tile's NR channels each) within half the direct cache. Each strip's filter
// rows, all taps, are then read once per group of rows rather than once per row: a filter of megabytes, beyond the
// direct cache, is otherwise fetched again from the outer cache for every output row (measurements:
// docs/perf/2026-11-27-zen4-conv/, "paths").
int64_t conv_row_group(int64_t out_w, int64_t nr) {
  return std::max<int64_t>(1, kDirectBytes / 2 / std::max<int64_t>(1, matrix_bytes(out_w, nr)));
}

// A convolution in place (see dispatch_conv_direct.h): per output row and filter tap, the GEMM in place of the row's
// pixels (conv_row) with the tap's rows of the filter (conv_channels deep), each its own calls and tiles. The data
// is the call's, and the filter once more per group of output rows where it is larger than the direct cache. (The
// pixels of a row that meet the padding are priced as if they did not.)
DirectWork conv_direct_work(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout) {
  const int64_t channels = std::max<int64_t>(1, conv_channels(layout)), row = std::max<int64_t>(1, conv_row(layout));
  const double products = static_cast<double>(M / row) * static_cast<double>(K / channels);
  const DirectWork one = direct_work(id, row, N, channels);
  const int64_t filter = matrix_bytes(K, N);
  const int64_t groups = strata_model::ceil_div(M / row, conv_row_group(row, kKernels[id].nr));
  const double bytes =
      call_bytes(M, N, K) + (filter > kDirectBytes ? static_cast<double>((groups - 1) * filter) : 0.0);
  // Each tap's calls also read C's tiles and write them back (the first tap's after C was scaled), in the direct
  // cache: per tap, C's bytes twice at level 1's bandwidth.
  const double c_s = 2.0 * static_cast<double>(K / channels) * static_cast<double>(matrix_bytes(M, N)) /
                     kMachine.level[1].bandwidth_Bps;
  return direct_work_of(one.compute_s * products + c_s, one.calls_s * products,
                        static_cast<int64_t>(static_cast<double>(one.tiles) * products), bytes);
}

// Offers kernel `id`'s plans to the best so far: *best, on any of `counts` threads, and *alone, on one thread, each
// replaced where the kernel is faster (on a tie the earlier stays). skip_twins: a kernel that would run the call in
// place as an earlier one does (its twin or, where that applies, its loose twin; see DirectConstants) offers nothing,
// as it would only tie. A kernel whose lower bound cannot beat either (see above) is not priced in full.
// best->row_shares is left as it is: the grid matters only for the plan that wins, and choose_plan_slow() works it
// out for that one alone. (The plans are written field by field rather than returned: a returned Plan, copied out in
// wide loads of the callee's narrow stores, stalls each offer on store forwarding.)
void offer_path(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout, const ThreadCounts& counts, bool packed,
                Plan* best, Plan::Alone* alone);  // below

// Whether kernel k runs the call in place over row-major copies of its transposed operands (over the operands
// themselves for layout 0): where it runs the call in place at all (use_direct) and the transposed operands fit in
// the direct cache. Larger ones are packed, which absorbs the transpose, or read as dot products (see runs_dots).
bool copies_in_place(const Kernel& k, int64_t M, int64_t N, int64_t K, int32_t layout) {
  const int64_t transposed_bytes =
      ((layout & kTransA) != 0 ? matrix_bytes(M, K) : 0) + ((layout & kTransB) != 0 ? matrix_bytes(K, N) : 0);
  return use_direct(M, N, K, k) && transposed_bytes <= kDirectBytes;
}

// Whether kernel `id` runs a call in place over a transposed B as dot products: where they fit (dots_fit) and the
// copies cannot run it, or cost more on one thread. (A transposed A is copied either way.)
bool runs_dots(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout) {
  if (!dots_fit(M, K, layout)) return false;
  if (!copies_in_place(kKernels[id], M, N, K, layout)) return true;
  const double dots_s = direct_seconds(dots_work(id, M, N, K), 1, 1.0) + transposes_s(M, N, K, layout & kTransA);
  const double copies_s = direct_seconds(direct_work(id, M, N, K), 1, 1.0) + transposes_s(M, N, K, layout);
  return dots_s <= copies_s;
}

void offer_kernel(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout, const ThreadCounts& counts,
                  bool skip_twins, Plan* best, Plan::Alone* alone) {
  // A call with a transposed operand that runs in place pays for copies of it or runs as dot products (see
  // runs_dots), so packing it instead, which absorbs the transpose, is offered too, and the cheaper wins. Transposed
  // operands larger than the direct cache are not copied (see copies_in_place): packing reads them once, where the
  // copy reads them, writes them beyond the direct cache and the call reads them again (measurements:
  // docs/perf/2026-11-27-layouts/, "copy-or-pack").
  // A convolution is offered gathered and packed, or in place (see dispatch_conv_direct.h).
  if ((layout & kGatherA) != 0) {
    offer_path(id, M, N, K, layout, counts, true, best, alone);
    offer_path(id, M, N, K, layout, counts, false, best, alone);
    return;
  }
  const bool packed = layout == 0 ? !use_direct(M, N, K, kKernels[id])
                                  : !copies_in_place(kKernels[id], M, N, K, layout) && !dots_fit(M, K, layout);
  if (!packed && layout != 0) offer_path(id, M, N, K, layout, counts, true, best, alone);
  if (skip_twins && !packed) {
    const DirectConstants& d = kDirect.of[id];
    if (d.twin >= 0) return;  // it would tie its twin
    if (d.loose_twin >= 0 && matrix_bytes(K, N) <= kDirectBytes && use_direct(M, N, K, kKernels[d.loose_twin]))
      return;  // likewise
  }
  offer_path(id, M, N, K, layout, counts, packed, best, alone);
}

// offer_kernel's offer of one path: packed (blocks or a streamed B) or in place.
void offer_path(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout, const ThreadCounts& counts, bool packed,
                Plan* best, Plan::Alone* alone) {
  const Kernel& k = kKernels[id];
  const int64_t shape[3] = {M, N, K};
  double seconds[thread_count_slots()];
  const int64_t buffer_floats = packed ? thread_floats(k, b_slots(k, M, N, K)) : 0;
  const int64_t streamed = packed && (layout & kTransB) == 0 ? streamed_rows(k, M, N, K, buffer_floats) : 0;
  const WorkFloor& floor = kWorkFloors.of[id];
  const double m = static_cast<double>(M), n = static_cast<double>(N), depth = static_cast<double>(K);
  const bool blocks = packed && streamed == 0;
  bool dots = false;  // set below, once the floor has not ruled the path out
  const double pack_b_s = blocks ? packed_b_block_s(k, M, N, K) : 0.0;  // per block (0 where level 1 is modelled)
  const double pack_b_floor_s = pack_b_s / static_cast<double>(k.k1 * k.n1) * kFloorShave;  // per element
  const double work_s =
      blocks ? floor.packed_mac_s * m * n * depth + floor.pack_a_s * m * depth + pack_b_floor_s * depth * n
             : floor.mac_s * m * n * depth;
  if (cannot_beat(work_s, counts, best->seconds, alone->seconds)) return;
  if (streamed > 0) {
    const DirectWork work = streamed_work(id, M, N, K, streamed, buffer_floats);
    for (int i = 0; i < counts.size; ++i) seconds[i] = direct_seconds(work, counts.count[i], counts.share[i]);
  } else if (packed) {
    strata_model::Tiling tiling = tiling_of(id);
    tiling.l1.pack_b_s = pack_b_s;
    if ((layout & kGatherA) != 0) tiling.l1.pack_a_s += gather_runs_s(k, conv_channels(layout));
    strata_model::estimate_units(kMachine, tiling, shape, kTopLevel, counts.count, counts.size, seconds);
  } else {
    const bool gathered = (layout & kGatherA) != 0;
    dots = !gathered && runs_dots(id, M, N, K, layout);
    const DirectWork work = gathered ? conv_direct_work(id, M, N, K, layout)
                            : dots   ? dots_work(id, M, N, K)
                                     : direct_work(id, M, N, K);
    const double copies_s = transposes_s(M, N, K, gathered ? layout & kTransB : dots ? layout & kTransA : layout);
    for (int i = 0; i < counts.size; ++i)
      seconds[i] = direct_seconds(work, counts.count[i], counts.share[i]) + copies_s;
  }
  for (int i = 0; i < counts.size; ++i) {
    const int32_t threads = static_cast<int32_t>(counts.count[i]);
    if (threads > 1) seconds[i] += kParallelRegionSeconds;  // each path runs one parallel region per call
    if (threads == 1 && seconds[i] < alone->seconds) {
      alone->kernel = id;
      alone->packed = packed;
      alone->dots = dots;
      alone->seconds = seconds[i];
    }
    if (seconds[i] < best->seconds) {
      best->kernel = id;
      best->threads = threads;
      best->packed = packed;
      best->dots = dots;
      best->seconds = seconds[i];
    }
  }
}

// The cheapest plan for a shape and layout on at most max_threads threads: every kernel offered in turn (kernel
// `forced` alone where it is not negative), the earlier winning ties, and for a packed plan on several threads the
// grid of their blocks of C. offer(id, M, N, K, layout, counts, skip_twins, best, alone) is offer_kernel, or a copy
// of it per kernel (see the planner). The package's planner and the generator's selection both choose through it (one
// model).
template <typename Offer>
Plan cheapest_plan(int64_t M, int64_t N, int64_t K, int32_t layout, int32_t max_threads, int32_t forced,
                   Offer offer) {
  const ThreadCounts counts = thread_counts(max_threads);
  const double none = std::numeric_limits<double>::infinity();
  const int32_t first = forced >= 0 ? forced : 0;
  // alone is made from the values, not copied from best.alone: the copy's wide load of best's narrow stores stalls on
  // store forwarding (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "plan-copies").
  Plan best{first, 1, false, false, none, 1, {first, false, false, none}};
  Plan::Alone alone{first, false, false, none};
  offer(first, M, N, K, layout, counts, false, &best, &alone);
  if (forced < 0)
    for (int32_t id = 1; id < kKernelCount; ++id) offer(id, M, N, K, layout, counts, true, &best, &alone);
  best.alone = alone;
  if (best.packed && best.threads > 1) best.row_shares = row_shares_for(kKernels[best.kernel], M, N, K, best.threads);
  return best;
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_PRICES_H_
