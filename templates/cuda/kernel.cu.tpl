// The launcher of kernel {{NAME}} (tiles in the header above): the cp.async instantiation for 16-byte aligned
// rows, the element-wise one otherwise, on the caller's stream with gridDim (block tiles, 1, splits).
#include "../gemm_kernels.cuh"

namespace {{PACKAGE}}_detail {

cudaError_t launch_{{NAME}}(const GemmParams& p, int splits, bool aligned, cudaStream_t stream) {
{{#TENSOR_CORES}}  using Tiles = TensorCoreTiles<{{BM}}, {{BN}}, {{BK}}, {{WM}}, {{WN}}, {{STAGES}}>;
  void (*const kernel)(GemmParams) =
      aligned ? gemm_tensor_core<{{BM}}, {{BN}}, {{BK}}, {{WM}}, {{WN}}, {{STAGES}}, {{GROUP_M}}, true>
              : gemm_tensor_core<{{BM}}, {{BN}}, {{BK}}, {{WM}}, {{WN}}, {{STAGES}}, {{GROUP_M}}, false>;
{{/TENSOR_CORES}}{{#CUDA_CORES}}  using Tiles = CudaCoreTiles<{{ELEMENT}}, {{B_ROW_MAJOR}}, {{BM}}, {{BN}}, {{BK}}, {{TM}}, {{TN}}, {{WARP_ROWS}}, {{STAGES}}>;
  void (*const kernel)(GemmParams) =
      aligned ? gemm_cuda_core<{{ELEMENT}}, {{B_ROW_MAJOR}}, {{BM}}, {{BN}}, {{BK}}, {{TM}}, {{TN}}, {{WARP_ROWS}}, {{STAGES}}, {{GROUP_M}}, true>
              : gemm_cuda_core<{{ELEMENT}}, {{B_ROW_MAJOR}}, {{BM}}, {{BN}}, {{BK}}, {{TM}}, {{TN}}, {{WARP_ROWS}}, {{STAGES}}, {{GROUP_M}}, false>;
{{/CUDA_CORES}}  static_assert(Tiles::kThreads == {{THREADS}} && Tiles::kSharedBytes == {{SHARED_BYTES}},
                "the dispatcher's kernel table must describe this instantiation");
  // Above 48 KiB a block's dynamic shared memory must be opted into per kernel (and per device, so every call).
  if (Tiles::kSharedBytes > 48 * 1024) {
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tiles::kSharedBytes);
    if (e != cudaSuccess) return e;
  }
  const dim3 grid(static_cast<unsigned>(p.m_tiles * p.n_tiles), 1, static_cast<unsigned>(splits));
  kernel<<<grid, Tiles::kThreads, Tiles::kSharedBytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace {{PACKAGE}}_detail
