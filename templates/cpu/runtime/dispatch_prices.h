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

// What a packed call moves at least: A and B once, and C read and written once per column of blocks (n1 wide).
// Where the blocks split C's rows, each part of a row is whole lines: a line more than its bytes, less an element,
// at any alignment.
double packed_call_bytes(const Kernel& k, int64_t M, int64_t N, int64_t K) {
  const strata_model::Machine& m = kMachine;
  const int64_t columns = strata_model::ceil_div(N, k.n1);
  if (M == 0 || columns <= 1) return call_bytes(M, N, K);
  const double line_bytes = std::max(static_cast<double>(kLineBytes), m.c_bytes);  // 0: not given
  const double row_part_bytes = static_cast<double>(k.n1) * m.c_bytes + line_bytes - m.c_bytes;
  return static_cast<double>(M * K) * m.a_bytes + static_cast<double>(K * N) * m.b_bytes +
         2.0 * static_cast<double>(M) * static_cast<double>(columns) * row_part_bytes;
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

// The time `bytes` take to stream, each of `threads` threads moving its share (share: 1 / threads) at its own
// bandwidth: the direct cache's, or the outer cache's per-unit share (which was measured with every unit reading at
// once) when they do not fit there. Only what does not fit in the outer cache either shares the memory's bandwidth:
// capping data that stays in the outer cache at it makes two threads look no faster than one, and such calls run
// alone, slower (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "direct-bandwidth").
double streaming_seconds(double bytes, double share) {
  const strata_model::Machine& m = kMachine;
  STRATA_CONFIG_CONSTEXPR double kDirectByteS = seconds_per_byte(kMachine.level[1]);
  STRATA_CONFIG_CONSTEXPR double kOuterByteS = seconds_per_byte(kMachine.level[kMachine.num_levels - 1]);
  STRATA_CONFIG_CONSTEXPR double kMemoryByteS = seconds_per_byte(kMachine.problem);
  const bool cached = bytes <= static_cast<double>(kDirectBytes);
  const double latency_s = cached ? m.level[1].latency_s : m.level[m.num_levels - 1].latency_s;
  const double byte_s = cached ? kDirectByteS : kOuterByteS;
  double thread_byte_s = byte_s * share;
  if (bytes > static_cast<double>(kOuterBytes))
    thread_byte_s = std::max(thread_byte_s, std::min(byte_s, kMemoryByteS));
  return latency_s + bytes * thread_byte_s;
}

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
  return m.launch_s + std::max(compute_s, streaming_seconds(work.bytes, share)) + work.calls_s * busiest;
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

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_PRICES_H_
