// Which kernels OpenBLAS runs on this CPU, checked before the benchmark loads it.
#ifndef STRATA_TOOLS_BENCH_OPENBLAS_CORE_H_
#define STRATA_TOOLS_BENCH_OPENBLAS_CORE_H_

#include <string>

namespace strata_bench {

// A DYNAMIC_ARCH OpenBLAS picks its kernel set ("core") when it loads, from the CPU's family and model. Debian 12's
// 0.3.21 does not know recent Intel models (Sapphire and Emerald Rapids among them) and falls back to its Prescott
// kernels, SSE3 only; OpenBLAS 0.3.25 and later fall back by the CPU's features instead. Timing Strata against
// that fallback would flatter Strata, so before the plugin at `plugin_path` is loaded this asks OpenBLAS, in a
// child process, which core it would pick, and where that core has no AVX2 kernels on a CPU with AVX2 and FMA it
// sets OPENBLAS_CORETYPE to the core a feature-based choice gives: SkylakeX with AVX-512, else Haswell. A value
// already in the environment is left alone, as is a core OpenBLAS chose that suits the CPU. Returns a sentence for
// the report saying what was found and done, or "" when OpenBLAS's own choice stands without remark.
std::string ChooseOpenBlasCore(const std::string& plugin_path);

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_OPENBLAS_CORE_H_
