// Part of the dispatcher (see dispatch_rules.h): workspace sizes, thread shares, and the depths and row blocks of
// the streamed and direct paths.
#ifndef STRATA_DISPATCH_BLOCKING_H_
#define STRATA_DISPATCH_BLOCKING_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

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
// It keeps all of them, packed once, for the next rows to reuse, when they fit in kBCacheBytes (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "b-slots"). Kept there, a packed B block is read back from the outer
// cache one micro-panel at a time, and each micro-panel then serves a whole column of register tiles from the inner
// one. When they do not fit (or need more than kMaxBSlots), one slot serves, and B is packed per level-2 row.
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
// ranges, its columns into threads / row_shares, and each thread runs the single-thread loops on its block. No packed
// panel is shared, so no thread ever waits for another. What a grid costs is what it packs twice: threads in one
// column of blocks each pack A's rows of their own, but all of B's columns of the column, once per level-2 row of
// their own; threads in one row of blocks each pack the same A rows. The plan takes the grid that repacks least.
// (Cutting every level-2 tile's level-1 tiles among the threads instead, the model's level 2 read literally, would
// make each thread pack all of A whenever a level-2 tile is one level-1 tile tall.)

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

// The k slice of a streamed B (see direct_depth). The hardware prefetchers follow streams per 4 KiB page, and only a
// few dozen pages at once: a slice's rows are read side by side, so it spans at most 16 pages (kStreamBytes), but at
// least kStreamDepth rows, so that C is read and written once per 16 steps of k at most (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "stream-depth").
constexpr int64_t kStreamDepth = 16;
constexpr int64_t kStreamBytes = int64_t{64} << 10;

// The depth of the k slices of a call whose B is streamed (see streamed_rows and direct_streams_b, and run_streamed),
// on a thread's `rows` rows: as deep as its A buffers (`a_floats`) hold A's packed slice for all of them, and as keep
// that slice and a strip's slice of B within the direct cache's half that kDirectBytes names, which the strip's later
// tiles read them from, but at most kStreamedK1s times K1: deeper, the slices keep C in registers for longer, but
// read A's slice and the strip's from further out (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
// "streamed-depth"); the slices as even as that allows, in whole unrolled steps.
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
// k slices of direct_b_ahead), outlast the outer cache's latency with the kBRowsAhead k steps they ask for B's rows
// ahead. A strip's rows lie a page or more apart, so no hardware prefetcher follows them, and every line the tile's
// own requests do not bring in time stalls its FMAs. Where the outer cache is near, every tile does; where it is no
// nearer than memory (as on some virtual machines), none does.
// Where they do not, a call reads in place at most kDirectBytes of a B whose rows share a set of the tile cache (then
// the tile cache keeps only as many of a strip's rows as it has ways, and each tile of the strip reads them again
// from further out), and packs any B beyond kDirectBytes for more than a block of kStreamTiles rows of tiles, which
// would read B from the outer cache once per block. Short blocks over rows that do not share a set still stream
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "outer-keeps-up").
bool outer_keeps_up(const Kernel& k, int64_t rows) {
  const double ahead_s = kBRowsAhead * 2.0 * static_cast<double>(rows * k.nr) / kMachine.unit_flops;
  return ahead_s >= kMachine.level[kMachine.num_levels - 1].latency_s;
}
// The most bytes of a B `ldb` floats a row that tiles of k with `rows` rows read in place (see outer_keeps_up).
int64_t streamed_b_bytes(const Kernel& k, int64_t rows, int64_t ldb) {
  return outer_keeps_up(k, rows) || !rows_share_a_set(ldb) ? kOuterBytes : kDirectBytes;
}

// Whether a direct call is a single row of tiles of three rows or more over a B that lives in the outer cache with
// rows that do not share a set of the tile cache (or of kDeepSharedRows to kShallowRows rows, below): then its k
// slices are K1 deep (see direct_depth) and every tile asks for B's rows a few steps ahead (TileArgs::fetch_b_ahead),
// since every tile is the only one in its strip to read them. Up to half of kOuterBytes for any number of rows; up to
// all of it for at most kShallowRows rows, which would otherwise take shallow slices (see direct_streams_b; taller
// tiles stream B through packed A there, where deep slices are slower). Not for one or two rows: their tiles are thin
// (see the kernels' thin_tile_body), and with the fetches in their loop GCC 12 keeps their accumulators in memory.
// Where B's rows share a set, the shallow slices stay for fewer than kDeepSharedRows rows; from there on deep slices
// win. "Lives in the outer cache" is as far as streamed_b_bytes allows: where the tiles do not outlast its latency,
// B's rows that share a set of the tile cache take the shallow slices (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "direct-b-ahead").
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
// in place, fetching its rows ahead, in slices far deeper than direct_depth's shallow ones, which read and write C
// once per 16 steps of k and make a call per strip and slice. Where B is larger than the direct cache and stays in
// the outer cache, the tiles would not run deep slices already (direct_b_ahead), and C has more than kShallowRows
// rows. With at most kShallowRows rows, few FMAs per line of B wait on each row's misses, which the shallow slices,
// reading each row of B along its length, leave to the hardware prefetchers. A stack buffer of 384 k steps does about
// as well as all of K. Not with B from memory, nor for two rows of tiles (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "direct-streams-b").
constexpr int64_t kStreamedAFloats = 4096;  // 16 KiB
bool direct_streams_b(const Kernel& k, int64_t M, int64_t N, int64_t K, int64_t ldb) {
  const int64_t b_bytes = matrix_bytes(K, N);
  return M <= k.mr && M > kShallowRows && N > k.nr && b_bytes > kDirectBytes &&
         b_bytes <= streamed_b_bytes(k, M, ldb) && !direct_b_ahead(k, M, N, K, ldb);
}

// Whether a direct call of a few rows of C reads B a few whole rows at a time (see the kernels' row_streams) instead
// of in column strips of tiles: where B is wider than a strip and larger than the direct cache, so that it comes from
// beyond it either way, and the call runs at the speed it arrives: one or two rows always; up to kStreamRowsMax rows
// on one thread (`alone`) where B comes from memory: on two threads, each with its share of K (see split_k), or with
// B in the outer cache, three to five rows do not pay. The model prices those calls as tiles (direct_work takes
// `alone` false), which it does for every kernel (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
// "row-streams-pay").
bool row_streams_pay(const Kernel& k, int64_t M, int64_t N, int64_t K, bool alone) {
  const int64_t b_bytes = matrix_bytes(K, N);
  return (M <= 2 || (alone && M <= kStreamRowsMax && b_bytes > kOuterBytes)) && N > k.nr && b_bytes > kDirectBytes;
}

// How a thread whose block of C has `rows` rows reads B: in place instead of packing it, in a call of N x K B (see
// run_streamed), or not; the rows it streams at a time, a whole number of register tiles, or 0 to pack. A's slices
// are packed into the thread's whole workspace (`buffer_floats`), B blocks' slots included. Packing copies all of B
// before the FMAs that use it, and where C has few rows each element copied serves few FMAs. In place, the first
// register tile of each column strip reads the strip's k slice from the outer cache, fetching its rows ahead (see the
// kernels' fetch_b_ahead), and the strip's later tiles find it in the inner ones, strided. Always for blocks of up to
// kStreamTiles rows of tiles. Taller blocks stream B only where it is larger than the direct cache's half that
// kDirectBytes names, in row blocks for which the workspace holds A's slice at least K1 deep (see streamed_depth;
// with shallower slices C is read back and written once per slice, and the strided reads of B cost more than the copy
// saves), and in at most kStreamedRowBlocks of them, each of which reads all of B from the outer cache again. And
// only while B stays in the outer cache: from memory, the strip's short rows, a page apart, get no help from the
// prefetchers. Both bounds on B are streamed_b_bytes', and taller blocks stream only where outer_keeps_up
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "streamed-rows"), and only for tiles wider than a
// vector: a one-vector tile's tall blocks ran 1.4 to 2.3 times slower than their price, and slower than packing
// (measurements: docs/perf/2026-11-27-one-model/, "one-vector-streams").
constexpr int64_t kStreamTiles = 12;
constexpr int64_t kStreamedRowBlocks = 2;
int64_t streamed_rows(const Kernel& k, int64_t rows, int64_t N, int64_t K, int64_t buffer_floats) {
  using strata_model::ceil_div;
  const int64_t b_bytes = matrix_bytes(K, N);
  if (b_bytes > streamed_b_bytes(k, k.mr, N)) return 0;
  if (rows <= std::min({kStreamTiles * k.mr, k.m1, k.m2})) return rows;
  if (b_bytes <= kDirectBytes || !outer_keeps_up(k, k.mr) || k.nr <= kVectorFloats) return 0;
  // The most rows, in whole tiles, whose A slice the workspace and kDirectBytes hold `depth` deep (see
  // streamed_depth).
  const int64_t depth = std::min(round_up(K, k.ku), k.k1);
  const int64_t slice_bytes = depth * static_cast<int64_t>(sizeof(float));  // one row's
  const int64_t fit = std::min(buffer_floats / depth, kDirectBytes / slice_bytes - k.nr);
  const int64_t most = fit / k.mr * k.mr;
  if (most < k.mr) return 0;
  const int64_t blocks = ceil_div(rows, most);
  if (blocks > kStreamedRowBlocks) return 0;
  return std::min(most, round_up(ceil_div(rows, blocks), k.mr));
}

// The depth of the direct path's k slices. Every tile of a thread's range runs a slice before the next slice starts,
// so a slice of B is read from cache by every row of tiles after the first, and C is read and written once per slice
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "direct-depth").
//  - All of B fits in the direct cache: one slice; C is written once.
//  - A single column of tiles (N <= NR): B is reused by every tile, A is read once. Slices as deep as keep B's slice
//    in the direct cache, so that each tile reads its rows of A as long streams.
//  - A single row of tiles (M <= MR) of three rows or more (one or two rows read such a B in row streams instead, see
//    row_streams_pay): B is read once and is too big to stay cached, so it is streamed: shallow slices, so that a
//    tile reads few rows of B at once and the sweep across N reads each row sequentially. C, M rows of N, is then
//    read and written once per slice, from cache. Slices as deep as L1's ways, where B's rows share a set of it, lose
//    for these tiles, which use each line of B for more FMAs than one- and two-row tiles. Where B's rows do not share
//    a set, or the tile has kDeepSharedRows rows or more, and B stays inside the outer cache, the shallow slices cost
//    more than they save: each slice is a call per strip and a pass over C. There they take slices of K1, each tile
//    fetching B's rows ahead (see direct_b_ahead). Elsewhere in the outer cache, more than kShallowRows rows on one
//    thread, or in a split-K task, stream B through packed A instead (see direct_streams_b); the shallow slices serve
//    fewer rows, a B from memory, and two threads' shares of the tiles.
//    `ldb` is B's row stride; a plan, which has none, takes N.
int64_t direct_depth(const Kernel& k, int64_t M, int64_t N, int64_t K, int64_t ldb) {
  const int64_t b_row_bytes = N * static_cast<int64_t>(sizeof(float));
  if (K * b_row_bytes <= kDirectBytes) return K;
  if (N <= k.nr) return std::max(k.k1, kDirectBytes / b_row_bytes);
  if (direct_b_ahead(k, M, N, K, ldb)) return k.k1;
  if (M <= k.mr) return std::max(kStreamDepth, kStreamBytes / b_row_bytes);
  return k.k1;
}

// The rows of C a direct k slice of `depth` walks at a time, a whole number of register tiles. All of them when C is
// a single column strip, or while their A stays in the direct cache from one strip to the next; else as many as half
// of the tile cache holds, so that every strip after a block's first reads the block's A from there instead of from
// memory (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "direct-block-rows").
int64_t direct_block_rows(const Kernel& k, int64_t M, int64_t N, int64_t depth) {
  const int64_t row_bytes = depth * static_cast<int64_t>(sizeof(float));
  if (N <= k.nr || M * row_bytes <= kDirectBytes) return M;
  return std::max<int64_t>(1, kTileCacheBytes / row_bytes / k.mr) * k.mr;
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_BLOCKING_H_
