// Operands of one problem and the check of a library's result against a double-precision reference.
#ifndef STRATA_TOOLS_BENCH_REFERENCE_H_
#define STRATA_TOOLS_BENCH_REFERENCE_H_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "library.h"
#include "shapes.h"

namespace strata_bench {

// A 64-byte aligned float array, left uninitialised (operands of a gigabyte are filled once, not zeroed first).
struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using FloatBuffer = std::unique_ptr<float[], FreeDeleter>;
FloatBuffer AllocateFloats(int64_t count);  // nullptr when out of memory

// A, B and the initial C of one shape, dense row-major, filled deterministically with values in [-1, 1]. With
// trans_a (trans_b) the calls take A (B) stored transposed, a copy made once: K x M (N x K), dense.
struct Operands {
  Shape shape;
  float alpha = 1.0f, beta = 0.0f;
  FloatBuffer a, b, c0;  // c0: the C that every call starts from when beta != 0 (null when beta == 0)
  bool trans_a = false, trans_b = false;
  FloatBuffer a_stored, b_stored;  // the transposed copies the calls read, where trans_a / trans_b
};
bool MakeOperands(const Shape& shape, float alpha, float beta, bool trans_a, bool trans_b, Operands* operands);

// Prepares C for a checked call: a copy of c0, or NaN everywhere when beta == 0, which the call must then never
// read (BLAS semantics) - a library that computes beta * C anyway turns the NaN into a failed check.
void ResetC(const Operands& operands, float* c);

// The reference values of a fixed set of C entries: all of them for small problems, for large ones a grid of rows
// and columns that includes the first and last ones (where register-tile edges are) and spread ones between.
class Reference {
 public:
  explicit Reference(const Operands& operands);

  struct Outcome {
    bool pass = false;
    int64_t checked = 0;       // entries compared
    double worst_ratio = 0.0;  // max |error| / tolerance over them (> 1 fails; infinite for NaN)
  };
  Outcome Check(const float* c) const;

 private:
  int64_t ldc_;
  std::vector<int64_t> rows_, cols_;
  std::vector<double> expected_, tolerance_;  // per (row, column) pair, row-major over rows_ x cols_
};

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_REFERENCE_H_
