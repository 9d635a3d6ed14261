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

// A call's layout: which of A and B it stores transposed (A as K x M, B as N x K), as bits. Packing absorbs a
// transpose. In place, a transposed B is read as it is stored, by dot products, or from a row-major copy, whichever
// is priced lower (see runs_dots); a transposed A is read from a row-major copy (see transposes_s).
constexpr int32_t kTransA = 1;
constexpr int32_t kTransB = 2;
// A convolution's A, gathered from its input (see conv_gather.h), or read in place tap by tap (see
// dispatch_conv_direct.h): such a call is planned as a convolution, and the bits above kConvShift hold what its
// prices need besides M, N and K: its input channels (the gather's runs, a tap's depth in place) and its output row's
// width (the rows of a tap's GEMM in place), each capped at kConvFieldCap, beyond which a run's or a row's fixed
// costs are noise.
constexpr int32_t kGatherA = 4;
// B packed before the call, by pack_b (see dispatch_packed_b.h): such a call runs the packed path on the kernel B was
// packed for, and its price leaves out B's packing.
constexpr int32_t kPackedB = 8;
constexpr int kConvShift = 4;
constexpr int kConvFieldBits = 13;
constexpr int64_t kConvFieldCap = (int64_t{1} << kConvFieldBits) - 1;
constexpr int32_t conv_layout(int32_t layout, int64_t channels, int64_t row) {
  const auto field = [](int64_t v) { return static_cast<int32_t>(v < kConvFieldCap ? v : kConvFieldCap); };
  return layout | kGatherA | field(channels) << kConvShift | field(row) << (kConvShift + kConvFieldBits);
}
constexpr int64_t conv_channels(int32_t layout) { return (layout >> kConvShift) & kConvFieldCap; }
constexpr int64_t conv_row(int32_t layout) { return (layout >> (kConvShift + kConvFieldBits)) & kConvFieldCap; }

struct Plan {
  int32_t kernel;
  int32_t threads;
  bool packed;
  bool dots;  // in place over a transposed B, as dot products (see runs_dots)
  double seconds;
  int32_t row_shares;  // packed: C's rows are cut into this many thread blocks, its columns into threads / this
  // The best plan on one thread, for a call that finds the pool asleep (see ready_plan()).
  struct Alone {
    int32_t kernel;
    bool packed;
    bool dots;
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
// With two rows of tiles packing already pays: in place, each tile walks K rows of B, one page apart when B is wide,
// and the second row of tiles finds B's k slice evicted. Nor when all of B fits in the direct cache and the register
// tile is several vectors wide: every tile then reads B from there, a vector per several FMAs, and A, walked in row
// blocks, is read once; packed, each element of A would be copied to be used by only N columns, so the fewer the
// columns, the more of the call packing A takes. A one-vector tile reads an element of A, from as many rows as the
// tile has, per FMA, and in place runs far below its packed speed (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "packing-pays").
// A single row of tiles is the exception when its tiles are one vector wide and taller than kDirectRows: in place
// such a tile keeps its row offsets on the stack, or runs as two shorter tiles (see the kernels' tile_body), and
// packing both operands is faster (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "one-vector-row").
// Two rows of several-vector tiles run in place too while B stays in the outer cache: the direct path walks each
// column strip's k slice down both rows at once, so B is read once, straight into the FMAs, where packing copies all
// of it first (a quarter to a half of such a call). Not where A's or B's rows, as the plan assumes them (lda = K,
// ldb = N), lie a multiple of a way of the tile cache apart: a tile's rows then share one set and evict each other.
// Nor from memory, where the strips' short rows of B get no help from the prefetchers (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "two-rows-in-place").
// Nor where the outer cache is too far for the tiles to outlast its latency (see outer_keeps_up): a strip's first row
// of tiles then waits on every row of B it reads, where the packed path's streamed B asks for them ahead
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "outer-too-far").
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

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_RULES_H_
