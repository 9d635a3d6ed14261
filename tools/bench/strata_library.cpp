// The Strata package behind the Library interface. The package's name is a build-time parameter
// (-DSTRATA_PACKAGE_NAME=...), and every symbol of its C API is prefixed with it, so this file pastes the names
// together with the preprocessor; nothing else in the driver depends on the name.
#include <string>

#include "library.h"

#ifndef STRATA_PACKAGE_NAME
#error "compile with -DSTRATA_PACKAGE_NAME=<package name> and -DSTRATA_PACKAGE_HEADER=\"<name>.h\""
#endif
#include STRATA_PACKAGE_HEADER

#define STRATA_BENCH_PASTE(name, suffix) name##_##suffix
#define STRATA_BENCH_EXPAND(name, suffix) STRATA_BENCH_PASTE(name, suffix)
#define STRATA_FN(suffix) STRATA_BENCH_EXPAND(STRATA_PACKAGE_NAME, suffix)
#define STRATA_BENCH_STR2(x) #x
#define STRATA_BENCH_STR(x) STRATA_BENCH_STR2(x)

namespace strata_bench {
namespace {

using PackageStatus = STRATA_FN(status);
using PackagePlan = STRATA_FN(plan_t);

// Every package's status enum has OK = 0 (the API header says so); the other values are errors of the call.
CallStatus FromPackage(PackageStatus status) {
  return static_cast<int>(status) == 0 ? CallStatus::kOk : CallStatus::kError;
}

class StrataLibrary : public Library {
 public:
  explicit StrataLibrary(int kernel_id)
      : kernel_id_(kernel_id), name_(kernel_id < 0 ? "strata" : "strata_k" + std::to_string(kernel_id)) {}

  const std::string& name() const override { return name_; }

  std::string Describe() const override {
    return "Strata package " + StrataPackageName() + " (" + std::to_string(StrataKernelCount()) +
           " kernels), threads: its own condition-variable pool";
  }

  CallStatus SetThreads(int threads) override { return FromPackage(STRATA_FN(set_num_threads)(threads)); }

  CallStatus Gemm(const GemmArgs& g) override {
    if (g.trans_a || g.trans_b) {
      // A kernel is forced by id for plain calls only.
      if (kernel_id_ >= 0) return CallStatus::kUnsupported;
      // The header's values: NO_TRANS = 0, TRANS = 1.
      const auto op = [](bool t) { return static_cast<STRATA_FN(transpose)>(t ? 1 : 0); };
      return FromPackage(STRATA_FN(gemm)(op(g.trans_a), op(g.trans_b), g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb,
                                         g.beta, g.c, g.ldc));
    }
    if (kernel_id_ < 0) {
      return FromPackage(STRATA_PACKAGE_NAME(g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c, g.ldc));
    }
    return FromPackage(
        STRATA_FN(with_kernel)(kernel_id_, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c, g.ldc));
  }

 private:
  int kernel_id_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Library> MakeStrataLibrary(int kernel_id) { return std::make_unique<StrataLibrary>(kernel_id); }

std::string StrataPackageName() { return STRATA_BENCH_STR(STRATA_PACKAGE_NAME); }

int StrataKernelCount() { return STRATA_FN(kernel_count)(); }

namespace {

void CopyPlan(const PackagePlan& raw, StrataPlan* plan) {
  plan->kernel_id = raw.kernel_id;
  plan->mr = raw.mr;
  plan->nr = raw.nr;
  plan->k_unroll = raw.k_unroll;
  plan->mc = raw.mc;
  plan->nc = raw.nc;
  plan->kc = raw.kc;
  plan->threads = raw.threads;
  plan->packed = raw.packed != 0;
  plan->predicted_seconds = raw.predicted_seconds;
}

}  // namespace

bool StrataPlanFor(int64_t m, int64_t n, int64_t k, StrataPlan* plan) {
  PackagePlan raw;
  if (static_cast<int>(STRATA_FN(plan)(m, n, k, &raw)) != 0) return false;
  CopyPlan(raw, plan);
  return true;
}

bool StrataKernelPlanFor(int kernel_id, int64_t m, int64_t n, int64_t k, StrataPlan* plan) {
  PackagePlan raw;
  if (static_cast<int>(STRATA_FN(kernel_plan)(kernel_id, m, n, k, &raw)) != 0) return false;
  CopyPlan(raw, plan);
  return true;
}

}  // namespace strata_bench
