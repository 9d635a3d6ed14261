// Time per element of the kernels' pack_a (A's micro-panels) on blocks warm in cache, best of 200 calls. Links
// against a package generated for this host by tools/bench.sh (named bench_sgemm, its kernels listed below).
// Build: g++ -O2 -o pack_a_cost pack_a_cost.cpp build/bench/pkg/build/libbench_sgemm.a -lpthread
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace bench_sgemm_internal {
void ukernel_avx2_6x16_k4_pack_a(const float*, int64_t, int64_t, int64_t, float*);
void ukernel_avx2_4x24_k8_pack_a(const float*, int64_t, int64_t, int64_t, float*);
void ukernel_avx2_12x8_k2_pack_a(const float*, int64_t, int64_t, int64_t, float*);
void ukernel_avx2_6x16_k4_pack_b(const float*, int64_t, int64_t, int64_t, float*);
}  // namespace bench_sgemm_internal

using Pack = void (*)(const float*, int64_t, int64_t, int64_t, float*);

double best_seconds(Pack pack, const float* a, int64_t lda, int64_t rows, int64_t depth, float* out) {
  double best = 1e9;
  for (int r = 0; r < 200; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    pack(a, lda, rows, depth, out);
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

int main() {
  using namespace bench_sgemm_internal;
  std::vector<float> a(2048 * 2048, 1.0f), out(1 << 20);
  const struct {
    const char* name;
    Pack pack;
    int64_t rows, depth;
  } cases[] = {
      {"6x16 pack_a 144x192", ukernel_avx2_6x16_k4_pack_a, 144, 192},
      {"4x24 pack_a 128x256", ukernel_avx2_4x24_k8_pack_a, 128, 256},
      {"12x8 pack_a 72x32", ukernel_avx2_12x8_k2_pack_a, 72, 32},
      {"6x16 pack_b 192x256", ukernel_avx2_6x16_k4_pack_b, 256, 192},
  };
  for (const auto& c : cases) {
    const double s = best_seconds(c.pack, a.data(), 2048, c.rows, c.depth, out.data());
    std::printf("%-24s %8.2f us  %.3f ns per element\n", c.name, s * 1e6, s * 1e9 / double(c.rows * c.depth));
  }
}
