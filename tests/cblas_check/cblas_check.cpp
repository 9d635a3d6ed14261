// Checks a package's cblas_sgemm against OpenBLAS's on every order x transA x transB (ConjTrans included) over edge
// shapes, padded leading dimensions and alpha/beta pairs, one and two threads. Prints one line per disagreement and
// a summary "cblas_check: N agreed, M disagreed"; exits 0 only when all agree.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include PKG_HEADER

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PKG, CAT(_, name))

int main() {
  std::mt19937 rng(20261127);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const int sizes[] = {0, 1, 2, 3, 7, 8, 9, 13, 16, 17, 31, 33, 48, 49, 61, 97, 127, 257};
  const float scalars[][2] = {{1.0f, 0.0f}, {0.5f, -2.0f}, {-1.0f, 1.0f}, {0.0f, 0.5f}};
  const CBLAS_ORDER orders[] = {CblasRowMajor, CblasColMajor};
  const CBLAS_TRANSPOSE transposes[] = {CblasNoTrans, CblasTrans, CblasConjTrans};
  long agreed = 0, disagreed = 0;
  int pick = 0;
  for (int threads : {1, 2}) {
    if (API(set_num_threads)(threads) != 0) return 1;
    for (int M : sizes)
      for (int N : sizes)
        for (int K : sizes) {
          // Every shape with a side of at most 3, and a sparse, deterministic third of the others.
          if (std::min({M, N, K}) > 3 && (M + 3 * N + 7 * K + threads) % 3 != 0) continue;
          for (CBLAS_ORDER order : orders)
            for (CBLAS_TRANSPOSE ta : transposes)
              for (CBLAS_TRANSPOSE tb : transposes) {
                ++pick;
                const bool row = order == CblasRowMajor, a_t = ta != CblasNoTrans, b_t = tb != CblasNoTrans;
                // The stored shapes (rows x columns of the storage order) and padded leading dimensions.
                const int a_rows = row ? (a_t ? K : M) : (a_t ? M : K), a_cols = row ? (a_t ? M : K) : (a_t ? K : M);
                const int b_rows = row ? (b_t ? N : K) : (b_t ? K : N), b_cols = row ? (b_t ? K : N) : (b_t ? N : K);
                const int c_rows = row ? M : N, c_cols = row ? N : M;
                const int pad = pick % 3 == 0 ? 0 : pick % 3 == 1 ? 3 : 64;
                const int lda = std::max(1, a_cols) + pad, ldb = std::max(1, b_cols) + pad,
                          ldc = std::max(1, c_cols) + pad;
                std::vector<float> a(static_cast<size_t>(std::max(1, a_rows * lda))),
                    b(static_cast<size_t>(std::max(1, b_rows * ldb))),
                    c(static_cast<size_t>(std::max(1, c_rows * ldc)));
                for (float& x : a) x = value(rng);
                for (float& x : b) x = value(rng);
                for (float& x : c) x = value(rng);
                std::vector<float> want = c;
                const float alpha = scalars[pick % 4][0], beta = scalars[pick % 4][1];
                cblas_sgemm(order, ta, tb, M, N, K, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc);
                const int status = API(cblas_sgemm)(order, ta, tb, M, N, K, alpha, a.data(), lda, b.data(), ldb, beta,
                                                    c.data(), ldc);
                double worst = 0.0;
                for (size_t i = 0; i < c.size(); ++i)
                  worst = std::max(worst, static_cast<double>(std::fabs(c[i] - want[i])));
                const double tolerance = 1e-5 * (K + 1) * (std::fabs(alpha) + std::fabs(beta) + 1.0);
                if (status == 0 && worst <= tolerance) {
                  ++agreed;
                } else if (disagreed++ < 20) {
                  std::printf(
                      "disagree: order %d transA %d transB %d %dx%dx%d lda %d ldb %d ldc %d alpha %g beta %g "
                      "threads %d: returned %d, largest difference %g\n",
                      order, ta, tb, M, N, K, lda, ldb, ldc, alpha, beta, threads, status, worst);
                }
              }
        }
  }
  std::printf("cblas_check: %ld agreed, %ld disagreed\n", agreed, disagreed);
  return disagreed == 0 && agreed > 0 ? 0 : 1;
}
