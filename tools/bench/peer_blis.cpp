// BLIS peer: the typed API bli_sgemm, which takes row and column strides and so runs row-major operands natively
// (no transposition trick), from Debian's libblis (the pthread variant; see CMakeLists.txt).
#include <blis.h>

#include <cstdio>

#include "peer_api.h"

namespace {

const char* Describe() {
  static char text[256];
  // The configuration is the sub-configuration BLIS's run-time dispatch chose for this CPU (e.g. skx, zen3).
  std::snprintf(text, sizeof(text), "BLIS %s (configuration %s), threads: BLIS pthreads", bli_info_get_version_str(),
                bli_arch_string(bli_arch_query_id()));
  return text;
}

int32_t SetThreads(int32_t threads) {
  bli_thread_set_num_threads(threads);
  return STRATA_BENCH_PEER_OK;
}

int32_t Sgemm(int32_t trans_a, int32_t trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // BLIS's typed API is not const-correct for its inputs; it only reads them.
  bli_sgemm(trans_a ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, trans_b ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, m, n, k, &alpha, const_cast<float*>(a), lda, 1,
            const_cast<float*>(b), ldb, 1, &beta, c, ldc, 1);
  return STRATA_BENCH_PEER_OK;
}

const StrataBenchPeer kPeer = {STRATA_BENCH_PEER_ABI_VERSION, "blis", &Describe, &SetThreads, &Sgemm};

}  // namespace

extern "C" STRATA_BENCH_PEER_EXPORT const StrataBenchPeer* strata_bench_peer(void) { return &kPeer; }
