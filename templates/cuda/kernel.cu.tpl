// The launcher of kernel {{NAME}} (tiles in the header above){{#WGMMA}}: persistent wgmma blocks over tensor maps of A and
// B, on the caller's stream{{/WGMMA}}{{#BLOCKS}}: the cp.async instantiation for 16-byte aligned rows, the element-wise one
// otherwise{{#CONV}}, each also gathering a convolution's A from its input{{/CONV}}, on the caller's stream with gridDim
// (block tiles, products, splits){{/BLOCKS}}.
#include "../{{KERNEL_HEADER}}"

namespace {{PACKAGE}}_detail {

cudaError_t launch_{{NAME}}(const GemmParams& p, int splits, bool aligned, cudaStream_t stream) {
{{#WGMMA}}  using Tiles = WgmmaTiles<{{CONSUMERS}}, {{WGMMA_N}}, {{STAGES}}, {{SWAPPED}}>;
  static_assert(Tiles::kThreads == {{THREADS}} && Tiles::kSharedBytes == {{SHARED_BYTES}} &&
                    Tiles::kBlockM == {{BM}} && Tiles::kBlockN == {{BN}},
                "the dispatcher's kernel table must describe this instantiation");
  // Tensor maps need 16-byte rows, and the grid is one product's; the dispatcher checks both first.
  if ((!aligned && p.K > 0) || p.products != 1) return cudaErrorInvalidValue;
  return launch_wgmma<{{CONSUMERS}}, {{WGMMA_N}}, {{STAGES}}, {{GROUP_M}}, {{SWAPPED}}>(p, splits, p.persistent_blocks, stream);
{{/WGMMA}}{{#TENSOR_CORES}}  using Tiles = TensorCoreTiles<{{BM}}, {{BN}}, {{BK}}, {{WM}}, {{WN}}, {{STAGES}}>;
  void (*kernel)(GemmParams) =
      aligned ? gemm_tensor_core<{{BM}}, {{BN}}, {{BK}}, {{WM}}, {{WN}}, {{STAGES}}, {{GROUP_M}}, true, false>
              : gemm_tensor_core<{{BM}}, {{BN}}, {{BK}}, {{WM}}, {{WN}}, {{STAGES}}, {{GROUP_M}}, false, false>;
{{#CONV}}  if (p.gather)
    kernel = aligned ? gemm_tensor_core<{{BM}}, {{BN}}, {{BK}}, {{WM}}, {{WN}}, {{STAGES}}, {{GROUP_M}}, true, true>
                     : gemm_tensor_core<{{BM}}, {{BN}}, {{BK}}, {{WM}}, {{WN}}, {{STAGES}}, {{GROUP_M}}, false, true>;
{{/CONV}}{{/TENSOR_CORES}}{{#CUDA_CORES}}  using Tiles = CudaCoreTiles<{{ELEMENT}}, {{B_ROW_MAJOR}}, {{BM}}, {{BN}}, {{BK}}, {{TM}}, {{TN}}, {{WARP_ROWS}}, {{STAGES}}>;
  void (*kernel)(GemmParams) =
      aligned ? gemm_cuda_core<{{ELEMENT}}, {{B_ROW_MAJOR}}, {{BM}}, {{BN}}, {{BK}}, {{TM}}, {{TN}}, {{WARP_ROWS}}, {{STAGES}}, {{GROUP_M}}, true, false>
              : gemm_cuda_core<{{ELEMENT}}, {{B_ROW_MAJOR}}, {{BM}}, {{BN}}, {{BK}}, {{TM}}, {{TN}}, {{WARP_ROWS}}, {{STAGES}}, {{GROUP_M}}, false, false>;
{{#CONV}}  if (p.gather)
    kernel = aligned ? gemm_cuda_core<{{ELEMENT}}, {{B_ROW_MAJOR}}, {{BM}}, {{BN}}, {{BK}}, {{TM}}, {{TN}}, {{WARP_ROWS}}, {{STAGES}}, {{GROUP_M}}, true, true>
                     : gemm_cuda_core<{{ELEMENT}}, {{B_ROW_MAJOR}}, {{BM}}, {{BN}}, {{BK}}, {{TM}}, {{TN}}, {{WARP_ROWS}}, {{STAGES}}, {{GROUP_M}}, false, true>;
{{/CONV}}{{/CUDA_CORES}}{{#BLOCKS}}  static_assert(Tiles::kThreads == {{THREADS}} && Tiles::kSharedBytes == {{SHARED_BYTES}},
                "the dispatcher's kernel table must describe this instantiation");
  // Above 48 KiB a block's dynamic shared memory must be opted into, per kernel and device.
  if (Tiles::kSharedBytes > 48 * 1024) {
    static std::atomic<uint64_t> opted[4];  // per instantiation (aligned, gathered): the devices it is opted in on
    const cudaError_t e = opt_in_shared(reinterpret_cast<const void*>(kernel), Tiles::kSharedBytes,
                                        &opted[(aligned ? 1 : 0) + (p.gather ? 2 : 0)]);
    if (e != cudaSuccess) return e;
  }
  const dim3 grid(static_cast<unsigned>(p.m_tiles * p.n_tiles), static_cast<unsigned>(p.products),
                  static_cast<unsigned>(splits));
  kernel<<<grid, Tiles::kThreads, Tiles::kSharedBytes, stream>>>(p);
  return cudaGetLastError();
{{/BLOCKS}}}

}  // namespace {{PACKAGE}}_detail
