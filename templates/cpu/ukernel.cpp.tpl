// Micro-kernel {{NAME}}: a {{MR}} x {{NR}} register tile ({{MR}} rows x {{NV}} {{ISA_NAME}} vectors of {{LANES}} floats), k unrolled
{{#MEMORY_BROADCAST}}// {{KU}} times. Each k step broadcasts one element of A per row and multiplies it into {{NV}} vectors of B: {{ACCUMULATORS}}
// accumulators + {{NV}} B registers + 1 broadcast register = {{REGISTERS}} of {{VECTOR_REGISTERS}} vector registers.
{{/MEMORY_BROADCAST}}{{#LANE_BROADCAST}}// {{KU}} times. In a packed tile the {{MR}} A elements of a k step are contiguous (a[p * {{MR}} + r]): each k step loads
// them as {{A_VECTORS}} vectors and multiplies lane r into row r's {{NV}} vectors of B with vfmaq_laneq_f32 (FMLA by element),
// with no broadcast instructions: {{ACCUMULATORS}} accumulators + {{NV}} B registers + {{A_VECTORS}} A registers = {{REGISTERS}} of {{VECTOR_REGISTERS}}
// vector registers. A direct tile reads A in place, where a column of A is strided, so it broadcasts one element
// per row with vld1q_dup_f32 (LD1R) instead.
{{/LANE_BROADCAST}}//
// Edges cost no padding work: tile<kRows, kVecs> is instantiated for every row count 1..{{MR}} and vector count
// 1..{{NV}}, and the last vector of each row is masked to the tile's columns.
#include <{{ISA_HEADER}}>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "internal.h"

namespace {{PACKAGE}}_internal {
namespace {

// Arrays whose extent is a tile's template argument spell it size_t{...}, and tables are indexed by size_t: GCC's
// -Wsign-conversion, which packages are built with, takes an int there for a conversion that may change its sign.

{{#AVX512}}using Vec = __m512;
using Mask = __mmask16;
constexpr int kLanes = 16;

inline Vec vzero() { return _mm512_setzero_ps(); }
inline Vec vload(const float* p) { return _mm512_loadu_ps(p); }
inline Vec vbroadcast(const float* p) { return _mm512_set1_ps(*p); }
inline Vec vset1(float x) { return _mm512_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
// c += a * b, an FMA of a tile's k loop, whose tile is kVecs vectors wide. Where it is several, each broadcast of A
// is multiplied into all of them; given the intrinsic, GCC 12 wrote the last of those products into the broadcast's
// register (the FMA form that overwrites a multiplicand), then moved accumulators between registers and spilled two
// to the stack in the unrolled loop of the 8x48 tile (8 moves and 2 spills per 4 k steps). Written into c's own
// register, the loop has neither: on one thread of a 2-vCPU Intel Xeon VM, the 8x48 tile over packed 128x384x128
// blocks ran 1.04x faster, and tools/ab.sh had 2048^3 1.02x faster, 1000x3072x768 1.01-1.06x, two threads
// 1.02-1.06x, small calls unchanged. A one-vector tile keeps the intrinsic, whose broadcast from memory AVX-512 folds
// into the FMA.
template <int kVecs>
inline void accumulate(Vec a, Vec b, Vec& c) {
  if constexpr (kVecs > 1)
    asm("vfmadd231ps %2, %1, %0" : "+v"(c) : "v"(a), "v"(b));
  else
    c = vfma(a, b, c);
}
inline Vec vmul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
// Only thin tiles add vectors (see thin_tile_body), and a profile kit, which times full tiles, has none.
[[maybe_unused]] inline Vec vadd(Vec a, Vec b) { return _mm512_add_ps(a, b); }
// The value in a vector register from here on, where the compiler cannot see it (see load_b).
[[maybe_unused]] inline Vec in_register(Vec v) {
  asm("" : "+v"(v));
  return v;
}
inline Mask lane_mask(int lanes) { return static_cast<Mask>((1u << lanes) - 1u); }
inline Vec vload_masked(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
inline void vstore_masked(float* p, Mask m, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
{{#PACKAGE_ENTRY}}// Halves folded with whole-lane shuffles, in their zero-masking forms: GCC 12's unmasked forms (and
// _mm512_reduce_add_ps, built on them) start from _mm512_undefined_ps and trip -Wmaybe-uninitialized.
inline float vsum(Vec v) {
  v = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4(0xffff, v, v, 0x4e));  // plus the other 256-bit half
  v = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4(0xffff, v, v, 0xb1));  // plus the neighbouring 128-bit lane
  __m128 x = _mm512_maskz_extractf32x4_ps(0xf, v, 0);
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  return _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)));
}
{{/PACKAGE_ENTRY}}// Transposes the kLanes x kLanes block held in v[0..kLanes), one row per vector, in place: v[j] becomes column j.
// Pairs of rows interleave element by element, then pairs of those by 64-bit pairs, then 128-bit lanes twice over.
// Zero-masking forms that keep every lane: GCC 12's unmasked forms start from _mm512_undefined_ps and trip
// -Wmaybe-uninitialized.
inline void transpose(Vec* v) {
  constexpr Mask all = 0xffff;
  Vec t[kLanes];
  for (int i = 0; i < kLanes; i += 2) {
    t[i] = _mm512_maskz_unpacklo_ps(all, v[i], v[i + 1]);
    t[i + 1] = _mm512_maskz_unpackhi_ps(all, v[i], v[i + 1]);
  }
  for (int i = 0; i < kLanes; i += 4) {
    v[i] = _mm512_maskz_shuffle_ps(all, t[i], t[i + 2], 0x44);
    v[i + 1] = _mm512_maskz_shuffle_ps(all, t[i], t[i + 2], 0xee);
    v[i + 2] = _mm512_maskz_shuffle_ps(all, t[i + 1], t[i + 3], 0x44);
    v[i + 3] = _mm512_maskz_shuffle_ps(all, t[i + 1], t[i + 3], 0xee);
  }
  for (int i = 0; i < kLanes; i += 8)
    for (int j = 0; j < 4; ++j) {
      t[i + j] = _mm512_maskz_shuffle_f32x4(all, v[i + j], v[i + j + 4], 0x88);
      t[i + j + 4] = _mm512_maskz_shuffle_f32x4(all, v[i + j], v[i + j + 4], 0xdd);
    }
  for (int j = 0; j < 8; ++j) {
    v[j] = _mm512_maskz_shuffle_f32x4(all, t[j], t[j + 8], 0x88);
    v[j + 8] = _mm512_maskz_shuffle_f32x4(all, t[j], t[j + 8], 0xdd);
  }
}
{{/AVX512}}{{#AVX2}}using Vec = __m256;
using Mask = __m256i;
constexpr int kLanes = 8;

inline Vec vzero() { return _mm256_setzero_ps(); }
inline Vec vload(const float* p) { return _mm256_loadu_ps(p); }
inline Vec vbroadcast(const float* p) { return _mm256_broadcast_ss(p); }
inline Vec vset1(float x) { return _mm256_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
// c += a * b, an FMA of a tile's k loop (see the AVX-512 one). The intrinsic: with 16 registers GCC's choices were
// no worse, and the AVX2 descriptor's tiles on an AVX-512 host ran 0.96-1.03x as fast written into c's register.
template <int>
inline void accumulate(Vec a, Vec b, Vec& c) {
  c = vfma(a, b, c);
}
inline Vec vmul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
// Only thin tiles add vectors (see thin_tile_body), and a profile kit, which times full tiles, has none.
[[maybe_unused]] inline Vec vadd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
// The value in a vector register from here on, where the compiler cannot see it (see load_b).
[[maybe_unused]] inline Vec in_register(Vec v) {
  asm("" : "+x"(v));
  return v;
}
inline Mask lane_mask(int lanes) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline Vec vload_masked(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
inline void vstore_masked(float* p, Mask m, Vec v) { _mm256_maskstore_ps(p, m, v); }
{{#PACKAGE_ENTRY}}inline float vsum(Vec v) {
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  return _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)));
}
{{/PACKAGE_ENTRY}}// Transposes the kLanes x kLanes block held in v[0..kLanes), one row per vector, in place: v[j] becomes column j.
// Pairs of rows interleave element by element, then pairs of those by 64-bit pairs, then the 128-bit halves swap.
inline void transpose(Vec* v) {
  Vec t[kLanes];
  for (int i = 0; i < kLanes; i += 2) {
    t[i] = _mm256_unpacklo_ps(v[i], v[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
  }
  for (int i = 0; i < kLanes; i += 4) {
    v[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    v[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
    v[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    v[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  for (int j = 0; j < 4; ++j) {
    t[j] = _mm256_permute2f128_ps(v[j], v[j + 4], 0x20);
    t[j + 4] = _mm256_permute2f128_ps(v[j], v[j + 4], 0x31);
  }
  for (int j = 0; j < kLanes; ++j) v[j] = t[j];
}
{{/AVX2}}{{#NEON}}using Vec = float32x4_t;
// NEON has no masked loads or stores, so a mask is the number of active lanes, and a partial vector moves lane by lane.
// Only the last vector of a row at the right edge of a tile is ever partial; full vectors take the single branch.
using Mask = int;
constexpr int kLanes = 4;

inline Vec vzero() { return vdupq_n_f32(0.0f); }
inline Vec vload(const float* p) { return vld1q_f32(p); }
inline Vec vbroadcast(const float* p) { return vld1q_dup_f32(p); }
inline Vec vset1(float x) { return vdupq_n_f32(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return vfmaq_f32(c, a, b); }
// c += a * b, an FMA of a tile's k loop (see the AVX-512 one).
template <int>
inline void accumulate(Vec a, Vec b, Vec& c) {
  c = vfma(a, b, c);
}
inline Vec vmul(Vec a, Vec b) { return vmulq_f32(a, b); }
// Only thin tiles add vectors (see thin_tile_body), and a profile kit, which times full tiles, has none.
[[maybe_unused]] inline Vec vadd(Vec a, Vec b) { return vaddq_f32(a, b); }
// The value in a vector register from here on, where the compiler cannot see it (see load_b).
[[maybe_unused]] inline Vec in_register(Vec v) {
  asm("" : "+w"(v));
  return v;
}
inline Mask lane_mask(int lanes) { return lanes; }
inline Vec vload_masked(const float* p, Mask m) {
  if (m >= kLanes) return vld1q_f32(p);
  Vec v = vzero();
  if (m > 0) v = vld1q_lane_f32(p, v, 0);
  if (m > 1) v = vld1q_lane_f32(p + 1, v, 1);
  if (m > 2) v = vld1q_lane_f32(p + 2, v, 2);
  return v;
}
inline void vstore_masked(float* p, Mask m, Vec v) {
  if (m >= kLanes) {
    vst1q_f32(p, v);
    return;
  }
  if (m > 0) vst1q_lane_f32(p, v, 0);
  if (m > 1) vst1q_lane_f32(p + 1, v, 1);
  if (m > 2) vst1q_lane_f32(p + 2, v, 2);
}
{{#PACKAGE_ENTRY}}inline float vsum(Vec v) { return vaddvq_f32(v); }
{{/PACKAGE_ENTRY}}// Transposes the kLanes x kLanes block held in v[0..kLanes), one row per vector, in place: v[j] becomes column j.
inline void transpose(Vec* v) {
  const float32x4x2_t t01 = vtrnq_f32(v[0], v[1]);  // {a0 b0 a2 b2}, {a1 b1 a3 b3}
  const float32x4x2_t t23 = vtrnq_f32(v[2], v[3]);
  v[0] = vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0]));
  v[1] = vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1]));
  v[2] = vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0]));
  v[3] = vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1]));
}
{{/NEON}}
// How a tile writes C, chosen once per tile: most calls have alpha = 1 and beta = 0, and on a shallow tile (small
// K) the epilogue is as long as the k loop, so the multiply by alpha and the test of beta are not paid per vector.
enum class Epilogue { kStore, kScale, kScaleAccumulate };  // C = acc, C = alpha acc, C = alpha acc + beta C

// C[row] = acc under `mode` for the vectors of one row; `last` masks the final vector.
template <Epilogue kMode, int kVecs>
inline void store_row(float* c, const Vec* acc, Vec alpha, Vec beta, Mask full, Mask last) {
  for (int v = 0; v < kVecs; ++v) {
    const Mask m = v == kVecs - 1 ? last : full;
    Vec out = acc[v];
    if constexpr (kMode != Epilogue::kStore) out = vmul(alpha, out);
    if constexpr (kMode == Epilogue::kScaleAccumulate) out = vfma(beta, vload_masked(c + v * kLanes, m), out);
    vstore_masked(c + v * kLanes, m, out);
  }
  // Rows are written in address order: without this the compiler interleaved one row's stores with the next's, and
  // where C is not cached (a tall C streamed through the cache) the tile took longer (19717x121x16: 1.25x).
  asm volatile("" ::: "memory");
}

// Calls store(mode) with the epilogue alpha and beta ask for, as a compile-time constant (std::integral_constant).
template <typename Store>
__attribute__((always_inline)) inline void with_epilogue(float alpha, float beta, Store store) {
  if (beta != 0.0f)
    store(std::integral_constant<Epilogue, Epilogue::kScaleAccumulate>{});
  else if (alpha != 1.0f)
    store(std::integral_constant<Epilogue, Epilogue::kScale>{});
  else
    store(std::integral_constant<Epilogue, Epilogue::kStore>{});
}

// A copy of t, made field by field, for another part of the same call. The dispatcher writes a TileArgs' last fields
// (rows, cols, the fetch flags) with narrow stores of their own, and GCC copied a whole struct with wide loads that
// span several of them, which the core cannot forward from stores still in flight: each copy waited for them to reach
// the cache (on an AMD Zen 4, 13x33x1 took 96 ns a call with whole copies, 76 ns with these). Copied one by one, each
// load reads what one store wrote.
inline TileArgs copy_of(const TileArgs& t) {
  TileArgs copy{t.k, t.a, t.lda, t.b, t.ldb, t.c, t.ldc, t.alpha, t.beta, t.rows, t.cols};
  copy.fetch_a_ahead = t.fetch_a_ahead;
  copy.a_continues = t.a_continues;
  copy.c_from_beyond = t.c_from_beyond;
  copy.next_b = t.next_b;
  copy.next_ldb = t.next_ldb;
  copy.next_rows = t.next_rows;
  copy.next_cols = t.next_cols;
  copy.fetch_b_ahead = t.fetch_b_ahead;
  copy.b_rows_collide = t.b_rows_collide;
  return copy;
}

// Where a tile reads its operands: both from packed micro-panels (the dispatcher's packed path), both in place (its
// direct path), or A from a packed micro-panel and B in place (a packed call whose B it streams, see streamed_rows in
// dispatch.cpp).
enum class Operands { kPacked, kDirect, kStreamedB };
constexpr bool packed_a(Operands ops) { return ops != Operands::kDirect; }
constexpr bool packed_b(Operands ops) { return ops == Operands::kPacked; }

// A B vector of the tile. Read in place, the last vector may run past the end of B's row (and of the matrix), so it
// is loaded under the column mask, unless the k step may load it whole (kUnmasked, see unmasked_steps); packed panels
// are allocated whole, so they never need one. An unmasked vector read in place is held in a register (in_register):
// GCC 12 otherwise folded its load into every FMA that used it, a 512-bit load per row, and broadcast A separately,
// where the masked load was loaded once and A's broadcast folded (a 3 x 1 tile, 3x17x64: 1.24x as long).
template <bool kPackedB, bool kUnmasked, bool kLastVector>
inline Vec load_b(const float* p, Mask last) {
  if constexpr (kPackedB) return vload(p);
  if constexpr (!kUnmasked && kLastVector) return vload_masked(p, last);
  return in_register(vload(p));
}

// How many of a tile's first k steps load B's last vector whole (see load_b): every step where the tile's columns fill
// its vectors or B is packed; else, where the last vector's overrun past the columns (kVecs * kLanes - cols floats)
// is at most ldb, every step but the last: the overrun then ends within the tile's columns of B's next row, memory of
// B's, and the lanes past the columns, which never reach C (its stores are masked), hold products of B's other
// elements. A masked load on every k step (GCC 12 reloaded the mask from the stack for each) made the 11x32 tile
// over 11x32x256 take 1.03x as long on one thread of an AMD Zen 4, and 31x13x64 (the 15x16 kernel's 15 x 1 tiles)
// 1.11x; 5x768x768 1.06x, 96x96x96 1.04x.
template <bool kPackedB, int kVecs>
inline int64_t unmasked_steps(const TileArgs& t) {
  if (kPackedB || t.cols == kVecs * kLanes) return t.k;
  return kVecs * kLanes - t.cols <= t.ldb ? t.k - 1 : 0;
}

// C is read once, after the whole k loop, and its rows lie ldc apart, where no hardware prefetcher follows: a tile
// asks for them early, so that their misses overlap the FMAs instead of stalling the epilogue. A packed tile (deep
// k, C anywhere in memory) asks during the k loop, one row per unrolled step: a burst of every row's lines at once
// fills the core's miss buffers and stalls the loop behind it (on the Xeon the examples were profiled on, 10% of a
// 2048^3 call's tile time went to such a burst). A direct tile asks for all rows before its k loop: it serves small
// problems, whose C is usually in cache, and the per-step check would cost them 5-9%. A short k loop has nothing to
// overlap the misses with, so below kPrefetchDepth a tile prefetches nothing, unless the dispatcher says C is larger
// than the cache (TileArgs::c_from_beyond): then each of C's lines misses, and a shallow tile's stores of them filled
// the store queue while each waited for its line (one thread of an AMD Zen 4: 169343x121x16 1.25-1.27x faster
// asking first, 19717x121x16 1.23-1.35x; two threads 1.27-1.29x). Small calls, whose C is cached, lost up to 20% to
// the requests (13x33x1 0.78x), hence the flag.
constexpr int64_t kPrefetchDepth = 32;
constexpr int kLineFloats = 64 / static_cast<int>(sizeof(float));

// Asks for every line of a row of `floats` floats into L2 (locality 2: prefetcht1 on x86), the last one too where
// the row starts mid-line (see pack_b and fetch_next_b).
inline void prefetch_row_into_l2(const float* row, int64_t floats) {
  for (int64_t j = 0; j < floats; j += kLineFloats) __builtin_prefetch(row + j, 0, 2);
  __builtin_prefetch(row + floats - 1, 0, 2);
}

template <int kVecs>
inline void prefetch_c_row(const float* row, int cols) {
  for (int j = 0; j < kVecs * kLanes; j += kLineFloats) __builtin_prefetch(row + j, 1);
  __builtin_prefetch(row + cols - 1, 1);  // the row's last line, when it starts mid-line
}

// A direct strip walks its tiles down C, each reading kRows rows of A in place, side by side: a row is a short stream
// (K floats; 512 bytes at K = 128), and the hardware prefetchers, which follow a few long streams, left such a tile
// waiting on A whenever A came from beyond L2 (the 4x64 tile over 169343x41x128 ran 16 cycles per k step against 6
// for its FMAs). Where the dispatcher says A is not cached (TileArgs::fetch_a_ahead), each full tile of a strip
// asks for the next tile's rows (kAheadRows of them, from `row` on, lda apart), one line of each per kLineFloats
// steps of its own k loop, so that they arrive while it computes (on one thread of an Emerald Rapids Xeon:
// 169343x41x128 1.41x faster on the 4x64 tile, 169343x121x128 1.17x on the 13x32 one). Where A is cached the requests
// only cost issue slots (2708x121x128, A in L2: 0.89x), hence the flag. A tile shallower than kPrefetchDepth does
// not ask: its rows are a line or two, and the prefetchers follow the rows' succession in memory.
template <int kAheadRows>
inline void prefetch_a_rows(const float* row, int64_t lda) {
  for (int r = 0; r < kAheadRows; ++r) __builtin_prefetch(row + r * lda);
}

// A streamed B's rows lie ldb apart, a page or more each when B is wide, so no hardware prefetcher follows a strip
// of them down k, and the first tile of each strip, which brings the strip's k slice in from the outer cache, waits
// on every row (the later tiles of the strip find it in the inner ones). That tile (TileArgs::fetch_b_ahead) asks
// for the row kBRowsAhead steps below each one it reads, all of the tile's lines of it, the one past a vector too
// where the row starts mid-line (without it, 64x1000x4096, rows 4000 bytes apart, ran at 0.89x of packing B; with
// it, 1.11x). It asks 32 rows ahead into L2 (locality 2: prefetcht1 on x86). Into L1, at most 8 rows ahead did
// well: the requests wait in the core's few L1 miss buffers, and where ldb is a multiple of a way of L1 (3072
// floats: 12 KiB) every row of the strip falls in the same sets, whose 8 ways the rows asked ahead then fill,
// evicting the rows in use. Medians of interleaved rounds on an AMD Zen 4, one thread, against 8 rows ahead into L1:
// 16x3072x768 1.15-1.19x faster, 62x3072x768 1.04-1.06x, 100x3072x768 1.06x, 43x3072x768 1.05x, others 1.00-1.02x
// (16 rows ahead into L2: 1.02-1.10x on the 3072-wide calls; 64 about as 32). Against packing B, with 8 rows into
// L1: 62x768x3072 1.05x faster, 16x768x3072 1.24x. A direct tile of a single row of tiles over deep k slices (see
// direct_b_ahead in the dispatcher), every tile the only one to read its rows, asks the same way: against 8 rows
// ahead into L1, on that Zen 4, one thread (with direct_b_ahead's bound on B as it is now), 5x768x3072 1.25x faster,
// 6x768x3072 1.25x, 5x2304x768 1.05-1.07x, 5x768x768 1.01-1.02x; two threads 0.97-1.06x. A packed tile never needs
// to ask. kBRowsAhead is in internal.h: the dispatcher asks whether those steps outlast the outer cache's latency.
constexpr int kBFetchLocality = 2;  // __builtin_prefetch's: 3 into L1, 2 into L2

// `fetch` is the tile's TileArgs::fetch_b_ahead, read once before its k loop, which then tests a register: read from
// TileArgs, GCC 12 loaded it from memory again on every k step of a direct tile.
template <Operands kOps, int kVecs, int kSteps>
inline void fetch_b_ahead(bool fetch, const float* b, int64_t ldb) {
  if constexpr (kOps != Operands::kPacked)
    if (fetch)
      for (int s = 0; s < kSteps; ++s) {
        const float* row = b + (kBRowsAhead + s) * ldb;
        for (int j = 0; j < kVecs * kLanes; j += kLineFloats) __builtin_prefetch(row + j, 0, kBFetchLocality);
        // The last line, when the row starts mid-line.
        __builtin_prefetch(row + kVecs * kLanes - 1, 0, kBFetchLocality);
      }
}

// Where B comes from beyond L2, packing a block of it is bound by the misses, and runs before the FMAs that use it
// (pack_b took 23-28% of 32-64 x 4096 x 4096/25088 on an AMD Zen 4). A packed tile therefore asks for a share of the
// rows of the block its thread packs next (TileArgs::next_b, handed out by the dispatcher's run_block), into L2, one
// row per unrolled step, so that the next pack_b finds them there and the misses overlap this block's FMAs. `row`
// counts the rows asked so far. Medians of interleaved rounds on that Zen 4, one thread: 32x4096x25088 1.12x
// faster, 32x4096x4096 1.10x, 64x4096x25088 1.09x, 64x4096x4096 1.06x, 128x4096x4096 1.02x; two threads
// 1.02-1.12x. With B in L3, 1.01-1.03x (see packed_task).
template <Operands kOps>
inline void fetch_next_b(const TileArgs& t, int& row) {
  if constexpr (kOps == Operands::kPacked)
    if (row < t.next_rows) prefetch_row_into_l2(t.next_b + row++ * t.next_ldb, t.next_cols);
}

// The k loops' call: at the k step p of a kRows-row tile whose loop advances kStep steps at a time, the next tile's
// rows, once per kLineFloats steps (nothing when kAheadRows is 0).
template <int kRows, int kAheadRows, int kStep>
inline void fetch_a_ahead(const TileArgs& t, int64_t p) {
  if constexpr (kAheadRows > 0)
    if ((p & (kLineFloats - 1)) < kStep) prefetch_a_rows<kAheadRows>(t.a + kRows * t.lda + p, t.lda);
}

// A direct tile reads row r of A at a + r * lda, an offset register per row: x86-64 has 16 general registers, and in
// a one-vector tile of more than kDirectRows rows GCC 12 kept the offsets on the stack and reloaded one for each
// broadcast, some through vector registers and the FMA ports (the 26x16 kernel's 24-row tile over 24x768x3072 ran
// at 57 GFLOP/s on an Emerald Rapids Xeon; wider tiles, whose unrolled loop is not used in place, did not spill).
// Such a tile runs as two shorter ones, one after the other, over the same B rows, where those stay in L1 from the
// first to the second (at most kSplitBytes of them: 24x768x3072 1.30x faster, 2708x64x16 1.16x, 169343x16x16
// 1.12x). Where they do not (a single deep column strip, 19717x16x602) reading them twice cost more than the
// reloads (0.91x), and the tile stays whole. (The dispatcher packs a single row of such tiles instead.)
constexpr int kDirectRows = {{DIRECT_ROWS}};

// Calls f(0), f(1), ..., f(kCount - 1) as straight-line code, so that an array of vectors indexed by them stays in
// registers: GCC 12 left a loop over a 4 x 1 block of accumulators rolled, with the accumulators in memory and a
// load and a store per FMA (100x1x17: 1.5x slower).
template <typename F, int... kIndex>
__attribute__((always_inline)) inline void unrolled_over(F& f, std::integer_sequence<int, kIndex...>) {
  (f(kIndex), ...);
}
template <int kCount, typename F>
__attribute__((always_inline)) inline void unrolled(F f) {
  unrolled_over(f, std::make_integer_sequence<int, kCount>{});
}

// A direct tile of few accumulators (kRows x kVecs: one or two rows of C, M = 1 or 2, or a strip's last rows) adds
// each k step's FMAs to the last step's results, so its k loop is a chain of FMA latencies, not of FMA issues: one
// row of one vector started an FMA every 4 cycles on an AMD Zen 4, which can start one a cycle. Such a tile keeps
// thin_sets() sets of accumulators instead (kChains chains in all, see internal.h): the k steps of each group of
// kSets go one into each set, the last depth % kSets into the first, and the sets are added up before the epilogue.
// Medians of interleaved rounds, one thread of that Zen 4: 1x13x33 1.22-1.29x faster, 1x3x31 1.17-1.26x, 1x64x7
// 1.01-1.13x; the AVX2 descriptor's kernels (10 chains) there: 1x3x31 1.41x, 2x5x100 1.48-1.69x, 3x100x13 1.12-1.15x.
// Calls that stream B from beyond L2 are bound by that, not by the chains, and ran slower with more sets than kChains
// asks for (8 chains against 4 on the Zen 4: 2x768x768 0.84-0.86x, 1x3072x768 0.92-0.96x). Packed tiles this thin are
// rare (see row_tiles in the dispatcher) and keep one set: with the streamed tile's prefetches GCC 12 kept the sets
// in memory.
template <int kRows, int kVecs, int kAheadRows>
__attribute__((always_inline)) inline void thin_tile_body(const TileArgs& t) {
  constexpr int kSets = thin_sets(kRows, kVecs);
  const int64_t a_rs = t.lda, b_rs = t.ldb;
  const float* a = t.a;
  const float* b = t.b;
  const int64_t depth = t.k;
  const Mask last = lane_mask(t.cols - (kVecs - 1) * kLanes);
  if (depth >= kPrefetchDepth)
    for (int r = 0; r < kRows; ++r) prefetch_c_row<kVecs>(t.c + r * t.ldc, t.cols);
  Vec acc[size_t{kSets}][size_t{kRows}][size_t{kVecs}];
  unrolled<kSets>([&](int s) {
    unrolled<kRows>([&](int r) { unrolled<kVecs>([&](int v) { acc[s][r][v] = vzero(); }); });
  });
  // k step `step` of the current group, into set `s`.
  const auto k_step = [&](int s, int64_t step) __attribute__((always_inline)) {
    Vec bv[size_t{kVecs}];
    unrolled<kVecs>([&](int v) {
      const float* const from = b + step * b_rs + v * kLanes;
      bv[v] = v == kVecs - 1 ? vload_masked(from, last) : vload(from);
    });
    unrolled<kRows>([&](int r) {
      const Vec x = vbroadcast(a + r * a_rs + step);
      unrolled<kVecs>([&](int v) { acc[s][r][v] = vfma(x, bv[v], acc[s][r][v]); });
    });
  };
  int64_t p = 0;
  for (; p + kSets <= depth; p += kSets, a += kSets, b += kSets * b_rs) {
    fetch_a_ahead<kRows, kAheadRows, kSets>(t, p);
    unrolled<kSets>([&](int s) { k_step(s, s); });
  }
  for (; p < depth; ++p, ++a, b += b_rs) k_step(0, 0);
  unrolled<kSets - 1>([&](int s) {
    unrolled<kRows>([&](int r) {
      unrolled<kVecs>([&](int v) { acc[0][r][v] = vadd(acc[0][r][v], acc[s + 1][r][v]); });
    });
  });
  float* const c = t.c;
  const int64_t ldc = t.ldc;
  const float alpha = t.alpha, beta = t.beta;
  const Mask full = lane_mask(kLanes);
  with_epilogue(alpha, beta, [&](auto mode) __attribute__((always_inline)) {
    unrolled<kRows>([&](int r) {
      store_row<decltype(mode)::value, kVecs>(c + r * ldc, acc[0][r], vset1(alpha), vset1(beta), full, last);
    });
  });
}

// The body of every tile; inlined into tile() below and into a shallow direct strip's loop. kAheadRows > 0: a direct
// tile that fetches the next tile's rows of A (see prefetch_a_rows), which start kRows rows below its own.
template <Operands kOps, int kRows, int kVecs, int kAheadRows = 0>
__attribute__((always_inline)) inline void tile_body(const TileArgs& t) {
  constexpr bool kPackedA = packed_a(kOps), kPackedB = packed_b(kOps);
  static_assert(!kPackedA || kAheadRows == 0, "a packed tile's A is a packed panel");
  static_assert(kRows >= 1 && kRows <= {{MR}} && kVecs >= 1 && kVecs <= {{NV}}, "tile outside the register tile");
  if constexpr (!kPackedA && thin_sets(kRows, kVecs) > 1) {
    if (t.k >= thin_sets(kRows, kVecs)) {  // a shallower tile has fewer steps than sets
      thin_tile_body<kRows, kVecs, kAheadRows>(t);
      return;
    }
  }
  if constexpr (!kPackedA && kVecs == 1 && kRows > kDirectRows) {
    if (t.k * kLanes * static_cast<int64_t>(sizeof(float)) <= kSplitBytes) {  // one vector of B per k step
      constexpr int kTop = (kRows + 1) / 2;
      TileArgs bottom = copy_of(t);
      bottom.a += kTop * t.lda;
      bottom.c += kTop * t.ldc;
      bottom.rows = kRows - kTop;
      tile_body<Operands::kDirect, kTop, kVecs>(t);
      // The next tile starts below the bottom half.
      tile_body<Operands::kDirect, kRows - kTop, kVecs, kAheadRows>(bottom);
      return;
    }
  }
  // A element (r, p): packed at a[p * {{MR}} + r], in place at a[r * lda + p]. B row p: packed at b + p * {{NR}},
  // in place at b + p * ldb.
  const int64_t a_rs = kPackedA ? 1 : t.lda;
  const int64_t a_cs = kPackedA ? {{MR}} : 1;
  const int64_t b_rs = kPackedB ? {{NR}} : t.ldb;
  const float* a = t.a;
  const float* b = t.b;
  const int64_t depth = t.k;
  const Mask last = lane_mask(t.cols - (kVecs - 1) * kLanes);
  int c_row = depth >= kPrefetchDepth || (!kPackedA && t.c_from_beyond) ? 0 : kRows;  // the next C row to prefetch
  if constexpr (!kPackedA)
    for (; c_row < kRows; ++c_row) prefetch_c_row<kVecs>(t.c + c_row * t.ldc, t.cols);
{{#ROW}}{{#VEC}}  Vec c{{R}}_{{V}} = vzero();
{{/VEC}}{{/ROW}}
  int64_t p = 0;
  int next_row = 0;  // of the next B block's rows this tile asks for (see fetch_next_b)
  const bool fetch_b = t.fetch_b_ahead;
{{#MEMORY_BROADCAST}}  const int64_t unmasked = unmasked_steps<kPackedB, kVecs>(t);  // the k steps before the one with B's mask
  // A direct tile more than one vector wide takes the single-step loop below: its A rows and B rows lie lda and ldb
  // apart, so an unrolled step needs an address register per row of A and per unrolled row of B, more than x86-64
  // has, and GCC kept the offsets on the stack and reloaded them in the loop (9x48 direct tile, K = 100: 1.16x
  // faster without unrolling; 2708x64x16 1.24x). So does a one-vector tile on a core that starts one vector FMA per
  // cycle, where the single step's bookkeeping fits beside its FMAs and the unrolled loop's reloads did not (one
  // thread of an AMD Zen 4, 512-bit FMAs on one pipe: 13x13x13 1.24x faster, 31x13x64 1.10x, 19717x16x64 1.08x,
  // 64x16x64 1.08x, 7x13x64 1.08x, 2708x16x128 1.06x); with two pipes it lost 3-8% (a Cascade Lake Xeon).
  // So does a tile over a streamed B (packed A, B in place) whose rows lie kFarRowBytes or more apart: its unrolled
  // step reads as many of them, each in a page of its own, as it unrolls. On one thread of a 2-vCPU Intel Xeon VM
  // (tools/ab.sh, medians of per-round ratios), rows 9 KiB apart ran 1.41-1.49x faster in single steps than unrolled
  // by 8 (43x2304x768, 62x2304x768, 100x2304x768, 128x2304x768; unrolled by 4, forced: 1.01-1.06x), rows 12 KiB
  // apart alike (62x3072x768 1.01x, 100x3072x768 1.00x), and rows 3 KiB apart 0.90-0.93x (62x768x768, 100x768x3072,
  // 128x768x3072).
  constexpr int64_t kFarRowBytes = int64_t{8} << 10;
  constexpr bool kUnrolled = kPackedB || (kVecs == 1 && kFmaPipes > 1);
  const bool unrolled = kUnrolled || (kPackedA && t.ldb * static_cast<int64_t>(sizeof(float)) < kFarRowBytes);
  for (; unrolled && p + {{KU}} <= unmasked; p += {{KU}}, a += {{KU}} * a_cs, b += {{KU}} * b_rs) {
    if constexpr (kPackedA)
      if (c_row < kRows) prefetch_c_row<kVecs>(t.c + c_row++ * t.ldc, t.cols);
    fetch_a_ahead<kRows, kAheadRows, {{KU}}>(t, p);
    fetch_b_ahead<kOps, kVecs, {{KU}}>(fetch_b, b, b_rs);
    fetch_next_b<kOps>(t, next_row);
{{#UNROLL}}    {
{{#VEC}}      const Vec b{{V}} = kVecs > {{V}} ? load_b<kPackedB, true, kVecs == {{V1}}>(b + {{U}} * b_rs + {{V}} * kLanes, last) : vzero();
{{/VEC}}{{#ROW}}      if constexpr (kRows > {{R}}) {
        const Vec a{{R}} = vbroadcast(a + {{R}} * a_rs + {{U}} * a_cs);
{{#VEC}}        {{VEC_GUARD}}accumulate<kVecs>(a{{R}}, b{{V}}, c{{R}}_{{V}});
{{/VEC}}      }
{{/ROW}}    }
{{/UNROLL}}  }
  // The single-step loop reads row r of a direct tile's A at rows3[r / 3] + (r % 3) * lda: one pointer per three
  // rows, which x86 addresses with lda as an index scaled by 1 or 2. With an offset per row, a 13-row tile needed
  // more general registers than x86-64 has, and GCC reloaded offsets from the stack in the loop (13x32 kernel, one
  // thread of an Emerald Rapids Xeon, medians of interleaved runs: 2708x121x128 1.03-1.04x faster, 128x128x128
  // 1.01-1.06x, 64x64x64 0.97-1.08x).
  constexpr int kRowGroups = (kRows + 2) / 3;
  const float* rows3[size_t{kRowGroups}];
  for (int g = 0; g < kRowGroups; ++g) rows3[g] = a + 3 * g * a_rs;
  // One k step; `whole`: B's last vector is loaded whole (see unmasked_steps).
  const auto step = [&](auto whole) __attribute__((always_inline)) {
    fetch_a_ahead<kRows, kAheadRows, 1>(t, p);
    fetch_b_ahead<kOps, kVecs, 1>(fetch_b, b, b_rs);
{{#VEC}}    const Vec b{{V}} = kVecs > {{V}} ? load_b<kPackedB, decltype(whole)::value, kVecs == {{V1}}>(b + {{V}} * kLanes, last) : vzero();
{{/VEC}}{{#ROW}}    if constexpr (kRows > {{R}}) {
      const Vec a{{R}} = vbroadcast(kPackedA ? a + {{R}} * a_rs : rows3[{{R}} / 3] + {{R}} % 3 * a_rs);
{{#VEC}}      {{VEC_GUARD}}accumulate<kVecs>(a{{R}}, b{{V}}, c{{R}}_{{V}});
{{/VEC}}    }
{{/ROW}}    for (int g = 0; g < kRowGroups; ++g) rows3[g] += a_cs;
  };
  for (; p < unmasked; ++p, a += a_cs, b += b_rs) step(std::true_type{});
  if constexpr (!kPackedB)
    for (; p < depth; ++p, a += a_cs, b += b_rs) step(std::false_type{});
{{/MEMORY_BROADCAST}}{{#LANE_BROADCAST}}  // Packed: one k step's A elements are loaded as {{A_GROUP_LIST}}.
{{#A_OVERLAP}}  // The last vector overlaps the one before it, so that it ends at the panel's last row instead of reading past it.
{{/A_OVERLAP}}  // An edge tile (kRows < {{MR}}) loads only the vectors holding its rows, and never multiplies the lanes past them.
  for (; p + {{KU}} <= depth; p += {{KU}}, a += {{KU}} * a_cs, b += {{KU}} * b_rs) {
    if constexpr (kPackedA)
      if (c_row < kRows) prefetch_c_row<kVecs>(t.c + c_row++ * t.ldc, t.cols);
    fetch_a_ahead<kRows, kAheadRows, {{KU}}>(t, p);
    fetch_b_ahead<kOps, kVecs, {{KU}}>(fetch_b, b, b_rs);
    fetch_next_b<kOps>(t, next_row);
{{#UNROLL}}    {
{{#VEC}}      const Vec b{{V}} = kVecs > {{V}} ? load_b<kPackedB, false, kVecs == {{V1}}>(b + {{U}} * b_rs + {{V}} * kLanes, last) : vzero();
{{/VEC}}      if constexpr (kPackedA) {
{{#A_GROUP}}        const Vec a{{G}} = kRows > {{FIRST}} ? vload(a + {{OFFSET}} + {{U}} * a_cs) : vzero();
{{/A_GROUP}}{{#ROW}}        if constexpr (kRows > {{R}}) {
{{#VEC}}          {{VEC_GUARD}}c{{R}}_{{V}} = vfmaq_laneq_f32(c{{R}}_{{V}}, b{{V}}, a{{G}}, {{LANE}});
{{/VEC}}        }
{{/ROW}}      } else {
{{#ROW}}        if constexpr (kRows > {{R}}) {
          const Vec a{{R}} = vbroadcast(a + {{R}} * a_rs + {{U}} * a_cs);
{{#VEC}}          {{VEC_GUARD}}c{{R}}_{{V}} = vfma(a{{R}}, b{{V}}, c{{R}}_{{V}});
{{/VEC}}        }
{{/ROW}}      }
    }
{{/UNROLL}}  }
  for (; p < depth; ++p, a += a_cs, b += b_rs) {
    fetch_a_ahead<kRows, kAheadRows, 1>(t, p);
{{#VEC}}    const Vec b{{V}} = kVecs > {{V}} ? load_b<kPackedB, false, kVecs == {{V1}}>(b + {{V}} * kLanes, last) : vzero();
{{/VEC}}    if constexpr (kPackedA) {
{{#A_GROUP}}      const Vec a{{G}} = kRows > {{FIRST}} ? vload(a + {{OFFSET}}) : vzero();
{{/A_GROUP}}{{#ROW}}      if constexpr (kRows > {{R}}) {
{{#VEC}}        {{VEC_GUARD}}c{{R}}_{{V}} = vfmaq_laneq_f32(c{{R}}_{{V}}, b{{V}}, a{{G}}, {{LANE}});
{{/VEC}}      }
{{/ROW}}    } else {
{{#ROW}}      if constexpr (kRows > {{R}}) {
        const Vec a{{R}} = vbroadcast(a + {{R}} * a_rs);
{{#VEC}}        {{VEC_GUARD}}c{{R}}_{{V}} = vfma(a{{R}}, b{{V}}, c{{R}}_{{V}});
{{/VEC}}      }
{{/ROW}}    }
  }
{{/LANE_BROADCAST}}  // C's pointer, stride and scalars are copied out of t first: a store to C may alias t's alpha and beta (floats),
  // and the compiler reloaded and retested them, and C's pointer and stride with them, row by row.
  float* const c = t.c;
  const int64_t ldc = t.ldc;
  const float alpha = t.alpha, beta = t.beta;
  const Mask full = lane_mask(kLanes);
  with_epilogue(alpha, beta, [&](auto mode) __attribute__((always_inline)) {
    constexpr Epilogue kMode = decltype(mode)::value;
{{#ROW}}    if constexpr (kRows > {{R}}) {
      const Vec acc[] = { {{#VEC}}c{{R}}_{{V}}{{#VEC_separator}}, {{/VEC_separator}}{{/VEC}} };
      store_row<kMode, kVecs>(c + {{R}} * ldc, acc, vset1(alpha), vset1(beta), full, last);
    }
{{/ROW}}  });
}

// One tile, out of line: what the tables below and a strip's loop point to.
template <Operands kOps, int kRows, int kVecs, int kAheadRows = 0>
__attribute__((noinline)) void tile(const TileArgs& t) {
  tile_body<kOps, kRows, kVecs, kAheadRows>(t);
}

{{#PACKAGE_ENTRY}}// Every (rows, vectors) instantiation, so that an edge tile runs exactly the work it needs.
template <Operands kOps>
constexpr TileFn kTiles[{{MR}}][{{NV}}] = {
{{#ROW}}    { {{#VEC}}&tile<kOps, {{R1}}, {{V1}}>{{#VEC_separator}}, {{/VEC_separator}}{{/VEC}} },
{{/ROW}}};

// A direct call covers a column strip of C: any number of rows, in register tiles of {{MR}} rows, all kVecs vectors
// wide, so that the dispatcher makes one call per strip instead of one per tile (64x31x1: 1.35x). A shallow strip
// (k below kInlineDepth) also runs its full tiles inline, one after another: a tile's arithmetic is then a few dozen
// instructions, about what its call and set-up cost (64x31x1: a further 1.14x). A deeper one calls them: inlined in a
// loop, the deep k loop lost registers to the strip (64x64x64: 0.92x). The last, shorter tile runs its own
// instantiation.
constexpr int64_t kInlineDepth = 8;

// The strip's full tiles: inlined (kInline) or called, each one followed by another full tile fetching that one's
// rows of A where A is not cached (see prefetch_a_rows), then the short last tile. The last full tile fetches the
// rows below it too when A goes on past the strip (TileArgs::a_continues: the next row block's, which its first
// strip would otherwise start on cold; the first tile of each row block took 40% of 169343x41x128's time, the
// second 23%). One thread of an AMD Zen 4, A from memory: 169343x41x128 1.17x faster, 19717x64x128 1.10x,
// 169343x121x128 1.09x, 19717x41x1433 1.06x; two threads 1.05-1.18x. A fetch never reaches past the matrix.
template <int kVecs, bool kInline>
void strip_tiles(const TileArgs& t) {
  TileArgs full = copy_of(t);
  full.rows = {{MR}};
  int64_t rows = t.rows;
  const bool ahead = t.fetch_a_ahead && t.k >= kPrefetchDepth;
  for (; rows >= {{MR}}; rows -= {{MR}}, full.a += {{MR}} * t.lda, full.c += {{MR}} * t.ldc) {
    if constexpr (kInline)
      tile_body<Operands::kDirect, {{MR}}, kVecs>(full);
    else if (ahead && (rows >= 2 * {{MR}} || t.a_continues))
      tile<Operands::kDirect, {{MR}}, kVecs, {{MR}}>(full);
    else
      tile<Operands::kDirect, {{MR}}, kVecs>(full);
  }
  if (rows > 0) {
    full.rows = rows;
    kTiles<Operands::kDirect>[rows - 1][kVecs - 1](full);
  }
}

template <int kVecs>
void direct_strip(const TileArgs& t) {
  if (t.k < kInlineDepth)
    strip_tiles<kVecs, true>(t);
  else
    strip_tiles<kVecs, false>(t);
}

// C's last few columns as dot products. A tile multiplies a broadcast element of A into whole vectors of B, so a
// strip whose columns end edge = cols % kLanes past a vector boundary spends a whole vector's FMAs per row and k step
// on those few columns: a 33-column C on a 32-column tile spent a third of its FMAs on its last column, a 17-column
// one half. Along k instead, each element of C is a row of A (contiguous) times a column of B, both read a vector
// of k at a time: edge x rows x k / kLanes FMAs, a horizontal sum per element, and, unless B's column is already
// contiguous (cols == 1, ldb == 1), the columns copied out first (edge x k scalar moves, into kDotDepth-deep chunks
// on the stack). dot_pays() weighs the two. Medians of interleaved rounds, one thread of an AMD Zen 4, 11x32 tile:
// 33x33x33 1.24-1.31x faster, 13x17x100 1.33-1.40x, 33x17x100 1.53x, 100x100x100 1.08x, 3x17x64 1.07-1.16x; on the
// AVX2 descriptor's tiles 1.19-1.34x on the first three.
constexpr int kDotColumns = 4;  // at most this many columns past the last whole vector go along k
constexpr int64_t kDotDepth = 512;

// A horizontal sum's cost in FMA slots: the shuffle-and-add steps that fold kLanes lanes to one, and the store.
constexpr int64_t kSumCost = kLanes == 16 ? 6 : kLanes == 8 ? 5 : 3;

// Whether the last `edge` columns of a `rows` x k strip cost less along k than the tiles' `tile_slots` FMA slots (a
// vector of the tiles: rows x k).
inline bool dot_pays(int64_t rows, int64_t k, int64_t edge, bool gather, int64_t tile_slots) {
  const int64_t along_k = edge * (rows * ((k + kLanes - 1) / kLanes) + kSumCost * rows + (gather ? k : 0));
  return along_k < tile_slots;
}

// kRows rows of C (from a and c) times kCols columns of B, each held contiguous along k at bt + j * bt_stride: one
// accumulator per element, which vsum() folds at the end.
template <int kRows, int kCols>
__attribute__((always_inline)) inline void dot_block(const TileArgs& t, const float* a, const float* bt,
                                                     int64_t bt_stride, float* c) {
  Vec acc[size_t{kRows}][size_t{kCols}];
  unrolled<kRows>([&](int r) { unrolled<kCols>([&](int j) { acc[r][j] = vzero(); }); });
  // One vector of k: all of B's columns, then each row of A against them. `load` reads a vector, or for the last,
  // short vector of k the lanes left under a mask, the others zero.
  const auto step = [&](int64_t p, auto load) __attribute__((always_inline)) {
    Vec b[size_t{kCols}];
    unrolled<kCols>([&](int j) { b[j] = load(bt + j * bt_stride + p); });
    unrolled<kRows>([&](int r) {
      const Vec x = load(a + r * t.lda + p);
      unrolled<kCols>([&](int j) { acc[r][j] = vfma(x, b[j], acc[r][j]); });
    });
  };
  const int64_t whole = t.k - t.k % kLanes;
  for (int64_t p = 0; p < whole; p += kLanes) step(p, [](const float* q) { return vload(q); });
  if (whole < t.k) {
    const Mask tail = lane_mask(static_cast<int>(t.k - whole));
    step(whole, [tail](const float* q) { return vload_masked(q, tail); });
  }
  const float alpha = t.alpha, beta = t.beta;
  unrolled<kRows>([&](int r) {
    unrolled<kCols>([&](int j) {
      float& out = c[r * t.ldc + j];
      const float dot = alpha * vsum(acc[r][j]);
      out = beta == 0.0f ? dot : dot + beta * out;
    });
  });
}

// Every row of the strip t (t.k at most kDotDepth) against kCols columns held at bt, kRowsAtOnce rows sharing each
// vector of B: as many as the vector registers hold next to the B vectors and the row of A.
template <int kCols>
void dot_rows(const TileArgs& t, const float* bt, int64_t bt_stride) {
  constexpr int kFit = (kVectorRegisters - kCols - 1) / kCols;
  constexpr int kRowsAtOnce = kFit < 1 ? 1 : kFit > 4 ? 4 : kFit;
  const float* a = t.a;
  float* c = t.c;
  int64_t i = 0;
  for (; i + kRowsAtOnce <= t.rows; i += kRowsAtOnce, a += kRowsAtOnce * t.lda, c += kRowsAtOnce * t.ldc)
    dot_block<kRowsAtOnce, kCols>(t, a, bt, bt_stride, c);
  for (; i < t.rows; ++i, a += t.lda, c += t.ldc) dot_block<1, kCols>(t, a, bt, bt_stride, c);
}

// The strip t (t.cols == kCols) along k, its columns of B copied out kDotDepth rows of k at a time, each chunk after
// the first adding onto C.
template <int kCols>
void dot_columns(const TileArgs& t) {
  float columns[size_t{kCols * kDotDepth}];
  TileArgs chunk = copy_of(t);
  for (int64_t p = 0; p < t.k; p += kDotDepth) {
    chunk.k = t.k - p < kDotDepth ? t.k - p : kDotDepth;
    chunk.a = t.a + p;
    chunk.beta = p == 0 ? t.beta : 1.0f;
    const float* b = t.b + p * t.ldb;
    for (int64_t q = 0; q < chunk.k; ++q, b += t.ldb)
      for (int j = 0; j < kCols; ++j) columns[j * kDotDepth + q] = b[j];
    dot_rows<kCols>(chunk, columns, kDotDepth);
  }
}

// A table of make(std::integral_constant<int, n>) for n = 1, 2, ..., at index n - 1: one instantiation of a strip
// function per column count.
template <typename Make, int... kIndex>
constexpr std::array<TileFn, sizeof...(kIndex)> table_by_columns(Make make, std::integer_sequence<int, kIndex...>) {
  return {make(std::integral_constant<int, kIndex + 1>{})...};
}

// dot_columns<1> to dot_columns<kDotColumns>, by the number of columns less one.
constexpr auto kDotColumnsFns = table_by_columns([](auto n) { return &dot_columns<decltype(n)::value>; },
                                                 std::make_integer_sequence<int, kDotColumns>{});

constexpr TileFn kStrips[{{NV}}] = { {{#VEC}}&direct_strip<{{V1}}>{{#VEC_separator}}, {{/VEC_separator}}{{/VEC}} };

// The strip's columns in whole vectors: one tile, or a strip of them.
void direct_vectors(const TileArgs& args) {
  const int vectors = (args.cols + kLanes - 1) / kLanes;
  if (args.rows < {{MR}})  // a single short tile: straight to it
    kTiles<Operands::kDirect>[args.rows - 1][vectors - 1](args);
  else
    kStrips[vectors - 1](args);
}

// A strip of few columns (at most kLanes / 2) along m. A tile multiplies a broadcast element of A into a vector of
// B's row, so on a 3-column C it spends a whole vector's FMA on 3 columns, and 13 of each 16 lanes multiply padding.
// Along m instead, a vector holds kLanes rows of one column of C: each block of kLanes rows transposes its rows of
// A, kLanes steps of k at a time, in registers (transpose()), so that a vector holds one k step's column of A, and
// multiplies it by a broadcast element of B per column: cols FMAs per k step and block, every lane used, against
// kLanes for the tile. The block's columns of C are transposed back into rows before the epilogue. Medians of
// interleaved rounds, one thread of an AMD Zen 4: 100x7x31 1.25-1.28x faster than tiles, 13x3x31 1.28-1.29x,
// 300x8x64 1.24-1.31x, 64x3x17 1.04-1.19x, 17x7x33 1.04-1.07x (its last row as a tile, see along_m); the AVX2
// descriptor's kernels (at most 4 columns along m): 64x3x17 1.25x, 13x3x31 1.17x. The dispatcher's model still
// prices such a strip as tiles (direct_work), so it overestimates it.
// A block of at most this many k steps (the last of a strip's k loop) is copied into `at` element by element rather
// than transposed: the transpose moves a whole kLanes x kLanes block however few steps it holds. Medians of
// interleaved rounds, one thread of an AMD Zen 4: 64x3x17 1.32x faster, 300x8x66 1.12x, 17x7x33 1.05x; copying
// blocks of up to kLanes / 2 steps, 64x3x24 (8 steps copied) ran 0.85x as fast, 64x3x21 (5) alike.
constexpr int kCopiedSteps = kLanes / 4;

template <int kCols>
void columns_along_m(const TileArgs& t) {
  static_assert(kCols * 2 <= kLanes, "a strip along m is at most half a vector wide");
  float at[kLanes * kLanes];  // one transposed block of A: at[j * kLanes + r] = A(row r, k step j)
  const float alpha = t.alpha, beta = t.beta;
  const Mask full = lane_mask(kLanes), columns = lane_mask(kCols);
  for (int64_t i = 0; i < t.rows; i += kLanes) {
    const int rows = t.rows - i < kLanes ? static_cast<int>(t.rows - i) : kLanes;
    const float* const a = t.a + i * t.lda;
    Vec acc[size_t{kCols}];
    unrolled<kCols>([&](int n) { acc[n] = vzero(); });
    for (int64_t k0 = 0; k0 < t.k; k0 += kLanes) {
      const int depth = t.k - k0 < kLanes ? static_cast<int>(t.k - k0) : kLanes;
      if (depth <= kCopiedSteps) {  // a short last block: copied element by element
        for (int j = 0; j < depth; ++j)
          for (int r = 0; r < kLanes; ++r) at[j * kLanes + r] = r < rows ? a[r * t.lda + k0 + j] : 0.0f;
      } else {
        const Mask steps = lane_mask(depth);
        Vec v[kLanes];
        for (int r = 0; r < kLanes; ++r) v[r] = r < rows ? vload_masked(a + r * t.lda + k0, steps) : vzero();
        transpose(v);
        for (int j = 0; j < kLanes; ++j) {{VSTORE}}(at + j * kLanes, v[j]);
      }
      const float* b = t.b + k0 * t.ldb;
      for (int j = 0; j < depth; ++j, b += t.ldb) {
        const Vec x = vload(at + j * kLanes);
        unrolled<kCols>([&](int n) { acc[n] = vfma(x, vbroadcast(b + n), acc[n]); });
      }
    }
    Vec out[kLanes];
    for (int n = 0; n < kLanes; ++n) out[n] = vzero();
    unrolled<kCols>([&](int n) { out[n] = acc[n]; });
    transpose(out);  // out[r]: row i + r of the block's columns
    float* const c = t.c + i * t.ldc;
    with_epilogue(alpha, beta, [&](auto mode) __attribute__((always_inline)) {
      for (int r = 0; r < rows; ++r)
        store_row<decltype(mode)::value, 1>(c + r * t.ldc, &out[r], vset1(alpha), vset1(beta), full, columns);
    });
  }
}

// columns_along_m<1> to columns_along_m<kLanes / 2>, by the number of columns less one.
constexpr auto kAlongMFns = table_by_columns([](auto n) { return &columns_along_m<decltype(n)::value>; },
                                             std::make_integer_sequence<int, kLanes / 2>{});

// Whether a strip goes along m: few columns (at most half a vector), rows enough to fill half a vector, a k loop at
// least a transposed block deep (each block transposes A in whole blocks of kLanes steps: 40x6x9, a third of a block
// past the first's, ran 0.97x as fast as tiles), and A in cache: the blocks do not fetch A ahead as the tiles do
// (see prefetch_a_rows), and from memory they waited on it (169343x3x16: 0.48x).
inline bool along_m_pays(const TileArgs& t) {
  return goes_along_m(t.rows, t.cols, t.k, kLanes) && !t.fetch_a_ahead;
}

// The strip t along m, but for its last rows when they fill less than half a vector: those run as tiles.
void along_m(const TileArgs& t) {
  const int64_t left = t.rows % kLanes;
  TileArgs top = copy_of(t);
  if (2 * left < kLanes) top.rows = t.rows - left;
  kAlongMFns[static_cast<size_t>(t.cols - 1)](top);
  if (top.rows == t.rows) return;
  TileArgs bottom = copy_of(t);
  bottom.rows = left;
  bottom.a += top.rows * t.lda;
  bottom.c += top.rows * t.ldc;
  direct_vectors(bottom);
}

{{#AVX512}}// A strip of at most half a vector of columns on 256-bit vectors, where the core starts more of those a cycle than
// 512-bit ones (kHalfFmaPipes > kFmaPipes: an AMD Zen 4 runs a 512-bit FMA as two 256-bit halves, so it starts two
// 256-bit FMAs a cycle and one 512-bit one). A tile spends a 512-bit FMA per row and k step on the strip's few
// columns; on the halves, the same FMAs run twice as many a cycle, with nothing to transpose (along_m transposes A
// and C). Each k step loads B's row under the column mask as a 512-bit vector and uses its low half, and broadcasts
// one element of A per row; the kernels are compiled for AVX-512F alone, so 256-bit instructions take the VEX
// encoding and its 16 registers: kHalfRows accumulators, B's row and the broadcast element. Row blocks are as even
// as kHalfRows allows (17 rows: 9 and 8), and a block of fewer rows than the FMA chains need splits its k loop over
// sets of accumulators, as thin tiles do. Medians of interleaved rounds, one thread of an AMD Zen 4, against tiles
// and along_m: 17x7x33 1.35x faster, 300x8x64 1.31x, 7x7x7 1.17x, 3x7x33 1.16x, 25x5x50 1.15x, 100x7x31 1.09x,
// 13x3x31 1.06x, 64x3x17 1.04x. A from beyond the cache stays with the tiles, which fetch it ahead.
using Half = __m256;
constexpr int kHalfRegisters = 16;
constexpr int kHalfRows = kHalfRegisters - 2;
constexpr int kHalfChains = kChains / kFmaPipes * kHalfFmaPipes;
// The low half of v, and h widened to a full vector with its upper half zero: each one VEX move, which the core
// renames away. GCC 12's casts between the widths start from an undefined vector and trip -Wmaybe-uninitialized.
inline Half low_half(Vec v) {
  Half h;
  asm("vmovaps %t1, %t0" : "=x"(h) : "x"(v));
  return h;
}
inline Vec widened(Half h) {
  Vec v;
  asm("vmovaps %t1, %t0" : "=x"(v) : "x"(h));
  return v;
}
constexpr int half_sets(int rows) {
  int sets = rows >= kHalfChains ? 1 : (kHalfChains + rows - 1) / rows;
  while (sets > 1 && rows * sets + 2 > kHalfRegisters) --sets;
  return sets;
}

// kRows rows of C from a and c across the strip's columns (the lanes of `columns`), over all of t's k steps.
template <int kRows>
void half_rows(const TileArgs& t, const float* a, float* c, Mask columns) {
  constexpr int kSets = half_sets(kRows);
  Half acc[size_t{kSets}][size_t{kRows}];
  unrolled<kSets>([&](int s) { unrolled<kRows>([&](int r) { acc[s][r] = _mm256_setzero_ps(); }); });
  const float* const b = t.b;
  const int64_t lda = t.lda, ldb = t.ldb, depth = t.k;
  const auto step = [&](int s, int64_t p) __attribute__((always_inline)) {
    const Half bv = low_half(vload_masked(b + p * ldb, columns));
    unrolled<kRows>([&](int r) { acc[s][r] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + r * lda + p), bv, acc[s][r]); });
  };
  int64_t p = 0;
  for (; p + kSets <= depth; p += kSets) unrolled<kSets>([&](int s) { step(s, p + s); });
  for (; p < depth; ++p) step(0, p);
  unrolled<kSets - 1>([&](int s) {
    unrolled<kRows>([&](int r) { acc[0][r] = _mm256_add_ps(acc[0][r], acc[s + 1][r]); });
  });
  // Copied out of t: a store to C may alias t's floats (see tile_body).
  const float alpha = t.alpha, beta = t.beta;
  const int64_t ldc = t.ldc;
  with_epilogue(alpha, beta, [&](auto mode) __attribute__((always_inline)) {
    constexpr Epilogue kMode = decltype(mode)::value;
    unrolled<kRows>([&](int r) {
      float* const row = c + r * ldc;
      Half v = acc[0][r];
      if constexpr (kMode == Epilogue::kScaleAccumulate) {
        const Half old = low_half(vload_masked(row, columns));
        v = _mm256_fmadd_ps(_mm256_set1_ps(alpha), v, _mm256_mul_ps(_mm256_set1_ps(beta), old));
      } else if constexpr (kMode == Epilogue::kScale) {
        v = _mm256_mul_ps(_mm256_set1_ps(alpha), v);
      }
      vstore_masked(row, columns, widened(v));
    });
  });
}

// half_rows<1> to half_rows<kHalfRows>, by the number of rows less one.
using HalfRowsFn = void (*)(const TileArgs&, const float*, float*, Mask);
template <int... kIndex>
constexpr std::array<HalfRowsFn, sizeof...(kIndex)> half_rows_table(std::integer_sequence<int, kIndex...>) {
  return {&half_rows<kIndex + 1>...};
}
constexpr auto kHalfRowsFns = half_rows_table(std::make_integer_sequence<int, kHalfRows>{});

inline bool half_pays(const TileArgs& t) {
  return kHalfFmaPipes > kFmaPipes && 2 * t.cols <= kLanes && !t.fetch_a_ahead;
}

void half_strip(const TileArgs& t) {
  const Mask columns = lane_mask(t.cols);
  const float* a = t.a;
  float* c = t.c;
  int64_t left = t.rows;
  for (int64_t blocks = (t.rows + kHalfRows - 1) / kHalfRows; blocks > 0; --blocks) {
    const int64_t rows = (left + blocks - 1) / blocks;
    kHalfRowsFns[static_cast<size_t>(rows - 1)](t, a, c, columns);
    a += rows * t.lda;
    c += rows * t.ldc;
    left -= rows;
  }
}
{{/AVX512}}
// A few rows of C against a B that does not stay in cache (see row_streams_pay in the dispatcher). Each element
// of B then serves a few FMAs, so the call runs at the speed B arrives, and B arrives fastest as the hardware
// prefetchers follow it: a few of its rows at a time, each read from end to end. A pass multiplies kSteps rows of B
// into C's rows, C (a few KiB) staying in L1 from pass to pass: its vectors are loaded, take one FMA per row of B
// and are stored again. Tiles read B a strip of columns at a time, dozens of short runs of a row at once, which the
// prefetchers do not follow. The passes fold alpha into A's elements; the first one starts from beta * C, or from
// zero when beta is 0 (C is then never read). A pass reads 8 rows of B side by side, or 4 where B's rows share a set
// of L1 and B comes from the outer cache (TileArgs::b_rows_collide): 8 of their lines and C's then outnumbered the
// set's ways and evicted each other (2x3072x768: 0.85x as fast as tiles with some alignments of B and C, 1.7x with
// others; 4 rows, 1.29-1.33x). From memory, 8 rows did better all the same (1x4096x4096 and 2x4096x4096: 1.13-1.15x
// as fast as tiles, 4 rows 0.93-0.95x). Three to five rows (a call on one thread over a B from memory, see
// row_streams_pay) broadcast A's elements from memory into the FMAs where alpha is 1: 8 steps of them held in
// registers are more than there are, and GCC's spills of them made such passes 2x slower than tiles.
template <int kRows, int kSteps, bool kUnitAlpha>
__attribute__((always_inline)) inline void row_pass(const TileArgs& t, int64_t p, bool first) {
  constexpr bool kBroadcastA = kUnitAlpha && kRows > 2;
  // Copied out of t: a store to C may alias t's floats, and the compiler reloaded them after every store.
  float* const c = t.c;
  const int64_t ldc = t.ldc, ldb = t.ldb;
  const float* const a = t.a + p;
  const int64_t lda = t.lda;
  const float alpha = t.alpha, beta = t.beta;
  Vec x[size_t{kRows}][size_t{kSteps}];  // alpha * A(r, p + s)
  if constexpr (!kBroadcastA)
    unrolled<kRows>([&](int r) { unrolled<kSteps>([&](int s) { x[r][s] = vset1(alpha * a[r * lda + s]); }); });
  const float* const b = t.b + p * ldb;
  // The kLanes columns from j, read and written through `load` and `store` (the last, short vector masked).
  const auto columns = [&](int64_t j, auto load, auto store) __attribute__((always_inline)) {
    Vec acc[size_t{kRows}];
    unrolled<kRows>([&](int r) {
      float* const row = c + r * ldc + j;
      acc[r] = !first ? load(row) : beta == 0.0f ? vzero() : vmul(vset1(beta), load(row));
    });
    unrolled<kSteps>([&](int s) {
      const Vec bv = load(b + s * ldb + j);
      unrolled<kRows>([&](int r) { acc[r] = vfma(kBroadcastA ? vbroadcast(a + r * lda + s) : x[r][s], bv, acc[r]); });
    });
    unrolled<kRows>([&](int r) { store(c + r * ldc + j, acc[r]); });
  };
  const int64_t cols = t.cols, whole = cols - cols % kLanes;
  for (int64_t j = 0; j < whole; j += kLanes)
    columns(j, [](const float* q) { return vload(q); }, [](float* q, Vec v) { {{VSTORE}}(q, v); });
  if (whole < cols) {
    const Mask tail = lane_mask(static_cast<int>(cols - whole));
    columns(whole, [tail](const float* q) { return vload_masked(q, tail); },
            [tail](float* q, Vec v) { vstore_masked(q, tail, v); });
  }
}

// All of t's k steps in passes of 8 or 4 rows of B, the last few in passes of 4, 2 and 1.
template <int kRows, bool kUnitAlpha>
void row_streams(const TileArgs& t) {
  int64_t p = 0;
  if (!t.b_rows_collide)
    for (; p + 8 <= t.k; p += 8) row_pass<kRows, 8, kUnitAlpha>(t, p, p == 0);
  for (; p + 4 <= t.k; p += 4) row_pass<kRows, 4, kUnitAlpha>(t, p, p == 0);
  if (p + 2 <= t.k) row_pass<kRows, 2, kUnitAlpha>(t, p, p == 0), p += 2;
  if (p < t.k) row_pass<kRows, 1, kUnitAlpha>(t, p, p == 0);
}

// Only rows past two have a unit-alpha variant (see row_pass): one or two rows are instantiated once.
template <int kRows>
void row_streams(const TileArgs& t) {
  if constexpr (kRows > 2)
    if (t.alpha == 1.0f) {
      row_streams<kRows, true>(t);
      return;
    }
  row_streams<kRows, false>(t);
}

// kRows (1 to 4) rows of C from a and c, each across its kVecs vectors, over all of t's k steps: each k step loads
// B's row once (in_register keeps GCC from folding the load into every row's FMA; a single row's FMAs do take them as
// operands: 1x64x7 1.04x faster) and broadcasts one element of A per row. Each row's accumulators are an array of
// their own: in one kRows x kVecs array, GCC 12 kept them in memory and stored them on every k step.
template <int kVecs, int kRows>
__attribute__((always_inline)) inline void whole_rows(const TileArgs& t, const float* a, float* c, Mask last) {
  static_assert(kRows >= 1 && kRows <= 4, "whole_rows runs 1 to 4 rows");
  const float* row = t.b;
  const int64_t lda = t.lda, ldb = t.ldb, ldc = t.ldc, depth = t.k;
  Vec acc0[size_t{kVecs}], acc1[size_t{kVecs}], acc2[size_t{kVecs}], acc3[size_t{kVecs}];
  // f(acc of row r, r) for each of the kRows rows.
  const auto each_row = [&](auto f) __attribute__((always_inline)) {
    f(acc0, 0);
    if constexpr (kRows > 1) f(acc1, 1);
    if constexpr (kRows > 2) f(acc2, 2);
    if constexpr (kRows > 3) f(acc3, 3);
  };
  each_row([&](Vec(&acc)[size_t{kVecs}], int) { unrolled<kVecs>([&](int v) { acc[v] = vzero(); }); });
  for (int64_t p = 0; p < depth; ++p, row += ldb) {
    Vec bv[size_t{kVecs}];
    unrolled<kVecs>([&](int v) {
      const Vec loaded = v == kVecs - 1 ? vload_masked(row + v * kLanes, last) : vload(row + v * kLanes);
      bv[v] = kRows > 1 ? in_register(loaded) : loaded;
    });
    each_row([&](Vec(&acc)[size_t{kVecs}], int r) {
      const Vec x = vbroadcast(a + r * lda + p);
      unrolled<kVecs>([&](int v) { acc[v] = vfma(x, bv[v], acc[v]); });
    });
  }
  const float alpha = t.alpha, beta = t.beta;
  with_epilogue(alpha, beta, [&](auto mode) __attribute__((always_inline)) {
    each_row([&](Vec(&acc)[size_t{kVecs}], int r) {
      store_row<decltype(mode)::value, kVecs>(c + r * ldc, acc, vset1(alpha), vset1(beta), lane_mask(kLanes), last);
    });
  });
}

// Every row of C across its whole width, kVecs vectors, over all of a shallow k, a few rows at a time (see
// wide_rows_pay in the dispatcher): each row's accumulators take one broadcast of A and kVecs FMAs per k step, and
// the row is stored whole. A call of a few dozen FMAs spent more on the strips and tiles around them than on the FMAs
// (13x33x1: two strips of two tiles each); here rows are independent chains, which the core overlaps. The rows run
// at a time share their loads of B: one row at a time, a core that loads one 512-bit vector per cycle (an AMD Zen 4)
// waited on those loads, a load per FMA (3x100x13: 1.34x faster with three rows at a time, medians of interleaved
// rounds on one thread). Beyond a few hundred FMAs the tiles win again (see wide_rows_pay), but where C goes to
// memory, which it then writes in order, a row's lines whole.
template <int kVecs>
void rows_whole(const TileArgs& t) {
  // Rows at a time: as many as the vector registers hold the accumulators of, beside B's row and a broadcast.
  constexpr int kFit = (kVectorRegisters - kVecs - 1) / kVecs;
  constexpr int kRowsAtOnce = kFit < 1 ? 1 : kFit > 4 ? 4 : kFit;
  const Mask last = lane_mask(t.cols - (kVecs - 1) * kLanes);
  // Copied out of t: a store to C may alias t's fields, and the compiler reloaded them after every store.
  const float* a = t.a;
  float* c = t.c;
  const int64_t lda = t.lda, ldc = t.ldc, rows = t.rows;
  int64_t i = 0;
  for (; i + kRowsAtOnce <= rows; i += kRowsAtOnce, a += kRowsAtOnce * lda, c += kRowsAtOnce * ldc)
    whole_rows<kVecs, kRowsAtOnce>(t, a, c, last);
  for (; i < rows; ++i, a += lda, c += ldc) whole_rows<kVecs, 1>(t, a, c, last);
}

// rows_whole<1> to rows_whole<kWideVectors>, by the number of vectors less one.
constexpr auto kRowsWholeFns = table_by_columns([](auto n) { return &rows_whole<decltype(n)::value>; },
                                                std::make_integer_sequence<int, kWideVectors>{});

// rows_whole with all of B (kDepth rows of kVecs vectors, see b_held) loaded into registers once, before the rows:
// each row then loads only its kDepth elements of A and stores its kVecs vectors. rows_whole loads B again for every
// row, and a core that loads a 512-bit vector per cycle (an AMD Zen 4) waited on those loads, not on the FMAs: 31x33x3
// took 16 cycles a row there, 9 with B held (one per FMA).
template <int kVecs, int kDepth>
void rows_held(const TileArgs& t) {
  const Mask full = lane_mask(kLanes), last = lane_mask(t.cols - (kVecs - 1) * kLanes);
  Vec b[size_t{kDepth}][size_t{kVecs}];
  unrolled<kDepth>([&](int p) {
    unrolled<kVecs>([&](int v) {
      const float* const row = t.b + p * t.ldb + v * kLanes;
      b[p][v] = v == kVecs - 1 ? vload_masked(row, last) : vload(row);
    });
  });
  // Copied out of t, as in rows_whole.
  float* c = t.c;
  const float* a = t.a;
  const int64_t lda = t.lda, ldc = t.ldc, rows = t.rows;
  const float alpha = t.alpha, beta = t.beta;
  with_epilogue(alpha, beta, [&](auto mode) __attribute__((always_inline)) {
    for (int64_t i = 0; i < rows; ++i, a += lda, c += ldc) {
      Vec acc[size_t{kVecs}];
      unrolled<kVecs>([&](int v) { acc[v] = vzero(); });
      unrolled<kDepth>([&](int p) {
        const Vec x = vbroadcast(a + p);
        unrolled<kVecs>([&](int v) { acc[v] = vfma(x, b[p][v], acc[v]); });
      });
      store_row<decltype(mode)::value, kVecs>(c, acc, vset1(alpha), vset1(beta), full, last);
    }
  });
}

// rows_held<kVecs, kDepth>, or none where B does not fit (b_held): instantiated only where it does.
template <int kVecs, int kDepth>
constexpr TileFn held_fn() {
  if constexpr (b_held(kVecs, kDepth))
    return &rows_held<kVecs, kDepth>;
  else
    return nullptr;
}
template <int kVecs, int... kDepth>
constexpr std::array<TileFn, sizeof...(kDepth)> held_by_depth(std::integer_sequence<int, kDepth...>) {
  return {held_fn<kVecs, kDepth + 1>()...};
}
template <int... kVec>
constexpr std::array<std::array<TileFn, kHeldDepth>, sizeof...(kVec)> held_table(std::integer_sequence<int, kVec...>) {
  return {held_by_depth<kVec + 1>(std::make_integer_sequence<int, kHeldDepth>{})...};
}
// By vectors less one, then depth less one.
constexpr auto kRowsHeldFns = held_table(std::make_integer_sequence<int, kWideVectors>{});

// C's columns in strips as wide as b_held allows at this depth, one after another, each strip's B held in registers
// while every row of C runs over it (rows_held). Against strips of register tiles, a call per tile and its set-up
// for a few k steps each, medians of interleaved rounds on one thread of an AMD Zen 4: 31x100x7 1.25x faster,
// 33x64x7 1.27x, 100x100x8 1.22x, 1000x64x8 1.19x, 64x100x13 1.12x, 2708x64x16 1.08x.
void held_strips(const TileArgs& args) {
  const int64_t width = held_width(args.k) * kLanes;
  for (int64_t j = 0; j < args.cols; j += width) {
    TileArgs strip = copy_of(args);
    strip.b += j;
    strip.c += j;
    strip.cols = static_cast<int32_t>(args.cols - j < width ? args.cols - j : width);
    kRowsHeldFns[static_cast<size_t>((strip.cols + kLanes - 1) / kLanes - 1)][static_cast<size_t>(args.k - 1)](strip);
  }
}

// A packed or streamed call: one register tile, its exact size.
template <Operands kOps>
void one_tile(const TileArgs& args) {
  if (args.rows <= 0 || args.cols <= 0) return;
  kTiles<kOps>[args.rows - 1][(args.cols + kLanes - 1) / kLanes - 1](args);
}

}  // namespace

void {{NAME}}_packed(const TileArgs& args) { one_tile<Operands::kPacked>(args); }

void {{NAME}}_streamed(const TileArgs& args) { one_tile<Operands::kStreamedB>(args); }

// One to kStreamRowsMax rows (the dispatcher's row_streams_pay); any other count is not a row-streams call.
void {{NAME}}_row_streams(const TileArgs& args) {
  static_assert(kStreamRowsMax == 5, "a row count without its instantiation");
  switch (args.rows) {
    case 1: row_streams<1>(args); break;
    case 2: row_streams<2>(args); break;
    case 3: row_streams<3>(args); break;
    case 4: row_streams<4>(args); break;
    case 5: row_streams<5>(args); break;
    default: break;
  }
}

// All of B held where it fits (see b_held), else in held strips where they have rows enough (see held_width) and A
// and C stay cached (TileArgs::fetch_a_ahead and c_from_beyond both false: each strip reads all of A again and
// writes a part of every row of C), else at most kWideVectors vectors of columns a whole row at a time (the
// dispatcher's wide_rows_pay).
void {{NAME}}_wide_rows(const TileArgs& args) {
  if (args.rows <= 0 || args.cols <= 0) return;
  const int64_t vectors = (args.cols + kLanes - 1) / kLanes;
  if (b_held(vectors, args.k)) {
    kRowsHeldFns[static_cast<size_t>(vectors - 1)][static_cast<size_t>(args.k - 1)](args);
  } else if (held_strips_have_rows(args.rows, args.k) && !args.fetch_a_ahead && !args.c_from_beyond) {
    held_strips(args);
  } else if (vectors <= kWideVectors) {
    kRowsWholeFns[static_cast<size_t>(vectors - 1)](args);
  }
}

void {{NAME}}_direct(const TileArgs& args) {
  if (args.rows <= 0 || args.cols <= 0) return;
  if (args.cols == 1 && args.ldb == 1) {  // C is one column and B's is contiguous: along k with B in place
    if (dot_pays(args.rows, args.k, 1, false, args.rows * args.k))
      dot_rows<1>(args, args.b, 0);
    else
      direct_vectors(args);
    return;
  }
  // The strip's columns as tiles cost rows x k FMA slots, or fewer on half-width vectors (see half_strip), against
  // which its last few columns along k are weighed: 33x33x33's last column goes along k, as it did before half-width
  // strips (as a half-width strip the call took 1.17x as long).
  int64_t tile_slots = args.rows * args.k;
{{#AVX512}}  const bool half = half_pays(args);
  if (half) tile_slots = tile_slots * kFmaPipes / kHalfFmaPipes;
{{/AVX512}}  const int edge = args.cols % kLanes;
  if (edge == 0 || edge > kDotColumns || !dot_pays(args.rows, args.k, edge, true, tile_slots)) {
{{#AVX512}}    if (half) {
      half_strip(args);
      return;
    }
{{/AVX512}}    if (along_m_pays(args))
      along_m(args);
    else
      direct_vectors(args);
    return;
  }
  TileArgs columns = copy_of(args);  // the last `edge` columns, along k
  columns.cols = edge;
  if (args.cols > edge) {
    TileArgs vectors = copy_of(args);
    vectors.cols = args.cols - edge;
    direct_vectors(vectors);
    columns.b += vectors.cols;
    columns.c += vectors.cols;
  }
  kDotColumnsFns[static_cast<size_t>(edge - 1)](columns);
}

{{/PACKAGE_ENTRY}}{{#PROFILE_ENTRY}}}  // namespace

// The profiler times the full packed tile (the same instantiation the package runs on interior tiles) and, for a
// profiled level 1, the packing routines below with it.
void {{NAME}}_full_packed(const TileArgs& args) { tile<Operands::kPacked, {{MR}}, {{NV}}>(args); }

{{/PROFILE_ENTRY}}// Packing lives here, next to the kernel that reads the panels: the panel widths are compile-time constants and the
// loops are compiled with this file's ISA flags.
void {{NAME}}_pack_a(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out) {
  // Micro-panels of {{MR}} rows, element (r, p) at panel[p * {{MR}} + r]; a short last panel is packed short.
  // kLanes steps of k at a time, the panel's rows are loaded as vectors in groups of kLanes rows, each group is
  // transposed in registers, and its columns stored as runs of the panel: a copy element by element cost about 3
  // cycles per element (pack_a was 6.6% of 128x768x3072 on the 23x16 kernel, one thread of an Emerald Rapids Xeon).
  // A group short of kLanes rows repeats its last row, and its stores are masked to the rows it has. A panel of one
  // row or of fewer than kLanes / 4 (and the last depth % kLanes steps) is copied element by element instead, the
  // rows read side by side: the transposes would then mostly move padding.
  for (int64_t i0 = 0; i0 < rows; i0 += {{MR}}, out += depth * {{MR}}) {
    const int64_t h = rows - i0 < {{MR}} ? rows - i0 : {{MR}};
    const float* const panel = a + i0 * lda;
    int64_t p = 0;
    if (h >= 2 && 4 * h >= kLanes)
      for (; p + kLanes <= depth; p += kLanes)
        for (int64_t g = 0; g < h; g += kLanes) {
          const int64_t n = h - g < kLanes ? h - g : kLanes;
          const float* const group = panel + g * lda + p;
          Vec v[kLanes];
          for (int r = 0; r < kLanes; ++r) v[r] = vload(group + (r < n ? r : n - 1) * lda);
          transpose(v);
          float* const to = out + p * {{MR}} + g;
          if (n == kLanes) {
            for (int j = 0; j < kLanes; ++j) {{VSTORE}}(to + j * {{MR}}, v[j]);
          } else {
            const Mask m = lane_mask(static_cast<int>(n));
            for (int j = 0; j < kLanes; ++j) vstore_masked(to + j * {{MR}}, m, v[j]);
          }
        }
    if (h == {{MR}}) {  // the row count a compile-time constant: the inner loop unrolled
      for (; p < depth; ++p)
        for (int r = 0; r < {{MR}}; ++r) out[p * {{MR}} + r] = panel[r * lda + p];
    } else {
      for (; p < depth; ++p)
        for (int64_t r = 0; r < h; ++r) out[p * {{MR}} + r] = panel[r * lda + p];
    }
  }
}

void {{NAME}}_pack_b(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* out) {
  // Micro-panels of {{NR}} columns, element (p, j) at panel[p * {{NR}} + j]; a short last panel's missing columns are
  // left unset (the micro-kernel masks them). B is read row by row across all the panels: each row is one
  // sequential stream that the hardware prefetcher follows. Panel by panel, it would read depth rows ldb apart, a
  // page or more each, with no prefetching and a TLB miss per row (16x768x3072: the whole call 1.3x slower).
  // A block's row is still a short stream (N1 floats, 1 KiB at N1 = 256), and the next row starts ldb further on:
  // the streamer starts over on each row, so every row's first lines miss. Each row therefore asks for the lines of
  // the row kRowsAhead below it, which arrive while this one and the next few are copied. Medians of interleaved
  // rounds on an AMD Zen 4, where few-row calls spend up to half their time here: one thread, 16x2304x768 1.14x
  // faster, 24x768x3072 1.15x, 32x4096x25088 1.07x; two, 16x768x768 1.24x, 64x1000x4096 1.06x; 1.0 within noise
  // where B is cached or the copy is a small share. Two to four rows ahead did best; eight, 3-5% less. The lines are
  // asked into L2 (locality 2: prefetcht1 on x86), not L1: where B comes from memory the copy is bound by the misses
  // in flight, and requests into L1 hold the core's few L1 miss buffers until the line arrives (one Zen 4 thread, B
  // of 64 MiB: 32x4096x4096 1.05x faster, 64x4096x4096 1.03x, 128x4096x4096 1.01x; within noise where B is in L3 or
  // two threads share the memory bandwidth). prefetcht2 did as well; prefetchnta gained 1%.
  // The rows are copied kGroupRows at a time, each panel's part of the group in one go: row by row, a row's stores
  // went to as many panels, each a panel apart (a multiple of L1's way at depth 256), so into the same few sets of it.
  // One thread of an AMD Zen 4, blocks of 256 x 256 copied on their own: B in L2 1.45x faster, in L3 1.22-1.45x;
  // from memory 0.87x, where the tiles fetch the block into L2 first (see fetch_next_b) in a call.
  const int64_t panels = cols / {{NR}}, tail = cols - panels * {{NR}};
  constexpr int64_t kRowsAhead = 4;
  constexpr int kGroupRows = 4;
  // Rows [p, p + kRows) of B into every panel, the short last panel's columns one by one.
  const auto copy_rows = [&](int64_t p, auto group) __attribute__((always_inline)) {
    constexpr int kRows = decltype(group)::value;
    const float* rows = b + p * ldb;
    float* panel_rows = out + p * {{NR}};
    for (int64_t j = 0; j < panels; ++j, rows += {{NR}}, panel_rows += depth * {{NR}})
      for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < {{NV}}; ++v)
          {{VSTORE}}(panel_rows + r * {{NR}} + v * kLanes, vload(rows + r * ldb + v * kLanes));
    for (int r = 0; r < kRows; ++r)
      for (int64_t j = 0; j < tail; ++j) panel_rows[r * {{NR}} + j] = rows[r * ldb + j];
  };
  int64_t p = 0;
  for (; p + kGroupRows <= depth; p += kGroupRows) {
    for (int64_t r = p + kRowsAhead; r < p + kRowsAhead + kGroupRows && r < depth; ++r)
      prefetch_row_into_l2(b + r * ldb, cols);
    copy_rows(p, std::integral_constant<int, kGroupRows>{});
  }
  for (; p < depth; ++p) copy_rows(p, std::integral_constant<int, 1>{});
}

}  // namespace {{PACKAGE}}_internal
