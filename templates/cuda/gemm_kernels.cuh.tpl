// Device code shared by every kernel of {{PACKAGE}}: the cp.async tile loader, the Tensor Core (mma.sync) block
// kernel, the CUDA-core (FMA) block kernel and the split-K reduction. Each src/kernels/*.cu instantiates one kernel
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
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "epilogue.cuh"
#include "internal.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "{{PACKAGE}} needs sm_80 or newer (cp.async, mma.sync m16n8k16 with f32 accumulators)"
#endif

namespace {{PACKAGE}}_detail {

// 16 bytes: the unit of cp.async.cg and the row of an ldmatrix 8x8 b16 matrix.
constexpr int kChunkBytes = 16;

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Copies 16 bytes from global to shared memory asynchronously, reading only the first `src_bytes` (0 to 16) and
// zero-filling the rest, so a chunk that hangs over the matrix edge reads nothing out of bounds.
__device__ __forceinline__ void cp_async_16(void* shared, const void* global, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(shared)),
               "l"(__cvta_generic_to_global(global)), "r"(src_bytes)
               : "memory");
}

// Copies kBytes (4 or 8) from global to shared memory asynchronously; both addresses aligned to kBytes. cp.async
// takes these sizes through L1 (.ca) only.
template <int kBytes>
__device__ __forceinline__ void cp_async_small(void* shared, const void* global) {
  static_assert(kBytes == 4 || kBytes == 8, "cp.async.ca copies 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(shared_address(shared)),
               "l"(__cvta_generic_to_global(global)), "n"(kBytes)
               : "memory");
}

// A whole 16-byte chunk from a source aligned to kBytes only, in kBytes pieces.
template <int kBytes>
__device__ __forceinline__ void cp_async_pieces(void* shared, const void* global) {
#pragma unroll
  for (int b = 0; b < kChunkBytes; b += kBytes)
    cp_async_small<kBytes>(static_cast<char*>(shared) + b, static_cast<const char*>(global) + b);
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most `kPending` of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Loads one ROWS x COLS tile, COLS contiguous in global memory with a row stride of `ld` elements, into shared
// memory with a row stride of LDS elements. Rows at or past `rows` and columns at or past `cols` (both counted from
// the tile's origin, and possibly zero or negative) are zero-filled: the reduction over k then adds zeros, and
// rows past the edge of C produce values that are never stored.
// kAligned: every global row starts on a 16-byte boundary, so whole chunks go through cp.async. Otherwise (a
// leading dimension or K that breaks the alignment) a whole chunk whose source is 8- or 4-byte aligned (an fp32
// row always is, an fp16 row of even length too) goes through cp.async in 8- or 4-byte pieces, so the copy stays
// asynchronous; the rest, a row's last partial chunk or an fp16 source on an odd element, is read element by element
// and stored to shared memory directly. The pipeline's wait and __syncthreads() publish both kinds of store alike.
template <typename T, int ROWS, int COLS, int LDS, int THREADS, bool kAligned>
__device__ __forceinline__ void load_tile(T* shared, const T* global, int64_t ld, int64_t rows, int64_t cols,
                                          int tid) {
  constexpr int kElems = kChunkBytes / static_cast<int>(sizeof(T));
  constexpr int kChunksPerRow = COLS / kElems;
  constexpr int kChunks = ROWS * kChunksPerRow;
  static_assert(COLS % kElems == 0, "a tile row is a whole number of 16-byte chunks");
  static_assert(LDS % kElems == 0, "shared-memory rows start on 16-byte boundaries");
  auto copy_chunk = [&](int chunk) {
    const int r = chunk / kChunksPerRow;
    const int c = (chunk % kChunksPerRow) * kElems;
    T* dst = shared + r * LDS + c;
    int64_t valid = r < rows ? cols - c : 0;
    valid = valid < 0 ? 0 : (valid > kElems ? kElems : valid);
    // With nothing to read, point at the tile origin (always inside the matrix) rather than past the edge.
    const T* src = valid > 0 ? global + r * ld + c : global;
    if constexpr (kAligned) {
      cp_async_16(dst, src, static_cast<int>(valid) * static_cast<int>(sizeof(T)));
    } else if (valid == kElems && reinterpret_cast<uintptr_t>(src) % 8 == 0) {
      cp_async_pieces<8>(dst, src);
    } else if (valid == kElems && reinterpret_cast<uintptr_t>(src) % 4 == 0) {
      cp_async_pieces<4>(dst, src);
    } else {
      union {
        uint4 chunk;
        T elem[kElems];
      } v;
#pragma unroll
      for (int e = 0; e < kElems; ++e) v.elem[e] = e < valid ? src[e] : T(0);
      *reinterpret_cast<uint4*>(dst) = v.chunk;
    }
  };
  if constexpr (kAligned) {
    // Copies in flight hold no registers, but their addresses do: unrolled completely, a thread that copies many
    // chunks (a large tile for few warps) would keep all their addresses live at once.
#pragma unroll 4
    for (int chunk = tid; chunk < kChunks; chunk += THREADS) copy_chunk(chunk);
  } else {
    // Element-wise loads land in registers; unrolling them all would hold a whole tile per thread and spill.
#pragma unroll 1
    for (int chunk = tid; chunk < kChunks; chunk += THREADS) copy_chunk(chunk);
  }
}

// ---- A convolution's A, gathered from its input ----------------------------------------------------------------

// The rows one thread copies in a ROWS x COLS tile of a convolution's implicit A, the same chunks at every k-tile:
// for each, the offset of its output pixel's image in the input and the input coordinates of the filter's top-left
// tap (which may lie in the padding); image is -1 for a row past M. The cp.async path keeps them in registers,
// worked out once per block, where a thread copies few chunks; otherwise (many chunks per thread, or the
// element-wise path, whose loads hold registers of their own) each load works its row out again, which keeps the
// kernels free of spills.
template <typename T, int ROWS, int COLS, int THREADS, bool kAligned>
struct GatherRows {
  static constexpr int kElems = kChunkBytes / static_cast<int>(sizeof(T));
  static constexpr int kChunksPerRow = COLS / kElems;
  static constexpr int kChunks = ROWS * kChunksPerRow;
  static constexpr int kIters = (kChunks + THREADS - 1) / THREADS;
  static constexpr bool kKept = kAligned && kIters <= 8;
  static constexpr size_t kKeptRows = kKept ? static_cast<size_t>(kIters) : 1;
  int64_t image[kKeptRows];
  int32_t ih0[kKeptRows], iw0[kKeptRows];
  int64_t m0;

  __device__ __forceinline__ void init(const GemmParams& p, int64_t first_row, int tid) {
    m0 = first_row;
    if constexpr (kKept) {
#pragma unroll
      for (int i = 0; i < kIters; ++i) work_out(p, i, tid, &image[i], &ih0[i], &iw0[i]);
    }
  }

  // The row of the thread's chunk i.
  __device__ __forceinline__ void row(const GemmParams& p, int i, int tid, int64_t* row_image, int32_t* row_ih0,
                                      int32_t* row_iw0) const {
    if constexpr (kKept) {
      *row_image = image[i];
      *row_ih0 = ih0[i];
      *row_iw0 = iw0[i];
    } else {
      work_out(p, i, tid, row_image, row_ih0, row_iw0);
    }
  }

  __device__ __forceinline__ void work_out(const GemmParams& p, int i, int tid, int64_t* row_image,
                                           int32_t* row_ih0, int32_t* row_iw0) const {
    const ConvParams& g = p.conv;
    const int chunk = tid + i * THREADS;
    const int64_t m = m0 + chunk / kChunksPerRow;
    *row_image = -1;
    *row_ih0 = 0;
    *row_iw0 = 0;
    if (chunk < kChunks && m < p.M) {
      const int64_t pixels = static_cast<int64_t>(g.out_h) * g.out_w;
      const int64_t n = m / pixels;
      const int64_t pixel = m - n * pixels;
      const int64_t oh = pixel / g.out_w;
      *row_image = n * g.in_h * g.in_w * g.in_c;
      *row_ih0 = static_cast<int32_t>(oh) * g.stride_h - g.pad_h;
      *row_iw0 = static_cast<int32_t>(pixel - oh * g.out_w) * g.stride_w - g.pad_w;
    }
  }
};

// Loads columns [k0, k0 + COLS) of a convolution's implicit A, the rows of `rows`, into shared memory as load_tile
// loads a matrix: column k is filter tap k / in_c (row-major over kernel_h x kernel_w) at input channel k % in_c, so
// element (m, k) is the input pixel the tap covers for output pixel m, or zero where the tap lies in the padding,
// the row is past M or k is at or past k_end. kAligned: in_c is a whole number of chunks and the input starts on a
// 16-byte boundary, so each chunk is one tap's neighbouring channels, copied by cp.async (src-size 0 zero-fills a
// padding chunk); otherwise each element is looked up on its own.
template <typename T, int ROWS, int COLS, int LDS, int THREADS, bool kAligned>
__device__ __forceinline__ void load_gathered_tile(T* shared, const GemmParams& p,
                                                   const GatherRows<T, ROWS, COLS, THREADS, kAligned>& rows,
                                                   int64_t k0, int64_t k_end, int tid) {
  using Rows = GatherRows<T, ROWS, COLS, THREADS, kAligned>;
  constexpr int kElems = Rows::kElems;
  static_assert(LDS % kElems == 0, "shared-memory rows start on 16-byte boundaries");
  const T* const input = static_cast<const T*>(p.A);
  const ConvParams& g = p.conv;
  // Column k of A: its filter tap's offsets from a row's top-left input pixel and its channel; k < 2^31 (the
  // dispatcher checks K). Two divisions, so worked out once per k tile where every chunk of the thread's has the
  // same column (a whole number of rows' chunks per pass of the threads).
  struct Column {
    int32_t dh, dw, channel;
    bool inside;  // k < k_end
  };
  auto column_of = [&](int64_t k) {
    const int32_t column = static_cast<int32_t>(k);
    const int32_t tap = column / g.in_c;
    const int32_t r = tap / g.kernel_w;
    return Column{r * g.dilation_h, (tap - r * g.kernel_w) * g.dilation_w, column - tap * g.in_c, k < k_end};
  };
  // The input element of a row at a column, or null where A holds a zero there.
  auto source = [&](int64_t image, int32_t ih0, int32_t iw0, const Column& at) -> const T* {
    const int32_t ih = ih0 + at.dh, iw = iw0 + at.dw;
    if (image < 0 || !at.inside || ih < 0 || ih >= g.in_h || iw < 0 || iw >= g.in_w) return nullptr;
    return input + image + (static_cast<int64_t>(ih) * g.in_w + iw) * g.in_c + at.channel;
  };
  constexpr bool kOneColumn = THREADS % Rows::kChunksPerRow == 0;
  const int first_col = (tid % Rows::kChunksPerRow) * kElems;
  Column shared_column{};
  if constexpr (kAligned && kOneColumn) shared_column = column_of(k0 + first_col);
  auto copy_chunk = [&](int i) {
    const int chunk = tid + i * THREADS;
    const int col = kOneColumn ? first_col : (chunk % Rows::kChunksPerRow) * kElems;
    T* const dst = shared + (chunk / Rows::kChunksPerRow) * LDS + col;
    int64_t image;
    int32_t ih0, iw0;
    rows.row(p, i, tid, &image, &ih0, &iw0);
    if constexpr (kAligned) {
      const T* const src = source(image, ih0, iw0, kOneColumn ? shared_column : column_of(k0 + col));
      // With nothing to read, point at the input's first element (the call has one) and copy no byte of it.
      cp_async_16(dst, src != nullptr ? src : input, src != nullptr ? kChunkBytes : 0);
    } else {
      union {
        uint4 chunk;
        T elem[kElems];
      } v;
#pragma unroll
      for (int e = 0; e < kElems; ++e) {
        const T* const src = source(image, ih0, iw0, column_of(k0 + col + e));
        v.elem[e] = src != nullptr ? *src : T(0);
      }
      *reinterpret_cast<uint4*>(dst) = v.chunk;
    }
  };
  if constexpr (Rows::kKept) {
#pragma unroll
    for (int i = 0; i < Rows::kIters; ++i)
      if (Rows::kChunks % THREADS == 0 || tid + i * THREADS < Rows::kChunks) copy_chunk(i);
  } else {
    // As load_tile's loops: few addresses live at once, and element-wise loads not all hoisted into registers.
#pragma unroll 1
    for (int i = 0; i < Rows::kIters; ++i)
      if (Rows::kChunks % THREADS == 0 || tid + i * THREADS < Rows::kChunks) copy_chunk(i);
  }
}

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
