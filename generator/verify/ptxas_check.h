// The ptxas resource check of a CUDA package (DESIGN.md, verify): parses the `ptxas -v` report nvcc prints for
// each kernel and checks it against the descriptor limits the package's manifest records. No spills and no
// local-memory stack frame; registers within the per-thread limit and, times the kernel's threads, within one
// SM's register file; static plus dynamic shared memory within the per-block limit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata {

// One kernel (entry function) as ptxas reported it for one GPU architecture.
struct PtxasKernel {
  std::string source;  // the .cu file's stem it came from ("" when the report did not say)
  std::string name;    // mangled entry name
  std::string arch;    // "sm_80"
  int registers = -1;  // -1: no "Used N registers" line was seen
  int64_t stack_bytes = 0, spill_store_bytes = 0, spill_load_bytes = 0, static_shared_bytes = 0;
};

// Parses nvcc output with -Xptxas -v: "Compiling entry function 'X' for 'sm_NN'", "Function properties for X",
// "N bytes stack frame, N bytes spill stores, N bytes spill loads", "Used N registers, ... N bytes smem". A line
// that names a kernel source (".../src/kernels/<stem>.cu", as build tools print before a file's output) sets the
// source of the kernels after it; `source` is the source before any such line.
std::vector<PtxasKernel> parse_ptxas_report(const std::string& output, const std::string& source = "");

struct CudaLimits {
  int registers_per_thread_max = 0;
  int registers_per_sm = 0;
  int64_t shared_memory_per_block_bytes = 0;
  struct Kernel {
    int threads = 0;  // launch bounds
    int64_t dynamic_shared_bytes = 0;
  };
  std::map<std::string, Kernel> kernels;  // by source stem (the kernel's name in the manifest)
};

// The limits recorded in a CUDA package's manifest.yaml (target: and kernels:). Throws strata::Error naming the
// file and line when a field is missing.
CudaLimits read_cuda_limits(const std::string& manifest_path);

// One line per violation, naming the kernel, the architecture and the limit; empty when all are within limits.
// A report with no kernel at all is a violation too (the check would otherwise pass on a build that printed
// nothing).
std::vector<std::string> check_ptxas_report(const std::vector<PtxasKernel>& kernels, const CudaLimits& limits);

}  // namespace strata
