// How the cp.async kernels of {{PACKAGE}} (gemm_kernels.cuh) fill their shared-memory stages: the cp.async
// primitives, a matrix tile's load (16-byte copies for aligned rows, smaller ones or single elements otherwise) and
// a convolution's A tile gathered from its input.
#ifndef {{PACKAGE_UPPER}}_TILE_LOADS_CUH_
#define {{PACKAGE_UPPER}}_TILE_LOADS_CUH_

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

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

}  // namespace {{PACKAGE}}_detail

#endif  // {{PACKAGE_UPPER}}_TILE_LOADS_CUH_
