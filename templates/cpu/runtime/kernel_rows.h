// The CPU micro-kernels' calls across whole rows of C: row streams (a few rows against a B beyond the cache) and
// wide rows (every row of a narrow C over a shallow k, B held in registers where it fits). They do not depend on the
// register tile. Fixed text, copied verbatim into every package; kernel_paths.h includes it.
#ifndef STRATA_KERNEL_ROWS_H_
#define STRATA_KERNEL_ROWS_H_

#include "kernel_tile.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// A few rows of C against a B that does not stay in cache (see row_streams_pay in the dispatcher). Each element of B
// then serves a few FMAs, so the call runs at the speed B arrives, and B arrives fastest as the hardware prefetchers
// follow it: a few of its rows at a time, each read from end to end. A pass multiplies kSteps rows of B into C's
// rows, C (a few KiB) staying in L1 from pass to pass: its vectors are loaded, take one FMA per row of B and are
// stored again. Tiles read B a strip of columns at a time, dozens of short runs of a row at once, which the
// prefetchers do not follow. The passes fold alpha into A's elements; the first one starts from beta * C, or from
// zero when beta is 0 (C is then never read). A pass reads 8 rows of B side by side, or 4 where B's rows share a set
// of L1 and B comes from the outer cache (TileArgs::b_rows_collide): 8 of their lines and C's then outnumber the
// set's ways and evict each other; from memory, 8 rows do better all the same. Three to five rows (a call on one
// thread over a B from memory, see row_streams_pay) broadcast A's elements from memory into the FMAs where
// alpha is 1: 8 steps of them held in registers are more than there are, and GCC spills them (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "row-streams").
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
    columns(
        j, [](const float* q) { return vload(q); }, [](float* q, Vec v) { vstore(q, v); });
  if (whole < cols) {
    const Mask tail = lane_mask(static_cast<int>(cols - whole));
    columns(
        whole, [tail](const float* q) { return vload_masked(q, tail); },
        [tail](float* q, Vec v) { vstore_masked(q, tail, v); });
  }
}

// All of t's k steps in passes of 8 or 4 rows of B, the last few in passes of 4, 2 and 1.
template <int kRows, bool kUnitAlpha>
inline void row_streams(const TileArgs& t) {
  int64_t p = 0;
  if (!t.b_rows_collide)
    for (; p + 8 <= t.k; p += 8) row_pass<kRows, 8, kUnitAlpha>(t, p, p == 0);
  for (; p + 4 <= t.k; p += 4) row_pass<kRows, 4, kUnitAlpha>(t, p, p == 0);
  if (p + 2 <= t.k) row_pass<kRows, 2, kUnitAlpha>(t, p, p == 0), p += 2;
  if (p < t.k) row_pass<kRows, 1, kUnitAlpha>(t, p, p == 0);
}

// Only rows past two have a unit-alpha variant (see row_pass): one or two rows are instantiated once.
template <int kRows>
inline void row_streams(const TileArgs& t) {
  if constexpr (kRows > 2)
    if (t.alpha == 1.0f) {
      row_streams<kRows, true>(t);
      return;
    }
  row_streams<kRows, false>(t);
}

// kRows (1 to 4) rows of C from a and c, each across its kVecs vectors, over all of t's k steps: each k step loads
// B's row once (in_register keeps GCC from folding the load into every row's FMA; a single row's FMAs do take them as
// operands, which is faster) and broadcasts one element of A per row. Each row's accumulators are an array of their
// own: in one kRows x kVecs array, GCC 12 keeps them in memory and stores them on every k step (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "whole-rows").
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
  with_epilogue(
      alpha, beta, [&](auto mode) __attribute__((always_inline)) {
        each_row([&](Vec(&acc)[size_t{kVecs}], int r) {
          store_row<decltype(mode)::value, kVecs>(c + r * ldc, acc, vset1(alpha), vset1(beta), lane_mask(kLanes),
                                                  last);
        });
      });
}

// Every row of C across its whole width, kVecs vectors, over all of a shallow k, a few rows at a time (see
// wide_rows_pay in the dispatcher): each row's accumulators take one broadcast of A and kVecs FMAs per k step, and
// the row is stored whole. A call of a few dozen FMAs spends more on the strips and tiles around them than on the
// FMAs (13x33x1: two strips of two tiles each); here rows are independent chains, which the core overlaps. The rows
// run at a time share their loads of B: one row at a time, a core that loads one 512-bit vector per cycle (an
// AMD Zen 4) waits on those loads, a load per FMA. Beyond a few hundred FMAs the tiles win again (see wide_rows_pay),
// but where C goes to memory, which it then writes in order, a row's lines whole (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "rows-whole").
template <int kVecs>
inline void rows_whole(const TileArgs& t) {
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
// row, and a core that loads a 512-bit vector per cycle (an AMD Zen 4) waits on those loads, not on the FMAs
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "rows-held").
template <int kVecs, int kDepth>
inline void rows_held(const TileArgs& t) {
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
  with_epilogue(
      alpha, beta, [&](auto mode) __attribute__((always_inline)) {
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
constexpr std::array<std::array<TileFn, kHeldDepth>, sizeof...(kVec)> held_table(
    std::integer_sequence<int, kVec...>) {
  return {held_by_depth<kVec + 1>(std::make_integer_sequence<int, kHeldDepth>{})...};
}
// By vectors less one, then depth less one.
constexpr auto kRowsHeldFns = held_table(std::make_integer_sequence<int, kWideVectors>{});

// C's columns in strips as wide as b_held allows at this depth, one after another, each strip's B held in registers
// while every row of C runs over it (rows_held), where strips of register tiles make a call per tile and its set-up
// for a few k steps each (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "held-strips").
inline void held_strips(const TileArgs& args) {
  const int64_t width = held_width(args.k) * kLanes;
  for (int64_t j = 0; j < args.cols; j += width) {
    TileArgs strip = copy_of(args);
    strip.b += j;
    strip.c += j;
    strip.cols = static_cast<int32_t>(args.cols - j < width ? args.cols - j : width);
    kRowsHeldFns[static_cast<size_t>((strip.cols + kLanes - 1) / kLanes - 1)][static_cast<size_t>(args.k - 1)](strip);
  }
}

// One to kStreamRowsMax rows (the dispatcher's row_streams_pay); any other count is not a row-streams call.
inline void row_streams_of(const TileArgs& args) {
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
inline void wide_rows(const TileArgs& args) {
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

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_KERNEL_ROWS_H_
