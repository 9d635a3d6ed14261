// Unit checks of the fixed kernel sources (templates/cpu/runtime/) in Strata's own build, for register tiles no
// selection has to pick: every entry a kernel file instantiates (packed, streamed and direct tiles, row streams, wide
// rows, packing) against a double-precision reference, over edge sizes, strides, epilogues and the dispatcher's
// flags. Compiled once per ISA (tests/CMakeLists.txt), with that ISA's flags and STRATA_TEST_SIMD naming its vector
// layer; STRATA_TEST_ENTRY names the function test_kernel_runtime.cpp calls.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include STRATA_TEST_SIMD
#include "kernel_paths.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// A short tile of two vectors, k unrolled three times (an odd unroll, so the loops' remainders run).
struct TwoVectorShape {
  static constexpr int kTileRows = 5;
  static constexpr int kTileVectors = 2;
  static constexpr int kUnroll = 3;
  static constexpr bool kLaneBroadcast = false;
};

// A tile taking A from vector lanes, kLanes + 3 rows: the last A vector overlaps the one before it.
struct LaneShape {
  static constexpr int kTileRows = kLanes + 3;
  static constexpr int kTileVectors = 1;
  static constexpr int kUnroll = 2;
  static constexpr bool kLaneBroadcast = true;
};

// A one-vector tile taller than kDirectRows: in place it runs as two shorter tiles.
struct TallShape {
  static constexpr int kTileRows = 13;
  static constexpr int kTileVectors = 1;
  static constexpr int kUnroll = 4;
  static constexpr bool kLaneBroadcast = false;
};

struct Scalars {
  float alpha, beta;
};
constexpr Scalars kScalars[] = {{1.0f, 0.0f}, {2.0f, 0.0f}, {0.5f, -1.5f}, {1.0f, 1.0f}};

class Checker {
 public:
  int failures = 0, checks = 0;
  std::string first;

  // C (rows x cols, ldc) against alpha A B + beta C0 in double precision, A (r, p) and B (p, j) given by functions.
  template <typename AAt, typename BAt>
  void compare(const char* what, const std::vector<float>& c, const std::vector<float>& c0, int64_t ldc, int64_t rows,
               int64_t cols, int64_t depth, Scalars e, AAt a_at, BAt b_at) {
    ++checks;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < depth; ++p) {
          sum += static_cast<double>(a_at(i, p)) * b_at(p, j);
          magnitude += std::fabs(static_cast<double>(a_at(i, p)) * b_at(p, j));
        }
        const size_t at = static_cast<size_t>(i * ldc + j);
        const double old = e.beta == 0.0f ? 0.0 : static_cast<double>(e.beta) * c0[at];
        const double want = e.alpha * sum + old;
        const double tolerance = 1e-5 * (std::fabs(e.alpha) * magnitude + std::fabs(old)) + 1e-6;
        if (!(std::fabs(c[at] - want) <= tolerance)) {
          if (failures++ == 0)
            first = std::string(what) + " " + std::to_string(rows) + "x" + std::to_string(cols) + "x" +
                    std::to_string(depth) + " alpha " + std::to_string(e.alpha) + " beta " + std::to_string(e.beta) +
                    ": C(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(c[at]) +
                    ", want " + std::to_string(want);
          return;
        }
      }
    for (int64_t i = 0; i < rows; ++i)  // nothing past the columns is written
      for (int64_t j = cols; j < ldc; ++j)
        if (std::memcmp(&c[static_cast<size_t>(i * ldc + j)], &c0[static_cast<size_t>(i * ldc + j)], sizeof(float))) {
          if (failures++ == 0) first = std::string(what) + ": wrote past its columns";
          return;
        }
  }
};

float value(int64_t seed) { return static_cast<float>((seed * 7919) % 97) / 97.0f - 0.5f; }

// C0: beta == 0 must never read C, so it starts as NaN there.
std::vector<float> initial_c(size_t size, Scalars e) {
  std::vector<float> c(size);
  for (size_t i = 0; i < size; ++i) c[i] = e.beta == 0.0f ? std::nanf("") : value(static_cast<int64_t>(i) + 5);
  return c;
}

// One register tile from packed A, and B packed (kPacked) or in place (kStreamedB).
template <class Shape, Operands kOps>
void check_tiles(Checker& check, const char* what) {
  constexpr int64_t kMR = Shape::kTileRows, kNR = kTileColumns<Shape>;
  for (int64_t depth : {1, 2, 3, 7, 33})
    for (int64_t rows = 1; rows <= kMR; ++rows)
      for (int64_t cols : {int64_t{1}, int64_t{kLanes - 1}, int64_t{kLanes}, kNR - 1, kNR}) {
        if (cols < 1) continue;
        const int64_t lda = depth + 3, ldb = kOps == Operands::kStreamedB && depth > 2 ? cols + 2100 : cols + 5;
        std::vector<float> a(static_cast<size_t>(rows * lda)), b(static_cast<size_t>(depth * ldb + kNR));
        for (size_t i = 0; i < a.size(); ++i) a[i] = value(static_cast<int64_t>(i));
        for (size_t i = 0; i < b.size(); ++i) b[i] = value(static_cast<int64_t>(i) * 3 + 1);
        std::vector<float> a_panel(static_cast<size_t>(kMR * depth)), b_panel(static_cast<size_t>(kNR * depth));
        pack_a<Shape>(a.data(), lda, rows, depth, a_panel.data());
        pack_b<Shape>(b.data(), ldb, cols, depth, b_panel.data());
        for (const Scalars& e : kScalars) {
          const int64_t ldc = cols + 3;
          const std::vector<float> c0 = initial_c(static_cast<size_t>(rows * ldc), e);
          std::vector<float> c = c0;
          TileArgs t{
              depth, a_panel.data(), 0, nullptr, 0, c.data(), ldc, e.alpha, e.beta, rows, static_cast<int32_t>(cols)};
          t.b = kOps == Operands::kPacked ? b_panel.data() : b.data();
          t.ldb = kOps == Operands::kPacked ? 0 : ldb;
          one_tile<Shape, kOps>(t);
          check.compare(
              what, c, c0, ldc, rows, cols, depth, e, [&](int64_t i, int64_t p) { return a[size_t(i * lda + p)]; },
              [&](int64_t p, int64_t j) { return b[size_t(p * ldb + j)]; });
        }
      }
}

// A direct call: any rows, at most NR columns, A and B in place, under each of the dispatcher's flags.
template <class Shape>
void check_direct(Checker& check) {
  constexpr int64_t kMR = Shape::kTileRows, kNR = kTileColumns<Shape>;
  for (int64_t depth : {1, 2, 5, 8, 17, 64})
    for (int64_t rows : {int64_t{1}, int64_t{2}, kMR - 1, kMR, kMR + 1, 2 * kMR + 3, int64_t{40}})
      for (int64_t cols : {int64_t{1}, int64_t{2}, int64_t{kLanes / 2}, int64_t{kLanes - 1}, int64_t{kLanes},
                           int64_t{kLanes + 1}, kNR})
        for (int flags = 0; flags < 4; ++flags) {
          if (rows < 1 || cols < 1 || cols > kNR) continue;
          const int64_t lda = depth + 1, ldb = cols == 1 && flags == 3 ? 1 : cols + 3, ldc = cols + 2;
          std::vector<float> a(static_cast<size_t>(rows * lda)), b(static_cast<size_t>(depth * ldb + kNR));
          for (size_t i = 0; i < a.size(); ++i) a[i] = value(static_cast<int64_t>(i) + 11);
          for (size_t i = 0; i < b.size(); ++i) b[i] = value(static_cast<int64_t>(i) * 5 + 2);
          const Scalars& e = kScalars[static_cast<size_t>(flags)];
          const std::vector<float> c0 = initial_c(static_cast<size_t>(rows * ldc), e);
          std::vector<float> c = c0;
          TileArgs t{
              depth, a.data(), lda, b.data(), ldb, c.data(), ldc, e.alpha, e.beta, rows, static_cast<int32_t>(cols)};
          t.fetch_a_ahead = flags == 1;
          t.a_continues = flags == 1;
          t.c_from_beyond = flags == 2;
          t.fetch_b_ahead = flags == 2;
          direct<Shape>(t);
          check.compare(
              "direct", c, c0, ldc, rows, cols, depth, e,
              [&](int64_t i, int64_t p) { return a[size_t(i * lda + p)]; },
              [&](int64_t p, int64_t j) { return b[size_t(p * ldb + j)]; });
        }
}

// Row streams (1 to kStreamRowsMax rows across all of C) and wide rows (any rows, at most kWideVectors vectors).
void check_rows(Checker& check) {
  for (int64_t depth : {1, 3, 4, 9, 16, 17, 40})
    for (int64_t rows : {1, 2, 3, 4, 5, 7, 20})
      for (int64_t cols : {int64_t{1}, int64_t{7}, int64_t{3 * kLanes + 1}, int64_t{kWideVectors * kLanes}})
        for (int variant = 0; variant < 4; ++variant) {
          const bool streams = rows <= kStreamRowsMax && variant < 2;
          const int64_t lda = depth + 2, ldb = cols + 1, ldc = cols + 4;
          std::vector<float> a(static_cast<size_t>(rows * lda)), b(static_cast<size_t>(depth * ldb));
          for (size_t i = 0; i < a.size(); ++i) a[i] = value(static_cast<int64_t>(i) + 3);
          for (size_t i = 0; i < b.size(); ++i) b[i] = value(static_cast<int64_t>(i) * 7 + 4);
          const Scalars& e = kScalars[static_cast<size_t>((variant + rows) % 4)];
          const std::vector<float> c0 = initial_c(static_cast<size_t>(rows * ldc), e);
          std::vector<float> c = c0;
          TileArgs t{
              depth, a.data(), lda, b.data(), ldb, c.data(), ldc, e.alpha, e.beta, rows, static_cast<int32_t>(cols)};
          t.b_rows_collide = variant == 1;
          t.fetch_a_ahead = variant == 2;
          t.c_from_beyond = variant == 3;
          if (streams)
            row_streams_of(t);
          else
            wide_rows(t);
          check.compare(
              streams ? "row streams" : "wide rows", c, c0, ldc, rows, cols, depth, e,
              [&](int64_t i, int64_t p) { return a[size_t(i * lda + p)]; },
              [&](int64_t p, int64_t j) { return b[size_t(p * ldb + j)]; });
        }
}

// Dot products over a B stored transposed (N x K, ldb apart), any rows and columns; and the transposing copy of an
// operand, against its definition, over every edge of its blocks, with nothing written past the copy.
void check_transposed(Checker& check) {
  for (int64_t depth : {int64_t{1}, int64_t{5}, int64_t{kLanes}, int64_t{kLanes + 3}, int64_t{3 * kLanes + 1}})
    for (int64_t rows : {1, 3, 4, 6, 9})
      for (int64_t cols : {1, 2, 3, 4, 5, 9})
        for (int variant = 0; variant < 4; ++variant) {
          const int64_t lda = depth + 2, ldb = depth + 3, ldc = cols + 2;
          std::vector<float> a(static_cast<size_t>(rows * lda)), bt(static_cast<size_t>(cols * ldb));
          for (size_t i = 0; i < a.size(); ++i) a[i] = value(static_cast<int64_t>(i) + 13);
          for (size_t i = 0; i < bt.size(); ++i) bt[i] = value(static_cast<int64_t>(i) * 3 + 8);
          const Scalars& e = kScalars[static_cast<size_t>(variant)];
          const std::vector<float> c0 = initial_c(static_cast<size_t>(rows * ldc), e);
          std::vector<float> c = c0;
          TileArgs t{
              depth, a.data(), lda, bt.data(), ldb, c.data(), ldc, e.alpha, e.beta, rows, static_cast<int32_t>(cols)};
          t.fetch_b_ahead = variant >= 2;  // the requests for the next group's rows change nothing computed
          dots(t);
          check.compare(
              "dots", c, c0, ldc, rows, cols, depth, e, [&](int64_t i, int64_t p) { return a[size_t(i * lda + p)]; },
              [&](int64_t p, int64_t j) { return bt[size_t(j * ldb + p)]; });
        }
  for (int64_t rows :
       {int64_t{1}, int64_t{2}, int64_t{kLanes - 1}, int64_t{kLanes}, int64_t{kLanes + 1}, int64_t{2 * kLanes + 5}})
    for (int64_t cols : {int64_t{1}, int64_t{3}, int64_t{kLanes}, int64_t{kLanes + 2}, int64_t{3 * kLanes}}) {
      ++check.checks;
      const int64_t ld = cols + 3;
      std::vector<float> src(static_cast<size_t>(rows * ld)), dst(static_cast<size_t>(rows * cols + kLanes), -7.0f);
      for (size_t i = 0; i < src.size(); ++i) src[i] = value(static_cast<int64_t>(i));
      copy_transposed(src.data(), ld, rows, cols, dst.data());
      bool right = true;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) right = right && dst[size_t(c * rows + r)] == src[size_t(r * ld + c)];
      for (size_t i = static_cast<size_t>(rows * cols); i < dst.size(); ++i) right = right && dst[i] == -7.0f;
      if (!right && check.failures++ == 0)
        check.first = "copy_transposed " + std::to_string(rows) + "x" + std::to_string(cols);
    }
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

// The number of failed checks (0: all passed); `checks` gets how many ran, `first` the first failure.
int STRATA_TEST_ENTRY(int* checks, std::string* first) {
  using namespace STRATA_PACKAGE_INTERNAL;
  Checker check;
  check_tiles<TwoVectorShape, Operands::kPacked>(check, "packed 5x2v");
  check_tiles<TwoVectorShape, Operands::kStreamedB>(check, "streamed 5x2v");
  check_tiles<LaneShape, Operands::kPacked>(check, "packed lane tile");
  check_tiles<LaneShape, Operands::kStreamedB>(check, "streamed lane tile");
  check_tiles<TallShape, Operands::kPacked>(check, "packed 13x1v");
  check_direct<TwoVectorShape>(check);
  check_direct<LaneShape>(check);
  check_direct<TallShape>(check);
  check_rows(check);
  check_transposed(check);
  *checks = check.checks;
  *first = check.first;
  return check.failures;
}
