// Cost of storing the first 6 lanes of a ymm vector three ways: VMASKMOVPS (_mm256_maskstore_ps), a whole
// unaligned store (the upper bound: writes 8 lanes), and a 128-bit store plus a 64-bit store (what simd_avx2.h's
// store_prefix does for 6 lanes). Each store depends on a vaddps chain, so modes 1 and 2 are bound by it.
// Build: g++ -O2 -mavx2 -mfma -o masked_store_cost masked_store_cost.cpp
#include <immintrin.h>

#include <chrono>
#include <cstdio>

alignas(64) float buf[4096];

int main() {
  const __m256i mask = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
  __m256 v = _mm256_set1_ps(1.f);
  constexpr int kRounds = 20000, kStores = (4096 - 8 + 5) / 6;
  const char* names[] = {"vmaskmovps", "vmovups (8 lanes)", "movups + movlps"};
  for (int mode = 0; mode < 3; ++mode) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < kRounds; ++it)
      for (int i = 0; i < 4096 - 8; i += 6) {
        float* p = buf + i;
        if (mode == 0) {
          _mm256_maskstore_ps(p, mask, v);
        } else if (mode == 1) {
          _mm256_storeu_ps(p, v);
        } else {
          _mm_storeu_ps(p, _mm256_castps256_ps128(v));
          _mm_storel_pi(reinterpret_cast<__m64*>(p + 4), _mm256_extractf128_ps(v, 1));
        }
        v = _mm256_add_ps(v, v);
      }
    const auto t1 = std::chrono::steady_clock::now();
    const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / (double{kRounds} * kStores);
    std::printf("%-20s %.2f ns per store\n", names[mode], ns);
  }
}
