// The register tile of the CPU micro-kernels, generic over its shape: the tile body (k loop, prefetches, epilogue),
// its instantiation for every edge size, and the packing of A and B into the micro-panels it reads. Fixed text,
// copied verbatim into every package; a kernel file (src/kernels/) instantiates it for one register tile after
// including its ISA's vector layer (simd_<isa>.h).
#ifndef STRATA_KERNEL_TILE_H_
#define STRATA_KERNEL_TILE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "tile_args.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// Arrays whose extent is a tile's template argument spell it size_t{...}, and tables are indexed by size_t: GCC's
// -Wsign-conversion, which packages are built with, takes an int there for a conversion that may change its sign.

// How a tile writes C, chosen once per tile: most calls have alpha = 1 and beta = 0, and on a shallow tile (small
// K) the epilogue is as long as the k loop, so the multiply by alpha and the test of beta are not paid per vector.
enum class Epilogue { kStore, kScale, kScaleAccumulate };  // C = acc, C = alpha acc, C = alpha acc + beta C

// C[row] = acc under `mode` for the vectors of one row; `last` masks the final vector. Always inlined: called, it
// makes the tile spill its accumulators (the calling convention saves no vector register), and GCC 12 stops inlining
// it into the packed tiles once a masked store is more than one instruction (see simd_avx2.h; measurements:
// docs/perf/2026-12-02-zen3-masked-stores/, "inlined-epilogue").
template <Epilogue kMode, int kVecs>
__attribute__((always_inline)) inline void store_row(float* c, const Vec* acc, Vec alpha, Vec beta, Mask full,
                                                     Mask last) {
  for (int v = 0; v < kVecs; ++v) {
    const Mask m = v == kVecs - 1 ? last : full;
    Vec out = acc[v];
    if constexpr (kMode != Epilogue::kStore) out = vmul(alpha, out);
    if constexpr (kMode == Epilogue::kScaleAccumulate) out = vfma(beta, vload_masked(c + v * kLanes, m), out);
    vstore_masked(c + v * kLanes, m, out);
  }
  // Rows are written in address order: the compiler otherwise interleaves one row's stores with the next's, which
  // slows a tile where C is not cached, a tall C streamed through the cache (measurements:
  // docs/perf/2026-11-27-cpu-runtime-evidence.md, "c-rows-in-order").
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
// (rows, cols, the fetch flags) with narrow stores of their own, and GCC copies a whole struct with wide loads that
// span several of them, which the core cannot forward from stores still in flight: each copy waits for them to reach
// the cache. Copied one by one, each load reads what one store wrote (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "field-copies").
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
// GCC 12 otherwise folds its load into every FMA that uses it, a 512-bit load per row, and broadcasts A separately,
// where the masked load is loaded once and A's broadcast folded (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "b-in-register").
template <bool kPackedB, bool kUnmasked, bool kLastVector>
inline Vec load_b(const float* p, Mask last) {
  if constexpr (kPackedB) return vload(p);
  if constexpr (!kUnmasked && kLastVector) return vload_masked(p, last);
  return in_register(vload(p));
}

// How many of a tile's first k steps load B's last vector whole (see load_b): every step where the tile's columns
// fill its vectors or B is packed; else, where the last vector's overrun past the columns (kVecs * kLanes - cols
// floats) is at most ldb, every step but the last: the overrun then ends within the tile's columns of B's next row,
// memory of B's, and the lanes past the columns, which never reach C (its stores are masked), hold products of B's
// other elements. A masked load on every k step is slower: GCC 12 reloads the mask from the stack for each
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "unmasked-steps").
template <bool kPackedB, int kVecs>
inline int64_t unmasked_steps(const TileArgs& t) {
  if (kPackedB || t.cols == kVecs * kLanes) return t.k;
  return kVecs * kLanes - t.cols <= t.ldb ? t.k - 1 : 0;
}

// C is read once, after the whole k loop, and its rows lie ldc apart, where no hardware prefetcher follows: a tile
// asks for them early, so that their misses overlap the FMAs instead of stalling the epilogue. A packed tile (deep k,
// C anywhere in memory) asks during the k loop, one row per unrolled step: a burst of every row's lines at once fills
// the core's miss buffers and stalls the loop behind it. A direct tile asks for all rows before its k loop: it serves
// small problems, whose C is usually in cache, and the per-step check would slow them. A short k loop has nothing to
// overlap the misses with, so below kPrefetchDepth a tile prefetches nothing, unless the dispatcher says C is larger
// than the cache (TileArgs::c_from_beyond): then each of C's lines misses, and a shallow tile's stores of them fill
// the store queue while each waits for its line. Small calls, whose C is cached, lose time to the requests, hence the
// flag (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "c-prefetch").
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
// (K floats; 512 bytes at K = 128), and the hardware prefetchers, which follow a few long streams, leave such a tile
// waiting on A whenever A comes from beyond L2. Where the dispatcher says A is not cached (TileArgs::fetch_a_ahead),
// each full tile of a strip asks for the next tile's rows (kAheadRows of them, from `row` on, lda apart), one line of
// each per kLineFloats steps of its own k loop, so that they arrive while it computes. Where A is cached the requests
// only cost issue slots, hence the flag. A tile shallower than kPrefetchDepth does not ask: its rows are a line or
// two, and the prefetchers follow the rows' succession in memory (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "a-rows-ahead").
template <int kAheadRows>
inline void prefetch_a_rows(const float* row, int64_t lda) {
  for (int r = 0; r < kAheadRows; ++r) __builtin_prefetch(row + r * lda);
}

// A streamed B's rows lie ldb apart, a page or more each when B is wide, so no hardware prefetcher follows a strip of
// them down k, and the first tile of each strip, which brings the strip's k slice in from the outer cache, waits on
// every row (the later tiles of the strip find it in the inner ones). That tile (TileArgs::fetch_b_ahead) asks for
// the row kBRowsAhead steps below each one it reads, all of the tile's lines of it, the one past a vector too where
// the row starts mid-line. It asks 32 rows ahead into L2 (locality 2: prefetcht1 on x86), not into L1: there the
// requests wait in the core's few L1 miss buffers, and where ldb is a multiple of a way of L1 (3072 floats: 12 KiB)
// every row of the strip falls in the same sets, whose 8 ways the rows asked ahead then fill, evicting the rows in
// use. A direct tile of a single row of tiles over deep k slices (see direct_b_ahead in the dispatcher), every tile
// the only one to read its rows, asks the same way. A packed tile never needs to ask. kBRowsAhead is in tile_args.h:
// the dispatcher asks whether those steps outlast the outer cache's latency (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "b-rows-ahead").
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

// Where B comes from beyond L2, packing a block of it is bound by the misses, and runs before the FMAs that use it. A
// packed tile therefore asks for a share of the rows of the block its thread packs next (TileArgs::next_b, handed out
// by the dispatcher's run_block), into L2, one row per unrolled step, so that the next pack_b finds them there and
// the misses overlap this block's FMAs. `row` counts the rows asked so far (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "next-b-block").
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

// Calls f(0), f(1), ..., f(kCount - 1) as straight-line code, each index a std::integral_constant (usable as a
// template argument), so that an array of vectors indexed by them stays in registers: GCC 12 left a loop over a
// 4 x 1 block of accumulators rolled, with the accumulators in memory and a load and a store per FMA.
template <typename F, int... kIndex>
__attribute__((always_inline)) inline void unrolled_over(F& f, std::integer_sequence<int, kIndex...>) {
  (f(std::integral_constant<int, kIndex>{}), ...);
}
template <int kCount, typename F>
__attribute__((always_inline)) inline void unrolled(F f) {
  unrolled_over(f, std::make_integer_sequence<int, kCount>{});
}

// A table of make(std::integral_constant<int, n>) for n = 1, 2, ..., at index n - 1: one instantiation of a strip
// function per column count.
template <typename Make, int... kIndex>
constexpr std::array<TileFn, sizeof...(kIndex)> table_by_columns(Make make, std::integer_sequence<int, kIndex...>) {
  return {make(std::integral_constant<int, kIndex + 1>{})...};
}

// A direct tile of few accumulators (kRows x kVecs: one or two rows of C, M = 1 or 2, or a strip's last rows) adds
// each k step's FMAs to the last step's results, so its k loop is a chain of FMA latencies, not of FMA issues: a core
// that can start an FMA every cycle starts one per FMA latency. Such a tile keeps thin_sets() sets of accumulators
// instead (kChains chains in all, see tile_args.h): the k steps of each group of kSets go one into each set, the last
// depth % kSets into the first, and the sets are added up before the epilogue. Calls that stream B from beyond L2 are
// bound by that, not by the chains, and run slower with more sets than kChains asks for. Packed tiles this thin are
// rare (see row_tiles in the dispatcher) and keep one set: with the streamed tile's prefetches GCC 12 keeps the sets
// in memory (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "thin-sets").
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
  unrolled<kSets>(
      [&](int s) { unrolled<kRows>([&](int r) { unrolled<kVecs>([&](int v) { acc[s][r][v] = vzero(); }); }); });
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
    unrolled<kRows>(
        [&](int r) { unrolled<kVecs>([&](int v) { acc[0][r][v] = vadd(acc[0][r][v], acc[s + 1][r][v]); }); });
  });
  float* const c = t.c;
  const int64_t ldc = t.ldc;
  const float alpha = t.alpha, beta = t.beta;
  const Mask full = lane_mask(kLanes);
  with_epilogue(
      alpha, beta, [&](auto mode) __attribute__((always_inline)) {
        unrolled<kRows>([&](int r) {
          store_row<decltype(mode)::value, kVecs>(c + r * ldc, acc[0][r], vset1(alpha), vset1(beta), full, last);
        });
      });
}

// The register tile a kernel file instantiates these templates with (its struct Shape):
//   kTileRows     rows of C, MR
//   kTileVectors  vectors of C's row, NV (the tile is NR = NV * kLanes columns wide)
//   kUnroll       k steps per iteration of the unrolled k loop
//   kLaneBroadcast  a packed tile loads A's kTileRows elements of a k step as vectors and multiplies each lane into
//                 its row (vfma_lane, NEON's FMLA by element) instead of broadcasting each from memory
template <class Shape>
constexpr int kTileColumns = Shape::kTileVectors* kLanes;

// Lane broadcast: vector g of a packed k step holds rows a_group_row(g) .. + kLanes - 1. The last one is pulled back
// to end at the panel's last row when kLanes does not divide its rows, so that no load reads past the panel.
template <class Shape>
constexpr int a_group_row(int group) {
  return group * kLanes < Shape::kTileRows - kLanes ? group * kLanes : Shape::kTileRows - kLanes;
}

// The body of every tile; inlined into tile() below and into a shallow direct strip's loop. kAheadRows > 0: a direct
// tile that fetches the next tile's rows of A (see prefetch_a_rows), which start kRows rows below its own.
template <class Shape, Operands kOps, int kRows, int kVecs, int kAheadRows = 0>
__attribute__((always_inline)) inline void tile_body(const TileArgs& t) {
  constexpr int kMR = Shape::kTileRows, kUnroll = Shape::kUnroll;
  constexpr bool kPackedA = packed_a(kOps), kPackedB = packed_b(kOps);
  constexpr bool kLaneBroadcast = Shape::kLaneBroadcast && kPackedA;
  static_assert(!kPackedA || kAheadRows == 0, "a packed tile's A is a packed panel");
  static_assert(kRows >= 1 && kRows <= kMR && kVecs >= 1 && kVecs <= Shape::kTileVectors,
                "tile outside the register tile");
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
      tile_body<Shape, Operands::kDirect, kTop, kVecs>(t);
      // The next tile starts below the bottom half.
      tile_body<Shape, Operands::kDirect, kRows - kTop, kVecs, kAheadRows>(bottom);
      return;
    }
  }
  // A element (r, p): packed at a[p * MR + r], in place at a[r * lda + p]. B row p: packed at b + p * NR, in place
  // at b + p * ldb.
  const int64_t a_rs = kPackedA ? 1 : t.lda;
  const int64_t a_cs = kPackedA ? kMR : 1;
  const int64_t b_rs = kPackedB ? kTileColumns<Shape> : t.ldb;
  const float* a = t.a;
  const float* b = t.b;
  const int64_t depth = t.k;
  const Mask last = lane_mask(t.cols - (kVecs - 1) * kLanes);
  int c_row = depth >= kPrefetchDepth || (!kPackedA && t.c_from_beyond) ? 0 : kRows;  // the next C row to prefetch
  if constexpr (!kPackedA)
    for (; c_row < kRows; ++c_row) prefetch_c_row<kVecs>(t.c + c_row * t.ldc, t.cols);
  Vec acc[size_t{kRows}][size_t{kVecs}];
  unrolled<kRows>([&](int r) __attribute__((always_inline)) {
    unrolled<kVecs>([&](int v) __attribute__((always_inline)) { acc[r][v] = vzero(); });
  });
  int64_t p = 0;
  int next_row = 0;  // of the next B block's rows this tile asks for (see fetch_next_b)
  const bool fetch_b = t.fetch_b_ahead;
  // One k step `u` steps past a and b: B's row, then each row's FMAs into it. `whole`: B's last vector is loaded
  // whole (see unmasked_steps). A broadcast reads row r of A from row_of(r).
  const auto step = [&](int64_t u, auto whole, auto row_of) __attribute__((always_inline)) {
    Vec bv[size_t{kVecs}];
    unrolled<kVecs>([&](auto v) __attribute__((always_inline)) {
      bv[v] =
          load_b<kPackedB, decltype(whole)::value, decltype(v)::value == kVecs - 1>(b + u * b_rs + v * kLanes, last);
    });
    if constexpr (kLaneBroadcast) {
      // A's elements of the step as vectors of consecutive rows; an edge tile (kRows < MR) loads only the vectors
      // holding its rows, and never multiplies the lanes past them.
      constexpr int kGroups = (kRows + kLanes - 1) / kLanes;
      Vec ag[size_t{kGroups}];
      unrolled<kGroups>([&](auto g)
                            __attribute__((always_inline)) { ag[g] = vload(a + a_group_row<Shape>(g) + u * a_cs); });
      unrolled<kRows>([&](auto r) __attribute__((always_inline)) {
        constexpr int kGroup = decltype(r)::value / kLanes;
        constexpr int kLane = decltype(r)::value - a_group_row<Shape>(kGroup);
        unrolled<kVecs>([&](int v) __attribute__((always_inline)) {
          acc[r][v] = vfma_lane<kLane>(acc[r][v], bv[v], ag[kGroup]);
        });
      });
    } else {
      unrolled<kRows>([&](int r) __attribute__((always_inline)) {
        const Vec x = vbroadcast(row_of(r) + u * a_cs);
        unrolled<kVecs>([&](int v) __attribute__((always_inline)) { accumulate<kVecs>(x, bv[v], acc[r][v]); });
      });
    }
  };
  const auto row_in_place = [&](int r) __attribute__((always_inline)) { return a + r * a_rs; };
  if constexpr (Shape::kLaneBroadcast) {
    // B's last vector is loaded under its mask on every k step, and every tile runs the unrolled loop.
    for (; p + kUnroll <= depth; p += kUnroll, a += kUnroll * a_cs, b += kUnroll * b_rs) {
      if constexpr (kPackedA)
        if (c_row < kRows) prefetch_c_row<kVecs>(t.c + c_row++ * t.ldc, t.cols);
      fetch_a_ahead<kRows, kAheadRows, kUnroll>(t, p);
      fetch_b_ahead<kOps, kVecs, kUnroll>(fetch_b, b, b_rs);
      fetch_next_b<kOps>(t, next_row);
      unrolled<kUnroll>([&](int u) __attribute__((always_inline)) { step(u, std::false_type{}, row_in_place); });
    }
    for (; p < depth; ++p, a += a_cs, b += b_rs) {
      fetch_a_ahead<kRows, kAheadRows, 1>(t, p);
      step(0, std::false_type{}, row_in_place);
    }
  } else {
    // The unrolled loop covers the first `unmasked` k steps (see unmasked_steps). A direct tile more than one vector
    // wide takes the single-step loop below instead: its rows of A and B lie lda and ldb apart, so an unrolled step
    // needs an address register per row of each, more than x86-64 has, and GCC kept the offsets on the stack. So does
    // a one-vector direct tile on a core that starts one vector FMA per cycle, where the single step's bookkeeping
    // fits beside its FMAs, and a tile over a streamed B whose rows lie kFarRowBytes or more apart, each in a page of
    // its own (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "single-step-loop").
    constexpr int64_t kFarRowBytes = int64_t{8} << 10;
    constexpr bool kUnrolledLoop = kPackedB || (kVecs == 1 && kFmaPipes > 1);
    const bool unrolled_loop =
        kUnrolledLoop || (kPackedA && t.ldb * static_cast<int64_t>(sizeof(float)) < kFarRowBytes);
    const int64_t unmasked = unmasked_steps<kPackedB, kVecs>(t);  // the k steps before the one with B's mask
    for (; unrolled_loop && p + kUnroll <= unmasked; p += kUnroll, a += kUnroll * a_cs, b += kUnroll * b_rs) {
      if constexpr (kPackedA)
        if (c_row < kRows) prefetch_c_row<kVecs>(t.c + c_row++ * t.ldc, t.cols);
      fetch_a_ahead<kRows, kAheadRows, kUnroll>(t, p);
      fetch_b_ahead<kOps, kVecs, kUnroll>(fetch_b, b, b_rs);
      fetch_next_b<kOps>(t, next_row);
      unrolled<kUnroll>([&](int u) __attribute__((always_inline)) { step(u, std::true_type{}, row_in_place); });
    }
    // The single-step loop reads row r of a direct tile's A at rows3[r / 3] + (r % 3) * lda: one pointer per three
    // rows, which x86 addresses with lda as an index scaled by 1 or 2; with an offset per row, a 13-row tile needed
    // more general registers than x86-64 has.
    constexpr int kRowGroups = (kRows + 2) / 3;
    const float* rows3[size_t{kRowGroups}];
    for (int g = 0; g < kRowGroups; ++g) rows3[g] = a + 3 * g * a_rs;
    const auto row_by_three = [&](int r) __attribute__((always_inline)) {
      return kPackedA ? a + r * a_rs : rows3[r / 3] + r % 3 * a_rs;
    };
    const auto single = [&](auto whole) __attribute__((always_inline)) {
      fetch_a_ahead<kRows, kAheadRows, 1>(t, p);
      fetch_b_ahead<kOps, kVecs, 1>(fetch_b, b, b_rs);
      step(0, whole, row_by_three);
      for (int g = 0; g < kRowGroups; ++g) rows3[g] += a_cs;
    };
    for (; p < unmasked; ++p, a += a_cs, b += b_rs) single(std::true_type{});
    if constexpr (!kPackedB)
      for (; p < depth; ++p, a += a_cs, b += b_rs) single(std::false_type{});
  }
  // C's pointer, stride and scalars are copied out of t first: a store to C may alias t's alpha and beta (floats),
  // and the compiler reloaded and retested them, and C's pointer and stride with them, row by row.
  float* const c = t.c;
  const int64_t ldc = t.ldc;
  const float alpha = t.alpha, beta = t.beta;
  const Mask full = lane_mask(kLanes);
  with_epilogue(
      alpha, beta, [&](auto mode) __attribute__((always_inline)) {
        unrolled<kRows>([&](int r) __attribute__((always_inline)) {
          // A copy of the row: the accumulators' own address never escapes, so they stay in registers.
          Vec row[size_t{kVecs}];
          unrolled<kVecs>([&](int v) __attribute__((always_inline)) { row[v] = acc[r][v]; });
          store_row<decltype(mode)::value, kVecs>(c + r * ldc, row, vset1(alpha), vset1(beta), full, last);
        });
      });
}

// One tile, out of line: what the tables below and a strip's loop point to.
template <class Shape, Operands kOps, int kRows, int kVecs, int kAheadRows = 0>
__attribute__((noinline)) void tile(const TileArgs& t) {
  tile_body<Shape, kOps, kRows, kVecs, kAheadRows>(t);
}

// Every (rows, vectors) instantiation, so that an edge tile runs exactly the work it needs: tile_table<Shape,
// kOps>[(rows - 1) * NV + vectors - 1].
template <class Shape, Operands kOps, int... kCell>
constexpr std::array<TileFn, sizeof...(kCell)> tiles_by_cell(std::integer_sequence<int, kCell...>) {
  return {&tile<Shape, kOps, kCell / Shape::kTileVectors + 1, kCell % Shape::kTileVectors + 1>...};
}
template <class Shape, Operands kOps>
constexpr auto kTileTable =
    tiles_by_cell<Shape, kOps>(std::make_integer_sequence<int, Shape::kTileRows * Shape::kTileVectors>{});

template <class Shape, Operands kOps>
inline void run_tile(const TileArgs& args, int64_t rows, int64_t vectors) {
  kTileTable<Shape, kOps>[static_cast<size_t>((rows - 1) * Shape::kTileVectors + vectors - 1)](args);
}

// Packing lives here, next to the kernel that reads the panels: the panel widths are compile-time constants and the
// loops are compiled with this file's ISA flags.
//
// Panels of kMR of `rows` rows of src, each row running along k (`depth` of it): A's micro-panels, and a transposed
// B's (stored N x K), whose rows are B's columns.
template <int kMR>
void pack_transposing(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out) {
  // Micro-panels of MR rows, element (r, p) at panel[p * MR + r]; a short last panel is packed short.
  // kLanes steps of k at a time, the panel's rows are loaded as vectors in groups of kLanes rows, each group is
  // transposed in registers, and its columns stored as runs of the panel, faster than a copy element by element
  // (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "pack-a-transpose"). A group short of kLanes rows
  // repeats its last row, and its stores are masked to the rows it has. A panel of one row or of fewer than
  // kLanes / 4 (and the last depth % kLanes steps) is copied element by element instead, the rows read side by side:
  // the transposes would then mostly move padding.
  for (int64_t i0 = 0; i0 < rows; i0 += kMR, out += depth * kMR) {
    const int64_t h = rows - i0 < kMR ? rows - i0 : kMR;
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
          float* const to = out + p * kMR + g;
          if (n == kLanes) {
            for (int j = 0; j < kLanes; ++j) vstore(to + j * kMR, v[j]);
          } else {
            const Mask m = lane_mask(static_cast<int>(n));
            for (int j = 0; j < kLanes; ++j) vstore_masked(to + j * kMR, m, v[j]);
          }
        }
    if (h == kMR) {  // the row count a compile-time constant: the inner loop unrolled
      for (; p < depth; ++p)
        for (int r = 0; r < kMR; ++r) out[p * kMR + r] = panel[r * lda + p];
    } else {
      for (; p < depth; ++p)
        for (int64_t r = 0; r < h; ++r) out[p * kMR + r] = panel[r * lda + p];
    }
  }
}

// `rows` x `cols` of src (ld apart) into dst transposed, cols x rows (rows apart): the row-major copy of a transposed
// operand that a call in place reads. kLanes x kLanes blocks are transposed in registers, a block at the matrix's
// edge loaded under a mask (its missing rows zero) and stored under one; element by element, the copy ran far below
// the bandwidth it was priced at (measurements: docs/perf/2026-11-27-layouts/, "copy-or-pack").
inline void copy_transposed(const float* src, int64_t ld, int64_t rows, int64_t cols, float* dst) {
  for (int64_t r0 = 0; r0 < rows; r0 += kLanes) {
    const int h = rows - r0 < kLanes ? static_cast<int>(rows - r0) : kLanes;
    for (int64_t c0 = 0; c0 < cols; c0 += kLanes) {
      const int w = cols - c0 < kLanes ? static_cast<int>(cols - c0) : kLanes;
      const float* const block = src + r0 * ld + c0;
      Vec v[kLanes];
      if (w == kLanes) {
        for (int r = 0; r < kLanes; ++r) v[r] = r < h ? vload(block + r * ld) : vzero();
      } else {
        const Mask m = lane_mask(w);
        for (int r = 0; r < kLanes; ++r) v[r] = r < h ? vload_masked(block + r * ld, m) : vzero();
      }
      transpose(v);
      float* const to = dst + c0 * rows + r0;
      if (h == kLanes) {
        for (int j = 0; j < w; ++j) vstore(to + j * rows, v[j]);
      } else {
        const Mask m = lane_mask(h);
        for (int j = 0; j < w; ++j) vstore_masked(to + j * rows, m, v[j]);
      }
    }
  }
}

template <class Shape>
void pack_a(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out) {
  pack_transposing<Shape::kTileRows>(a, lda, rows, depth, out);
}

// B's micro-panels from a B stored transposed (N x K, ldb >= K): its columns are rows there.
template <class Shape>
void pack_b_transposed(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* out) {
  pack_transposing<kTileColumns<Shape>>(b, ldb, cols, depth, out);
}

// A's micro-panels from an A stored transposed (K x M, lda >= M): each k step's MR elements are a run of a row
// there, copied as it is.
template <class Shape>
void pack_a_transposed(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out) {
  constexpr int kMR = Shape::kTileRows;
  for (int64_t i0 = 0; i0 < rows; i0 += kMR, out += depth * kMR) {
    const int64_t h = rows - i0 < kMR ? rows - i0 : kMR;
    if (h == kMR) {
      // One fixed-size copy per k step, which the compiler moves in the widest registers that fit: written as an
      // element loop, it vectorises across k steps instead, gathering each vector from several rows of A one
      // element at a time, which made the copy most of a tall call's time (docs/perf/2026-11-28-zen4-layouts-peers).
      for (int64_t p = 0; p < depth; ++p) std::memcpy(out + p * kMR, a + p * lda + i0, sizeof(float) * kMR);
    } else {
      for (int64_t p = 0; p < depth; ++p)
        for (int64_t r = 0; r < h; ++r) out[p * kMR + r] = a[p * lda + i0 + r];
    }
  }
}

template <class Shape>
void pack_b(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* out) {
  constexpr int kNR = kTileColumns<Shape>;
  // Micro-panels of NR columns, element (p, j) at panel[p * NR + j]; a short last panel's missing columns are left
  // unset (the micro-kernel masks them). B is read row by row across all the panels: each row is one sequential
  // stream that the hardware prefetcher follows, where panel by panel it would read depth rows ldb apart, a page or
  // more each, with no prefetching and a TLB miss per row. A block's row is still a short stream (N1 floats, 1 KiB at
  // N1 = 256), and the next row starts ldb further on: the streamer starts over on each row, so every row's first
  // lines miss. Each row therefore asks for the lines of the row kRowsAhead below it, which arrive while this one and
  // the next few are copied. The lines are asked into L2 (locality 2: prefetcht1 on x86), not L1: where B comes from
  // memory the copy is bound by the misses in flight, and requests into L1 hold the core's few L1 miss buffers until
  // the line arrives (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "pack-b-rows").
  // The rows are copied kGroupRows at a time, each panel's part of the group in one go: row by row, a row's stores go
  // to as many panels, each a panel apart (a multiple of L1's way at depth 256), so into the same few sets of it.
  // Where B comes from memory that does not pay, but in a call the tiles fetch the block into L2 first, see
  // fetch_next_b (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "pack-b-groups").
  const int64_t panels = cols / kNR, tail = cols - panels * kNR;
  constexpr int64_t kRowsAhead = 4;
  constexpr int kGroupRows = 4;
  // Rows [p, p + kRows) of B into every panel, the short last panel's columns one by one.
  const auto copy_rows = [&](int64_t p, auto group) __attribute__((always_inline)) {
    constexpr int kRows = decltype(group)::value;
    const float* rows = b + p * ldb;
    float* panel_rows = out + p * kNR;
    for (int64_t j = 0; j < panels; ++j, rows += kNR, panel_rows += depth * kNR)
      for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < Shape::kTileVectors; ++v)
          vstore(panel_rows + r * kNR + v * kLanes, vload(rows + r * ldb + v * kLanes));
    for (int r = 0; r < kRows; ++r)
      for (int64_t j = 0; j < tail; ++j) panel_rows[r * kNR + j] = rows[r * ldb + j];
  };
  int64_t p = 0;
  for (; p + kGroupRows <= depth; p += kGroupRows) {
    for (int64_t r = p + kRowsAhead; r < p + kRowsAhead + kGroupRows && r < depth; ++r)
      prefetch_row_into_l2(b + r * ldb, cols);
    copy_rows(p, std::integral_constant<int, kGroupRows>{});
  }
  for (; p < depth; ++p) copy_rows(p, std::integral_constant<int, 1>{});
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_KERNEL_TILE_H_
