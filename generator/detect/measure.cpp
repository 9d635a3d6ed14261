#include "detect/measure.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "detect/host_system.h"

namespace strata::detect {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

template <class Work>
double seconds_of(Work&& work, int64_t n) {
  const Clock::time_point start = Clock::now();
  work(n);
  return seconds_since(start);
}

// The n for which work(n) takes about target_s: n doubles until one call takes >= 1 ms (which doubles as
// warm-up), then scales.
template <class Work>
int64_t calibrate(Work&& work, double target_s) {
  int64_t n = 1;
  double t = 0;
  while ((t = seconds_of(work, n)) < 1e-3) n *= 2;
  return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(n) * target_s / t));
}

// The best n / seconds of `reps` calls of work(n), each taking about target_s. Best, not mean: on a shared or
// virtual machine interference only ever slows a run down.
template <class Work>
double best_rate(Work&& work, double target_s, int reps) {
  const int64_t n = calibrate(work, target_s);
  double best = 0;
  for (int r = 0; r < reps; ++r) best = std::max(best, static_cast<double>(n) / seconds_of(work, n));
  return best;
}

// Runs fn(0..threads-1) concurrently, released together once all threads exist; the caller runs fn(0).
template <class Fn>
void run_together(int threads, Fn&& fn) {
  if (threads <= 1) {
    fn(0);
    return;
  }
  std::atomic<int> arrived{0};
  auto body = [&](int t) {
    arrived.fetch_add(1);
    while (arrived.load() < threads) std::this_thread::yield();
    fn(t);
  };
  std::vector<std::thread> pool;
  try {
    for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
  } catch (...) {
    arrived.store(threads);  // release the threads that did start, so that they finish and can be joined
    for (std::thread& th : pool) th.join();
    throw;
  }
  body(0);
  for (std::thread& th : pool) th.join();
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<char, FreeDeleter>;

// Buffers of 1 MiB and more are 2 MiB aligned and asked for transparent huge pages, to keep TLB misses out of
// the latency figures; the request may be ignored, which only makes those figures a little pessimistic.
Buffer allocate(int64_t bytes) {
  const int64_t align = bytes >= (int64_t{1} << 20) ? (int64_t{2} << 20) : 4096;
  const int64_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(static_cast<size_t>(align), static_cast<size_t>(rounded));
  if (!p) fail(fmt::format("cannot allocate a {} measurement buffer", format_bytes(bytes)));
  if (align > 4096) madvise(p, static_cast<size_t>(rounded), MADV_HUGEPAGE);
  return Buffer(static_cast<char*>(p));
}

// Streams [p, p + bytes) for about window_s; returns bytes read per second.
double stream_rate(const Kernels& k, const char* p, int64_t bytes, double window_s) {
  // Several passes between clock reads, so that reading the clock costs nothing next to an L1-sized pass.
  const int64_t passes = std::max<int64_t>(1, (int64_t{256} << 10) / bytes);
  int64_t done = 0;
  double t = 0;
  const Clock::time_point start = Clock::now();
  do {
    k.sum(p, p + bytes, passes);
    done += passes;
    t = seconds_since(start);
  } while (t < window_s);
  return static_cast<double>(done) * static_cast<double>(bytes) / t;
}

constexpr int64_t kChaseLines = int64_t{1} << 18;

// Links one line from each of kChaseLines equal segments of the buffer (every line when it has fewer) into a
// single cycle in random order (fixed seed), so hardware prefetchers cannot follow it. Returns the start and
// the number of lines linked.
std::pair<const void*, int64_t> build_chase(char* base, int64_t bytes, int line) {
  const int64_t lines = bytes / line;
  const int64_t count = std::min(lines, kChaseLines);
  const int64_t stride = lines / count;
  std::mt19937_64 rng(0x5715a7a);
  std::vector<int64_t> order(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) order[i] = i * stride + static_cast<int64_t>(rng() % stride);
  for (int64_t i = count - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);  // Fisher-Yates
  for (int64_t i = 0; i < count; ++i) {
    const char* next = base + order[(i + 1) % count] * line;
    std::memcpy(base + order[i] * line, &next, sizeof next);
  }
  return {base + order[0] * line, count};
}

}  // namespace

ComputeFacts measure_compute(const Kernels& k) {
  // ~30 ms of busy work first, so that a core idling at a low frequency has ramped up.
  const Clock::time_point start = Clock::now();
  while (seconds_since(start) < 0.03) add_chain(1 << 14);
  ComputeFacts f;
  f.scalar_ghz = kChainAdds * best_rate([](int64_t n) { add_chain(n); }, 0.01, 3) / 1e9;
  // fma_pipes is the ratio of the next two figures, so their windows alternate: a passing disturbance (another
  // tenant of a virtual machine, an interrupt storm) then spoils neighbouring windows of both, and each best
  // comes from undisturbed ones. Both loops are FMA-dense, so the core stays in one frequency licence throughout;
  // windows of ~10 ms also keep the ~0.5 ms licence transition out of the best.
  auto loaded = [&](int64_t n) { k.add_chain_loaded(n); };
  auto fma = [&](int64_t n) { k.fma_loop(n); };
  // The half-width loop (where the ISA has one) joins the alternation, so that it is measured at the same clock.
  auto half = [&](int64_t n) { k.half_fma_loop(n); };
  const int64_t n_loaded = calibrate(loaded, 0.01), n_fma = calibrate(fma, 0.01);
  const int64_t n_half = k.half_fma_loop != nullptr ? calibrate(half, 0.01) : 0;
  double loaded_rate = 0, fma_rate = 0, half_rate = 0;
  for (int round = 0; round < 6; ++round) {
    loaded_rate = std::max(loaded_rate, static_cast<double>(n_loaded) / seconds_of(loaded, n_loaded));
    fma_rate = std::max(fma_rate, static_cast<double>(n_fma) / seconds_of(fma, n_fma));
    if (n_half > 0) half_rate = std::max(half_rate, static_cast<double>(n_half) / seconds_of(half, n_half));
  }
  f.loaded_ghz = kChainAdds * loaded_rate / 1e9;
  f.fma_gflops = 2.0 * k.fma_chains * k.lanes() * fma_rate / 1e9;
  f.half_fma_gflops = 2.0 * k.fma_chains * (k.lanes() / 2) * half_rate / 1e9;
  return f;
}

Probe probe_memory(const Kernels& k, int64_t bytes, int threads, int line) {
  Probe p;
  p.threads = std::max(1, threads);
  const int64_t part = std::max<int64_t>(4096, bytes / p.threads / 4096 * 4096);
  p.bytes = part * p.threads;
  Buffer buffer = allocate(p.bytes);
  char* base = buffer.get();
  // Each thread fills its own part, so first-touch places the pages near the thread that reads them.
  run_together(p.threads, [&](int t) {
    std::fill_n(reinterpret_cast<float*>(base + t * part), part / static_cast<int64_t>(sizeof(float)), 1.0f);
  });
  std::vector<double> rates(static_cast<size_t>(p.threads));
  for (int rep = 0; rep < 4; ++rep) {
    run_together(p.threads, [&](int t) { rates[t] = stream_rate(k, base + t * part, part, 0.008); });
    double total = 0;
    for (double r : rates) total += r;
    p.gbps = std::max(p.gbps, total / 1e9);
  }
  const auto chain = build_chase(base, p.bytes, line);
  p.chase_lines = chain.second;
  const void* at = chain.first;
  p.latency_ns = 1e9 / best_rate([&](int64_t n) { at = chase(at, n); }, 0.008, 3);
  return p;
}

std::string probe_text(const Kernels& k, const Probe& p, int line) {
  const std::string who =
      p.threads == 1 ? std::string("1 thread") : fmt::format("{} threads at once, each on its own share", p.threads);
  return fmt::format(
      "bandwidth measured: {} read loop ({} independent add chains) over a {} buffer on {}, best of 4 windows of "
      "~8 ms; latency measured: single-thread pointer chase through {} {}-byte lines of that buffer linked in "
      "random order (fixed seed)",
      k.load_insn, 8, format_bytes(p.bytes), who, p.chase_lines, line);
}

}  // namespace strata::detect

#endif
