// Part of the dispatcher (see dispatch_rules.h): the thread count, the worker pool and the host's parallel-for hook.
#ifndef STRATA_DISPATCH_THREADS_H_
#define STRATA_DISPATCH_THREADS_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// ---- Threads -----------------------------------------------------------------------------------------------------

std::atomic<int32_t> g_threads{0};  // 0: not set, use the default
// The host's parallel-for and its context change together, under g_host_mutex: read apart, a call racing a change
// could pass one hook's context to another. g_host_parallel_for alone answers "is there a hook?" without the lock.
std::atomic<STRATA_X(parallel_for_fn)> g_host_parallel_for{nullptr};
std::mutex g_host_mutex;
STRATA_X(parallel_for_fn) g_host_fn = nullptr;  // guarded by g_host_mutex
void* g_host_context = nullptr;                 // guarded by g_host_mutex

// The CPUs this process may run on: its affinity mask where the system has one (a container or `taskset` limits it
// below the machine's), else the hardware's threads. More threads than that would only take turns on them.
unsigned usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return static_cast<unsigned>(CPU_COUNT(&set));
#endif
  return std::thread::hardware_concurrency();
}

// Asked once: it is a system call on Linux, far too slow for every call of a small GEMM.
int32_t default_threads() {
  static const int32_t threads = [] {
    const unsigned cpus = usable_cpus();
    return static_cast<int32_t>(std::min(cpus == 0 ? 1u : cpus, static_cast<unsigned>(kMaxThreads)));
  }();
  return threads;
}

// The threads a call may use as the caller set them, or the default.
int32_t configured_threads() {
  const int32_t t = g_threads.load(std::memory_order_relaxed);
  return t > 0 ? t : default_threads();
}

int32_t current_threads();  // below the pool, whose measurements limit the default

// Tells the core that this thread is spinning (it frees issue slots for the other hyperthread and saves power).
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The CPU time the calling thread has run, in ns; -1 where the system does not keep it.
int64_t thread_cpu_ns() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec t;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0) return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
#endif
  return -1;
}

// Asked once: a sandbox may refuse the clock, and asking is a system call.
bool thread_clock_works() {
  static const bool works = thread_cpu_ns() >= 0;
  return works;
}

// A small persistent pool. Between parallel regions a worker first spins for kSpinSeconds, then sleeps on a condition
// variable: a sleeping worker costs a futex wake-up on the next region, while a spinning one starts within a
// cache-line transfer, and GEMM calls tend to come back to back. The pool measures what waking costs: the time from
// publishing a region to the first woken worker starting it (the notification is a system call that interrupts the
// sleeping core, and a virtual machine may take long to run the core again). In a virtual machine waking can take
// longer than a small GEMM on one thread, so a call uses it to tell whether waking the workers pays, see ready_plan()
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "pool-wake"). The pool does not count how long the
// caller then waits for the woken workers to finish: one slow region would make that estimate milliseconds, after
// which no call would wake the workers again, and so none would measure it again. Task i runs on worker i (the
// calling thread runs task 0), and a region ends when every worker, busy or not, has acknowledged it: so no worker
// can still be reading a region's fields when the next region writes them. One region at a time (callers serialise on
// run_mutex). Where the system refuses a thread (std::thread throws), the pool goes on with the workers it has and
// the calling thread runs the tasks that have none: the tasks of a region never wait for each other, so any number of
// threads runs them correctly, and no exception leaves the pool.
//
// Left to the default thread count, the pool also finds out whether its threads have the CPUs to themselves, so that
// packages (or programs) running at the same time do not run more threads than there are CPUs: the CPU time the tasks
// of a region ran, over the region's wall time, is the number of CPUs the region got. Only regions long enough that
// waking the workers is a small part of them are counted (kMeasuredSeconds, kMeasuredWakes). Where a region got less
// than kContendedShare of a CPU per thread, the calls after it plan for the CPUs it got (cpu_limit()) for a back-off
// time; the limit then lapses, and the next counted region measures again. A limit found again before a counted
// region finds the CPUs free doubles the back-off (up to kLastBackoffNs): CPUs that stay busy are probed rarely, and
// CPUs that become free are used again within kLastBackoffNs and one region.
class ThreadPool {
 public:
  static constexpr double kSpinSeconds = 50e-6;
  // What waking is taken to cost until the pool has measured it: a futex wake on bare metal is a few microseconds,
  // in a virtual machine tens to hundreds.
  static constexpr double kFirstWakeSeconds = 20e-6;
  static constexpr double kMeasuredSeconds = 1e-3;
  static constexpr double kMeasuredWakes = 10;
  static constexpr double kContendedShare = 0.75;
  static constexpr int64_t kFirstBackoffNs = 10'000'000, kLastBackoffNs = 500'000'000;

  static ThreadPool& instance() {
    static ThreadPool pool;
    return pool;
  }

  ThreadPool() { std::fill(std::begin(wake_samples_), std::end(wake_samples_), kFirstWakeSeconds); }

  // Runs task(context, i) for i in [0, count); returns when all are done. It throws only before any task has run.
  // measure_share: the caller runs the default thread count, which the region's share of the CPUs may limit.
  void run(int64_t count, STRATA_X(task_fn) task, void* context, bool measure_share) {
    std::lock_guard<std::mutex> serial(run_mutex_);
    ensure_workers(static_cast<size_t>(count - 1));
    task_ = task;
    context_ = context;
    // Tasks from count_ on have no worker; the calling thread runs them after its own.
    count_ = std::min(count, static_cast<int64_t>(workers_.size()) + 1);
    pending_.store(static_cast<int64_t>(workers_.size()), std::memory_order_relaxed);
    // The clocks are read only for a region that wakes workers or measures its share: the others would pay for them
    // on every call.
    const bool waking = sleeping_.load(std::memory_order_relaxed) > 0;
    measuring_ = measure_share && count_ > 1 && thread_clock_works();
    timing_ = waking;
    first_start_ns_.store(0, std::memory_order_relaxed);
    task_cpu_ns_.store(0, std::memory_order_relaxed);
    const int64_t published = waking || measuring_ ? steady_ns() : 0;
    {
      // Under the mutex, so that a worker between its last check and its wait cannot miss the new generation.
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    const int64_t caller_cpu = measuring_ ? thread_cpu_ns() : 0;
    task(context, 0);
    for (int64_t i = count_; i < count; ++i) task(context, i);
    if (measuring_) task_cpu_ns_.fetch_add(thread_cpu_ns() - caller_cpu, std::memory_order_relaxed);
    const auto done = [&] { return pending_.load(std::memory_order_acquire) == 0; };
    if (!spin_until(done)) {
      // Tasks have run, so nothing may throw from here on: should the system refuse the mutex (std::mutex::lock may
      // throw by its specification), the caller waits by spinning.
      try {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, done);
      } catch (...) {
        while (!done()) spin_pause();
      }
    }
    const int64_t started = first_start_ns_.load(std::memory_order_relaxed);
    if (waking && started > 0) record_wake(1e-9 * static_cast<double>(started - published));
    if (measuring_) record_share(published, count_);
  }

  // The threads the CPUs had room for when a region last found them shared, while that finding holds; 0: no limit.
  int32_t cpu_limit() const {
    const int32_t limit = limit_.load(std::memory_order_relaxed);
    if (limit == 0 || steady_ns() >= limit_until_ns_.load(std::memory_order_relaxed)) return 0;
    return limit;
  }

  // True when `workers` workers exist and none is asleep: a region would start at once.
  bool awake(int64_t workers) const {
    return started_.load(std::memory_order_relaxed) >= workers && sleeping_.load(std::memory_order_relaxed) == 0;
  }

  // The measured cost of waking sleeping workers: the median of the last kWakeSamples wakes (kFirstWakeSeconds
  // stands in for those not made yet).
  double wake_seconds() const { return wake_seconds_.load(std::memory_order_relaxed); }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

 private:
  // A median, not an average: in a virtual machine one wake in many may take far longer than the others (the host
  // runs something else on the sleeping core). An average that one such wake lifts above what the calls could gain
  // stops them waking the workers, so it is never measured down again (measurements:
  // docs/perf/2026-11-27-cpu-runtime-evidence.md, "wake-median").
  static constexpr int kWakeSamples = 9;

  // Called under run_mutex_.
  void record_wake(double seconds) {
    wake_samples_[wake_next_] = seconds;
    wake_next_ = (wake_next_ + 1) % kWakeSamples;
    double sorted[kWakeSamples];
    std::copy(wake_samples_, wake_samples_ + kWakeSamples, sorted);
    std::nth_element(sorted, sorted + kWakeSamples / 2, sorted + kWakeSamples);
    wake_seconds_.store(sorted[kWakeSamples / 2], std::memory_order_relaxed);
  }

  // Called under run_mutex_ when a measured region of `threads` threads has ended (see the class comment).
  void record_share(int64_t published, int64_t threads) {
    const int64_t now = steady_ns();
    const double wall = 1e-9 * static_cast<double>(now - published);
    if (wall < kMeasuredSeconds || wall < kMeasuredWakes * wake_seconds()) return;
    const double cpus = 1e-9 * static_cast<double>(task_cpu_ns_.load(std::memory_order_relaxed)) / wall;
    if (cpus >= kContendedShare * static_cast<double>(threads)) {
      if (limit_.load(std::memory_order_relaxed) != 0 && now >= limit_until_ns_.load(std::memory_order_relaxed)) {
        limit_.store(0, std::memory_order_relaxed);  // the CPUs are free again
        backoff_ns_ = kFirstBackoffNs;
      }
      return;
    }
    if (limit_.load(std::memory_order_relaxed) != 0) backoff_ns_ = std::min(2 * backoff_ns_, kLastBackoffNs);
    limit_until_ns_.store(now + backoff_ns_, std::memory_order_relaxed);
    limit_.store(std::max(1, static_cast<int32_t>(cpus + 0.5)), std::memory_order_relaxed);
  }

  // Spins until done() holds or kSpinSeconds pass; returns done().
  template <class Done>
  static bool spin_until(Done done) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (done()) return true;
        spin_pause();
      }
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > kSpinSeconds)
        return done();
    }
  }

  // A new worker starts from the generation current when it is made, before run() publishes the next: started from 0,
  // one made after earlier regions would find a generation it had not seen at once, take the region being set up, run
  // it again when it is published, and acknowledge it twice; the caller could then return while another worker still
  // runs, and the count of acknowledgements would go below zero, so a later region would wait for ever (threads that
  // start slowly, as under qemu, make this likely).
  // A worker the system refuses (std::system_error, or std::bad_alloc for the vector) is not made; a later region
  // asks again.
  void ensure_workers(size_t wanted) {
    while (workers_.size() < wanted) {
      const int64_t index = static_cast<int64_t>(workers_.size()) + 1;
      const uint64_t current = generation_.load(std::memory_order_relaxed);
      try {
        workers_.emplace_back([this, index, current] { work(index, current); });
      } catch (...) {
        return;
      }
      started_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void work(int64_t index, uint64_t seen) {
    for (;;) {
      const auto started = [&] {
        return stopping_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
      };
      if (!spin_until(started)) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleeping_.fetch_add(1, std::memory_order_relaxed);
        wake_.wait(lock, started);
        sleeping_.fetch_sub(1, std::memory_order_relaxed);
      }
      if (stopping_.load(std::memory_order_acquire)) return;
      seen = generation_.load(std::memory_order_acquire);
      if (timing_) {  // the first worker to start a waking region stamps it
        int64_t unset = 0;
        first_start_ns_.compare_exchange_strong(unset, steady_ns(), std::memory_order_relaxed);
      }
      if (index < count_) {
        if (measuring_) {
          const int64_t cpu = thread_cpu_ns();
          task_(context_, index);
          task_cpu_ns_.fetch_add(thread_cpu_ns() - cpu, std::memory_order_relaxed);
        } else {
          task_(context_, index);
        }
      }
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // Take the mutex before notifying: the caller checks pending under it, so it either sees zero or is
        // already waiting.
        { std::lock_guard<std::mutex> lock(mutex_); }
        done_.notify_one();
      }
    }
  }

  std::mutex run_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  // Written by the caller before it publishes a generation (release), read by workers after they see it (acquire).
  STRATA_X(task_fn) task_ = nullptr;
  void* context_ = nullptr;
  int64_t count_ = 0;
  bool timing_ = false;     // the region wakes workers: the first to start stamps first_start_ns_
  bool measuring_ = false;  // the region measures its share of the CPUs: its tasks add their CPU time
  std::atomic<int64_t> task_cpu_ns_{0};
  std::atomic<int32_t> limit_{0};  // see cpu_limit()
  std::atomic<int64_t> limit_until_ns_{0};
  int64_t backoff_ns_ = kFirstBackoffNs;  // guarded by run_mutex_
  std::atomic<int64_t> first_start_ns_{0};
  std::atomic<int64_t> pending_{0};  // workers yet to acknowledge the current region
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> started_{0};   // workers created
  std::atomic<int64_t> sleeping_{0};  // workers waiting on wake_
  std::atomic<double> wake_seconds_{kFirstWakeSeconds};
  double wake_samples_[kWakeSamples];  // filled with kFirstWakeSeconds by the constructor
  int wake_next_ = 0;
};

void parallel_for(int64_t count, STRATA_X(task_fn) task, void* context) {
  if (count <= 1) {
    if (count == 1) task(context, 0);
    return;
  }
  if (g_host_parallel_for.load() != nullptr) {
    std::unique_lock<std::mutex> lock(g_host_mutex);
    const auto host = g_host_fn;
    void* const host_context = g_host_context;
    lock.unlock();
    if (host != nullptr) {
      host(host_context, count, task, context);
      return;
    }
  }
  ThreadPool::instance().run(count, task, context, g_threads.load(std::memory_order_relaxed) == 0);
}

// The threads a call may use: configured_threads(), the default limited to the CPUs the pool last found room for.
int32_t current_threads() {
  const int32_t t = g_threads.load(std::memory_order_relaxed);
  if (t > 0) return t;
  if (g_host_parallel_for.load(std::memory_order_relaxed) != nullptr) return default_threads();
  const int32_t limit = ThreadPool::instance().cpu_limit();
  return limit > 0 ? std::min(limit, default_threads()) : default_threads();
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_THREADS_H_
