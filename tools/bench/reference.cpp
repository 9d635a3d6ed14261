#include "reference.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <set>

namespace strata_bench {

namespace {

// Entirely checked below this many multiply-adds (about 0.1 s of double arithmetic) and entries of C.
constexpr double kFullCheckMacs = 1.5e8;
constexpr int64_t kFullCheckEntries = int64_t{1} << 20;
// Sampled checks: rows and columns taken at each end and spread between.
constexpr int64_t kHeadRows = 4, kTailRows = 4, kSpreadRows = 16;
// More columns at the end: vector and register-tile remainders are there.
constexpr int64_t kHeadCols = 4, kTailCols = 20, kSpreadCols = 16;
// Error allowed per entry, in units of fp32 rounding of the products' root-sum-square times sqrt(K). Rounding in a
// sum of K terms grows like sqrt(K) times the partial sums, which themselves grow like sqrt(K) times the terms,
// so this is many times the typical error of any summation order, while one missing or doubled term (or a wrong
// k block) is far outside it.
constexpr double kToleranceFactor = 16.0;

// Deterministic values in [-1, 1]: runs are comparable and a wrong result reproduces.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed * 2 + 1) {}
  float Next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    // The top 24 bits; the low bits of an LCG are too regular to use.
    return static_cast<float>(static_cast<int64_t>(state_ >> 40) - (int64_t{1} << 23)) /
           static_cast<float>(int64_t{1} << 23);
  }

 private:
  uint64_t state_;
};

void Fill(float* data, int64_t count, uint64_t seed) {
  Lcg lcg(seed);
  for (int64_t i = 0; i < count; ++i) data[i] = lcg.Next();
}

std::vector<int64_t> AllIndices(int64_t extent) {
  std::vector<int64_t> all(static_cast<size_t>(extent));
  for (int64_t i = 0; i < extent; ++i) all[static_cast<size_t>(i)] = i;
  return all;
}

std::vector<int64_t> SampleIndices(int64_t extent, int64_t head, int64_t tail, int64_t spread) {
  if (extent <= head + tail + spread) return AllIndices(extent);
  std::set<int64_t> picked;
  for (int64_t i = 0; i < head; ++i) picked.insert(i);
  for (int64_t i = extent - tail; i < extent; ++i) picked.insert(i);
  // The middles of `spread` equal segments between head and tail, each moved on by its segment number so that
  // the samples do not all sit at the same offset within a tile.
  const int64_t middle = extent - head - tail;
  for (int64_t s = 0; s < spread; ++s) {
    picked.insert(head + std::min(middle - 1, (2 * s + 1) * middle / (2 * spread) + s));
  }
  return std::vector<int64_t>(picked.begin(), picked.end());
}

}  // namespace

FloatBuffer AllocateFloats(int64_t count) {
  const size_t bytes = (static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(float) + 63) / 64 * 64;
  return FloatBuffer(static_cast<float*>(std::aligned_alloc(64, bytes)));
}

namespace {

// The rows x cols row-major matrix `from`, transposed: cols x rows, row-major.
FloatBuffer Transposed(const float* from, int64_t rows, int64_t cols) {
  FloatBuffer to = AllocateFloats(rows * cols);
  if (to == nullptr) return to;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) to[j * rows + i] = from[i * cols + j];
  return to;
}

}  // namespace

bool MakeOperands(const Shape& shape, float alpha, float beta, bool trans_a, bool trans_b, Operands* operands) {
  operands->shape = shape;
  operands->alpha = alpha;
  operands->beta = beta;
  operands->a = AllocateFloats(shape.m * shape.k);
  operands->b = AllocateFloats(shape.k * shape.n);
  if (operands->a == nullptr || operands->b == nullptr) return false;
  Fill(operands->a.get(), shape.m * shape.k, 1);
  Fill(operands->b.get(), shape.k * shape.n, 2);
  operands->trans_a = trans_a;
  operands->trans_b = trans_b;
  operands->a_stored = trans_a ? Transposed(operands->a.get(), shape.m, shape.k) : nullptr;
  operands->b_stored = trans_b ? Transposed(operands->b.get(), shape.k, shape.n) : nullptr;
  if ((trans_a && operands->a_stored == nullptr) || (trans_b && operands->b_stored == nullptr)) return false;
  operands->c0.reset();
  if (beta != 0.0f) {
    operands->c0 = AllocateFloats(shape.m * shape.n);
    if (operands->c0 == nullptr) return false;
    Fill(operands->c0.get(), shape.m * shape.n, 3);
  }
  return true;
}

void ResetC(const Operands& operands, float* c) {
  const int64_t count = operands.shape.m * operands.shape.n;
  if (operands.c0 != nullptr) {
    std::copy(operands.c0.get(), operands.c0.get() + count, c);
  } else {
    std::fill(c, c + count, std::numeric_limits<float>::quiet_NaN());
  }
}

Reference::Reference(const Operands& operands) : ldc_(operands.shape.n) {
  const Shape& s = operands.shape;
  if (static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) <= kFullCheckMacs &&
      s.m * s.n <= kFullCheckEntries) {
    rows_ = AllIndices(s.m);
    cols_ = AllIndices(s.n);
  } else {
    rows_ = SampleIndices(s.m, kHeadRows, kTailRows, kSpreadRows);
    cols_ = SampleIndices(s.n, kHeadCols, kTailCols, kSpreadCols);
  }
  const size_t width = cols_.size();
  expected_.assign(rows_.size() * width, 0.0);
  tolerance_.assign(rows_.size() * width, 0.0);
  std::vector<double> sum(width), sum_squares(width);
  const float* a = operands.a.get();
  const float* b = operands.b.get();
  for (size_t r = 0; r < rows_.size(); ++r) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(sum_squares.begin(), sum_squares.end(), 0.0);
    const float* a_row = a + rows_[r] * s.k;
    // k outer, columns inner: one pass over B's rows instead of a strided walk down each column.
    for (int64_t p = 0; p < s.k; ++p) {
      const double a_value = a_row[p];
      const float* b_row = b + p * s.n;
      for (size_t j = 0; j < width; ++j) {
        const double product = a_value * b_row[cols_[j]];
        sum[j] += product;
        sum_squares[j] += product * product;
      }
    }
    for (size_t j = 0; j < width; ++j) {
      const double c_start = operands.c0 != nullptr ? operands.c0[rows_[r] * s.n + cols_[j]] : 0.0;
      const double scaled_c = static_cast<double>(operands.beta) * c_start;
      const double value = static_cast<double>(operands.alpha) * sum[j] + scaled_c;
      expected_[r * width + j] = value;
      const double spread = std::fabs(operands.alpha) * std::sqrt(static_cast<double>(s.k) * sum_squares[j]);
      // FLT_EPSILON * |value|: the final rounding to float; FLT_MIN keeps an all-zero row from needing exactness.
      tolerance_[r * width + j] =
          FLT_EPSILON * (std::fabs(value) + kToleranceFactor * (spread + std::fabs(scaled_c))) + FLT_MIN;
    }
  }
}

Reference::Outcome Reference::Check(const float* c) const {
  Outcome outcome;
  outcome.pass = true;
  const size_t width = cols_.size();
  for (size_t r = 0; r < rows_.size(); ++r) {
    for (size_t j = 0; j < width; ++j) {
      const double got = c[rows_[r] * ldc_ + cols_[j]];
      const double error = std::fabs(got - expected_[r * width + j]);
      // A NaN error compares false with everything, so test finiteness explicitly.
      const double ratio =
          std::isfinite(got) ? error / tolerance_[r * width + j] : std::numeric_limits<double>::infinity();
      outcome.worst_ratio = std::max(outcome.worst_ratio, ratio);
      if (!(ratio <= 1.0)) outcome.pass = false;
      ++outcome.checked;
    }
  }
  return outcome;
}

}  // namespace strata_bench
