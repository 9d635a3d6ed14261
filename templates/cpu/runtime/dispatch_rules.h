// Part of the dispatcher (dispatch.cpp includes the dispatch_*.h parts in order, one translation unit): the plan a
// call runs, and the rules that choose between packing and running in place.
#ifndef STRATA_DISPATCH_RULES_H_
#define STRATA_DISPATCH_RULES_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

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
  const int64_t tiles[3][3] = {{k.mr, k.nr, k.ku}, {k.m1, k.n1, k.k1}, {k.m2, k.n2, k.k2}};
  for (int l = 0; l < 3; ++l)
    for (int a = 0; a < 3; ++a) t.tile[l][a] = tiles[l][a];
  t.l0_measured_s = k.level0_seconds;
  t.l1 = k.level1;
  return t;
}

// Whether rows of a matrix `ld` floats apart all fall in one set of the tile cache (see use_direct, direct_b_ahead,
// row_streams_of).
bool rows_share_a_set(int64_t ld) {
  return kTileCacheWayBytes > 0 && ld * static_cast<int64_t>(sizeof(float)) % kTileCacheWayBytes == 0;
}

// Packing copies a panel so that the micro-kernel reads it contiguously from cache many times. It does not pay when
// everything fits in the direct cache anyway, or when C is a single row or column of register tiles, so that each B
// (or A) element is read once either way; packing A, a transpose, would then cost more than the FMAs that use it.
// With two rows of tiles packing already pays: in place, each tile walks K rows of B, one page apart when B is
// wide, and the second row of tiles finds B's k slice evicted (16x2304x768: 15 GFLOP/s direct, 45 packed on the
// Xeon the examples were profiled on). Nor when all of B fits in the direct cache and the register tile is several
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
// Two rows of several-vector tiles run in place too while B stays in the outer cache: the direct path walks each
// column strip's k slice down both rows at once, so B is read once, straight into the FMAs, where packing copied
// all of it first (a quarter to a half of such a call). Not where A's or B's rows, as the plan assumes them (lda =
// K, ldb = N), lie a multiple of a way of the tile cache apart: a tile's rows then share one set and evict each other
// (16x768x3072 and 32x1000x4096 ran at 0.4-0.8x of the packed path on an AMD Zen 4). Nor from memory, where the
// strips' short rows of B get no help from the prefetchers (13x5000x1500: 0.4x). Medians of interleaved rounds on
// that Zen 4, one thread: 16x768x768 1.25-1.35x faster, 16x2304x768 1.02-1.23x, 22x768x768 1.21x, 16x256x2304
// 1.29x, 16x4000x900 1.10x, 21x333x1777 1.19x; two threads 1.07-1.51x; the AVX2 descriptor's tiles 1.0-1.17x.
// Nor where the outer cache is too far for the tiles to outlast its latency (see outer_keeps_up): a strip's first row
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

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_RULES_H_
