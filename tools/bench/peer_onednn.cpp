// oneDNN peer: dnnl_sgemm, which is row-major, from Debian's libdnnl. Debian builds oneDNN with the OpenMP CPU
// runtime, so its thread count is OpenMP's.
#include <dnnl.h>
#include <omp.h>

#include <cstdio>

#include "peer_api.h"

namespace {

const char* Describe() {
  static char text[256];
  const dnnl_version_t* v = dnnl_version();
  std::snprintf(text, sizeof(text), "oneDNN %d.%d.%d (%s), threads: OpenMP (%s runtime)", v->major, v->minor,
                v->patch, v->hash, DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP ? "OMP" : "non-OMP");
  return text;
}

int32_t SetThreads(int32_t threads) {
  // Only an OpenMP build takes its thread count from omp_set_num_threads.
  if (DNNL_CPU_RUNTIME != DNNL_RUNTIME_OMP && threads != 1) return STRATA_BENCH_PEER_UNSUPPORTED;
  omp_set_num_threads(threads);
  return STRATA_BENCH_PEER_OK;
}

int32_t Sgemm(int32_t trans_a, int32_t trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return status == dnnl_success ? STRATA_BENCH_PEER_OK : STRATA_BENCH_PEER_ERROR;
}

const StrataBenchPeer kPeer = {STRATA_BENCH_PEER_ABI_VERSION, "onednn", &Describe, &SetThreads, &Sgemm};

}  // namespace

extern "C" STRATA_BENCH_PEER_EXPORT const StrataBenchPeer* strata_bench_peer(void) { return &kPeer; }
