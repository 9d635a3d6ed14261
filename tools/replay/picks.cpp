// The dispatcher's pick for each call read from stdin, one "M N K threads" per line, printed as
// "M N K threads kernel packed plan_threads": what tools/replay.sh scores against a recorded oracle.csv.
//
// Build with -DREPLAY_PKG=<package name> and the package's include directory.
#include <cstdint>
#include <cstdio>

#define REPLAY_STR2(x) #x
#define REPLAY_STR(x) REPLAY_STR2(x)
#define REPLAY_CAT2(a, b) a##b
#define REPLAY_CAT(a, b) REPLAY_CAT2(a, b)  // REPLAY_CAT(REPLAY_PKG, _suffix): the package's function _suffix
#include REPLAY_STR(REPLAY_PKG.h)

int main() {
  long long M = 0, N = 0, K = 0;
  int threads = 0;
  std::printf("kernels %d\n", static_cast<int>(REPLAY_CAT(REPLAY_PKG, _kernel_count)()));
  while (std::scanf("%lld %lld %lld %d", &M, &N, &K, &threads) == 4) {
    REPLAY_CAT(REPLAY_PKG, _plan_t) plan;
    if (REPLAY_CAT(REPLAY_PKG, _set_num_threads)(threads) != 0 ||
        REPLAY_CAT(REPLAY_PKG, _plan)(M, N, K, &plan) != 0) {
      std::fprintf(stderr, "picks: no plan for %lldx%lldx%lld on %d threads\n", M, N, K, threads);
      return 1;
    }
    std::printf("%lld %lld %lld %d %d %d %d\n", M, N, K, threads, static_cast<int>(plan.kernel_id),
                static_cast<int>(plan.packed), static_cast<int>(plan.threads));
  }
  return 0;
}
