// The C ABI between the benchmark driver and one peer library's plugin.
//
// Each peer (OpenBLAS, BLIS, oneDNN, Eigen, LIBXSMM) is built into its own shared object that links that one
// library and nothing else, and the driver dlopen()s it with RTLD_LOCAL | RTLD_DEEPBIND. OpenBLAS and BLIS both
// export cblas_sgemm and sgemm_, and LIBXSMM carries BLAS stubs of the same names; linked into one executable they
// would silently bind to whichever came first. A plain C struct of function pointers keeps the boundary free of
// C++ ABI and exception concerns.
#ifndef STRATA_TOOLS_BENCH_PEER_API_H_
#define STRATA_TOOLS_BENCH_PEER_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bumped whenever the struct below changes, so a stale plugin is refused instead of called wrongly.
#define STRATA_BENCH_PEER_ABI_VERSION 2

// What sgemm returns.
enum {
  STRATA_BENCH_PEER_OK = 0,
  STRATA_BENCH_PEER_UNSUPPORTED = 1,  // the library has no native path for this call (it would fall back elsewhere)
  STRATA_BENCH_PEER_ERROR = 2         // the library reported an error
};

typedef struct {
  int32_t abi_version;  // STRATA_BENCH_PEER_ABI_VERSION
  const char* name;     // short id used in the CSV files, e.g. "openblas"
  // Version and configuration, for the report (e.g. the kernel set or the threading runtime).
  const char* (*describe)(void);
  // Use at most `threads` threads from now on; returns STRATA_BENCH_PEER_OK or STRATA_BENCH_PEER_UNSUPPORTED.
  int32_t (*set_threads)(int32_t threads);
  // Row-major C (M x N) = alpha * op(A) * op(B) + beta * C, op(X) = X^T where trans_x is 1 (A then stored K x M, B
  // N x K, both row-major); leading dimensions in elements.
  int32_t (*sgemm)(int32_t trans_a, int32_t trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                   int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
} StrataBenchPeer;

// The one symbol a plugin exports.
typedef const StrataBenchPeer* (*StrataBenchPeerEntry)(void);
#define STRATA_BENCH_PEER_ENTRY "strata_bench_peer"

#if defined(__GNUC__)
#define STRATA_BENCH_PEER_EXPORT __attribute__((visibility("default")))
#else
#define STRATA_BENCH_PEER_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif  // STRATA_TOOLS_BENCH_PEER_API_H_
