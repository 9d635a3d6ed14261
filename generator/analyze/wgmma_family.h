// Hopper's wgmma kernels as a three-level candidate set for the selection, ranked by templates/cuda/gpu_model.h
// like the sieve's mma.sync blocks: a warpgroup tile of 64 x n (level 0), a block of one or two consumer warpgroups
// with as many shared-memory stages as fit (level 1, one persistent block per SM) and a grouped grid tile (level 2).
// The kernels are templates/cuda/wgmma_kernels.cuh.tpl; the descriptor's isa.wgmma says which tiles it may use.
#pragma once

#include <vector>

#include "analyze/model.h"

namespace strata {

// The rows of C (or, swapped, its columns) a block's tensor-map box covers per consumer warpgroup: wgmma's m.
constexpr int64_t kWgmmaRows = 64;
// Tile rows a persistent block walks down before it moves one tile right (the kernels' GROUP_M).
constexpr int64_t kWgmmaGroupM = 8;

// Shared memory of a wgmma block (WgmmaTiles::kSharedBytes): the stages, two mbarriers per stage, split-K's flag
// and the alignment slack of the 1024-byte swizzle atom.
int64_t wgmma_shared_bytes(int64_t rows_a, int64_t rows_b, int64_t slice_k, int stages);

// Hopper's warpgroup MMA (sm_90a) takes f16 operands from shared memory: a CUDA package holds wgmma kernels where
// the descriptor declares isa.wgmma (sm 90 only), the inputs are f16 and the operator is a GEMM (a convolution's A
// is gathered from its input, which a tensor map of a dense matrix does not describe: it runs mma.sync kernels).
bool wgmma_applies(const Arch& arch, const Op& op);

// The family for `arch` (empty levels where wgmma_applies is false).
SieveResult wgmma_family(const Arch& arch, const Op& op);

// The model's machine for the family: make_machine's, with level 1 one unit (a warpgroup's wgmma runs on all four
// of the SM's Tensor Cores, so consumers take turns rather than running side by side).
strata_model::Machine wgmma_machine(const Arch& arch, const Op& op, const SieveResult& family);

// gpu_sm's SM for the family: one k step per slice, the slice's floor and latency in place of the warp step's, no
// block barrier (the stages hand over by mbarrier) and copies that cost the block nothing (shared_Bps 0).
strata_gpu::Sm wgmma_sm(const Arch& arch);

// Per level-0 candidate: one slice of wgmma work (64 x n x slice_k) at the sustained rate of one SM's Tensor Cores.
std::vector<double> wgmma_level0_seconds(const Arch& arch, const SieveResult& family);

}  // namespace strata
