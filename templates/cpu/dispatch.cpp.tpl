// The {{PACKAGE}} dispatcher and driver: argument checks, the per-call plan (kernel, blocking, threads) from the
// cost model in cost_model.h, packing, the loops around the micro-kernels, and the thread pool.
//
// The packed path runs the tile hierarchy the model ranks (see manifest.yaml for each kernel's tiles):
//   in parallel, each thread on its own block of C (see "Thread shares"):    (level 2, "cores": m, n parallel)
//     for each level-2 tile (M2 x N2 x K2) of the block, n innermost      (problem level: temporal)
//       for each level-1 tile (M1 x N1) of it, m innermost:              (level 2 over level-1 tiles)
//         for each K1 slice of the level-2 tile's depth:                 (level 2: k temporal reduction)
//           pack B (K1 x N1) into NR-wide micro-panels, unless the thread holds it from the last tile or the
//           level-2 row above (see b_slots),
//           and A (M1 x K1) into MR-tall ones, unless it holds that from a level-2 tile to the left
//           for jr in N1 step NR, ir in M1 step MR: micro-kernel         (level 1 over register tiles)
// All threads share one parallel region per call (see packed_task).
// Edge tiles run exact-size micro-kernel instantiations: no padding work anywhere.
// The direct path (small problems) runs the same micro-kernels on A and B in place.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "{{PACKAGE}}.h"
// The model in a namespace of this package's own (see cost_model.h), named as the generator names it.
#define STRATA_MODEL_NAMESPACE {{PACKAGE}}_model
#include "cost_model.h"
#include "internal.h"

namespace {{PACKAGE}}_internal {
namespace strata_model = ::{{PACKAGE}}_model;
namespace {

// ---- Kernel table (from the generator's selection; see manifest.yaml) ----------------------------------------

struct Kernel {
  const char* name;
  TileFn packed;
  TileFn streamed;
  TileFn direct;
  TileFn row_streams;
  TileFn wide_rows;
  PackFn pack_a;
  PackFn pack_b;
  int32_t mr, nr, ku;      // level 0: register tile and k unroll
  int64_t m1, n1, k1;      // level 1: the cache block a thread packs and runs
  int64_t m2, n2, k2;      // level 2: the block of cache blocks spread over threads
  double level0_seconds;   // profiled time of one mr x nr x ku tile step; 0 when modelled
  strata_model::Level1Measured level1;  // profiled time of one level-1 tile in its parts; all 0 when modelled
};

constexpr Kernel kKernels[] = {
{{#KERNEL}}    {"{{NAME}}", &{{UKERNEL}}_packed, &{{UKERNEL}}_streamed, &{{UKERNEL}}_direct, &{{UKERNEL}}_row_streams, &{{UKERNEL}}_wide_rows, &{{UKERNEL}}_pack_a, &{{UKERNEL}}_pack_b, {{MR}}, {{NR}}, {{KU}}, {{M1}}, {{N1}}, {{K1}}, {{M2}}, {{N2}}, {{K2}}, {{L0_SECONDS}}, { {{L1_SECONDS}} }},
{{/KERNEL}}};
constexpr int32_t kKernelCount = static_cast<int32_t>(sizeof(kKernels) / sizeof(kKernels[0]));

// The machine as the model sees it ({{ARCH_NAME}}); level {{TOP_LEVEL}}'s parallel units are set per call to the
// thread count.
constexpr strata_model::Machine kMachine = {
    {{NUM_LEVELS}},
    {
{{#LEVEL}}        { {{LATENCY_S}}, {{BANDWIDTH_BPS}}, {{PARALLEL_UNITS}}, { {{LOOP_M}}, {{LOOP_N}}, {{LOOP_K}} }, {{SERIAL_LOAD}} },  // L{{INDEX}} {{LEVEL_NAME}}
{{/LEVEL}}    },
    { {{PROBLEM_LATENCY_S}}, {{PROBLEM_BANDWIDTH_BPS}}, 1, {strata_model::kTemporal, strata_model::kTemporal, strata_model::kReduction}, false },
    {{UNIT_FLOPS}},  // F: peak FLOP/s of one core
    {{FMA_LATENCY_S}},  // one dependent FMA
    {{LAUNCH_S}},  // T_launch
    4, 4, 4,
};

// A multi-threaded call runs one parallel region (a pool hand-off and join), which costs about this much; the model
// has no term for it, so the plan adds it. An estimate for a warm pool, whose workers are still spinning; waking a
// sleeping worker costs more (tens of microseconds in a VM), and the plan does not see that.
constexpr double kParallelRegionSeconds = 4e-6;
// Below this many bytes of A and B together, packing buys nothing (see use_direct).
constexpr int64_t kDirectBytes = {{DIRECT_BYTES}};
// Half of {{TILE_CACHE}}, the cache register tiles load from: a direct call walks C in row blocks whose A fits in it
// (see direct_block_rows).
constexpr int64_t kTileCacheBytes = {{TILE_CACHE_BYTES}};
constexpr int64_t kVectorFloats = {{VECTOR_FLOATS}};  // floats in one vector register
// Data up to this many bytes stays in {{OUTER_CACHE}}, the outermost level, from one call to the next.
constexpr int64_t kOuterBytes = {{OUTER_BYTES}};
// A direct call whose A is larger than {{DIRECT_CACHE}} reads it from beyond: the first strip of each row block asks
// its tiles to fetch A ahead (see a_from_beyond).
constexpr int64_t kStreamABytes = {{STREAM_A_BYTES}};
constexpr int32_t kMaxThreads = {{MAX_THREADS}};
constexpr size_t kAlign = 64;

// The bytes of a rows x cols matrix of floats: B's (K x N) decides most of the paths below.
constexpr int64_t matrix_bytes(int64_t rows, int64_t cols) {
  return rows * cols * static_cast<int64_t>(sizeof(float));
}

// ---- Plans -------------------------------------------------------------------------------------------------------

struct Plan {
  int32_t kernel;
  int32_t threads;
  bool packed;
  double seconds;
  int32_t row_shares;  // packed: C's rows are cut into this many thread blocks, its columns into threads / this
  // The best plan on one thread, for a call that finds the pool asleep (see ready_plan()).
  struct Alone {
    int32_t kernel;
    bool packed;
    double seconds;
  } alone;
};

strata_model::Tiling tiling_of(int32_t id) {
  const Kernel& k = kKernels[id];
  strata_model::Tiling t{};
  const int64_t tiles[3][3] = { {k.mr, k.nr, k.ku}, {k.m1, k.n1, k.k1}, {k.m2, k.n2, k.k2} };
  for (int l = 0; l < 3; ++l)
    for (int a = 0; a < 3; ++a) t.tile[l][a] = tiles[l][a];
  t.l0_measured_s = k.level0_seconds;
  t.l1 = k.level1;
  return t;
}

// The bytes one of {{TILE_CACHE}}'s ways spans (its sets times its line); 0 where the descriptor does not give its
// associativity. Lines a multiple of it apart share a set.
constexpr int64_t kTileCacheWayBytes = {{TILE_CACHE_WAY_BYTES}};

// Whether rows of a matrix `ld` floats apart all fall in one set of {{TILE_CACHE}} (see use_direct, direct_b_ahead,
// row_streams_of).
bool rows_share_a_set(int64_t ld) {
  return kTileCacheWayBytes > 0 && ld * static_cast<int64_t>(sizeof(float)) % kTileCacheWayBytes == 0;
}

// Packing copies a panel so that the micro-kernel reads it contiguously from cache many times. It does not pay when
// everything fits in {{DIRECT_CACHE}} anyway, or when C is a single row or column of register tiles, so that each B
// (or A) element is read once either way; packing A, a transpose, would then cost more than the FMAs that use it.
// With two rows of tiles packing already pays: in place, each tile walks K rows of B, one page apart when B is
// wide, and the second row of tiles finds B's k slice evicted (16x2304x768: 15 GFLOP/s direct, 45 packed on the
// Xeon the examples were profiled on). Nor when all of B fits in {{DIRECT_CACHE}} and the register tile is several
// vectors wide: every tile then reads B from there, a vector per several FMAs, and A, walked in row blocks, is read
// once; packed, each element of A would be copied to be used by only N columns, so the fewer the columns, the more
// of the call packing A takes (19717x121x16: 1.20x faster direct, 169343x121x16: 1.22x; AVX2 4x24 and 6x16 tiles:
// 1.14-1.23x; B up to half of L2, on one thread of an Emerald Rapids Xeon: 3136x80x1152 1.63x, 64x80x1152 1.64x,
// 19717x121x602 1.58x, 169343x64x602 1.37x, 1.2-2.7x on two; one loss, 2708x121x128 0.86x, where K fits in one
// packed k slice). A one-vector tile reads an element of A, from as many rows as the tile has, per FMA, and in
// place that ran at half its packed speed (AVX2 13x8: 19717x121x16 0.50x).
// A single row of tiles is the exception when its tiles are one vector wide and taller than kDirectRows: in place
// such a tile keeps its row offsets on the stack, or runs as two shorter tiles (see the kernels' tile_body), and
// packing both operands was faster (24x768x3072 1.43x, 24x3072x768 1.63x, 16x768x768 1.30x on one thread of an
// Emerald Rapids Xeon; 1.17-2.3x on two).
// Two rows of several-vector tiles run in place too while B stays in {{OUTER_CACHE}}: the direct path walks each
// column strip's k slice down both rows at once, so B is read once, straight into the FMAs, where packing copied
// all of it first (a quarter to a half of such a call). Not where A's or B's rows, as the plan assumes them (lda =
// K, ldb = N), lie a multiple of a way of {{TILE_CACHE}} apart: a tile's rows then share one set and evict each other
// (16x768x3072 and 32x1000x4096 ran at 0.4-0.8x of the packed path on an AMD Zen 4). Nor from memory, where the
// strips' short rows of B get no help from the prefetchers (13x5000x1500: 0.4x). Medians of interleaved rounds on
// that Zen 4, one thread: 16x768x768 1.25-1.35x faster, 16x2304x768 1.02-1.23x, 22x768x768 1.21x, 16x256x2304
// 1.29x, 16x4000x900 1.10x, 21x333x1777 1.19x; two threads 1.07-1.51x; the AVX2 descriptor's tiles 1.0-1.17x.
// Nor where {{OUTER_CACHE}} is too far for the tiles to outlast its latency (see outer_keeps_up): a strip's first row
// of tiles then waits on every row of B it reads, where the packed path's streamed B asks for them ahead (on a 2-vCPU
// Intel Xeon VM whose L3 is 160 ns away, medians of per-round ratios in tools/ab.sh, one thread: 16x768x768 1.15x
// faster packed, 24x768x768 1.45x, 16x2304x768 1.09x, 24x2304x768 1.23x; two threads 1.37-1.83x).
bool outer_keeps_up(const Kernel& k, int64_t rows);  // see the streamed paths below
bool use_direct(int64_t M, int64_t N, int64_t K, const Kernel& k) {
  if (N <= k.nr) return true;
  if (M <= k.mr) return M <= kDirectRows || k.nr > kVectorFloats;
  const int64_t b_bytes = matrix_bytes(K, N);
  if (M <= 2 * k.mr && k.nr > kVectorFloats && b_bytes <= kOuterBytes && outer_keeps_up(k, k.mr) &&
      !rows_share_a_set(K) && !rows_share_a_set(N))
    return true;
  if (b_bytes <= kDirectBytes && k.nr > kVectorFloats) return true;
  return K <= k.k1 && matrix_bytes(M, K) + b_bytes <= kDirectBytes;
}

// Whether a direct call is a single register tile of k in a single k slice (see direct_depth and direct_block_rows):
// then direct_all's loops would run once, and the kernel's direct strip runs the call at once.
bool one_tile(int64_t M, int64_t N, int64_t K, const Kernel& k) {
  return M <= k.mr && N <= k.nr && matrix_bytes(K, N) <= kDirectBytes;
}

// ---- Workspace ---------------------------------------------------------------------------------------------------

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// Workspace: per thread, a_slots() packed A blocks (M1 x K1) and b_slots() packed B blocks (K1 x N1), each 64-byte
// aligned.
int64_t a_block_floats(const Kernel& k) { return round_up(round_up(k.m1, k.mr) * k.k1, kAlign / sizeof(float)); }
int64_t b_block_floats(const Kernel& k) { return round_up(round_up(k.n1, k.nr) * k.k1, kAlign / sizeof(float)); }

// A thread keeps one packed A block per level-1 row block and k slice of a level-2 tile, so that the level-2 tiles
// along N, which it walks innermost, reuse them instead of packing A again: packing A is a transpose, several
// times dearer per element than B's copy. At most kACacheBytes per thread (and kMaxASlots blocks); beyond that the
// blocks share slots and one evicted is packed again.
constexpr int64_t kACacheBytes = int64_t{4} << 20;
constexpr int64_t kMaxASlots = 256;
int64_t a_slots(const Kernel& k) {
  using strata_model::ceil_div;
  const int64_t wanted = ceil_div(k.m2, k.m1) * ceil_div(k.k2, k.k1);
  const int64_t fit = kACacheBytes / (a_block_floats(k) * static_cast<int64_t>(sizeof(float)));
  return std::max<int64_t>(1, std::min({wanted, fit, kMaxASlots}));
}

// A thread whose block of C is more than one level-2 tile tall needs each B block of a k slice once per level-2 row.
// It keeps all of them, packed once, for the next rows to reuse, when they fit in kBCacheBytes (2048^3 on the 13x32
// kernel, one thread of an Emerald Rapids Xeon: B was packed 5 times, 5.7% of the call; once, 1.7%, and the call
// 1.07x faster; 2000x2304x768 1.09x, 512x3072x768 1.11x, on two threads 1.02-1.06x). Kept there, a packed B block
// is read back from the outer cache one micro-panel at a time, and each micro-panel then serves a whole column of
// register tiles from the inner one. When they do not fit (or need more than kMaxBSlots), one slot serves, and B is
// packed per level-2 row.
constexpr int64_t kBCacheBytes = int64_t{4} << 20;
constexpr int64_t kMaxBSlots = 256;
int64_t b_slots(const Kernel& k, int64_t rows, int64_t cols, int64_t K) {
  using strata_model::ceil_div;
  if (rows <= k.m2) return 1;
  const int64_t wanted = ceil_div(cols, k.n1) * ceil_div(std::min(K, k.k2), k.k1);
  const bool fits = wanted * b_block_floats(k) * static_cast<int64_t>(sizeof(float)) <= kBCacheBytes;
  return fits && wanted <= kMaxBSlots ? wanted : 1;
}
int64_t thread_floats(const Kernel& k, int64_t b_slot_count) {
  return a_slots(k) * a_block_floats(k) + b_slot_count * b_block_floats(k);
}

// ---- Thread shares ---------------------------------------------------------------------------------------------
//
// A packed call gives each thread a contiguous block of C, in whole register tiles: C's rows cut into row_shares
// ranges, its columns into threads / row_shares, and each thread runs the single-thread loops on its block. No
// packed panel is shared, so no thread ever waits for another. What a grid costs is what it packs twice: threads
// in one column of blocks each pack A's rows of their own, but all of B's columns of the column, once per level-2
// row of their own; threads in one row of blocks each pack the same A rows. The plan takes the grid that repacks
// least. (Cutting every level-2 tile's level-1 tiles among the threads instead, the model's level 2 read
// literally, made each thread pack all of A whenever a level-2 tile was one level-1 tile tall.)

// Where share `index` of `count` starts along an extent cut into whole units of `unit` elements.
int64_t share_start(int64_t extent, int64_t unit, int64_t index, int64_t count) {
  const int64_t units = (extent + unit - 1) / unit;
  return std::min(extent, units * index / count * unit);
}

// The most a share of `count` takes of an extent cut into whole units of `unit` elements (see share_start).
int64_t largest_share(int64_t extent, int64_t unit, int64_t count) {
  using strata_model::ceil_div;
  return std::min(extent, ceil_div(ceil_div(extent, unit), count) * unit);
}

// Times a thread packs its B columns for its block of C (`rows` x `cols`): once, when it keeps all of its B blocks of
// a level-2 k slice (see b_slots), else once per level-2 row of the block.
int64_t b_packs(const Kernel& k, int64_t rows, int64_t cols, int64_t K) {
  return b_slots(k, rows, cols, K) > 1 ? 1 : strata_model::ceil_div(rows, k.m2);
}

// Elements a row_shares x col_shares grid packs beyond what one thread packs, each A element weighted twice: packing
// A is a transpose, about twice the cost of B's copy per element.
double repacked_elements(const Kernel& k, int64_t M, int64_t N, int64_t K, int64_t row_shares, int64_t col_shares) {
  int64_t share_packs = 0;  // times B's columns are packed, summed over the row shares
  const int64_t cols = largest_share(N, k.nr, col_shares);
  for (int64_t r = 0; r < row_shares; ++r)
    share_packs += b_packs(k, share_start(M, k.mr, r + 1, row_shares) - share_start(M, k.mr, r, row_shares), cols, K);
  const double extra_b = static_cast<double>(share_packs - b_packs(k, M, N, K)) * static_cast<double>(K * N);
  const double extra_a = 2.0 * static_cast<double>(col_shares - 1) * static_cast<double>(M * K);
  return extra_a + extra_b;
}

// The grid for `threads` threads: every factorisation with at least a register tile per block, the one that
// repacks least (ties: more row shares). When none gives every thread a block, threads take columns and the
// threads past the last column of tiles idle.
int32_t row_shares_for(const Kernel& k, int64_t M, int64_t N, int64_t K, int32_t threads) {
  using strata_model::ceil_div;
  int32_t best = 1;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int32_t rows = 1; rows <= threads; ++rows) {
    if (threads % rows != 0 || rows > ceil_div(M, k.mr) || threads / rows > ceil_div(N, k.nr)) continue;
    const double cost = repacked_elements(k, M, N, K, rows, threads / rows);
    if (cost <= best_cost) best = rows, best_cost = cost;
  }
  return best;
}

// The k slice of a streamed B (see direct_depth). The hardware prefetchers follow streams per 4 KiB page, and only
// a few dozen pages at once: a slice's rows are read side by side, so it spans at most 16 pages (kStreamBytes), but
// at least kStreamDepth rows, so that C is read and written once per 16 steps of k at most. On the Xeon the examples
// were profiled on: 8x4096x4096 1.9x slower with 32-row slices than with 16; 8x256x2304 1.2x faster with 64.
constexpr int64_t kStreamDepth = 16;
constexpr int64_t kStreamBytes = int64_t{64} << 10;

// The depth of the k slices of a call whose B is streamed (see streamed_rows and direct_streams_b, and
// run_streamed), on a thread's `rows` rows: as deep as its A buffers (`a_floats`) hold A's packed slice for all of
// them, and as keep that slice and a strip's slice of B within {{DIRECT_CACHE}}'s half that kDirectBytes names, which
// the strip's later tiles read them from, but at most kStreamedK1s times K1: deeper, the slices kept C in registers
// for longer, but read A's slice and the strip's from further out (one thread of an AMD Zen 4, against K = 3072 in
// two slices: 24x768x3072 1.03x faster, 43x768x3072 1.03x, 16x768x3072 1.01x, 62-128 rows and 16-64x1000x4096 within
// 1%); the slices as even as that allows, in whole unrolled steps.
constexpr int64_t kStreamedK1s = 3;
int64_t streamed_depth(const Kernel& k, int64_t rows, int64_t K, int64_t a_floats) {
  using strata_model::ceil_div;
  const int64_t padded = ceil_div(rows, k.mr) * k.mr;
  const int64_t slice_row_bytes = (padded + k.nr) * static_cast<int64_t>(sizeof(float));  // A's and a strip's
  const int64_t fits = std::min({a_floats / padded, kDirectBytes / slice_row_bytes, kStreamedK1s * k.k1});
  const int64_t deepest = std::max<int64_t>(k.ku, fits / k.ku * k.ku);
  const int64_t even = ceil_div(ceil_div(K, ceil_div(K, deepest)), k.ku) * k.ku;
  return std::min(even, deepest);
}

// Whether k's tiles of `rows` rows, reading B in place a strip of rows ldb apart at a time (run_streamed, or the deep
// k slices of direct_b_ahead), outlast {{OUTER_CACHE}}'s latency with the kBRowsAhead k steps they ask for B's rows
// ahead. A strip's rows lie a page or more apart, so no hardware prefetcher follows them, and every line the tile's
// own requests do not bring in time stalls its FMAs. On an AMD Zen 4 (L3 at 13.5 ns) every tile does; on a 2-vCPU
// Intel Xeon VM whose L3, measured at 160 ns and 33 GB/s, is no nearer than its memory, none does (a 4x64 tile's 32
// k steps last 72 ns).
// Where they do not, a call reads in place at most kDirectBytes of a B whose rows share a set of {{TILE_CACHE}} (then
// {{TILE_CACHE}} keeps only as many of a strip's rows as it has ways, and each tile of the strip reads them again from
// further out), and packs any B beyond kDirectBytes for more than a block of kStreamTiles rows of tiles, which would
// read B from {{OUTER_CACHE}} once per block. Medians of interleaved rounds on that Xeon (tools/ab.sh), one thread:
// 2048^3 1.72x faster, 200x3072x768 3.6x, 43x3072x768 2.8x, 16x3072x768 2.1x, 1000x768x768 1.52x, 512x768x3072
// 1.44x, 100x768x3072 1.24x, 8x4096x4096 1.21x, 81x768x768 1.20x; two threads 2048^3 1.72x, 200x3072x768 3.5x,
// 11x3072x768 1.6x. Short blocks over rows that do not share a set still stream: packed, 43x768x768 ran 0.77x,
// 32x1000x4096 0.85x, 16x768x3072 0.67x.
bool outer_keeps_up(const Kernel& k, int64_t rows) {
  const double ahead_s = kBRowsAhead * 2.0 * static_cast<double>(rows * k.nr) / kMachine.unit_flops;
  return ahead_s >= kMachine.level[kMachine.num_levels - 1].latency_s;
}
// The most bytes of a B `ldb` floats a row that tiles of k with `rows` rows read in place (see outer_keeps_up).
int64_t streamed_b_bytes(const Kernel& k, int64_t rows, int64_t ldb) {
  return outer_keeps_up(k, rows) || !rows_share_a_set(ldb) ? kOuterBytes : kDirectBytes;
}

// Whether a direct call is a single row of tiles of three rows or more over a B that lives in {{OUTER_CACHE}} with
// rows that do not share a set of {{TILE_CACHE}} (or of kDeepSharedRows to kShallowRows rows, below): then its k
// slices are K1 deep (see direct_depth) and every tile asks for B's rows a few steps ahead (TileArgs::fetch_b_ahead),
// since every tile is the only one in its strip to read them. Against shallow slices, medians of interleaved rounds
// on an AMD Zen 4, one thread: 5x768x768 1.14-1.15x faster, 5x2304x768 1.03-1.10x, 11x768x768 1.15-1.19x, 8x256x2304
// 1.03-1.06x; two threads 1.03-1.30x. Up to half of kOuterBytes for any number of rows; up to all of it for at most
// kShallowRows rows, which would otherwise take shallow slices (see direct_streams_b): 5x768x3072 1.25x faster,
// 6x768x3072 1.25x, 4x768x3072 1.39x, 3x768x3072 1.26x (taller tiles stream B through packed A there: deep slices
// made 10x1000x4096 1.09x as long and 11x768x3072 1.12x). Not for one or two rows: their tiles are thin (see the
// kernels' thin_tile_body), and with the fetches in their loop GCC 12 kept their accumulators in memory (1x768x768
// 0.78x). Where B's rows share a set, the shallow slices stay for fewer than kDeepSharedRows rows (deep, measured in
// calls of their own, the rest of the hierarchy cold as in tools/bench's harness: 4x3072x768 1.14-1.21x as long,
// 3x3072x768 1.35x); from there on deep slices win (5x3072x768 1.02x faster, 6x3072x768 1.20x, 5x1024x1024 1.16x).
// "Lives in {{OUTER_CACHE}}" is as far as streamed_b_bytes allows: where the tiles do not outlast its latency, B's
// rows that share a set of {{TILE_CACHE}} take the shallow slices.
constexpr int64_t kShallowRows = 6;
constexpr int64_t kDeepSharedRows = 5;
bool direct_b_ahead(const Kernel& k, int64_t M, int64_t N, int64_t K, int64_t ldb) {
  const int64_t b_bytes = matrix_bytes(K, N), stays = streamed_b_bytes(k, std::min(M, int64_t{k.mr}), ldb);
  const bool b_stays = 2 * b_bytes <= stays || (M <= kShallowRows && b_bytes <= stays);
  const bool sets_allow = !rows_share_a_set(ldb) || (M >= kDeepSharedRows && M <= kShallowRows);
  return M > 2 && M <= k.mr && N > k.nr && b_bytes > kDirectBytes && b_stays && sets_allow;
}

// Whether a direct call of a single row of tiles reads B as a packed call's streamed B (see run_streamed): A's rows
// packed one k slice at a time into kStreamedAFloats on the stack, then each column strip's tile walks the slice of B
// in place, fetching its rows ahead, in slices far deeper than direct_depth's shallow ones, which read and wrote C
// once per 16 steps of k and made a call per strip and slice. Where B is larger than {{DIRECT_CACHE}} and stays in
// {{OUTER_CACHE}}, the tiles would not run deep slices already (direct_b_ahead), and C has more than kShallowRows
// rows. In tools/bench's harness, against oneDNN, one thread of an AMD Zen 4 (before -> after): 11x3072x768 0.64-0.68
// -> 1.02-1.05, 11x768x3072 0.77 -> 0.97, 10x1000x4096 0.83-0.88 -> 1.05-1.15, 9x3072x768 0.97-1.01 -> 1.12-1.19,
// 9x2048x2048 1.11-1.14 -> 1.42-1.45, 8x3072x768 0.64-0.83 -> 0.88-0.90, 8x1000x4096 0.84-0.89 -> 0.79-1.13 (B of
// 16 MiB, where other libraries' calls between Strata's evict it), 7x1000x4096 0.91-0.93 -> 1.02-1.05, 7x3072x768
// 0.84-0.87 -> 0.77-0.89. With at most kShallowRows rows, few FMAs per line of B wait on each row's misses, which the
// shallow slices, reading each row of B along its length, leave to the hardware prefetchers: 3x3072x768 0.89 ->
// 0.74, 4x3072x768 0.96-1.00 -> 0.79-0.81, 5x3072x768 0.86-0.87 -> 0.76, 6x3072x768 0.82-0.85 -> 0.77-0.79,
// 5x1000x4096 0.88-0.91 -> 0.84-0.85 (tools/ab.sh, whose buffers lie differently, had 5x3072x768 1.25-1.60x faster:
// the shallow slices there ran at half their speed in the harness). A stack buffer of 384 k steps did about as well
// as all of K (8x3072x768 1.34x against 1.46x in tools/ab.sh, the others within 0.05x). Not with B from memory
// (8x4096x25088 0.81x, 6x4096x4096 0.74x, 11x4096x4096 1.27x), nor for two rows of tiles (16x256x2304 0.88-0.96x,
// 16x2304x768 0.96-0.99x).
constexpr int64_t kStreamedAFloats = 4096;  // 16 KiB
bool direct_streams_b(const Kernel& k, int64_t M, int64_t N, int64_t K, int64_t ldb) {
  const int64_t b_bytes = matrix_bytes(K, N);
  return M <= k.mr && M > kShallowRows && N > k.nr && b_bytes > kDirectBytes &&
         b_bytes <= streamed_b_bytes(k, M, ldb) && !direct_b_ahead(k, M, N, K, ldb);
}

// Whether a direct call of a few rows of C reads B a few whole rows at a time (see the kernels' row_streams) instead of
// in column strips of tiles: where B is wider than a strip and larger than {{DIRECT_CACHE}}, so that it comes from
// beyond it either way, and the call runs at the speed it arrives: one or two rows always. Against strips, medians of
// interleaved rounds on an AMD Zen 4, one thread: 1x256x2304 1.26-1.39x faster, 1x768x768 1.17-1.24x, 1x768x3072
// 1.15-1.31x, 1x3072x768 1.17-1.40x, 1x4096x4096 1.13-1.15x, 1x4096x25088 1.12x, 2x768x768 1.14-1.17x, 2x3072x768
// 1.20-1.29x, 1x1024x1024 1.38-1.60x; two threads 1.0-1.7x. Up to kStreamRowsMax rows, on one thread (`alone`), where B
// comes from memory: 3x4096x4096 1.58x, 4x4096x4096 1.40x, 5x4096x4096 1.18-1.26x, 3x8192x2048 1.69x, 5x1000x8192
// 1.14x, 4x4096x25088 1.39x; on two threads, each its share of K (see split_k), 0.88-1.02x; with B in the outer cache
// 0.78-1.28x (5x3072x768 0.78x, 4x3072x768 1.28x) and against the deep slices of direct_b_ahead 0.8-1.0x. The model
// prices those calls as tiles (direct_work takes `alone` false), which it does for every kernel.
bool row_streams_pay(const Kernel& k, int64_t M, int64_t N, int64_t K, bool alone) {
  const int64_t b_bytes = matrix_bytes(K, N);
  return (M <= 2 || (alone && M <= kStreamRowsMax && b_bytes > kOuterBytes)) && N > k.nr && b_bytes > kDirectBytes;
}

// The depth of the direct path's k slices. Every tile of a thread's range runs a slice before the next slice starts,
// so a slice of B is read from cache by every row of tiles after the first, and C is read and written once per slice.
//  - All of B fits in {{DIRECT_CACHE}}: one slice; C is written once.
//  - A single column of tiles (N <= NR): B is reused by every tile, A is read once. Slices as deep as keep B's
//    slice in {{DIRECT_CACHE}}, so that each tile reads its rows of A as long streams (169343x16x1433: 1.65x faster
//    than slices of K1 on the Xeon the examples were profiled on).
//  - A single row of tiles (M <= MR) of three rows or more (one or two rows read such a B in row streams instead,
//    see row_streams_pay): B is read once and is too big to stay cached, so it is streamed: shallow slices, so that
//    a tile reads few rows of B at once and the sweep across N reads each row sequentially (5x2304x768: 2x faster
//    than slices of K1, 8x4096x4096: 2.9x). C, M rows of N, is then read and written once per slice, from cache.
//    Slices as deep as L1's ways, where B's rows share a set of it, did well for one- and two-row tiles before row
//    streams, but lost for taller ones, which use each line of B for more FMAs (5x3072x768 0.88x, 8x4096x4096
//    0.94x, 3x3072x768 0.72x on an AMD Zen 4). Where B's rows do not share a set, or the tile has kDeepSharedRows
//    rows or more, and B stays inside {{OUTER_CACHE}}, the shallow slices cost more than they save: each slice is a
//    call per strip and a pass over C. There they take slices of K1, each tile fetching B's rows ahead (see
//    direct_b_ahead). Elsewhere in {{OUTER_CACHE}}, more than kShallowRows rows on one thread, or in a split-K task,
//    stream B through packed A instead (see direct_streams_b); the shallow slices serve fewer rows, a B from memory,
//    and two threads' shares of the tiles.
//    `ldb` is B's row stride; a plan, which has none, takes N.
int64_t direct_depth(const Kernel& k, int64_t M, int64_t N, int64_t K, int64_t ldb) {
  const int64_t b_row_bytes = N * static_cast<int64_t>(sizeof(float));
  if (K * b_row_bytes <= kDirectBytes) return K;
  if (N <= k.nr) return std::max(k.k1, kDirectBytes / b_row_bytes);
  if (direct_b_ahead(k, M, N, K, ldb)) return k.k1;
  if (M <= k.mr) return std::max(kStreamDepth, kStreamBytes / b_row_bytes);
  return k.k1;
}

// The rows of C a direct k slice of `depth` walks at a time, a whole number of register tiles. All of them when C is a
// single column strip, or while their A stays in {{DIRECT_CACHE}} from one strip to the next; else as many as half of
// {{TILE_CACHE}} holds, so that every strip after a block's first reads the block's A from there instead of from
// memory (169343x121x16: 1.5x faster than strips of every row).
int64_t direct_block_rows(const Kernel& k, int64_t M, int64_t N, int64_t depth) {
  const int64_t row_bytes = depth * static_cast<int64_t>(sizeof(float));
  if (N <= k.nr || M * row_bytes <= kDirectBytes) return M;
  return std::max<int64_t>(1, kTileCacheBytes / row_bytes / k.mr) * k.mr;
}

// What one strip of a direct call (a column of tiles of one row block and k slice, see direct_all) costs beyond its
// tiles, in T_launch: each strip is a call into the micro-kernel, which sets up its masks and tiles again. Without
// it, the small calls whose estimate is all memory time looked alike for every kernel and the first one won, where
// fewer, wider strips are faster (1x64x7, rdtsc: one strip of the 4x80 tile 133 cycles, two of the 9x48 tile 177;
// on the small suite's timed kernels, the dispatcher's fraction of the fastest rose from 0.920 to 0.953).
constexpr double kStripCallLaunches = 0.5;

// The direct path's cost on `threads` threads. The model's levels describe the packed blocks, which the direct path
// does not make: it runs register tiles over A and B in place, each tile its exact size. So its cost is the sum over
// C's tiles of the profiled tile step scaled to the tile's rows, columns and depth (never below the FMA latency
// chain of its k steps, nor below its loads) plus the tile's C traffic at level 0's bandwidth (the cache register
// tiles load from): the busiest thread's share of that, or the time to bring A, B and C from where they live,
// whichever is longer; and then the busiest thread's share of the strips' calls. The calls are not overlapped with
// the memory time: where a call streams B from memory, every kernel's estimate was that stream's time, and the
// first kernel won, with the most calls (1x768x768: the 23x16 tile's 48 strips per k slice, 1.3x slower than the
// 4x64 tile's 12 on one thread, 2x on two; 5x2304x768: 1.45x slower than the 13x32 tile's 24).
// Charging every edge tile as much as a full one, as the model does, made tall register tiles look worse than they
// are on small M (31x31x31: the 4-row kernel chosen, 0.75 of the fastest).
// direct_work() is the part that does not depend on the thread count, worked out once per kernel and call: a cold
// plan tries every kernel on every thread count, and counting the strips again for each cost up to 0.6 us a plan.
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
// or columns has few FMAs per load, and its loads bound it, which scaling the profiled step by the tile's share of the
// FMAs does not see (1x768x768: the 23x16 tile, two loads per FMA, estimated as fast as the 4x64 one and 1.3x slower
// on one thread, 2x on two). A load takes a vector's bytes at level 0's bandwidth, or less where the profiled full
// tile, bound by its FMAs, shows the core loading faster (broadcasts are narrow loads).
// What of that does not depend on the shape is worked out here, at compile time, per kernel: a plan for a new shape
// runs direct_work() for every kernel, and its divisions were a good part of it.
// So is each kernel's twin: use_direct(), direct_work() and the direct path itself read only the micro-kernel, its
// profiled step and the level-1 depth, so two kernels that differ only in their packed blocking (several levels 1 and
// 2 over one register tile) run a direct call alike, and the model gives them the same time. The later one can then
// only tie the earlier, which wins ties, and a plan skips it (the package tools/bench.sh generated on an Emerald
// Rapids Xeon holds 9 kernels on 4 micro-kernels, 3 of them such twins). The level-1 depth matters only where B is
// larger than {{DIRECT_CACHE}}'s kDirectBytes (it sets the k slices of a B that does not stay there) or for use_direct's
// choice itself, so two kernels that differ in it too are twins for a call whose B fits and which both run in place
// (loose_twin): a package generated on a 2-vCPU Intel Xeon VM held 11 kernels on 4 micro-kernels, 7 of which ran
// 8x80x1152 in place, 4 of them alike.
struct DirectConstants {
  double fma_s;        // one FMA of the tile step: the (profiled) step over its mr x nr x ku FMAs
  double load_s;       // one load in place
  int32_t twin;        // the first earlier kernel with the same direct path, or -1
  int32_t loose_twin;  // the first earlier kernel with the same direct path but for the level-1 depth, or -1
};

struct DirectTable {
  DirectConstants of[kKernelCount];
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

constexpr DirectTable direct_table() {
  DirectTable table{};
  const strata_model::Machine& m = kMachine;
  for (int32_t id = 0; id < kKernelCount; ++id) {
    const Kernel& k = kKernels[id];
    const double step_s = k.level0_seconds > 0 ? k.level0_seconds
                                               : 2.0 * static_cast<double>(k.mr * k.nr * k.ku) / m.unit_flops;
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

constexpr DirectTable kDirect = direct_table();

// The least time a k step of a tile of `accumulators` vector accumulators takes, its FMA chains run side by side in
// thin_sets() sets when K has that many steps (see step_s in tiles_work): by accumulator count, worked out here. A
// cold plan prices every kernel's edge tiles, whose heights are known only then, and the integer and floating-point
// divisions of working it out per tile were on its critical path.
struct ChainStep {
  int64_t sets;      // thin_sets() of the tile
  double latency_s;  // one FMA's latency over the sets
};
struct ChainSteps {
  ChainStep of[kChains / 2 + 1];  // [0]: the tiles of more than kChains / 2 accumulators, one set
  const ChainStep& operator()(int64_t accumulators) const {
    return of[accumulators * 2 > kChains ? 0 : accumulators];
  }
};
constexpr ChainSteps chain_steps() {
  ChainSteps steps{};
  steps.of[0] = ChainStep{1, kMachine.fma_latency_s};
  for (int a = 1; a <= kChains / 2; ++a) {
    const int sets = thin_sets(a, 1);
    steps.of[a] = ChainStep{sets, kMachine.fma_latency_s / static_cast<double>(sets)};
  }
  return steps;
}
constexpr ChainSteps kChainSteps = chain_steps();

// Reading and writing one element of C, at level 0's bandwidth.
constexpr double kDirectCElementSeconds = 2.0 * kMachine.c_bytes / kMachine.level[0].bandwidth_Bps;

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
  // Row streams (see row_streams_pay): per k step and vector of C's columns, M FMAs and a load of B; per pass of
  // 8 k steps, C's M vectors loaded and stored. One call, whose threads share C's vectors. From memory, a thread
  // reads its share of B no faster than its core's share of the memory's bandwidth: priced only as a call's data
  // (see direct_seconds), which counts a thread as fast as the outer cache's share, one thread looked as fast as two,
  // and 1x4096x4096 ran alone, 1.35x slower.
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

// C's register tiles over B in place, in k slices of `slice` and row blocks of `block_rows` rows: each column strip of
// a block is a call per k slice (see kStripCallLaunches). b_outer: B is streamed from {{OUTER_CACHE}} (see
// run_streamed), and each strip's first tile waits on its rows.
DirectWork tiles_work(int32_t id, int64_t M, int64_t N, int64_t K, int64_t slice, int64_t block_rows, double bytes,
                      bool b_outer) {
  using strata_model::ceil_div;
  const Kernel& k = kKernels[id];
  const DirectConstants& rates = kDirect.of[id];
  const strata_model::Machine& m = kMachine;
  // A tile's k step: its FMAs, its loads (see DirectConstants) or the FMA latency, whichever is longest; a tile of
  // few accumulators at least as deep as thin_sets() runs its k steps as that many chains side by side (see
  // internal.h).
  auto step_s = [&](int64_t rows, int64_t cols, int64_t vectors) {
    const double elements = static_cast<double>(rows * cols);
    const ChainStep& chains = kChainSteps(rows * vectors);
    const double latency_s = K >= chains.sets ? chains.latency_s : m.fma_latency_s;
    return std::max({elements * rates.fma_s, static_cast<double>(rows + vectors) * rates.load_s, latency_s});
  };
  // A one-vector tile taller than kDirectRows over slices of at most kSplitBytes of B runs as two shorter tiles,
  // each loading B's vector again (see tile_body in the kernels). Priced whole, the 14- and 15-row one-vector tiles
  // looked as fast as 11x32 in place, and won 33x33x33 and 100x100x100, where 11x32 was 1.14x and 1.07x faster (one
  // Zen 4 thread).
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
  // through a unit's share of {{OUTER_CACHE}}'s bandwidth: its k steps take at least the longer of the two shares.
  // The strip's later tiles find the rows in {{DIRECT_CACHE}}. Without this wait, the 13x32 kernel's estimate for
  // 62x768x768 on one thread of a 2-vCPU Xeon VM (L3 at 160 ns, 16 GB/s a core) was 0.36 ms, measured 0.45 ms, and
  // the 11x16 kernel's 0.41 ms, measured 0.64 ms.
  if (b_outer) {
    const strata_model::LevelParams& outer = m.level[m.num_levels - 1];
    const double b_step_s = std::max(outer.latency_s / kBRowsAhead,
                                     static_cast<double>(k.nr) * m.b_bytes / outer.bandwidth_Bps);
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
  // Each thread streams its share at its own bandwidth: {{DIRECT_CACHE}}'s, or {{OUTER_CACHE}}'s per-unit share (which
  // was measured with every unit reading at once) when they do not fit there. Only what does not fit in
  // {{OUTER_CACHE}} either shares the memory's bandwidth: capping data that stays in {{OUTER_CACHE}} at it made two
  // threads look no faster than one on 8x256x2304, so a call on two ran alone (257 us; 122 us on both threads).
  constexpr double kDirectByteS = seconds_per_byte(kMachine.level[1]);
  constexpr double kOuterByteS = seconds_per_byte(kMachine.level[kMachine.num_levels - 1]);
  constexpr double kMemoryByteS = seconds_per_byte(kMachine.problem);
  const bool cached = work.bytes <= static_cast<double>(kDirectBytes);
  const double latency_s = cached ? m.level[1].latency_s : m.level[m.num_levels - 1].latency_s;
  const double byte_s = cached ? kDirectByteS : kOuterByteS;
  double thread_byte_s = byte_s * share;
  if (work.bytes > static_cast<double>(kOuterBytes))
    thread_byte_s = std::max(thread_byte_s, std::min(byte_s, kMemoryByteS));
  const double memory_s = latency_s + work.bytes * thread_byte_s;
  return m.launch_s + std::max(compute_s, memory_s) + work.calls_s * busiest;
}

// (See the packed path.)
int64_t streamed_rows(const Kernel& k, int64_t rows, int64_t N, int64_t K, int64_t buffer_floats);

// A packed call whose B is streamed (see streamed_rows and run_streamed) runs its register tiles over B in place, as
// a direct call does, in blocks of `rows` rows, each of which reads all of B and packs its rows of A one k slice at
// a time into the thread's `a_floats` floats; and each tile of a strip is a call of its own. So it is priced as the
// direct path's tiles, plus packing A, not as the model's packed blocks, which charged it for packing B it does not
// pack: on a 2-vCPU Intel Xeon VM, one thread, the 13x32 kernel ran 62x768x768 in 0.46 ms, estimated 1.05 ms, and
// the plan took a 4x64 kernel, 0.56 ms.
DirectWork streamed_work(int32_t id, int64_t M, int64_t N, int64_t K, int64_t rows, int64_t a_floats) {
  using strata_model::ceil_div;
  const Kernel& k = kKernels[id];
  const strata_model::Machine& m = kMachine;
  const int64_t blocks = ceil_div(M, rows);
  const double bytes = call_bytes(M, N, K) + static_cast<double>((blocks - 1) * K * N) * m.b_bytes;
  DirectWork work = tiles_work(id, M, N, K, streamed_depth(k, rows, K, a_floats), rows, bytes,
                               matrix_bytes(K, N) > kDirectBytes);
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
// count, and a division per price lay on its critical path.
struct ThreadCounts {
  int64_t count[thread_count_slots()];
  double share[thread_count_slots()];
  int size;
};

ThreadCounts thread_counts(int32_t max_threads) {
  // Only the slots below size are ever read, so only they are written: cleared whole, the struct was a `rep stos`,
  // whose stores the prices' loads of the counts could not take from the store buffer.
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
// A cold plan prices every kernel, and on small calls that is a measurable share of the call (100x100x100 on two
// threads of a 2-vCPU Intel Xeon VM: 160 ns of 9.3 us). A kernel whose estimate cannot beat the best so far need not
// be priced in full: every path's estimate is at least its multiply-adds at a profiled rate, spread over the threads.
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
  WorkFloor of[kKernelCount];
};

constexpr double kFloorShave = 1.0 - 1e-9;

constexpr WorkFloors work_floors() {
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

constexpr WorkFloors kWorkFloors = work_floors();

// The parallel units of the model's levels other than level {{TOP_LEVEL}}, whose units are the thread count.
constexpr double fixed_units() {
  double units = 1.0;
  for (int l = 1; l < kMachine.num_levels; ++l)
    if (l != {{TOP_LEVEL}}) units *= static_cast<double>(kMachine.level[l].parallel_units);
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

// Whether a thread of a packed call, its block of C `rows` tall, has its tiles ask for the B block it packs next
// (see run_block): where B comes from beyond {{DIRECT_CACHE}} (larger than it). Only for a thread with one level-2 row
// of tiles: with more, the next i2 starts on B blocks it may hold already (see b_slots). First only for a B from
// memory (larger than kOuterBytes); for one in {{OUTER_CACHE}} too, medians of interleaved rounds on an AMD Zen 4,
// one thread: 200x3072x768 1.03x faster, 200x2304x768 1.03x, 200x768x3072 1.02x, 160x1000x4096 1.03x, 512x2304x768
// 1.01x, others 0.99-1.01x (512x3072x768 0.99x); two threads 1.00-1.02x. An outer cache shared with other tenants
// keeps less of B than its size says.
bool asks_b_ahead(const Kernel& k, int64_t rows, int64_t N, int64_t K) {
  return matrix_bytes(K, N) > kStreamABytes && rows <= k.m2;
}

// What packing one B block of kernel k costs in a packed call. Where the call's tiles ask for the next B block ahead
// (asks_b_ahead, taking all of C's rows for a thread's), packing the block copies it from L2, and its trip from
// memory overlaps the tiles before it: the block costs the copy, at L2's bandwidth each way, and whatever of the trip
// the tiles of its level-2 row of level-1 tiles do not cover. Elsewhere, and never above, the profiled pack_b_s,
// which packed it from memory with nothing before it. At the profiled price, on one thread of a 2-vCPU Intel Xeon VM,
// the 8x48 kernel whose level-1 blocks are 768 wide won 16-62x3072x768 at 0.84-0.92 of the fastest kernel's speed;
// priced as here, the one with 384-wide blocks wins them at 0.92-0.99 (tools/bench.sh, transformer suite: the dispatcher's
// geometric mean 0.975 -> 0.981 of the fastest kernel's speed on one thread, 0.980 -> 0.979 on two).
double packed_b_block_s(const Kernel& k, int64_t M, int64_t N, int64_t K) {
  if (!asks_b_ahead(k, M, N, K)) return k.level1.pack_b_s;
  const strata_model::Machine& m = kMachine;
  const double block_bytes = static_cast<double>(k.k1 * k.n1) * m.b_bytes;
  const double trip_s = block_bytes / m.level[m.num_levels - 1].bandwidth_Bps;
  const double copy_s = 2.0 * block_bytes / m.level[1].bandwidth_Bps;
  const double tiles_s = k.level1.tiles_s * static_cast<double>(std::min(M, k.m2)) / static_cast<double>(k.m1);
  return std::min(k.level1.pack_b_s, copy_s + std::max(0.0, trip_s - tiles_s));
}

// Offers kernel `id`'s plans to the best so far: *best, on any of `counts` threads, and *alone, on one thread, each
// replaced where the kernel is faster (on a tie the earlier stays). skip_twins: a kernel that would run the call in
// place as an earlier one does (its twin or, where that applies, its loose twin; see DirectConstants) offers nothing,
// as it would only tie. A kernel whose lower bound cannot beat either (see above) is not priced in full.
// best->row_shares is left as it is: the grid matters only for the plan that wins, and choose_plan_slow() works it
// out for that one alone. (The plans are written field by field rather than returned: a returned Plan, copied out in
// wide loads of the callee's narrow stores, stalled each offer on store forwarding.)
void offer_kernel(int32_t id, int64_t M, int64_t N, int64_t K, const ThreadCounts& counts, bool skip_twins,
                  Plan* best, Plan::Alone* alone) {
  const Kernel& k = kKernels[id];
  const int64_t shape[3] = {M, N, K};
  const bool packed = !use_direct(M, N, K, k);
  if (skip_twins && !packed) {
    const DirectConstants& d = kDirect.of[id];
    if (d.twin >= 0) return;  // it would tie its twin
    if (d.loose_twin >= 0 && matrix_bytes(K, N) <= kDirectBytes && use_direct(M, N, K, kKernels[d.loose_twin]))
      return;  // likewise
  }
  double seconds[thread_count_slots()];
  const int64_t buffer_floats = packed ? thread_floats(k, b_slots(k, M, N, K)) : 0;
  const int64_t streamed = packed ? streamed_rows(k, M, N, K, buffer_floats) : 0;
  const WorkFloor& floor = kWorkFloors.of[id];
  const double m = static_cast<double>(M), n = static_cast<double>(N), depth = static_cast<double>(K);
  const bool blocks = packed && streamed == 0;
  const double pack_b_s = blocks ? packed_b_block_s(k, M, N, K) : 0.0;  // per block (0 where level 1 is modelled)
  const double pack_b_floor_s = pack_b_s / static_cast<double>(k.k1 * k.n1) * kFloorShave;  // per element
  const double work_s = blocks ? floor.packed_mac_s * m * n * depth + floor.pack_a_s * m * depth +
                                     pack_b_floor_s * depth * n
                               : floor.mac_s * m * n * depth;
  if (cannot_beat(work_s, counts, best->seconds, alone->seconds)) return;
  if (streamed > 0) {
    const DirectWork work = streamed_work(id, M, N, K, streamed, buffer_floats);
    for (int i = 0; i < counts.size; ++i) seconds[i] = direct_seconds(work, counts.count[i], counts.share[i]);
  } else if (packed) {
    strata_model::Tiling tiling = tiling_of(id);
    tiling.l1.pack_b_s = pack_b_s;
    strata_model::estimate_units(kMachine, tiling, shape, {{TOP_LEVEL}}, counts.count, counts.size, seconds);
  } else {
    const DirectWork work = direct_work(id, M, N, K);
    for (int i = 0; i < counts.size; ++i) seconds[i] = direct_seconds(work, counts.count[i], counts.share[i]);
  }
  for (int i = 0; i < counts.size; ++i) {
    const int32_t threads = static_cast<int32_t>(counts.count[i]);
    if (threads > 1) seconds[i] += kParallelRegionSeconds;  // each path runs one parallel region per call
    if (threads == 1 && seconds[i] < alone->seconds) {
      alone->kernel = id;
      alone->packed = packed;
      alone->seconds = seconds[i];
    }
    if (seconds[i] < best->seconds) {
      best->kernel = id;
      best->threads = threads;
      best->packed = packed;
      best->seconds = seconds[i];
    }
  }
}

// offer_kernel() for one kernel, with every function it calls inlined (GCC's and Clang's flatten), so that the
// kernel's tiles, depths and rates are constants there: divisions by them become multiplies, and the branches on
// them fold. On a 2-vCPU Intel Xeon VM that took cold plans, timed back to back, from 157 to 83 ns (100x100x100, two
// threads) and from 104 to 72 ns (8x80x1152, one thread).
#if defined(__GNUC__)
#define {{PACKAGE_UPPER}}_FLATTEN __attribute__((flatten))
#else
#define {{PACKAGE_UPPER}}_FLATTEN
#endif
template <int32_t kId>
{{PACKAGE_UPPER}}_FLATTEN void offer_kernel_of(int64_t M, int64_t N, int64_t K, const ThreadCounts& counts,
                                         bool skip_twins, Plan* best, Plan::Alone* alone) {
  offer_kernel(kId, M, N, K, counts, skip_twins, best, alone);
}

using KernelPlanner = void (*)(int64_t, int64_t, int64_t, const ThreadCounts&, bool, Plan*, Plan::Alone*);
struct Planners {
  KernelPlanner of[kKernelCount];
};
template <int32_t... kIds>
constexpr Planners planners(std::integer_sequence<int32_t, kIds...>) {
  return Planners{ {&offer_kernel_of<kIds>...} };
}
constexpr Planners kPlanners = planners(std::make_integer_sequence<int32_t, kKernelCount>());

// Remembers the last plans per calling thread: repeated shapes (the common case in a model's layers) skip the
// model entirely. A copy of the entry that answered last is tried first, inline (see choose_plan).
struct PlanCache {
  struct Entry {
    int64_t m, n, k;
    int32_t threads, forced;
    Plan plan;
    // Whether a call the entry answers skips execute() (see ran_at_once): where the plan runs it in place on one
    // thread, the CPU runs the kernels and M, N and K are positive and below 2^30 (as plainly_valid() asks). Where
    // it is one register tile of the plan's kernel, `single` is that kernel's direct strip, which runs it
    // (single_fetch_a: the strip's TileArgs::fetch_a_ahead, see a_from_beyond); else direct_all runs it.
    bool at_once;
    TileFn single;
    bool single_fetch_a;
    bool matches(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced_id) const {
      return m == M && n == N && k == K && threads == max_threads && forced == forced_id;
    }
  };
  static constexpr int kEntries = 16;
  // The entry that answered last, copied to a fixed place: its fields are then a constant offset from the thread's
  // storage, one load each, where entries[last] needed the index and the storage's address loaded first (that
  // chain was a sixth of a 1x1x1 call on an AMD Zen 4).
  Entry front;
  Entry entries[kEntries];
  int used, next;
};
// No initialisers: a thread_local that is all zeros at first needs no guard on every access. The front entry, tried
// first, matches no call while the cache is empty: its thread count is 0, and a call asks for at least 1.
thread_local PlanCache t_plans;

bool cpu_supported();  // see the argument checks below

const Plan& choose_plan_slow(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced) {
  PlanCache& cache = t_plans;
  for (int i = 0; i < cache.used; ++i) {
    const PlanCache::Entry& e = cache.entries[i];
    if (e.matches(M, N, K, max_threads, forced)) {
      cache.front = e;
      return cache.front.plan;
    }
  }
  const ThreadCounts counts = thread_counts(max_threads);
  const double none = std::numeric_limits<double>::infinity();
  const int32_t first = forced >= 0 ? forced : 0;
  // (alone made from the values, not copied from best.alone: the copy's wide load of best's narrow stores stalled on
  // store forwarding, 5 of a cold plan's 130 ns.)
  Plan best{first, 1, false, none, 1, {first, false, none}};
  Plan::Alone alone{first, false, none};
  kPlanners.of[first](M, N, K, counts, false, &best, &alone);
  if (forced < 0)
    for (int32_t id = 1; id < kKernelCount; ++id) kPlanners.of[id](M, N, K, counts, true, &best, &alone);
  best.alone = alone;
  if (best.packed && best.threads > 1)
    best.row_shares = row_shares_for(kKernels[best.kernel], M, N, K, best.threads);
  // Whether a call the entry answers skips execute(), and how (see PlanCache::Entry).
  const Kernel& k = kKernels[best.kernel];
  const int64_t limit = int64_t{1} << 30;
  bool at_once = false, single_fetch_a = false;
  TileFn single = nullptr;
  if (best.threads == 1 && !best.packed && M > 0 && N > 0 && K > 0 && M < limit && N < limit && K < limit &&
      cpu_supported()) {
    at_once = true;
    if (one_tile(M, N, K, k)) {
      single = k.direct;
      single_fetch_a = matrix_bytes(M, K) > kStreamABytes;
    }
  }
  // Both copies built from the values, not one copied from the other: the copy's wide loads of the entry's narrow
  // stores stalled on store forwarding.
  cache.entries[cache.next] = PlanCache::Entry{M, N, K, max_threads, forced, best, at_once, single, single_fetch_a};
  cache.front = PlanCache::Entry{M, N, K, max_threads, forced, best, at_once, single, single_fetch_a};
  cache.next = (cache.next + 1) % PlanCache::kEntries;
  cache.used = std::min(cache.used + 1, PlanCache::kEntries);
  return cache.front.plan;
}

// The plan for a call, as a reference into the calling thread's cache: valid until the thread plans again, so a call
// must be done with it before it runs anything (a host's parallel_for may run other GEMMs on this thread). A
// reference rather than a copy: GCC copied the entry out of thread-local storage with `rep movs`, a tenth of a tiny
// call.
inline const Plan& choose_plan(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced) {
  const PlanCache::Entry& front = t_plans.front;
  if (front.matches(M, N, K, max_threads, forced)) return front.plan;
  return choose_plan_slow(M, N, K, max_threads, forced);
}

// ---- Threads -----------------------------------------------------------------------------------------------------

std::atomic<int32_t> g_threads{0};  // 0: not set, use the default
// The host's parallel-for and its context change together, under g_host_mutex: read apart, a call racing a change
// could pass one hook's context to another. g_host_parallel_for alone answers "is there a hook?" without the lock.
std::atomic<{{PACKAGE}}_parallel_for_fn> g_host_parallel_for{nullptr};
std::mutex g_host_mutex;
{{PACKAGE}}_parallel_for_fn g_host_fn = nullptr;  // guarded by g_host_mutex
void* g_host_context = nullptr;                  // guarded by g_host_mutex

// The CPUs this process may run on: its affinity mask where the system has one (a container or `taskset` limits it
// below the machine's), else the hardware's threads. More threads than that would only take turns on them.
unsigned usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
#endif
  return std::thread::hardware_concurrency();
}

// Asked once: it is a system call on Linux, far too slow for every call of a small GEMM.
int32_t default_threads() {
  static const int32_t threads = [] {
    const unsigned cpus = usable_cpus();
    return static_cast<int32_t>(std::min(cpus == 0 ? 1u : cpus, static_cast<unsigned>(kMaxThreads)));
  }();
  return threads;
}

int32_t current_threads() {
  const int32_t t = g_threads.load(std::memory_order_relaxed);
  return t > 0 ? t : default_threads();
}

// Tells the core that this thread is spinning (it frees issue slots for the other hyperthread and saves power).
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A small persistent pool. Between parallel regions a worker first spins for kSpinSeconds, then sleeps on a
// condition variable: a sleeping worker costs a futex wake-up on the next region, while a spinning one starts
// within a cache-line transfer, and GEMM calls tend to come back to back. The pool measures what waking costs: the
// time from publishing a region to the first woken worker starting it (the notification is a system call that
// interrupts the sleeping core, and a virtual machine may take long to run the core again). On the 2-vCPU VM the
// examples were profiled on that is tens to hundreds of microseconds, more than a whole 128^3 GEMM on one thread, so
// a call uses it to tell whether waking the workers pays (see ready_plan()). (It once also counted how long the caller
// then waited for the woken workers to finish: one slow region made that estimate milliseconds, after which no call
// woke the workers again, and so none measured it again.)
// Task i runs on worker i (the calling thread runs task 0), and a region ends when every worker, busy or not, has
// acknowledged it: so no worker can still be reading a region's fields when the next region writes them. One
// region at a time (callers serialise on run_mutex). Where the system refuses a thread (std::thread throws), the
// pool goes on with the workers it has and the calling thread runs the tasks that have none: the tasks of a region
// never wait for each other, so any number of threads runs them correctly, and no exception leaves the pool.
class ThreadPool {
 public:
  static constexpr double kSpinSeconds = 50e-6;
  // What waking is taken to cost until the pool has measured it: a futex wake on bare metal is a few microseconds,
  // in a virtual machine tens to hundreds.
  static constexpr double kFirstWakeSeconds = 20e-6;

  static ThreadPool& instance() {
    static ThreadPool pool;
    return pool;
  }

  ThreadPool() { std::fill(std::begin(wake_samples_), std::end(wake_samples_), kFirstWakeSeconds); }

  // Runs task(context, i) for i in [0, count); returns when all are done. It throws only before any task has run.
  void run(int64_t count, {{PACKAGE}}_task_fn task, void* context) {
    std::lock_guard<std::mutex> serial(run_mutex_);
    ensure_workers(static_cast<size_t>(count - 1));
    task_ = task;
    context_ = context;
    // Tasks from count_ on have no worker; the calling thread runs them after its own.
    count_ = std::min(count, static_cast<int64_t>(workers_.size()) + 1);
    pending_.store(static_cast<int64_t>(workers_.size()), std::memory_order_relaxed);
    // The clock is read only for a region that wakes workers: the others would pay for it on every call.
    const bool waking = sleeping_.load(std::memory_order_relaxed) > 0;
    timing_ = waking;
    first_start_ns_.store(0, std::memory_order_relaxed);
    const int64_t published = waking ? steady_ns() : 0;
    {
      // Under the mutex, so that a worker between its last check and its wait cannot miss the new generation.
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    task(context, 0);
    for (int64_t i = count_; i < count; ++i) task(context, i);
    const auto done = [&] { return pending_.load(std::memory_order_acquire) == 0; };
    if (!spin_until(done)) {
      // Tasks have run, so nothing may throw from here on: should the system refuse the mutex (std::mutex::lock may
      // throw by its specification), the caller waits by spinning.
      try {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, done);
      } catch (...) {
        while (!done()) spin_pause();
      }
    }
    const int64_t started = first_start_ns_.load(std::memory_order_relaxed);
    if (waking && started > 0) record_wake(1e-9 * static_cast<double>(started - published));
  }

  // True when `workers` workers exist and none is asleep: a region would start at once.
  bool awake(int64_t workers) const {
    return started_.load(std::memory_order_relaxed) >= workers && sleeping_.load(std::memory_order_relaxed) == 0;
  }

  // The measured cost of waking sleeping workers: the median of the last kWakeSamples wakes (kFirstWakeSeconds
  // stands in for those not made yet).
  double wake_seconds() const { return wake_seconds_.load(std::memory_order_relaxed); }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

 private:
  // A median, not an average: on the VM the examples were profiled on, waking takes about 20 us, but one wake in a
  // hundred takes a millisecond (the host runs something else on the sleeping core). An average that one such wake
  // lifted above what the calls could gain stopped them waking the workers, so it was never measured down again.
  static constexpr int kWakeSamples = 9;

  // Called under run_mutex_.
  void record_wake(double seconds) {
    wake_samples_[wake_next_] = seconds;
    wake_next_ = (wake_next_ + 1) % kWakeSamples;
    double sorted[kWakeSamples];
    std::copy(wake_samples_, wake_samples_ + kWakeSamples, sorted);
    std::nth_element(sorted, sorted + kWakeSamples / 2, sorted + kWakeSamples);
    wake_seconds_.store(sorted[kWakeSamples / 2], std::memory_order_relaxed);
  }

  // Spins until done() holds or kSpinSeconds pass; returns done().
  template <class Done>
  static bool spin_until(Done done) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (done()) return true;
        spin_pause();
      }
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > kSpinSeconds)
        return done();
    }
  }

  // A new worker starts from the generation current when it is made, before run() publishes the next: started
  // from 0, one made after earlier regions found a generation it had not seen at once, took the region being set
  // up, ran it again when it was published, and acknowledged it twice; the caller could then return while another
  // worker still ran, and the count of acknowledgements went below zero, so a later region waited for ever (seen
  // under qemu, whose threads start slowly).
  // A worker the system refuses (std::system_error, or std::bad_alloc for the vector) is not made; a later region
  // asks again.
  void ensure_workers(size_t wanted) {
    while (workers_.size() < wanted) {
      const int64_t index = static_cast<int64_t>(workers_.size()) + 1;
      const uint64_t current = generation_.load(std::memory_order_relaxed);
      try {
        workers_.emplace_back([this, index, current] { work(index, current); });
      } catch (...) {
        return;
      }
      started_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void work(int64_t index, uint64_t seen) {
    for (;;) {
      const auto started = [&] {
        return stopping_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
      };
      if (!spin_until(started)) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleeping_.fetch_add(1, std::memory_order_relaxed);
        wake_.wait(lock, started);
        sleeping_.fetch_sub(1, std::memory_order_relaxed);
      }
      if (stopping_.load(std::memory_order_acquire)) return;
      seen = generation_.load(std::memory_order_acquire);
      if (timing_) {  // the first worker to start a waking region stamps it
        int64_t unset = 0;
        first_start_ns_.compare_exchange_strong(unset, steady_ns(), std::memory_order_relaxed);
      }
      if (index < count_) task_(context_, index);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // Take the mutex before notifying: the caller checks pending under it, so it either sees zero or is
        // already waiting.
        { std::lock_guard<std::mutex> lock(mutex_); }
        done_.notify_one();
      }
    }
  }

  std::mutex run_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  // Written by the caller before it publishes a generation (release), read by workers after they see it (acquire).
  {{PACKAGE}}_task_fn task_ = nullptr;
  void* context_ = nullptr;
  int64_t count_ = 0;
  bool timing_ = false;  // the region wakes workers: the first to start stamps first_start_ns_
  std::atomic<int64_t> first_start_ns_{0};
  std::atomic<int64_t> pending_{0};  // workers yet to acknowledge the current region
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> started_{0};   // workers created
  std::atomic<int64_t> sleeping_{0};  // workers waiting on wake_
  std::atomic<double> wake_seconds_{kFirstWakeSeconds};
  double wake_samples_[kWakeSamples];  // filled with kFirstWakeSeconds by the constructor
  int wake_next_ = 0;
};

void parallel_for(int64_t count, {{PACKAGE}}_task_fn task, void* context) {
  if (count <= 1) {
    if (count == 1) task(context, 0);
    return;
  }
  if (g_host_parallel_for.load() != nullptr) {
    std::unique_lock<std::mutex> lock(g_host_mutex);
    const auto host = g_host_fn;
    void* const host_context = g_host_context;
    lock.unlock();
    if (host != nullptr) {
      host(host_context, count, task, context);
      return;
    }
  }
  ThreadPool::instance().run(count, task, context);
}

// ---- Packing -----------------------------------------------------------------------------------------------------

// ---- The call ----------------------------------------------------------------------------------------------------

struct Gemm {
  int64_t M, N, K;
  float alpha, beta;
  const float* A;
  int64_t lda;
  const float* B;
  int64_t ldb;
  float* C;
  int64_t ldc;
};

// A single row of tiles over a streamed B (M <= MR, B not cached) is split along K instead of N when C is small: each
// thread then streams whole rows of B, a contiguous run of memory, into a private copy of C, and the copies are
// summed at the end. Split along N, each thread read a narrow band of every row of B, a page or more apart, and two
// threads were slower than one (1x4096x25088 on the Xeon the examples were profiled on: 53 ms against 41 alone; split
// along K, 23 ms). Up to kSplitKBytes per copy, so that the copies stay in the second-level cache.
constexpr int64_t kSplitKBytes = int64_t{256} << 10;

bool split_k(int64_t M, int64_t N, int64_t K, const Kernel& k, int32_t threads) {
  return threads > 1 && M <= k.mr && matrix_bytes(K, N) > kDirectBytes && matrix_bytes(M, N) <= kSplitKBytes &&
         K >= 2 * k.k1;
}

// The private copies of C, M x N each (rows N apart), one per task, 64-byte aligned.
int64_t split_k_floats(int64_t M, int64_t N) { return round_up(M * N, kAlign / static_cast<int64_t>(sizeof(float))); }

// The B slots of every thread of a packed plan: enough for its largest block of C.
int64_t plan_b_slots(const Plan& plan, int64_t M, int64_t N, int64_t K) {
  const Kernel& k = kKernels[plan.kernel];
  const int64_t rows = largest_share(M, k.mr, plan.row_shares);
  return b_slots(k, rows, largest_share(N, k.nr, plan.threads / plan.row_shares), K);
}

size_t workspace_bytes(const Plan& plan, int64_t M, int64_t N, int64_t K) {
  const Kernel& k = kKernels[plan.kernel];
  int64_t floats = 0;
  if (plan.packed)
    floats = plan.threads * thread_floats(k, plan_b_slots(plan, M, N, K));
  else if (split_k(M, N, K, k, plan.threads))
    floats = plan.threads * split_k_floats(M, N);
  return floats == 0 ? 0 : static_cast<size_t>(floats) * sizeof(float) + kAlign;
}

// A plan's best one-thread alternative (see ready_plan).
Plan alone_plan(const Plan& plan) {
  return Plan{plan.alone.kernel, 1, plan.alone.packed, plan.alone.seconds, 1, plan.alone};
}

// What a call of this plan may need: either the plan itself or, when it finds the pool asleep, its alternative.
size_t call_workspace_bytes(const Plan& plan, int64_t M, int64_t N, int64_t K) {
  return std::max(workspace_bytes(plan, M, N, K), workspace_bytes(alone_plan(plan), M, N, K));
}

// C = beta * C, used for K = 0 and alpha = 0; beta = 0 writes zeros without reading C.
void scale_c(const Gemm& g) {
  for (int64_t i = 0; i < g.M; ++i) {
    float* row = g.C + i * g.ldc;
    if (g.beta == 0.0f)
      std::fill(row, row + g.N, 0.0f);
    else if (g.beta != 1.0f)
      for (int64_t j = 0; j < g.N; ++j) row[j] *= g.beta;
  }
}

// Direct path: micro-tiles over the whole of C, taken by the threads in chunks of consecutive tiles.
struct DirectJob {
  const Gemm* g;
  const Kernel* k;
  int64_t tiles, tiles_m;          // C's register tiles, and how many make a column of them
  int64_t chunk;                   // tiles taken at a time
  std::atomic<int64_t> next{0};    // the first tile no thread has taken yet
};

// Each thread of a direct call takes chunks of tiles as it goes, about this many per thread, rather than a fixed
// share: a worker woken from sleep may start late and, in a virtual machine, run slowly for a while (on the 2-vCPU VM
// the examples were profiled on, a just-woken worker took 3x as long as the caller for its half of 19717x41x16), and
// with fixed shares the caller waited for it, slower than alone. A chunk is a run of whole tiles, so that each tile
// still runs every k slice itself.
constexpr int64_t kChunksPerThread = 8;

// Whether a direct call's A comes from beyond {{DIRECT_CACHE}}: then the first strip of each row block, which reads its
// rows of A from there (the block's later strips find them in {{TILE_CACHE}}), has its tiles fetch A ahead
// (TileArgs::fetch_a_ahead, see the kernels' prefetch_a_rows). Where A is cached the fetches only cost time.
bool a_from_beyond(const Gemm& g) { return matrix_bytes(g.M, g.K) > kStreamABytes; }

// Whether a direct call's C is larger than {{DIRECT_CACHE}}: then its tiles, however shallow, ask for their rows of C
// before their k loops (TileArgs::c_from_beyond; see the kernels' tile_body).
bool c_from_beyond(const Gemm& g) { return matrix_bytes(g.M, g.N) > kStreamABytes; }

// A tile's arguments for a loop over a call's tiles, made once before it: C's stride and alpha, the rest zero for the
// loop to fill in. Made afresh for each tile, GCC cleared each with a `rep stos` before writing its fields, and the
// kernel's loads of them, which cannot be forwarded from a string store, waited for it to reach the cache: 4% of
// 1000x3072x768's packed call was spent there (perf, one thread of the Intel Xeon VM the figures below come from).
TileArgs tile_args_of(const Gemm& g) {
  return TileArgs{0, nullptr, 0, nullptr, 0, nullptr, g.ldc, g.alpha, 1.0f, 0, 0};
}

// What a direct call's strips are told about where A, B and C come from (TileArgs' fetch flags), worked out once per
// call (see a_from_beyond, direct_b_ahead and c_from_beyond).
struct DirectFetches {
  bool a_beyond, b_ahead, c_beyond;
  DirectFetches(const Gemm& g, const Kernel& k)
      : a_beyond(a_from_beyond(g)), b_ahead(direct_b_ahead(k, g.M, g.N, g.K, g.ldb)), c_beyond(c_from_beyond(g)) {}
  // The flags of the strip at row i and column j of C, whose other arguments are filled in.
  void mark(const Gemm& g, int64_t i, int64_t j, TileArgs* args) const {
    args->fetch_a_ahead = a_beyond && j == 0;
    args->a_continues = i + args->rows < g.M;
    args->c_from_beyond = c_beyond;
    args->fetch_b_ahead = b_ahead;
  }
};

// The micro-tiles [begin, end) of C, in k slices of direct_depth(). C's rows of tiles are cut into blocks of
// direct_block_rows(); the tiles are numbered block by block, and column-major (a column strip of the block after
// another) within one. The tiles of a range that lie in one strip of a block are one call of the kernel.
void direct_tiles(const Gemm& g, const Kernel& k, int64_t begin, int64_t end, int64_t tiles_m) {
  const int64_t slice = direct_depth(k, g.M, g.N, g.K, g.ldb), strips = (g.N + k.nr - 1) / k.nr;
  const DirectFetches fetches(g, k);
  TileArgs args = tile_args_of(g);
  args.lda = g.lda;
  args.ldb = g.ldb;
  for (int64_t p = 0; p < g.K; p += slice) {
    const int64_t depth = std::min<int64_t>(slice, g.K - p);
    const float beta = p == 0 ? g.beta : 1.0f;
    // All of M may end in a short tile.
    const int64_t block_tiles = (direct_block_rows(k, g.M, g.N, depth) + k.mr - 1) / k.mr;
    const int64_t per_block = block_tiles * strips;  // tiles in every block but the last
    for (int64_t t = begin; t < end;) {
      const int64_t block = t / per_block, in_block = t - block * per_block;
      const int64_t block_height = std::min(block_tiles, tiles_m - block * block_tiles);  // rows of tiles
      const int64_t j = in_block / block_height * k.nr, row = block * block_tiles + in_block % block_height;
      const int64_t count = std::min(end - t, block * block_tiles + block_height - row);  // tiles in this strip
      const int64_t i = row * k.mr;
      args.k = depth;
      args.a = g.A + i * g.lda + p;
      args.b = g.B + p * g.ldb + j;
      args.c = g.C + i * g.ldc + j;
      args.beta = beta;
      args.rows = std::min(count * k.mr, g.M - i);
      args.cols = static_cast<int32_t>(std::min<int64_t>(k.nr, g.N - j));
      fetches.mark(g, i, j, &args);
      k.direct(args);
      t += count;
    }
  }
}

// Whether a direct call whose B is too wide for the registers runs in held strips (see held_strips in the kernels):
// where a column strip of B fits in them at this depth (held_width), with rows enough for the FMA chains, and A and C
// stay in {{DIRECT_CACHE}}: each strip reads all of A again and writes a strip's width of every row of C (the kernels
// see those two as TileArgs::fetch_a_ahead and c_from_beyond).
bool held_strips_pay(int64_t M, int64_t N, int64_t K) {
  return held_strips_have_rows(M, K) && matrix_bytes(M, K) <= kStreamABytes && matrix_bytes(M, N) <= kStreamABytes;
}

// Whether a direct call runs each row of C across its whole width at once (see the kernels' rows_whole): C at most
// kWideVectors vectors wide, k at most kChains steps per vector (each of a row's accumulators is a chain of k FMAs,
// and a row of few vectors over a deeper k waited on them: 13x13x13 0.84x), and at most kWideFmas vector FMAs in
// all, where the strips' and tiles' calls around them were the larger part of the call. Medians of interleaved
// rounds on an AMD Zen 4, one thread, against tiles: 13x33x1 1.35x faster, 1x64x7 1.44x, 17x64x3 1.19x, 17x31x1
// 1.14x, 3x100x13 1.07x, 31x33x3 1.05x, 64x31x1 1.04x; with more FMAs the tiles' shared loads of B won (64x33x3,
// 594 FMAs: 0.86x; 100x17x3 0.80x; 100x33x2 0.96x); 31x33x3, 279 FMAs, 0.84-0.99x. On the AVX2 descriptor's kernels:
// 1x64x7 2.3x, 13x33x1 1.31x, 17x31x1 1.25x, 64x31x1 1.11x. Only on one thread (direct_all), and direct_work still
// prices such a call as strips of tiles: every kernel runs it alike, and such calls are too small for a second thread.
// So does a C larger than {{OUTER_CACHE}}, however many FMAs: it is then written to memory row after row, each row's
// lines whole, where strips of tiles wrote every row of a row block a strip's width at a time (one thread of that
// Zen 4: 169343x121x16 1.11-1.12x faster, 169343x64x16 1.06x; with C in {{OUTER_CACHE}} the tiles won, 19717x121x16
// 0.91x, 2708x64x16 0.62x).
// Ahead of all that: where all of B fits in the vector registers (b_held), the kernels hold it there (see rows_held)
// and a row costs its FMAs and its stores, whatever M: no tiles' loads of B to share, and no edge strip; where only a
// column strip of B fits, they hold one strip at a time (see held_strips_pay). Not for a single column, which the
// kernels' direct path runs along k (see dot_rows), a row in a few FMAs and one horizontal sum, where here it took K
// FMAs (33x1x13: 1.8x slower), nor for the few columns it runs along m (see along_m_pays: 2708x2x16 1.6x slower,
// 1000x3x16 1.35x). B held against the tiles or rows_whole, one thread of that Zen 4 (the package alone, then
// tools/bench's harness against oneDNN): 31x33x3 1.79x faster, 100x33x3 1.74x, 17x64x3 1.62x, 13x33x1 1.19x,
// 64x31x1 and 17x31x1 within noise; 169343x16x16 1.03-1.12 -> 1.37-1.45.
constexpr int64_t kWideFmas = 320;
bool wide_rows_pay(int64_t M, int64_t N, int64_t K) {
  const int64_t vectors = strata_model::ceil_div(N, kVectorFloats);
  if (N > 1 && !goes_along_m(M, N, K, kVectorFloats) && (b_held(vectors, K) || held_strips_pay(M, N, K))) return true;
  const bool c_from_memory = matrix_bytes(M, N) > kOuterBytes;
  return vectors <= kWideVectors && K <= kChains * vectors && (M * vectors * K <= kWideFmas || c_from_memory);
}

// Columns [j, j + cols) of a row-streams call.
void row_streams_of(const Gemm& g, const Kernel& k, int64_t j, int64_t cols) {
  TileArgs args{g.K, g.A, g.lda, g.B + j, g.ldb, g.C + j, g.ldc, g.alpha, g.beta, g.M, static_cast<int32_t>(cols)};
  args.b_rows_collide = rows_share_a_set(g.ldb) && matrix_bytes(g.K, g.N) <= kOuterBytes;
  k.row_streams(args);
}

// A row-streams call on several threads: each takes an even share of C's columns, in whole vectors.
struct RowStreamsJob {
  const Gemm* g;
  const Kernel* k;
  int64_t shares;
};

void row_streams_task(void* context, int64_t index) {
  const RowStreamsJob& job = *static_cast<const RowStreamsJob*>(context);
  const int64_t j = share_start(job.g->N, kVectorFloats, index, job.shares);
  const int64_t end = share_start(job.g->N, kVectorFloats, index + 1, job.shares);
  if (end > j) row_streams_of(*job.g, *job.k, j, end - j);
}

void run_streamed(const Gemm& g, const Kernel& k, float* a, int64_t a_floats);  // see the packed path

// All of C, on the calling thread, alone or as one of a split-K call's tasks: in row streams or whole rows where
// those pay (see row_streams_pay and wide_rows_pay), over a streamed B where that pays (see direct_streams_b), else
// each column of tiles of a row block is one strip. No tile counts, and no divisions to get them: on the small
// problems this path serves, a division is a visible share.
void direct_all(const Gemm& g, const Kernel& k, bool alone) {
  if (row_streams_pay(k, g.M, g.N, g.K, alone)) {
    row_streams_of(g, k, 0, g.N);
    return;
  }
  if (wide_rows_pay(g.M, g.N, g.K)) {
    TileArgs args{g.K, g.A, g.lda, g.B, g.ldb, g.C, g.ldc, g.alpha, g.beta, g.M, static_cast<int32_t>(g.N)};
    args.fetch_a_ahead = a_from_beyond(g);
    args.c_from_beyond = c_from_beyond(g);
    k.wide_rows(args);
    return;
  }
  if (direct_streams_b(k, g.M, g.N, g.K, g.ldb)) {
    alignas(kAlign) float a[kStreamedAFloats];
    run_streamed(g, k, a, kStreamedAFloats);
    return;
  }
  const int64_t slice = direct_depth(k, g.M, g.N, g.K, g.ldb);
  const DirectFetches fetches(g, k);
  TileArgs args = tile_args_of(g);
  args.lda = g.lda;
  args.ldb = g.ldb;
  for (int64_t p = 0; p < g.K; p += slice) {
    const int64_t depth = std::min<int64_t>(slice, g.K - p);
    const float beta = p == 0 ? g.beta : 1.0f;
    const int64_t block_rows = direct_block_rows(k, g.M, g.N, depth);
    for (int64_t i = 0; i < g.M; i += block_rows)
      for (int64_t j = 0; j < g.N; j += k.nr) {
        args.k = depth;
        args.a = g.A + i * g.lda + p;
        args.b = g.B + p * g.ldb + j;
        args.c = g.C + i * g.ldc + j;
        args.beta = beta;
        args.rows = std::min(block_rows, g.M - i);
        args.cols = static_cast<int32_t>(std::min<int64_t>(k.nr, g.N - j));
        fetches.mark(g, i, j, &args);
        k.direct(args);
      }
  }
}

// direct_all's one strip for a single-tile call (see one_tile).
void direct_single_tile(const Gemm& g, const Kernel& k) {
  TileArgs args{g.K, g.A, g.lda, g.B, g.ldb, g.C, g.ldc, g.alpha, g.beta, g.M, static_cast<int32_t>(g.N)};
  args.fetch_a_ahead = a_from_beyond(g);
  k.direct(args);
}

void direct_task(void* context, int64_t) {
  DirectJob& job = *static_cast<DirectJob*>(context);
  for (;;) {
    const int64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.tiles) return;
    direct_tiles(*job.g, *job.k, begin, std::min(job.tiles, begin + job.chunk), job.tiles_m);
  }
}

struct SplitKJob {
  const Gemm* g;
  const Kernel* k;
  float* copies;                    // split_k_floats() per task
  int64_t chunk;                    // rows of K taken at a time
  std::atomic<int64_t> next{0};     // the first row of K no task has taken yet
  bool written[kMaxThreads] = {};   // the task's copy holds a sum (a task may find no rows left)
};

void split_k_task(void* context, int64_t index) {
  SplitKJob& job = *static_cast<SplitKJob*>(context);
  const Gemm& g = *job.g;
  Gemm part = g;
  part.C = job.copies + index * split_k_floats(g.M, g.N);
  part.ldc = g.N;
  for (;;) {
    const int64_t p = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (p >= g.K) return;
    part.K = std::min(job.chunk, g.K - p);
    part.A = g.A + p;
    part.B = g.B + p * g.ldb;
    part.beta = job.written[index] ? 1.0f : 0.0f;
    direct_all(part, *job.k, false);
    job.written[index] = true;
  }
}

void run_split_k(const Gemm& g, const Kernel& k, int32_t threads, void* workspace) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(workspace);
  SplitKJob job{&g, &k, reinterpret_cast<float*>((base + kAlign - 1) / kAlign * kAlign),
                std::max(k.k1, g.K / (threads * kChunksPerThread))};
  parallel_for(threads, split_k_task, &job);
  const int64_t copy_floats = split_k_floats(g.M, g.N);
  for (int64_t i = 0; i < g.M; ++i) {
    float* c = g.C + i * g.ldc;
    if (g.beta == 0.0f)
      std::fill(c, c + g.N, 0.0f);
    else if (g.beta != 1.0f)
      for (int64_t j = 0; j < g.N; ++j) c[j] *= g.beta;
    for (int32_t t = 0; t < threads; ++t) {
      if (!job.written[t]) continue;
      const float* copy = job.copies + t * copy_floats + i * g.N;
      for (int64_t j = 0; j < g.N; ++j) c[j] += copy[j];
    }
  }
}

// What one of a thread's B or A slots holds, so that a later level-1 tile can reuse it instead of packing it again:
// the block's origin (row or column, then k) and extent.
// No initialisers: a thread's buffers hold up to kMaxASlots + kMaxBSlots of them, and packed_task empties only the
// slots the call uses (constructing all 512 wrote 16 KiB per thread and call).
struct PackedBlock {
  int64_t origin, p1, extent, k1;
  bool holds(int64_t o, int64_t p, int64_t e, int64_t k) const { return origin == o && p1 == p && extent == e && k1 == k; }
};

// One thread's packing buffers and what they hold.
struct ThreadBuffers {
  float* a;  // a_slots() blocks of a_block_floats()
  float* b;  // b_slots blocks of b_block_floats()
  int64_t slots, b_slots;
  PackedBlock held_a[kMaxASlots];
  PackedBlock held_b[kMaxBSlots];
};

// Packed path, one level-2 tile of a thread's block.
struct BlockJob {
  int64_t i2, j2, p2;        // origin of the level-2 tile
  int64_t m2, n2, k2;        // its extent, clamped to the block
  int64_t tiles_m, tiles_n;  // level-1 tiles in it
  // The B block the thread packs after this level-2 tile's, which the tiles of its last B block ask into L2 (see
  // TileArgs::next_b and run_block); none (next_b null) unless B comes from beyond {{DIRECT_CACHE}}.
  const float* next_b = nullptr;
  int64_t next_rows = 0, next_cols = 0;
};

// How a thread whose block of C has `rows` rows reads B: in place instead of packing it, in a call of N x K B (see
// run_streamed), or not; the rows it streams at a time, a whole number of register tiles, or 0 to pack. A's slices
// are packed into the thread's whole workspace (`buffer_floats`), B blocks' slots included. Packing copies all of B
// before the FMAs that use it, and where C has few rows each element copied serves few FMAs: on an AMD Zen 4, pack_b
// took 16-30% of 16-62 row calls with B in L3. In place, the first register tile of each column strip reads the
// strip's k slice from the outer cache, fetching its rows ahead (see the kernels' fetch_b_ahead), and the strip's
// later tiles find it in the inner ones, strided. Medians of interleaved rounds on that Zen 4, one thread:
// 16x768x3072 1.28-1.34x faster, 16x1000x4096 1.30x, 24x2304x768 1.23x, 24x768x768 1.09-1.11x, 43x2304x768 1.14x,
// 64x1000x4096 1.11x, 62x768x3072 1.03x, 128x768x3072 1.04x; two threads 1.03-1.6x; with packed blocks cut into even
// tiles (see row_tiles), 100-128 rows 1.01-1.03x (100x768x3072 1.03x, 128x768x768 1.01-1.02x), but 128x3072x768 0.98x
// (all with slices of K1, before run_streamed's deeper ones). Always for blocks of up to kStreamTiles rows of tiles.
// Taller blocks stream B only where it is larger than {{DIRECT_CACHE}}'s half that kDirectBytes names, in row blocks
// for which the workspace holds A's slice at least K1 deep (see streamed_depth; with shallower slices C is read back
// and written once per slice, and the strided reads of B cost more than the copy saved: 300x768x768 in slices of 48 k
// steps, 0.93x), and in at most kStreamedRowBlocks of them, each of which reads all of B from the outer cache again.
// Against packing, one thread of that Zen 4: 196x256x2304 1.09x faster, 160x1000x4096 1.07x, 196x512x4608 1.06x,
// 200x768x768 1.04x, 256x768x768 1.04x, 150x768x768 1.04x, 200x768x3072 1.04x, 384x768x3072 1.03x, 300x768x768 1.03x,
// 384x768x768 1.03x, 400x768x768 1.03x, 200x2304x768 1.03x, 256x2304x768 1.03x, 200x3072x768 1.02x; in two row
// blocks, 512x768x768 1.02x, 512x768x3072 1.02x, 512x2304x768 1.02x; two threads, 512x768x768 1.05x, 512x768x3072
// 1.03x, 300x2304x768 1.03x. In three row blocks 1000x768x768 gained 0.4-0.8%, in five or six 2000x768x768 and
// 2000x3072x768 lost 1%. With a smaller B, 256^3 and 264^3 ran 0.99x. And only while B stays in {{OUTER_CACHE}}: from
// memory, the strip's short rows, a page apart, get no help from the prefetchers (64x4096x4096: 0.97x).
// Both bounds on B are streamed_b_bytes', and taller blocks stream only where outer_keeps_up.
constexpr int64_t kStreamTiles = 12;
constexpr int64_t kStreamedRowBlocks = 2;
int64_t streamed_rows(const Kernel& k, int64_t rows, int64_t N, int64_t K, int64_t buffer_floats) {
  using strata_model::ceil_div;
  const int64_t b_bytes = matrix_bytes(K, N);
  if (b_bytes > streamed_b_bytes(k, k.mr, N)) return 0;
  if (rows <= std::min({kStreamTiles * k.mr, k.m1, k.m2})) return rows;
  if (b_bytes <= kDirectBytes || !outer_keeps_up(k, k.mr)) return 0;
  // The most rows, in whole tiles, whose A slice the workspace and kDirectBytes hold `depth` deep (see streamed_depth).
  const int64_t depth = std::min(round_up(K, k.ku), k.k1);
  const int64_t slice_bytes = depth * static_cast<int64_t>(sizeof(float));  // one row's
  const int64_t fit = std::min(buffer_floats / depth, kDirectBytes / slice_bytes - k.nr);
  const int64_t most = fit / k.mr * k.mr;
  if (most < k.mr) return 0;
  const int64_t blocks = ceil_div(rows, most);
  if (blocks > kStreamedRowBlocks) return 0;
  return std::min(most, round_up(ceil_div(rows, blocks), k.mr));
}

// The register tiles down a level-1 block of `rows` rows: as few as the kernel's mr allows, their heights within a
// row of each other, so that no tile is left with a sliver (24 rows on an 11-row tile: 8, 8 and 8, not 11, 11 and 2).
// A short tile reads as much of B per k step as a full one for fewer FMAs (24x2304x768, B read in place: the 2-row
// tile took 17% of the tile time for 8% of the FMAs). Tile t is A's micro-panel t of the packed block.
struct RowTiles {
  int64_t count, base, taller;  // the first `taller` tiles have base + 1 rows, the others base
  int64_t start(int64_t t) const { return t * base + std::min(t, taller); }
  int64_t height(int64_t t) const { return t < taller ? base + 1 : base; }
};
RowTiles row_tiles(int64_t rows, int64_t mr) {
  const int64_t count = (rows + mr - 1) / mr;
  return RowTiles{count, rows / count, rows % count};
}

// Runs one level-2 tile. Its level-1 tiles are walked column by column (m innermost), so that each B block is
// packed once per k slice and reused by every A block of the column. A block is packed whole, before its tiles: where
// few rows of tiles use it, the copy (bound by how fast B comes from the outer cache) is a large share of the call
// (16x768x768: 44%), but packing it a panel at a time, each panel's first tile prefetching the next one's rows in
// its k loop, left that share as it was on an Emerald Rapids Xeon. The prefetches and the copy's misses share the
// core's few miss buffers; only the hardware streamer, following the copy's long rows, reaches the cache's bandwidth.
// Blocks of few rows of tiles do not pack B at all (see streamed_rows and run_streamed).
void run_block(const Gemm& g, const Kernel& k, const BlockJob& job, ThreadBuffers& buffers) {
  const int64_t k_slices = strata_model::ceil_div(job.k2, k.k1);
  // Where the level-2 tile asks for B ahead (job.next_b set), each B block's tiles ask for the block packed after it:
  // the next k slice of their column, the next column's first, or after the last, the next level-2 tile's first
  // (job.next_b); its rows spread evenly over the block's tile calls. (Asked for once per level-2 tile, by all of its
  // tiles, only the next tile's first block came from L2; the others were packed from memory.)
  const int64_t block_calls = job.tiles_m * row_tiles(std::min(k.m1, job.m2), k.mr).count *
                              strata_model::ceil_div(std::min(k.n1, job.n2), k.nr);
  TileArgs args = tile_args_of(g);  // (see tile_args_of)
  for (int64_t tile_j = 0; tile_j < job.tiles_n; ++tile_j) {
    const int64_t j1 = job.j2 + tile_j * k.n1, n1 = std::min<int64_t>(k.n1, job.j2 + job.n2 - j1);
    for (int64_t slice = 0; slice < k_slices; ++slice) {
      const int64_t p1 = job.p2 + slice * k.k1, k1 = std::min<int64_t>(k.k1, job.p2 + job.k2 - p1);
      const float* next_b = job.next_b;
      int64_t next_rows = job.next_rows, next_cols = job.next_cols, next_row = 0;
      if (next_b != nullptr && slice + 1 < k_slices) {
        next_b = g.B + (p1 + k.k1) * g.ldb + j1;
        next_rows = std::min<int64_t>(k.k1, job.p2 + job.k2 - p1 - k.k1);
        next_cols = n1;
      } else if (next_b != nullptr && tile_j + 1 < job.tiles_n) {
        next_b = g.B + job.p2 * g.ldb + j1 + k.n1;
        next_rows = std::min<int64_t>(k.k1, job.k2);
        next_cols = std::min<int64_t>(k.n1, job.j2 + job.n2 - j1 - k.n1);
      }
      const int64_t rows_per_call = next_b == nullptr ? 0 : strata_model::ceil_div(next_rows, block_calls);
      const int64_t b_slot = (j1 / k.n1 * k_slices + slice) % buffers.b_slots;
      float* b_block = buffers.b + b_slot * b_block_floats(k);
      if (!buffers.held_b[b_slot].holds(j1, p1, n1, k1)) {
        k.pack_b(g.B + p1 * g.ldb + j1, g.ldb, n1, k1, b_block);
        buffers.held_b[b_slot] = PackedBlock{j1, p1, n1, k1};
      }
      const float beta = p1 == 0 ? g.beta : 1.0f;  // later k slices accumulate onto the first one's result
      for (int64_t tile_i = 0; tile_i < job.tiles_m; ++tile_i) {
        const int64_t i1 = job.i2 + tile_i * k.m1, m1 = std::min<int64_t>(k.m1, job.i2 + job.m2 - i1);
        const int64_t slot = (tile_i * k_slices + slice) % buffers.slots;
        float* a_block = buffers.a + slot * a_block_floats(k);
        const RowTiles tiles = row_tiles(m1, k.mr);
        if (!buffers.held_a[slot].holds(i1, p1, m1, k1)) {
          for (int64_t t = 0; t < tiles.count; ++t)
            k.pack_a(g.A + (i1 + tiles.start(t)) * g.lda + p1, g.lda, tiles.height(t), k1, a_block + t * k.mr * k1);
          buffers.held_a[slot] = PackedBlock{i1, p1, m1, k1};
        }
        for (int64_t jr = 0; jr < n1; jr += k.nr) {
          const float* b = b_block + (jr / k.nr) * k.nr * k1;
          const int32_t cols = static_cast<int32_t>(std::min<int64_t>(k.nr, n1 - jr));
          for (int64_t t = 0; t < tiles.count; ++t) {
            args.k = k1;
            args.a = a_block + t * k.mr * k1;
            args.b = b;
            args.c = g.C + (i1 + tiles.start(t)) * g.ldc + j1 + jr;
            args.beta = beta;
            args.rows = tiles.height(t);
            args.cols = cols;
            args.next_rows = 0;
            if (next_row < next_rows && rows_per_call > 0) {
              args.next_b = next_b + next_row * g.ldb;
              args.next_ldb = g.ldb;
              args.next_rows = static_cast<int32_t>(std::min(rows_per_call, next_rows - next_row));
              args.next_cols = static_cast<int32_t>(next_cols);
              next_row += rows_per_call;
            }
            k.packed(args);
          }
        }
      }
    }
  }
}

// A thread's block of C over a streamed B: each k slice packs A's rows for it once, then walks C's column strips,
// each strip's tiles one below the other over the slice of B in place, the first fetching B's rows ahead (see the
// kernels' fetch_b_ahead). The slices are as deep as streamed_depth allows, not K1 as the level-1 tiles': each is a
// pass over C (read back, accumulated, written) and restarts the first tile's fetches, whose first rows then wait.
// K walked whole (up to kDirectBytes of A and B's strip, see streamed_depth) against slices of K1, medians of
// interleaved rounds on an AMD Zen 4, one thread: 24x3072x768 1.07-1.11x faster, 100x3072x768 1.07-1.09x,
// 43x3072x768 1.04-1.05x, 16x3072x768 1.03-1.04x, 62x3072x768 1.02-1.03x, 24x2304x768 1.02-1.03x, 128x768x3072
// 1.03x, 128x768x768 1.01-1.02x, 16x2304x768 0.99x, 16x768x768 0.99-1.0x; two threads 0.98-1.13x. Walking all of
// 62x768x3072's K (A's slice 0.8 MiB) lost 7%; in three slices it runs as before. The slices are now at most
// kStreamedK1s times K1 deep as well (see streamed_depth).
void run_streamed(const Gemm& g, const Kernel& k, float* a, int64_t a_floats) {
  const RowTiles tiles = row_tiles(g.M, k.mr);
  const int64_t depth = streamed_depth(k, g.M, g.K, a_floats);
  TileArgs args = tile_args_of(g);  // (see tile_args_of)
  args.ldb = g.ldb;
  for (int64_t p = 0; p < g.K; p += depth) {
    const int64_t d = std::min(depth, g.K - p);
    for (int64_t t = 0; t < tiles.count; ++t)
      k.pack_a(g.A + tiles.start(t) * g.lda + p, g.lda, tiles.height(t), d, a + t * k.mr * d);
    const float beta = p == 0 ? g.beta : 1.0f;  // later slices accumulate onto the first one's result
    for (int64_t j = 0; j < g.N; j += k.nr) {
      const int32_t cols = static_cast<int32_t>(std::min<int64_t>(k.nr, g.N - j));
      for (int64_t t = 0; t < tiles.count; ++t) {
        args.k = d;
        args.a = a + t * k.mr * d;
        args.b = g.B + p * g.ldb + j;
        args.c = g.C + tiles.start(t) * g.ldc + j;
        args.beta = beta;
        args.rows = tiles.height(t);
        args.cols = cols;
        args.fetch_b_ahead = t == 0;
        k.streamed(args);
      }
    }
  }
}

struct PackedJob {
  const Gemm* g;
  const Kernel* k;
  int64_t row_shares, col_shares;
  int64_t b_slots;  // per thread (see plan_b_slots)
  float* buffers;   // per thread: thread_floats() floats
};

// Points `block`, the level-2 tile at (p2, j2) of a thread's block of C (`g`), at the B block the thread packs next
// (BlockJob::next_b): the next j2's first k slice or, after the last j2, the next p2's first block; none after the
// last.
void point_at_next_b(const Gemm& g, const Kernel& k, int64_t p2, int64_t j2, BlockJob* block) {
  int64_t p = p2, j = j2 + k.n2;
  if (j >= g.N) {
    p = p2 + k.k2;
    j = 0;
  }
  if (p >= g.K) return;
  block->next_b = g.B + p * g.ldb + j;
  block->next_rows = std::min<int64_t>(k.k1, g.K - p);
  block->next_cols = std::min<int64_t>(k.n1, g.N - j);
}

// One thread's part of the whole packed call: its block of C (see "Thread shares"), as a GEMM of its own, its
// level-2 tiles walked n innermost so that consecutive tiles need the A blocks the thread keeps. Each element of C
// is accumulated by one thread, in k order: the call needs one parallel region, with no barrier in it.
void packed_task(void* context, int64_t index) {
  const PackedJob& job = *static_cast<const PackedJob*>(context);
  const Kernel& k = *job.k;
  const int64_t row_share = index / job.col_shares, col_share = index % job.col_shares;
  const int64_t i0 = share_start(job.g->M, k.mr, row_share, job.row_shares);
  const int64_t j0 = share_start(job.g->N, k.nr, col_share, job.col_shares);
  Gemm g = *job.g;
  g.M = share_start(g.M, k.mr, row_share + 1, job.row_shares) - i0;
  g.N = share_start(g.N, k.nr, col_share + 1, job.col_shares) - j0;
  if (g.M == 0 || g.N == 0) return;
  g.A += i0 * g.lda;
  g.B += j0;
  g.C += i0 * g.ldc + j0;
  const int64_t buffer_floats = thread_floats(k, job.b_slots);
  float* const a_buffers = job.buffers + index * buffer_floats;
  const int64_t streamed = streamed_rows(k, g.M, job.g->N, job.g->K, buffer_floats);
  if (streamed > 0) {
    for (int64_t i = 0; i < g.M; i += streamed) {
      Gemm block = g;
      block.M = std::min(streamed, g.M - i);
      block.A += i * g.lda;
      block.C += i * g.ldc;
      run_streamed(block, k, a_buffers, buffer_floats);
    }
    return;
  }
  ThreadBuffers buffers;
  buffers.a = a_buffers;
  buffers.slots = a_slots(k);
  buffers.b = buffers.a + buffers.slots * a_block_floats(k);
  buffers.b_slots = job.b_slots;
  const PackedBlock empty{-1, -1, 0, 0};
  std::fill_n(buffers.held_a, buffers.slots, empty);
  std::fill_n(buffers.held_b, buffers.b_slots, empty);
  const bool fetches_next_b = asks_b_ahead(k, g.M, job.g->N, job.g->K);
  for (int64_t p2 = 0; p2 < g.K; p2 += k.k2)
    for (int64_t i2 = 0; i2 < g.M; i2 += k.m2)
      for (int64_t j2 = 0; j2 < g.N; j2 += k.n2) {
        BlockJob block{i2, j2, p2, std::min<int64_t>(k.m2, g.M - i2), std::min<int64_t>(k.n2, g.N - j2),
                       std::min<int64_t>(k.k2, g.K - p2), 0, 0};
        block.tiles_m = strata_model::ceil_div(block.m2, k.m1);
        block.tiles_n = strata_model::ceil_div(block.n2, k.n1);
        if (fetches_next_b) point_at_next_b(g, k, p2, j2, &block);
        run_block(g, k, block, buffers);
      }
}

void run_packed(const Gemm& g, const Plan& plan, void* workspace) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(workspace);
  float* const buffers = reinterpret_cast<float*>((base + kAlign - 1) / kAlign * kAlign);
  PackedJob job{&g, &kKernels[plan.kernel], plan.row_shares, plan.threads / plan.row_shares,
                plan_b_slots(plan, g.M, g.N, g.K), buffers};
  parallel_for(plan.threads, packed_task, &job);
}

void run_direct(const Gemm& g, const Plan& plan) {
  const Kernel& k = kKernels[plan.kernel];
  if (plan.threads == 1) {
    direct_all(g, k, true);
    return;
  }
  if (row_streams_pay(k, g.M, g.N, g.K, false)) {
    RowStreamsJob job{&g, &k, std::min<int64_t>(plan.threads, strata_model::ceil_div(g.N, kVectorFloats))};
    parallel_for(job.shares, row_streams_task, &job);
    return;
  }
  const int64_t tiles_m = (g.M + k.mr - 1) / k.mr, tiles = tiles_m * ((g.N + k.nr - 1) / k.nr);
  const int64_t threads = std::min<int64_t>(plan.threads, tiles);
  DirectJob job{&g, &k, tiles, tiles_m, std::max<int64_t>(1, tiles / (threads * kChunksPerThread))};
  parallel_for(threads, direct_task, &job);
}

// ---- Argument checks ---------------------------------------------------------------------------------------------

bool cpu_supported() {
  static const bool supported = {{CPU_CHECK}};
  return supported;
}

// Largest element offset touched in a rows x cols row-major matrix with leading dimension ld, or -1 when it (in
// bytes) overflows. Checked multiplies instead of a division: three 64-bit divisions would cost a tiny GEMM more
// than its arithmetic.
int64_t extent(int64_t rows, int64_t cols, int64_t ld) {
  if (rows == 0 || cols == 0) return 0;
  int64_t elements = 0, bytes = 0;
  if (__builtin_mul_overflow(rows - 1, ld, &elements) || __builtin_add_overflow(elements, cols, &elements) ||
      __builtin_mul_overflow(elements, static_cast<int64_t>(sizeof(float)), &bytes))
    return -1;
  return elements;
}

// Whether a plan can be made for M x N x K: the sizes of some valid call, whose matrices' extents with the
// tightest leading dimensions do not overflow (the planner multiplies two sizes at a time, as a call's check
// allows it to).
{{PACKAGE}}_status plannable(int64_t M, int64_t N, int64_t K) {
  if (M < 0 || N < 0 || K < 0) return {{PACKAGE_UPPER}}_INVALID_SIZE;
  if (extent(M, K, K) < 0 || extent(K, N, N) < 0 || extent(M, N, N) < 0) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  return {{PACKAGE_UPPER}}_OK;
}

// The usual call in a few instructions: every size and leading dimension in [0, 2^30) (so that no extent can
// overflow: 2^60 elements of 4 bytes), leading dimensions long enough, all three matrices given, a supported CPU.
// Anything else takes the full check, which names the first problem (a tiny GEMM is over in 50 ns, and the full
// check took a quarter of that).
bool plainly_valid(const Gemm& g) {
  const uint64_t any_bits = static_cast<uint64_t>(g.M) | static_cast<uint64_t>(g.N) | static_cast<uint64_t>(g.K) |
                            static_cast<uint64_t>(g.lda) | static_cast<uint64_t>(g.ldb) | static_cast<uint64_t>(g.ldc);
  return any_bits < (uint64_t{1} << 30) && g.lda >= g.K && g.ldb >= g.N && g.ldc >= g.N && g.lda > 0 && g.ldb > 0 &&
         g.ldc > 0 && g.A != nullptr && g.B != nullptr && g.C != nullptr && cpu_supported();
}

{{PACKAGE}}_status check(const Gemm& g) {
  if (plainly_valid(g)) return {{PACKAGE_UPPER}}_OK;
  if (g.M < 0 || g.N < 0 || g.K < 0) return {{PACKAGE_UPPER}}_INVALID_SIZE;
  if (g.lda < std::max<int64_t>(1, g.K) || g.ldb < std::max<int64_t>(1, g.N) || g.ldc < std::max<int64_t>(1, g.N))
    return {{PACKAGE_UPPER}}_INVALID_LEADING_DIM;
  const bool touches_c = g.M > 0 && g.N > 0;
  const bool reads_ab = touches_c && g.K > 0 && g.alpha != 0.0f;
  if ((touches_c && g.C == nullptr) || (reads_ab && (g.A == nullptr || g.B == nullptr)))
    return {{PACKAGE_UPPER}}_NULL_POINTER;
  if (extent(g.M, g.K, g.lda) < 0 || extent(g.K, g.N, g.ldb) < 0 || extent(g.M, g.N, g.ldc) < 0)
    return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  if (!cpu_supported()) return {{PACKAGE_UPPER}}_UNSUPPORTED_CPU;
  return {{PACKAGE_UPPER}}_OK;
}

// A per-thread workspace that grows and is kept, so that repeated calls do not pay for allocation and page faults.
void* cached_workspace(size_t bytes) {
  struct Buffer {
    void* data = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffer;
  if (buffer.size < bytes) {
    void* grown = std::malloc(bytes);
    if (grown == nullptr) return nullptr;
    std::free(buffer.data);
    buffer.data = grown;
    buffer.size = bytes;
  }
  return buffer.data;
}

// When the last call that wanted several threads ended (steady clock, ns; 0: none yet).
std::atomic<int64_t> g_last_parallel_end_ns{0};

// A plan on several threads counts on workers that start at once. When the internal pool's workers are asleep (or
// not started yet), waking them costs the caller the pool's measured waking time. If the plan's best one-thread
// alternative is slower than the plan by less than that, the call runs alone and lets them sleep, unless calls that
// want threads come back to back (the last ended less than the pool's spin time ago): then this call wakes them, and
// the calls after it find them spinning. A host's parallel_for is taken as ready: its threads are not ours to
// inspect.
Plan ready_plan(Plan plan) {
  if (plan.threads <= 1 || g_host_parallel_for.load() != nullptr) return plan;
  const ThreadPool& pool = ThreadPool::instance();
  if (pool.awake(plan.threads - 1) || plan.alone.seconds > plan.seconds + pool.wake_seconds()) return plan;
  const int64_t last = g_last_parallel_end_ns.load(std::memory_order_relaxed);
  if (last != 0 && static_cast<double>(steady_ns() - last) * 1e-9 < ThreadPool::kSpinSeconds) return plan;
  return alone_plan(plan);
}

{{PACKAGE}}_status run_call(const Gemm& g, int32_t forced, void* workspace, size_t workspace_size,
                             bool caller_workspace) {
  const {{PACKAGE}}_status status = check(g);
  if (status != {{PACKAGE_UPPER}}_OK) return status;
  if (g.M == 0 || g.N == 0) return {{PACKAGE_UPPER}}_OK;
  if (g.K == 0 || g.alpha == 0.0f) {
    scale_c(g);
    return {{PACKAGE_UPPER}}_OK;
  }
  // Used only before the call runs anything (see choose_plan).
  const Plan& wanted = choose_plan(g.M, g.N, g.K, current_threads(), forced);
  // A caller's workspace must hold what workspace_size() promised, whichever of the two plans runs.
  if (caller_workspace) {
    const size_t promised = call_workspace_bytes(wanted, g.M, g.N, g.K);
    if (promised > 0 && (workspace == nullptr || workspace_size < promised))
      return {{PACKAGE_UPPER}}_WORKSPACE_TOO_SMALL;
  }
  // A call that is one register tile of its plan's kernel on one thread runs it at once: the thread decision and the
  // path's set-up that follow were a quarter of such a call (tools/ab.sh, one thread of an Emerald Rapids Xeon:
  // 1x1x1 1.34x faster, 3x3x3 1.27-1.30x, 7x7x7 1.18-1.31x, 3x7x33 1.21x, 13x13x13 1.10x).
  if (wanted.threads == 1 && !wanted.packed && one_tile(g.M, g.N, g.K, kKernels[wanted.kernel])) {
    direct_single_tile(g, kKernels[wanted.kernel]);
    return {{PACKAGE_UPPER}}_OK;
  }
  const Plan plan = ready_plan(wanted);
  // Stamps the end of a call that wanted threads, for ready_plan's next decision.
  struct EndStamp {
    bool parallel;
    ~EndStamp() {
      if (parallel) g_last_parallel_end_ns.store(steady_ns(), std::memory_order_relaxed);
    }
  } end_stamp{wanted.threads > 1};
  const bool split = !plan.packed && split_k(g.M, g.N, g.K, kKernels[plan.kernel], plan.threads);
  if (!plan.packed && !split) {
    run_direct(g, plan);
    return {{PACKAGE_UPPER}}_OK;
  }
  if (!caller_workspace) {
    workspace = cached_workspace(workspace_bytes(plan, g.M, g.N, g.K));
    if (workspace == nullptr) return {{PACKAGE_UPPER}}_OUT_OF_MEMORY;
  }
  if (split)
    run_split_k(g, kKernels[plan.kernel], plan.threads, workspace);
  else
    run_packed(g, plan, workspace);
  return {{PACKAGE_UPPER}}_OK;
}

// A call, with nothing thrown out of it: the header promises that no entry point throws. The pool makes do with the
// threads it gets; what else could throw (an allocation in the standard library, a mutex the system refuses, a
// host's parallel_for) becomes a status.
{{PACKAGE}}_status execute(const Gemm& g, int32_t forced, void* workspace, size_t workspace_size,
                           bool caller_workspace) noexcept {
  try {
    return run_call(g, forced, workspace, workspace_size, caller_workspace);
  } catch (const std::bad_alloc&) {
    return {{PACKAGE_UPPER}}_OUT_OF_MEMORY;
  } catch (...) {
    return {{PACKAGE_UPPER}}_SYSTEM_ERROR;
  }
}

// ran_at_once's direct_all, out of line, so that its Gemm on the stack and the registers it saves are no cost to a
// one-tile call.
__attribute__((noinline)) void direct_at_once(int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                              int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                                              int64_t ldc, int32_t kernel) {
  direct_all(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc}, kKernels[kernel], true);
}

// A call that the calling thread's last plan answers and runs in place on one thread (PlanCache::Entry::at_once), run
// at once: false, having done nothing, for any other call, which execute() then takes. The entry vouches for the CPU
// and that M, N and K are positive; the rest of plainly_valid() is checked here, and alpha = 0, which execute() runs
// as a scaling of C. execute()'s checks and set-up were about 4 ns of a one-tile call and 8-12 ns of other direct
// ones. Medians of interleaved rounds, one thread of an AMD Zen 4, against execute() for all but one-tile calls:
// 1x64x7 1.24x faster, 17x64x3 1.09x, 3x100x13 1.05x, 64x31x1 1.05x; one-tile calls 1.08-1.18x faster again than
// with the check of `single` behind that of at_once, which had cost them 4-9% (1x1x1, 3x3x3, 7x7x7).
inline bool ran_at_once(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
                        int64_t ldb, float beta, float* C, int64_t ldc, int32_t forced) {
  const PlanCache::Entry& front = t_plans.front;
  const auto valid = [&] {
    const uint64_t ld_bits = static_cast<uint64_t>(lda) | static_cast<uint64_t>(ldb) | static_cast<uint64_t>(ldc);
    return ld_bits < (uint64_t{1} << 30) && lda >= K && ldb >= N && ldc >= N && A != nullptr && B != nullptr &&
           C != nullptr && alpha != 0.0f;
  };
  // The one-tile calls first, with nothing else on their way: they are the shortest.
  if (front.single != nullptr) {
    if (!front.matches(M, N, K, current_threads(), forced) || !valid()) return false;
    TileArgs args{K, A, lda, B, ldb, C, ldc, alpha, beta, M, static_cast<int32_t>(N)};
    args.fetch_a_ahead = front.single_fetch_a;
    front.single(args);
    return true;
  }
  if (!front.at_once || !front.matches(M, N, K, current_threads(), forced) || !valid()) return false;
  direct_at_once(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, front.plan.kernel);
  return true;
}

void fill_plan(const Plan& p, {{PACKAGE}}_plan_t* out) {
  const Kernel& k = kKernels[p.kernel];
  *out = {{PACKAGE}}_plan_t{p.kernel, k.mr, k.nr, k.ku, k.m1, k.n1, k.k1, p.threads, p.packed ? 1 : 0, p.seconds};
}

}  // namespace
}  // namespace {{PACKAGE}}_internal

using namespace {{PACKAGE}}_internal;

extern "C" {

const char* {{PACKAGE}}_status_string({{PACKAGE}}_status status) {
  switch (status) {
    case {{PACKAGE_UPPER}}_OK: return "ok";
    case {{PACKAGE_UPPER}}_INVALID_SIZE: return "M, N or K is negative";
    case {{PACKAGE_UPPER}}_INVALID_LEADING_DIM: return "a leading dimension is smaller than its row length";
    case {{PACKAGE_UPPER}}_NULL_POINTER: return "A, B or C is null but the call needs it";
    case {{PACKAGE_UPPER}}_SIZE_OVERFLOW: return "a matrix extent overflows 64-bit indexing";
    case {{PACKAGE_UPPER}}_INVALID_KERNEL: return "kernel id out of range";
    case {{PACKAGE_UPPER}}_INVALID_ARGUMENT: return "invalid argument";
    case {{PACKAGE_UPPER}}_WORKSPACE_TOO_SMALL: return "workspace smaller than {{PACKAGE}}_workspace_size()";
    case {{PACKAGE_UPPER}}_OUT_OF_MEMORY: return "out of memory";
    case {{PACKAGE_UPPER}}_UNSUPPORTED_CPU: return "this CPU lacks {{ISA_NAME}}";
    case {{PACKAGE_UPPER}}_SYSTEM_ERROR: return "the system refused a resource the call needed";
  }
  return "unknown status";
}

{{PACKAGE}}_status {{PACKAGE}}(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                               const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (ran_at_once(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, -1)) return {{PACKAGE_UPPER}}_OK;
  return execute(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc}, -1, nullptr, 0, false);
}

{{PACKAGE}}_status {{PACKAGE}}_with_kernel(int32_t kernel_id, int64_t M, int64_t N, int64_t K, float alpha,
                                           const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                                           float* C, int64_t ldc) {
  if (kernel_id < 0 || kernel_id >= kKernelCount) return {{PACKAGE_UPPER}}_INVALID_KERNEL;
  if (ran_at_once(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, kernel_id)) return {{PACKAGE_UPPER}}_OK;
  return execute(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc}, kernel_id, nullptr, 0, false);
}

{{PACKAGE}}_status {{PACKAGE}}_with_workspace(int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                              int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                                              int64_t ldc, void* workspace, size_t workspace_bytes) {
  return execute(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc}, -1, workspace, workspace_bytes, true);
}

size_t {{PACKAGE}}_workspace_size(int64_t M, int64_t N, int64_t K) {
  if (M <= 0 || N <= 0 || K <= 0) return 0;
  return call_workspace_bytes(choose_plan(M, N, K, current_threads(), -1), M, N, K);
}

{{PACKAGE}}_status {{PACKAGE}}_plan(int64_t M, int64_t N, int64_t K, {{PACKAGE}}_plan_t* plan) {
  if (plan == nullptr) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  if (const {{PACKAGE}}_status s = plannable(M, N, K); s != {{PACKAGE_UPPER}}_OK) return s;
  fill_plan(choose_plan(M, N, K, current_threads(), -1), plan);
  return {{PACKAGE_UPPER}}_OK;
}

{{PACKAGE}}_status {{PACKAGE}}_kernel_plan(int32_t kernel_id, int64_t M, int64_t N, int64_t K,
                                           {{PACKAGE}}_plan_t* plan) {
  if (plan == nullptr) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  if (kernel_id < 0 || kernel_id >= kKernelCount) return {{PACKAGE_UPPER}}_INVALID_KERNEL;
  if (const {{PACKAGE}}_status s = plannable(M, N, K); s != {{PACKAGE_UPPER}}_OK) return s;
  fill_plan(choose_plan(M, N, K, current_threads(), kernel_id), plan);
  return {{PACKAGE_UPPER}}_OK;
}

int32_t {{PACKAGE}}_kernel_count(void) { return kKernelCount; }

{{PACKAGE}}_status {{PACKAGE}}_set_num_threads(int32_t threads) {
  if (threads < 1) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  g_threads.store(std::min(threads, kMaxThreads));
  return {{PACKAGE_UPPER}}_OK;
}

int32_t {{PACKAGE}}_get_num_threads(void) { return current_threads(); }

{{PACKAGE}}_status {{PACKAGE}}_set_parallel_for({{PACKAGE}}_parallel_for_fn parallel_for, void* host_context) {
  try {
    std::lock_guard<std::mutex> lock(g_host_mutex);
    g_host_fn = parallel_for;
    g_host_context = host_context;
    g_host_parallel_for.store(parallel_for);
  } catch (...) {  // the system refused the mutex: nothing changed
    return {{PACKAGE_UPPER}}_SYSTEM_ERROR;
  }
  return {{PACKAGE_UPPER}}_OK;
}

void {{PACKAGE}}_parallel_for(void* host_context, int64_t count, {{PACKAGE}}_task_fn task, void* task_context) {
  (void)host_context;
  if (count <= 0 || task == nullptr) return;
  try {
    ThreadPool::instance().run(count, task, task_context);
  } catch (...) {
    // The pool throws only before any task has run (a mutex the system refused): the calling thread runs them all.
    for (int64_t i = 0; i < count; ++i) task(task_context, i);
  }
}

const char* {{PACKAGE}}_version(void) { return {{PACKAGE_UPPER}}_VERSION_STRING; }

const char* {{PACKAGE}}_provenance(void) {
  return {{PROVENANCE_STRING}};
}

}  // extern "C"
