// The CPU micro-kernels' direct calls, generic over the register tile: column strips of tiles over A and B in place,
// and the shapes tiles serve badly (C's last few columns along k, few columns along m, half-width vectors), each
// chosen by the rule stated with it; the calls across whole rows of C are kernel_rows.h. Fixed
// text, copied verbatim into every package; a kernel file instantiates it after its ISA's vector layer.
#ifndef STRATA_KERNEL_PATHS_H_
#define STRATA_KERNEL_PATHS_H_

#include "kernel_rows.h"
#include "kernel_tile.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// A direct call covers a column strip of C: any number of rows, in register tiles of MR rows, all kVecs vectors wide,
// so that the dispatcher makes one call per strip instead of one per tile. A shallow strip (k below kInlineDepth)
// also runs its full tiles inline, one after another: a tile's arithmetic is then a few dozen instructions, about
// what its call and set-up cost. A deeper one calls them: inlined in a loop, the deep k loop loses registers to the
// strip (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "strip-calls"). The last, shorter tile runs its
// own instantiation.
constexpr int64_t kInlineDepth = 8;

// The strip's full tiles: inlined (kInline) or called, each one followed by another full tile fetching that one's
// rows of A where A is not cached (see prefetch_a_rows), then the short last tile. The last full tile fetches the
// rows below it too when A goes on past the strip (TileArgs::a_continues): the next row block's, which its first
// strip would otherwise start on cold (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "a-continues"). A
// fetch never reaches past the matrix.
template <class Shape, int kVecs, bool kInline>
inline void strip_tiles(const TileArgs& t) {
  constexpr int kMR = Shape::kTileRows;
  TileArgs full = copy_of(t);
  full.rows = kMR;
  int64_t rows = t.rows;
  const bool ahead = t.fetch_a_ahead && t.k >= kPrefetchDepth;
  for (; rows >= kMR; rows -= kMR, full.a += kMR * t.lda, full.c += kMR * t.ldc) {
    if constexpr (kInline)
      tile_body<Shape, Operands::kDirect, kMR, kVecs>(full);
    else if (ahead && (rows >= 2 * kMR || t.a_continues))
      tile<Shape, Operands::kDirect, kMR, kVecs, kMR>(full);
    else
      tile<Shape, Operands::kDirect, kMR, kVecs>(full);
  }
  if (rows > 0) {
    full.rows = rows;
    run_tile<Shape, Operands::kDirect>(full, rows, kVecs);
  }
}

template <class Shape, int kVecs>
inline void direct_strip(const TileArgs& t) {
  if (t.k < kInlineDepth)
    strip_tiles<Shape, kVecs, true>(t);
  else
    strip_tiles<Shape, kVecs, false>(t);
}

// C's last few columns as dot products. A tile multiplies a broadcast element of A into whole vectors of B, so a
// strip whose columns end edge = cols % kLanes past a vector boundary spends a whole vector's FMAs per row and k step
// on those few columns: a 33-column C on a 32-column tile spends a third of its FMAs on its last column, a 17-column
// one half. Along k instead, each element of C is a row of A (contiguous) times a column of B, both read a vector of
// k at a time: edge x rows x k / kLanes FMAs, a horizontal sum per element, and, unless B's column is already
// contiguous (cols == 1, ldb == 1), the columns copied out first (edge x k scalar moves, into kDotDepth-deep chunks
// on the stack). dot_pays() weighs the two (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
// "dot-columns").
constexpr int64_t kDotDepth = 512;

// A horizontal sum's cost in FMA slots: the shuffle-and-add steps that fold kLanes lanes to one, and the store.
constexpr int64_t kSumCost = dot_sum_slots(kLanes);

// Whether the last `edge` columns of a `rows` x k strip cost less along k than the tiles' `tile_slots` FMA slots (a
// vector of the tiles: rows x k).
inline bool dot_pays(int64_t rows, int64_t k, int64_t edge, bool gather, int64_t tile_slots) {
  const int64_t along_k = edge * (rows * ((k + kLanes - 1) / kLanes) + kSumCost * rows + (gather ? k : 0));
  return along_k < tile_slots;
}

// kRows rows of C (from a and c) times kCols columns of B, each held contiguous along k at bt + j * bt_stride: one
// accumulator per element, which vsum() folds at the end. kAhead: the next kCols columns, at `ahead` with the same
// stride, are asked into L2 alongside, a vector of k each per step, so that a call over a transposed B finds each
// group's rows there (see dots).
template <int kRows, int kCols, bool kAhead = false>
__attribute__((always_inline)) inline void dot_block(const TileArgs& t, const float* a, const float* bt,
                                                     int64_t bt_stride, float* c, const float* ahead = nullptr) {
  Vec acc[size_t{kRows}][size_t{kCols}];
  unrolled<kRows>([&](int r) { unrolled<kCols>([&](int j) { acc[r][j] = vzero(); }); });
  // One vector of k: all of B's columns, then each row of A against them. `load` reads a vector, or for the last,
  // short vector of k the lanes left under a mask, the others zero.
  const auto step = [&](int64_t p, auto load) __attribute__((always_inline)) {
    Vec b[size_t{kCols}];
    unrolled<kCols>([&](int j) { b[j] = load(bt + j * bt_stride + p); });
    if constexpr (kAhead) {
      if (kLanes >= kLineFloats || p % kLineFloats == 0)  // once per line
        unrolled<kCols>([&](int j) { __builtin_prefetch(ahead + j * bt_stride + p, 0, 2); });
    }
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

// Every row of the strip t against kCols columns held at bt, kRowsAtOnce rows sharing each vector of B: as many as
// the vector registers hold next to the B vectors and the row of A. ahead: the next kDotColumns columns (a whole
// group, or null), which the first rows' block asks for (see dot_block).
template <int kCols>
inline void dot_rows(const TileArgs& t, const float* bt, int64_t bt_stride, const float* ahead = nullptr) {
  constexpr int kRowsAtOnce = dot_rows_at_once(kCols);
  const float* a = t.a;
  float* c = t.c;
  int64_t i = 0;
  if constexpr (kCols == kDotColumns) {
    if (ahead != nullptr) {
      const int64_t rows = t.rows >= kRowsAtOnce ? kRowsAtOnce : 1;
      if (rows == kRowsAtOnce)
        dot_block<kRowsAtOnce, kCols, true>(t, a, bt, bt_stride, c, ahead);
      else
        dot_block<1, kCols, true>(t, a, bt, bt_stride, c, ahead);
      i = rows;
      a += rows * t.lda;
      c += rows * t.ldc;
    }
  }
  for (; i + kRowsAtOnce <= t.rows; i += kRowsAtOnce, a += kRowsAtOnce * t.lda, c += kRowsAtOnce * t.ldc)
    dot_block<kRowsAtOnce, kCols>(t, a, bt, bt_stride, c);
  for (; i < t.rows; ++i, a += t.lda, c += t.ldc) dot_block<1, kCols>(t, a, bt, bt_stride, c);
}

// The strip t (t.cols == kCols) along k, its columns of B copied out kDotDepth rows of k at a time, each chunk after
// the first adding onto C.
template <int kCols>
inline void dot_columns(const TileArgs& t) {
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

// dot_columns<1> to dot_columns<kDotColumns>, by the number of columns less one.
constexpr auto kDotColumnsFns = table_by_columns([](auto n) { return &dot_columns<decltype(n)::value>; },
                                                 std::make_integer_sequence<int, kDotColumns>{});

// A strip of C over a B stored transposed (N x K): column j of B is a row there, a run of k at t.b + j * t.ldb. Each
// element of C is then the dot product of two contiguous runs, B read once and in order, so no copy of B is made;
// kDotColumns columns at a time share each vector of A (see dot_rows), the last few run their own instantiation.
template <int kCols>
void dots_of(const TileArgs& t) {
  dot_rows<kCols>(t, t.b, t.ldb);
}

constexpr auto kDotsFns = table_by_columns([](auto n) { return &dots_of<decltype(n)::value>; },
                                           std::make_integer_sequence<int, kDotColumns>{});

inline void dots(const TileArgs& t) {
  TileArgs part = copy_of(t);
  int64_t j = 0;
  for (; j + kDotColumns <= t.cols; j += kDotColumns) {
    part.b = t.b + j * t.ldb;
    part.c = t.c + j;
    // Where B comes from memory (fetch_b_ahead), each group asks for the next whole one's rows of B: rows of k a
    // stride apart, four short streams at a time, whose starts the hardware prefetchers miss. From the outer cache
    // the requests only take load slots (measurements: docs/perf/2026-11-27-layouts/, "dots").
    const bool ahead = t.fetch_b_ahead && j + 2 * kDotColumns <= t.cols;
    dot_rows<kDotColumns>(part, part.b, t.ldb, ahead ? part.b + kDotColumns * t.ldb : nullptr);
  }
  if (j < t.cols) {
    part.b = t.b + j * t.ldb;
    part.c = t.c + j;
    kDotsFns[static_cast<size_t>(t.cols - j - 1)](part);
  }
}

// direct_strip<Shape, 1> to direct_strip<Shape, NV>, by the number of vectors less one.
template <class Shape>
constexpr auto kStrips = table_by_columns([](auto n) { return &direct_strip<Shape, decltype(n)::value>; },
                                          std::make_integer_sequence<int, Shape::kTileVectors>{});

// The strip's columns in whole vectors: one tile, or a strip of them.
template <class Shape>
inline void direct_vectors(const TileArgs& args) {
  const int vectors = (args.cols + kLanes - 1) / kLanes;
  if (args.rows < Shape::kTileRows)  // a single short tile: straight to it
    run_tile<Shape, Operands::kDirect>(args, args.rows, vectors);
  else
    kStrips<Shape>[static_cast<size_t>(vectors - 1)](args);
}

// A strip of few columns (at most kLanes / 2) along m. A tile multiplies a broadcast element of A into a vector of
// B's row, so on a 3-column C it spends a whole vector's FMA on 3 columns, and 13 of each 16 lanes multiply padding.
// Along m instead, a vector holds kLanes rows of one column of C: each block of kLanes rows transposes its rows of A,
// kLanes steps of k at a time, in registers (transpose()), so that a vector holds one k step's column of A, and
// multiplies it by a broadcast element of B per column: cols FMAs per k step and block, every lane used, against
// kLanes for the tile. The block's columns of C are transposed back into rows before the epilogue. The dispatcher's
// model prices such a strip as tiles (direct_work), so it overestimates it (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "along-m").
// A block of at most this many k steps (the last of a strip's k loop) is copied into `at` element by element rather
// than transposed: the transpose moves a whole kLanes x kLanes block however few steps it holds. Longer blocks, up to
// kLanes / 2 steps, copy slower than they transpose (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
// "copied-steps").
constexpr int kCopiedSteps = kLanes / 4;

template <int kCols>
inline void columns_along_m(const TileArgs& t) {
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
        for (int j = 0; j < kLanes; ++j) vstore(at + j * kLanes, v[j]);
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
    with_epilogue(
        alpha, beta, [&](auto mode) __attribute__((always_inline)) {
          for (int r = 0; r < rows; ++r)
            store_row<decltype(mode)::value, 1>(c + r * t.ldc, &out[r], vset1(alpha), vset1(beta), full, columns);
        });
  }
}

// columns_along_m<1> to columns_along_m<kLanes / 2>, by the number of columns less one.
constexpr auto kAlongMFns = table_by_columns([](auto n) { return &columns_along_m<decltype(n)::value>; },
                                             std::make_integer_sequence<int, kLanes / 2>{});

// Whether a strip goes along m: few columns (at most half a vector), rows enough to fill half a vector, a k loop at
// least a transposed block deep (each block transposes A in whole blocks of kLanes steps), and A in cache: the blocks
// do not fetch A ahead as the tiles do (see prefetch_a_rows), and from memory they wait on it (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "along-m-pays").
inline bool along_m_pays(const TileArgs& t) { return goes_along_m(t.rows, t.cols, t.k, kLanes) && !t.fetch_a_ahead; }

// The strip t along m, but for its last rows when they fill less than half a vector: those run as tiles.
template <class Shape>
inline void along_m(const TileArgs& t) {
  const int64_t left = t.rows % kLanes;
  TileArgs top = copy_of(t);
  if (2 * left < kLanes) top.rows = t.rows - left;
  kAlongMFns[static_cast<size_t>(t.cols - 1)](top);
  if (top.rows == t.rows) return;
  TileArgs bottom = copy_of(t);
  bottom.rows = left;
  bottom.a += top.rows * t.lda;
  bottom.c += top.rows * t.ldc;
  direct_vectors<Shape>(bottom);
}

#if defined(STRATA_SIMD_HALF_VECTORS)
// A strip of at most half a vector of columns on 256-bit vectors, where the core starts more of those a cycle than
// 512-bit ones (kHalfFmaPipes > kFmaPipes: an AMD Zen 4 runs a 512-bit FMA as two 256-bit halves, so it starts two
// 256-bit FMAs a cycle and one 512-bit one). A tile spends a 512-bit FMA per row and k step on the strip's few
// columns; on the halves, the same FMAs run twice as many a cycle, with nothing to transpose (along_m transposes A
// and C). Each k step loads B's row under the column mask as a 512-bit vector and uses its low half, and broadcasts
// one element of A per row; the kernels are compiled for AVX-512F alone, so 256-bit instructions take the VEX
// encoding and its 16 registers: kHalfRows accumulators, B's row and the broadcast element. Row blocks are as even as
// kHalfRows allows (17 rows: 9 and 8), and a block of fewer rows than the FMA chains need splits its k loop over sets
// of accumulators, as thin tiles do. A from beyond the cache stays with the tiles, which fetch it ahead
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "half-vectors").
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
inline void half_rows(const TileArgs& t, const float* a, float* c, Mask columns) {
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
  unrolled<kSets - 1>(
      [&](int s) { unrolled<kRows>([&](int r) { acc[0][r] = _mm256_add_ps(acc[0][r], acc[s + 1][r]); }); });
  // Copied out of t: a store to C may alias t's floats (see tile_body).
  const float alpha = t.alpha, beta = t.beta;
  const int64_t ldc = t.ldc;
  with_epilogue(
      alpha, beta, [&](auto mode) __attribute__((always_inline)) {
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

inline void half_strip(const TileArgs& t) {
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
#endif  // STRATA_SIMD_HALF_VECTORS
// A packed or streamed call: one register tile, its exact size.
template <class Shape, Operands kOps>
void one_tile(const TileArgs& args) {
  if (args.rows <= 0 || args.cols <= 0) return;
  run_tile<Shape, kOps>(args, args.rows, (args.cols + kLanes - 1) / kLanes);
}

// A direct call: a column strip of C, any rows, at most NR columns, A and B in place.
template <class Shape>
void direct(const TileArgs& args) {
  if (args.rows <= 0 || args.cols <= 0) return;
  if (args.cols == 1 && args.ldb == 1) {  // C is one column and B's is contiguous: along k with B in place
    if (dot_pays(args.rows, args.k, 1, false, args.rows * args.k))
      dot_rows<1>(args, args.b, 0);
    else
      direct_vectors<Shape>(args);
    return;
  }
  // The strip's columns as tiles cost rows x k FMA slots, or fewer on half-width vectors (see half_strip), against
  // which its last few columns along k are weighed.
  int64_t tile_slots = args.rows * args.k;
#if defined(STRATA_SIMD_HALF_VECTORS)
  const bool half = half_pays(args);
  if (half) tile_slots = tile_slots * kFmaPipes / kHalfFmaPipes;
#endif
  const int edge = args.cols % kLanes;
  if (edge == 0 || edge > kDotColumns || !dot_pays(args.rows, args.k, edge, true, tile_slots)) {
#if defined(STRATA_SIMD_HALF_VECTORS)
    if (half) {
      half_strip(args);
      return;
    }
#endif
    if (along_m_pays(args))
      along_m<Shape>(args);
    else
      direct_vectors<Shape>(args);
    return;
  }
  TileArgs columns = copy_of(args);  // the last `edge` columns, along k
  columns.cols = edge;
  if (args.cols > edge) {
    TileArgs vectors = copy_of(args);
    vectors.cols = args.cols - edge;
    direct_vectors<Shape>(vectors);
    columns.b += vectors.cols;
    columns.c += vectors.cols;
  }
  kDotColumnsFns[static_cast<size_t>(edge - 1)](columns);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_KERNEL_PATHS_H_
