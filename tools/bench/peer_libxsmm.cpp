// LIBXSMM peer, from Debian's libxsmm-dev (static libraries only: libxsmm, libxsmmext, libxsmmnoblas).
//
// LIBXSMM is column-major, so row-major C = A * B is computed as the column-major C^T = B^T * A^T: B is passed as
// the first operand and A as the second, with their leading dimensions unchanged.
//
// Two paths, as LIBXSMM's own front end (libxsmm_sgemm / libxsmm_sgemm_omp) would take them:
//  - M * N * K <= LIBXSMM_MAX_MNK: one JIT-generated kernel for the whole call (libxsmm_smmdispatch), which is
//    single-threaded by design; LIBXSMM parallelises small GEMMs by batching, not within one.
//  - larger: the tiled GEMM handle of libxsmmext (what libxsmm_sgemm_omp runs), its tiles spread over OpenMP
//    threads with libxsmm_gemm_thread.
// Where LIBXSMM has neither (no kernel or no handle, e.g. for an alpha it does not support), its front end would
// quietly call the system BLAS instead; that would time some other library under LIBXSMM's name, so this peer
// reports the call as unsupported. The BLAS symbols LIBXSMM references are satisfied by libxsmmnoblas, whose
// stubs are never reached here.
#include <libxsmm.h>
#include <omp.h>

#include <cstdio>

#include "peer_api.h"

namespace {

int32_t g_threads = 1;

const char* Describe() {
  static char text[256];
  std::snprintf(text, sizeof(text),
                "LIBXSMM %s (target %s), threads: JIT kernel single-threaded up to M*N*K = %d, above it the "
                "libxsmmext tiled GEMM on OpenMP",
                LIBXSMM_VERSION, libxsmm_get_target_arch(), LIBXSMM_MAX_MNK);
  return text;
}

int32_t SetThreads(int32_t threads) {
  g_threads = threads;
  return STRATA_BENCH_PEER_OK;
}

// The whole (column-major) call as one JIT kernel; false when LIBXSMM has none for it.
bool RunSmallKernel(libxsmm_blasint m, libxsmm_blasint n, libxsmm_blasint k, float alpha, const float* a,
                    libxsmm_blasint lda, const float* b, libxsmm_blasint ldb, float beta, float* c,
                    libxsmm_blasint ldc) {
  const int flags = LIBXSMM_GEMM_FLAG_NONE;
  const libxsmm_smmfunction kernel = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, nullptr);
  if (kernel == nullptr) return false;
  kernel(a, b, c);
  return true;
}

// libxsmm_xgemm_omp without its BLAS fall-back; false when LIBXSMM has no handle for the call.
bool RunTiled(libxsmm_blasint m, libxsmm_blasint n, libxsmm_blasint k, float alpha, const float* a,
              libxsmm_blasint lda, const float* b, libxsmm_blasint ldb, float beta, float* c, libxsmm_blasint ldc) {
  const int threads = g_threads;
  libxsmm_gemm_blob blob;
  const libxsmm_gemm_handle* handle =
      libxsmm_gemm_handle_init(&blob, LIBXSMM_GEMM_PRECISION_F32, LIBXSMM_GEMM_PRECISION_F32, "N", "N", &m, &n, &k,
                               &lda, &ldb, &ldc, &alpha, &beta, LIBXSMM_GEMM_HANDLE_FLAG_AUTO, threads);
  if (handle == nullptr) return false;
  const size_t scratch_size = libxsmm_gemm_handle_get_scratch_size(handle);
  void* scratch = nullptr;
  if (scratch_size > 0) {
    scratch = libxsmm_aligned_scratch(scratch_size, 0 /* LIBXSMM's default alignment */);
    if (scratch == nullptr) return false;
  }
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    libxsmm_gemm_thread(handle, scratch, a, b, c, omp_get_thread_num(), omp_get_num_threads());
  } else {
    libxsmm_gemm_thread(handle, scratch, a, b, c, 0, 1);
  }
  libxsmm_free(scratch);
  return true;
}

int32_t Sgemm(int32_t trans_a, int32_t trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // LIBXSMM's dispatch of these calls takes no transposes: only NN runs natively.
  if (trans_a || trans_b) return STRATA_BENCH_PEER_UNSUPPORTED;
  // Swapped operands: column-major (N x M) = (N x K) * (K x M).
  const libxsmm_blasint cm = n, cn = m, ck = k;
  if (static_cast<double>(cm) * cn * ck <= LIBXSMM_MAX_MNK &&
      RunSmallKernel(cm, cn, ck, alpha, b, ldb, a, lda, beta, c, ldc)) {
    return STRATA_BENCH_PEER_OK;
  }
  return RunTiled(cm, cn, ck, alpha, b, ldb, a, lda, beta, c, ldc) ? STRATA_BENCH_PEER_OK
                                                                   : STRATA_BENCH_PEER_UNSUPPORTED;
}

const StrataBenchPeer kPeer = {STRATA_BENCH_PEER_ABI_VERSION, "libxsmm", &Describe, &SetThreads, &Sgemm};

}  // namespace

extern "C" STRATA_BENCH_PEER_EXPORT const StrataBenchPeer* strata_bench_peer(void) {
  libxsmm_init();
  return &kPeer;
}
