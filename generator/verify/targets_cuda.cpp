// CUDA target. A package builds with nvcc for sm_80 and sm_90a (the architectures of the shipped descriptors, the
// Hopper one with its wgmma instructions, so every package is checked on both), with ptxas -v reports checked against
// the descriptor limits its manifest records (ptxas_check.h). The self-test then needs a GPU of compute
// capability 8.0 or later: without one it reports itself skipped, which verify counts as a failure (no kernel ran);
// `--no-run` builds and checks only.
#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "verify/ptxas_check.h"
#include "verify/targets.h"

namespace strata {

std::vector<BuildConfig> cuda_configs(const PackageInfo& package) {
  BuildConfig nvcc;
  nvcc.label = "nvcc";
  nvcc.compiler = "nvcc";
  std::string prefix = package.name;
  for (char& c : prefix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // PTXAS_VERBOSE makes nvcc print every kernel's ptxas report into the build output.
  nvcc.cmake_args = {"-DCMAKE_CUDA_ARCHITECTURES=80;90a", "-D" + prefix + "_PTXAS_VERBOSE=ON"};
  nvcc.runs_on = "on this machine's GPU";
  nvcc.requirements = {
      {"nvcc", "the CUDA toolkit (12.0 or later) must be on PATH; tools/setup.sh does not install it"}};
  nvcc.after_build = [](const PackageInfo& package, const std::string& build_dir) -> std::string {
    // verify.log holds the build's output, with the ptxas reports.
    std::ifstream in(build_dir + "/verify.log");
    std::stringstream log;
    log << in.rdbuf();
    const CudaLimits limits = read_cuda_limits(package.manifest);
    const std::vector<PtxasKernel> kernels = parse_ptxas_report(log.str());
    const std::vector<std::string> problems = check_ptxas_report(kernels, limits);
    if (problems.empty()) return "";
    std::string out =
        fmt::format("ptxas: {} limit violation(s) in {} kernel reports\n", problems.size(), kernels.size());
    for (const auto& p : problems) out += "  " + p + "\n";
    return out;
  };
  return {nvcc};
}

}  // namespace strata
