// OpenBLAS peer: cblas_sgemm, row-major, from Debian's libopenblas (the pthread variant; see CMakeLists.txt).
#include <cblas.h>

#include <cstdio>

#include "peer_api.h"

namespace {

const char* Describe() {
  static char text[256];
  // The core name is the kernel set OpenBLAS's DYNAMIC_ARCH build picked for this CPU at run time.
  std::snprintf(text, sizeof(text), "OpenBLAS (%s; core %s), threads: OpenBLAS pthread pool", openblas_get_config(),
                openblas_get_corename());
  return text;
}

int32_t SetThreads(int32_t threads) {
  openblas_set_num_threads(threads);
  return STRATA_BENCH_PEER_OK;
}

int32_t Sgemm(int32_t trans_a, int32_t trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // Debian's libopenblas uses 32-bit BLAS integers; every suite shape fits, but a larger one must not wrap.
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX) {
    return STRATA_BENCH_PEER_UNSUPPORTED;
  }
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n),
              static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c,
              static_cast<blasint>(ldc));
  return STRATA_BENCH_PEER_OK;
}

const StrataBenchPeer kPeer = {STRATA_BENCH_PEER_ABI_VERSION, "openblas", &Describe, &SetThreads, &Sgemm};

}  // namespace

extern "C" STRATA_BENCH_PEER_EXPORT const StrataBenchPeer* strata_bench_peer(void) { return &kPeer; }
