// The libraries under test behind one interface: the Strata package (its dispatcher, or one kernel forced by id)
// and the peers, each loaded from its plugin (see peer_api.h).
#ifndef STRATA_TOOLS_BENCH_LIBRARY_H_
#define STRATA_TOOLS_BENCH_LIBRARY_H_

#include <cstdint>
#include <memory>
#include <string>

namespace strata_bench {

// One row-major call C = alpha * op(A) * op(B) + beta * C; a transposed A is stored K x M, a transposed B N x K.
struct GemmArgs {
  int64_t m, n, k;
  float alpha;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float beta;
  float* c;
  int64_t ldc;
  bool trans_a = false, trans_b = false;
};

enum class CallStatus {
  kOk,
  kUnsupported,  // the library has no (native) path for this call or thread count
  kError,        // the library reported an error
};

const char* CallStatusName(CallStatus status);

class Library {
 public:
  virtual ~Library() = default;
  // Short id used in the CSV files: "strata", "strata_k3", "openblas", ...
  virtual const std::string& name() const = 0;
  // Version and configuration, for the summary.
  virtual std::string Describe() const = 0;
  virtual CallStatus SetThreads(int threads) = 0;
  virtual CallStatus Gemm(const GemmArgs& args) = 0;
};

// Loads a peer plugin; nullptr with *error set when it cannot be loaded. The plugin stays loaded for the life of
// the process: the libraries inside start threads that must not outlive their code.
std::unique_ptr<Library> LoadPeer(const std::string& path, std::string* error);

// The generated package, reached through its C API (strata_library.cpp is the only file that names it).
struct StrataPlan {
  int kernel_id = -1;
  int mr = 0, nr = 0, k_unroll = 0;  // the micro-kernel: a package holds one per register tile
  int64_t mc = 0, nc = 0, kc = 0;
  int threads = 0;
  bool packed = false;
  double predicted_seconds = 0.0;

  // Whether two plans run the same computation: the same micro-kernel on the same threads, and when packed, the same
  // blocking. The direct path makes no blocks (kc only decides whether several threads split K), so kernel ids that
  // differ only in blocking run the same code there.
  bool SameWork(const StrataPlan& o) const {
    if (mr != o.mr || nr != o.nr || k_unroll != o.k_unroll || threads != o.threads || packed != o.packed) return false;
    if (packed) return mc == o.mc && nc == o.nc && kc == o.kc;
    return threads == 1 || kc == o.kc;
  }
};

// kernel_id -1: the dispatcher chooses (name "strata"); otherwise that kernel is forced (name "strata_k<id>").
std::unique_ptr<Library> MakeStrataLibrary(int kernel_id);
std::string StrataPackageName();
int StrataKernelCount();
// The dispatcher's plan for this shape under the thread count last set; false if the package refused.
bool StrataPlanFor(int64_t m, int64_t n, int64_t k, StrataPlan* plan);
// The same with the kernel forced, as MakeStrataLibrary(kernel_id) would run it.
bool StrataKernelPlanFor(int kernel_id, int64_t m, int64_t n, int64_t k, StrataPlan* plan);

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_LIBRARY_H_
