// Device code shared by every kernel of {{PACKAGE}}: the Tensor Core (mma.sync) block kernel and the CUDA-core
// (FMA) block kernel, over the tile loads of tile_loads.cuh. Each src/kernels/*.cu instantiates one kernel
// from here with the tiles Strata selected; nothing in this file is specific to one tiling.
//
// The hierarchy (Helix, Table 2):
//   level 0  warp tile: a grid of mma.sync m16n8k16 fragments in one warp's registers (Tensor Cores), or a
//            per-thread FMA tile, the warp's threads arranged in a fixed rows x columns pattern (CUDA cores);
//   level 1  block tile: A and B k-slices staged in shared memory by a STAGES-deep cp.async pipeline;
//   level 2  grid: block tiles over the SMs, launched in groups of GROUP_M block rows so that the blocks running
//            together share A rows and B columns in L2; split-K adds a grid dimension over k.
#ifndef {{PACKAGE_UPPER}}_GEMM_KERNELS_CUH_
#define {{PACKAGE_UPPER}}_GEMM_KERNELS_CUH_

#include <cuda_fp16.h>
#include <stdint.h>

#include <atomic>

#include "epilogue.cuh"
#include "internal.h"
#include "tile_loads.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "{{PACKAGE}} needs sm_80 or newer (cp.async, mma.sync m16n8k16 with f32 accumulators)"
#endif

namespace {{PACKAGE}}_detail {

// Level 2: the coordinates of tile `id`. Consecutive ids walk down a group of GROUP_M tile rows before moving one
// tile column right, so the tiles computed at one time cover a compact region of C and reuse each other's A rows
// and B columns from L2.
template <int GROUP_M>
__device__ __forceinline__ void tile_coordinates(int64_t id, int64_t m_tiles, int64_t n_tiles, int64_t* tile_m,
                                                 int64_t* tile_n) {
  const int64_t per_group = static_cast<int64_t>(GROUP_M) * n_tiles;
  const int64_t group = id / per_group;
  const int64_t first_m = group * GROUP_M;
  const int64_t rows = m_tiles - first_m < GROUP_M ? m_tiles - first_m : GROUP_M;
  const int64_t local = id - group * per_group;
  *tile_m = first_m + local % rows;
  *tile_n = local / rows;
}

// The block's tile: blocks are numbered along gridDim.x.
template <int GROUP_M>
__device__ __forceinline__ void block_coordinates(int64_t m_tiles, int64_t n_tiles, int64_t* tile_m,
                                                  int64_t* tile_n) {
  tile_coordinates<GROUP_M>(blockIdx.x, m_tiles, n_tiles, tile_m, tile_n);
}

// This block's share of k: split s of gridDim.z covers [s * k_per_split, min(K, (s + 1) * k_per_split)).
__device__ __forceinline__ void k_range(const GemmParams& p, int64_t* begin, int64_t* end) {
  *begin = static_cast<int64_t>(blockIdx.z) * p.k_per_split;
  *end = *begin + p.k_per_split < p.K ? *begin + p.k_per_split : p.K;
}

// The result of one accumulator: C = alpha * acc + beta * C and the epilogue, or, under split-K, the raw partial sum
// into this split's slice of the workspace (the reduction finishes C once, in a fixed order).
__device__ __forceinline__ void store_result(const GemmParams& p, int64_t r, int64_t c, float acc) {
  if (r >= p.M || c >= p.N) return;
  if (p.partial != nullptr) {
    *partial_element(p, blockIdx.z, gridDim.z, r, c) = acc;
    return;
  }
  float* out = c_element(p, r, c);
  *out = finish(p, r, c, acc, out);
}

// Raises `kernel`'s dynamic shared-memory limit to `bytes` on the current device once: the attribute stays set for
// the device, so later calls skip the runtime call. `opted` holds one bit per device ordinal below 64 (higher ones
// set it every call).
inline cudaError_t opt_in_shared(const void* kernel, int bytes, std::atomic<uint64_t>* opted) {
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  const uint64_t bit = device >= 0 && device < 64 ? uint64_t{1} << device : 0;
  if (bit != 0 && (opted->load(std::memory_order_acquire) & bit) != 0) return cudaSuccess;
  e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (e == cudaSuccess) opted->fetch_or(bit, std::memory_order_release);
  return e;
}

// ---- Tensor Cores ----------------------------------------------------------------------------------------

// Four 8x8 b16 matrices from shared memory; lanes 8i..8i+7 give the row addresses of matrix i.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}

// d = a * b + d for one m16n8k16 fragment: A row-major 16x16 f16, B column-major 16x8 f16, f32 accumulators.
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES>
struct TensorCoreTiles {
  static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles are whole m16 x (2 x n8) fragment pairs");
  static_assert(BM % WM == 0 && BN % WN == 0 && BK % 16 == 0, "block tiles are whole warp tiles and k16 steps");
  static_assert(STAGES >= 2, "the pipeline overlaps one k-tile's copy with the previous one's math");
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kThreads = (BM / WM) * kWarpsN * 32;
  // Shared rows hold BK halves plus 8 halves (16 bytes) of padding: the eight rows an ldmatrix phase reads then
  // start in eight different 4-bank groups (row stride BK/2 + 4 words), so fragment loads are conflict-free, and
  // every row still starts on a 16-byte boundary for cp.async.
  static constexpr int kLds = BK + 8;
  static constexpr int kStageA = BM * kLds;
  static constexpr int kStageB = BN * kLds;
  static constexpr int kSharedBytes = STAGES * (kStageA + kStageB) * 2;
};

// One block computes a BM x BN tile of C over its k range. A is M x K row-major f16, B is N x K row-major f16
// (the K x N operand stored column-major), both as raw binary16 bits. kGather: A is a convolution's, gathered from
// its input (p.A) by load_gathered_tile.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int GROUP_M, bool kAligned, bool kGather>
__global__ void __launch_bounds__(TensorCoreTiles<BM, BN, BK, WM, WN, STAGES>::kThreads, 1)
    gemm_tensor_core(GemmParams p) {
  using Tiles = TensorCoreTiles<BM, BN, BK, WM, WN, STAGES>;
  constexpr int kThreads = Tiles::kThreads;
  constexpr int kLds = Tiles::kLds;
  constexpr int kFragsM = WM / 16;
  constexpr int kFragsN = WN / 8;
  extern __shared__ uint4 shared_raw[];
  uint16_t* const shared_a = reinterpret_cast<uint16_t*>(shared_raw);
  uint16_t* const shared_b = shared_a + STAGES * Tiles::kStageA;

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int warp_m = warp / Tiles::kWarpsN;
  const int warp_n = warp % Tiles::kWarpsN;
  int64_t tile_m, tile_n, k_begin, k_end;
  block_coordinates<GROUP_M>(p.m_tiles, p.n_tiles, &tile_m, &tile_n);
  k_range(p, &k_begin, &k_end);
  const int64_t m0 = tile_m * BM;
  const int64_t n0 = tile_n * BN;
  const int64_t k_len = k_end - k_begin;
  const int k_tiles = k_len > 0 ? static_cast<int>((k_len + BK - 1) / BK) : 0;
  const uint16_t* const a = kGather ? nullptr : product_a<uint16_t>(p) + m0 * p.lda + k_begin;
  const uint16_t* const b = product_b<uint16_t>(p) + n0 * p.ldb + k_begin;
  GatherRows<uint16_t, BM, BK, kThreads, kAligned> rows;
  if constexpr (kGather) rows.init(p, m0, tid);

  auto load_stage = [&](int stage, int kt) {
    const int64_t k0 = static_cast<int64_t>(kt) * BK;
    if constexpr (kGather)
      load_gathered_tile<uint16_t, BM, BK, kLds, kThreads, kAligned>(shared_a + stage * Tiles::kStageA, p, rows,
                                                                     k_begin + k0, k_end, tid);
    else
      load_tile<uint16_t, BM, BK, kLds, kThreads, kAligned>(shared_a + stage * Tiles::kStageA, a + k0, p.lda,
                                                            p.M - m0, k_len - k0, tid);
    load_tile<uint16_t, BN, BK, kLds, kThreads, kAligned>(shared_b + stage * Tiles::kStageB, b + k0, p.ldb,
                                                          p.N - n0, k_len - k0, tid);
  };

  float acc[kFragsM][kFragsN][4];
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

  // Prologue: the first STAGES - 1 k-tiles in flight. Every thread commits exactly one group per slot, even an
  // empty one, so the group count that cp_async_wait relies on is the same in every thread and every iteration.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    // kt + STAGES - 1 groups are committed; allowing STAGES - 2 in flight means k-tile kt has landed.
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    // The stage refilled here was read in iteration kt - 1, which every warp finished before the barrier above.
    const int next = kt + STAGES - 1;
    if (next < k_tiles) load_stage(next % STAGES, next);
    cp_async_commit();

    const uint16_t* const sa = shared_a + (kt % STAGES) * Tiles::kStageA + warp_m * WM * kLds;
    const uint16_t* const sb = shared_b + (kt % STAGES) * Tiles::kStageB + warp_n * WN * kLds;
    // Not unrolled: fully unrolled, the compiler hoists every k16 step's fragment loads ahead of the MMAs and
    // runs out of registers for large warp tiles; one step's fragments at a time keep the count to the tile's.
#pragma unroll 1
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t fa[kFragsM][4];
      uint32_t fb[kFragsN][2];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
        // Matrices 0-3: rows 0-7 / 8-15 at k 0-7, then rows 0-7 / 8-15 at k 8-15: the a0..a3 registers of mma.
        ldmatrix_x4(fa[i], sa + (i * 16 + lane % 16) * kLds + kk + (lane / 16) * 8);
#pragma unroll
      for (int j = 0; j < kFragsN; j += 2) {
        // B rows are n, columns k. Matrices: n 0-7 at k 0-7 and 8-15 (b0, b1 of fragment j), then n 8-15 (j + 1).
        uint32_t r[4];
        ldmatrix_x4(r, sb + (j * 8 + (lane / 16) * 8 + lane % 8) * kLds + kk + ((lane / 8) % 2) * 8);
        fb[j][0] = r[0];
        fb[j][1] = r[1];
        fb[j + 1][0] = r[2];
        fb[j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) mma_m16n8k16(acc[i][j], fa[i], fb[j]);
    }
  }
  cp_async_wait<0>();

  // Accumulator layout of m16n8: d0, d1 at row lane / 4, columns 2 * (lane % 4) + {0, 1}; d2, d3 eight rows below.
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) {
      const int64_t r = m0 + warp_m * WM + i * 16 + lane / 4;
      const int64_t c = n0 + warp_n * WN + j * 8 + (lane % 4) * 2;
      store_result(p, r, c, acc[i][j][0]);
      store_result(p, r, c + 1, acc[i][j][1]);
      store_result(p, r + 8, c, acc[i][j][2]);
      store_result(p, r + 8, c + 1, acc[i][j][3]);
    }
}

// ---- CUDA cores ------------------------------------------------------------------------------------------

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(uint16_t bits) { return __half2float(__ushort_as_half(bits)); }

// Four neighbouring elements of a shared-memory row, 16-byte (float) or 8-byte (binary16) aligned, in one load.
__device__ __forceinline__ void load_group4(float* out, const float* p) {
  const float4 v = *reinterpret_cast<const float4*>(p);
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
  out[3] = v.w;
}
__device__ __forceinline__ void load_group4(float* out, const uint16_t* p) {
  const uint2 v = *reinterpret_cast<const uint2*>(p);
  const float2 lo = __half22float2(*reinterpret_cast<const __half2*>(&v.x));
  const float2 hi = __half22float2(*reinterpret_cast<const __half2*>(&v.y));
  out[0] = lo.x;
  out[1] = lo.y;
  out[2] = hi.x;
  out[3] = hi.y;
}

template <typename T, bool kBRowMajor, int BM, int BN, int BK, int TM, int TN, int WARP_ROWS, int STAGES>
struct CudaCoreTiles {
  static constexpr int kWarpCols = 32 / WARP_ROWS;
  static constexpr int kWarpM = TM * WARP_ROWS;  // the warp tile (level 0)
  static constexpr int kWarpN = TN * kWarpCols;
  static_assert(32 % WARP_ROWS == 0, "a warp's threads form a WARP_ROWS x (32 / WARP_ROWS) grid");
  static_assert(BM % kWarpM == 0 && BN % kWarpN == 0, "block tiles are whole warp tiles");
  static_assert(STAGES >= 2, "the pipeline overlaps one k-tile's copy with the previous one's math");
  static constexpr int kWarpsN = BN / kWarpN;
  static constexpr int kThreads = (BM / kWarpM) * kWarpsN * 32;
  // A thread's TM rows are WARP_ROWS apart and its TN columns come in groups of kColumnGroup neighbours, the groups
  // kWarpCols * kColumnGroup apart: at each k the warp's lanes then read WARP_ROWS neighbouring rows of A and
  // kWarpCols neighbouring groups of B, which fall in different banks (or broadcast), and store neighbouring
  // columns of C. Each thread owning a contiguous TM x TN patch instead put its lanes TM rows or TN columns apart,
  // a multiple of 32 words: 13- to 30-way bank conflicts measured with ncu on an H100. Groups of four are read as
  // one 16-byte (float) or 8-byte (binary16) load where B's rows run along n.
  static constexpr int kColumnGroup = kBRowMajor && TN % 4 == 0 ? 4 : 1;
  // One 16-byte chunk of padding per shared row: rows stay 16-byte aligned for cp.async, and consecutive rows
  // start in different banks, so threads of a warp reading one k column of different rows rarely collide.
  static constexpr int kPad = kChunkBytes / static_cast<int>(sizeof(T));
  static constexpr int kLdsA = BK + kPad;                    // A: BM rows of k
  static constexpr int kLdsB = (kBRowMajor ? BN : BK) + kPad;  // B: BK rows of n, or BN rows of k
  static constexpr int kStageA = BM * kLdsA;
  static constexpr int kStageB = (kBRowMajor ? BK : BN) * kLdsB;
  static constexpr int kSharedBytes = STAGES * (kStageA + kStageB) * static_cast<int>(sizeof(T));
};

// One block computes a BM x BN tile of C with FMAs in fp32: each thread owns TM x TN accumulators. A is M x K
// row-major, or a convolution's gathered from its input (kGather); B is K x N row-major (kBRowMajor) or N x K
// row-major. T is float, or uint16_t for binary16 bits that are widened to fp32 as they leave shared memory.
template <typename T, bool kBRowMajor, int BM, int BN, int BK, int TM, int TN, int WARP_ROWS, int STAGES, int GROUP_M,
          bool kAligned, bool kGather>
__global__ void __launch_bounds__(CudaCoreTiles<T, kBRowMajor, BM, BN, BK, TM, TN, WARP_ROWS, STAGES>::kThreads, 1)
    gemm_cuda_core(GemmParams p) {
  using Tiles = CudaCoreTiles<T, kBRowMajor, BM, BN, BK, TM, TN, WARP_ROWS, STAGES>;
  constexpr int kThreads = Tiles::kThreads;
  extern __shared__ uint4 shared_raw[];
  T* const shared_a = reinterpret_cast<T*>(shared_raw);
  T* const shared_b = shared_a + STAGES * Tiles::kStageA;

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int warp_m = warp / Tiles::kWarpsN;
  const int warp_n = warp % Tiles::kWarpsN;
  // The thread's first row and column inside the block tile; row_of / col_of give the others (see CudaCoreTiles).
  constexpr int kGroup = Tiles::kColumnGroup;
  const int row0 = warp_m * Tiles::kWarpM + lane / Tiles::kWarpCols;
  const int col0 = warp_n * Tiles::kWarpN + (lane % Tiles::kWarpCols) * kGroup;
  auto row_of = [&](int i) { return row0 + i * WARP_ROWS; };
  auto col_of = [&](int j) { return col0 + (j / kGroup) * (Tiles::kWarpCols * kGroup) + j % kGroup; };
  int64_t tile_m, tile_n, k_begin, k_end;
  block_coordinates<GROUP_M>(p.m_tiles, p.n_tiles, &tile_m, &tile_n);
  k_range(p, &k_begin, &k_end);
  const int64_t m0 = tile_m * BM;
  const int64_t n0 = tile_n * BN;
  const int64_t k_len = k_end - k_begin;
  const int k_tiles = k_len > 0 ? static_cast<int>((k_len + BK - 1) / BK) : 0;
  const T* const a = kGather ? nullptr : product_a<T>(p) + m0 * p.lda + k_begin;
  const T* const b = product_b<T>(p) + (kBRowMajor ? k_begin * p.ldb + n0 : n0 * p.ldb + k_begin);
  GatherRows<T, BM, BK, kThreads, kAligned> rows;
  if constexpr (kGather) rows.init(p, m0, tid);

  auto load_stage = [&](int stage, int kt) {
    const int64_t k0 = static_cast<int64_t>(kt) * BK;
    if constexpr (kGather)
      load_gathered_tile<T, BM, BK, Tiles::kLdsA, kThreads, kAligned>(shared_a + stage * Tiles::kStageA, p, rows,
                                                                      k_begin + k0, k_end, tid);
    else
      load_tile<T, BM, BK, Tiles::kLdsA, kThreads, kAligned>(shared_a + stage * Tiles::kStageA, a + k0, p.lda,
                                                             p.M - m0, k_len - k0, tid);
    if (kBRowMajor)
      load_tile<T, BK, BN, Tiles::kLdsB, kThreads, kAligned>(shared_b + stage * Tiles::kStageB, b + k0 * p.ldb,
                                                             p.ldb, k_len - k0, p.N - n0, tid);
    else
      load_tile<T, BN, BK, Tiles::kLdsB, kThreads, kAligned>(shared_b + stage * Tiles::kStageB, b + k0, p.ldb,
                                                             p.N - n0, k_len - k0, tid);
  };

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // The same pipeline as the Tensor Core kernel; see the comments there.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    const int next = kt + STAGES - 1;
    if (next < k_tiles) load_stage(next % STAGES, next);
    cp_async_commit();

    const T* const sa = shared_a + (kt % STAGES) * Tiles::kStageA;
    const T* const sb = shared_b + (kt % STAGES) * Tiles::kStageB;
    // Partly unrolled: enough independent loads to cover shared-memory latency without hoisting whole k-slices
    // of operands into registers next to TM x TN accumulators.
#pragma unroll 4
    for (int k = 0; k < BK; ++k) {
      float fa[TM];
      float fb[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) fa[i] = to_float(sa[row_of(i) * Tiles::kLdsA + k]);
      if constexpr (kGroup == 4) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) load_group4(fb + j, sb + k * Tiles::kLdsB + col_of(j));
      } else {
#pragma unroll
        for (int j = 0; j < TN; ++j)
          fb[j] = to_float(kBRowMajor ? sb[k * Tiles::kLdsB + col_of(j)] : sb[col_of(j) * Tiles::kLdsB + k]);
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) store_result(p, m0 + row_of(i), n0 + col_of(j), acc[i][j]);
}

}  // namespace {{PACKAGE}}_detail

#endif  // {{PACKAGE_UPPER}}_GEMM_KERNELS_CUH_
