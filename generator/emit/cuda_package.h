// Renders the CUDA GEMM package (NVIDIA sm_80 and later): Tensor Core kernels (mma.sync m16n8k16, f16 inputs,
// f32 accumulation) and CUDA-core FMA kernels, a cost-model dispatcher that picks kernel, split-K and grid per
// shape, a CMake build with the CUDA language, a self-test and a cuBLAS bench; every file of DESIGN.md's layout.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "emit/cpu_package.h"

namespace strata {

// Checks that this backend can emit `op` for `arch`: a cuda descriptor of compute capability 8.0 or later, GEMM
// with f32 output and accumulation, row-major A and C; B row-major for f32 inputs (CUDA cores) or column-major for
// f16 inputs (Tensor Cores, which read B as mma.sync's column-major operand).
void check_cuda_support(const Arch& arch, const Op& op);

// Per level-0 candidate of `sieve`: whether the CUDA templates can emit it (the m16n8k16 instruction, warp tiles
// whole in 16 x 16 fragment pairs, thread tiles whose shared-memory rows are whole 16-byte cp.async chunks).
std::vector<bool> cuda_emittable_level0(const Arch& arch, const Op& op, const SieveResult& sieve);

// Relative path -> content, sorted. `in.selection` holds the kernels of `in.sieve`'s compute unit, and
// `in.extra_units` those of the pipeline's other units (generate/gpu_units.h: CUDA-core partners for f16 inputs,
// wgmma kernels on Hopper). Throws strata::Error when the pair is outside what this backend emits.
std::map<std::string, std::string> render_cuda_package(const PackageInputs& in, TemplateRenderer& renderer);

// The manifest's analyzer lines and generate's note: no level of a CUDA package is profiled by the generator.
extern const char* const kCudaModelledNote;

}  // namespace strata
