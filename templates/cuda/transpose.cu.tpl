// The transpose of an operand stored the other way round from what the GEMM kernels read (a transposed A, or B in
// the other order), into workspace: 32 x 32 tiles through shared memory, so that both the reads and the writes of a
// warp touch consecutive addresses.
#include <stdint.h>

#include "../internal.h"

namespace {{PACKAGE}}_detail {
namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;  // blockDim = (kTile, kRowsPerPass): each thread moves kTile / kRowsPerPass elements

// Block x walks the tiles of one matrix (rows in tiles_r of them); z runs over the matrices, gridDim.z at a time.
template <typename T>
__global__ void __launch_bounds__(kTile * kRowsPerPass) transpose(const T* src, int64_t ld_src, int64_t src_stride,
                                                                  int64_t rows, int64_t cols, T* dst, int64_t ld_dst,
                                                                  int64_t dst_stride, int64_t count, int64_t tiles_r) {
  __shared__ T tile[kTile][kTile + 1];  // +1: a column of the tile spans every bank
  const int64_t r0 = (static_cast<int64_t>(blockIdx.x) % tiles_r) * kTile;
  const int64_t c0 = (static_cast<int64_t>(blockIdx.x) / tiles_r) * kTile;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  for (int64_t m = blockIdx.z; m < count; m += gridDim.z) {
    const T* const from = src + m * src_stride;
    T* const to = dst + m * dst_stride;
    for (int i = ty; i < kTile; i += kRowsPerPass)
      if (r0 + i < rows && c0 + tx < cols) tile[i][tx] = from[(r0 + i) * ld_src + c0 + tx];
    __syncthreads();
    for (int i = ty; i < kTile; i += kRowsPerPass)
      if (c0 + i < cols && r0 + tx < rows) to[(c0 + i) * ld_dst + r0 + tx] = tile[tx][i];
    __syncthreads();  // the tile is refilled for the next matrix
  }
}

}  // namespace

cudaError_t launch_transpose(const void* src, int64_t ld_src, int64_t src_stride, int64_t rows, int64_t cols,
                             void* dst, int64_t ld_dst, int64_t dst_stride, int64_t count, int element_bytes,
                             cudaStream_t stream) {
  if (rows == 0 || cols == 0 || count == 0) return cudaSuccess;
  const int64_t tiles_r = (rows + kTile - 1) / kTile;
  const int64_t tiles = tiles_r * ((cols + kTile - 1) / kTile);
  const dim3 grid(static_cast<unsigned>(tiles), 1, static_cast<unsigned>(count < 65535 ? count : 65535));
  const dim3 block(kTile, kRowsPerPass);
  if (element_bytes == 2)
    transpose<uint16_t><<<grid, block, 0, stream>>>(static_cast<const uint16_t*>(src), ld_src, src_stride, rows, cols,
                                                    static_cast<uint16_t*>(dst), ld_dst, dst_stride, count, tiles_r);
  else
    transpose<float><<<grid, block, 0, stream>>>(static_cast<const float*>(src), ld_src, src_stride, rows, cols,
                                                 static_cast<float*>(dst), ld_dst, dst_stride, count, tiles_r);
  return cudaGetLastError();
}

}  // namespace {{PACKAGE}}_detail
