// Eigen peer: a noalias() product of row-major Maps. Eigen is header-only, so this file is compiled with
// -march=native (as an application using Eigen on this host would be) and with OpenMP, which is how Eigen
// parallelises its products.
#include <Eigen/Core>
#include <cstdio>

#include "peer_api.h"

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

const char* Describe() {
  static char text[256];
  std::snprintf(text, sizeof(text), "Eigen %d.%d.%d (%s), threads: %s", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                EIGEN_MINOR_VERSION, Eigen::SimdInstructionSetsInUse(),
#ifdef EIGEN_HAS_OPENMP
                "OpenMP"
#else
                "none (built without OpenMP)"
#endif
  );
  return text;
}

int32_t SetThreads(int32_t threads) {
#ifndef EIGEN_HAS_OPENMP
  if (threads != 1) return STRATA_BENCH_PEER_UNSUPPORTED;
#endif
  Eigen::setNbThreads(threads);
  return STRATA_BENCH_PEER_OK;
}

int32_t Sgemm(int32_t trans_a, int32_t trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // A transposed operand is a Map of the stored matrix, transposed in the expression.
  const ConstMap a_map(a, trans_a ? k : m, trans_a ? m : k, Eigen::OuterStride<>(lda));
  const ConstMap b_map(b, trans_b ? n : k, trans_b ? k : n, Eigen::OuterStride<>(ldb));
  Map c_map(c, m, n, Eigen::OuterStride<>(ldc));
  const auto product = [&](auto&& op_a, auto&& op_b) {
    if (beta == 0.0f) {
      // Assignment, not c = 0 * c + ...: with beta = 0 the old C must not be read (it may hold NaN).
      c_map.noalias() = alpha * (op_a * op_b);
    } else {
      if (beta != 1.0f) c_map *= beta;
      c_map.noalias() += alpha * (op_a * op_b);
    }
  };
  if (trans_a && trans_b)
    product(a_map.transpose(), b_map.transpose());
  else if (trans_a)
    product(a_map.transpose(), b_map);
  else if (trans_b)
    product(a_map, b_map.transpose());
  else
    product(a_map, b_map);
  return STRATA_BENCH_PEER_OK;
}

const StrataBenchPeer kPeer = {STRATA_BENCH_PEER_ABI_VERSION, "eigen", &Describe, &SetThreads, &Sgemm};

}  // namespace

extern "C" STRATA_BENCH_PEER_EXPORT const StrataBenchPeer* strata_bench_peer(void) { return &kPeer; }
