// Hopper kernels of {{PACKAGE}} (sm_90a): wgmma on the Tensor Cores, fed by the bulk tensor copy engine (TMA)
// through a ring of shared-memory stages guarded by mbarriers. A block is one producer warpgroup (one thread issues
// the copies) and one or two consumer warpgroups (each issues wgmma for 64 rows and stores its sums); blocks are
// persistent: each walks the tiles of C (and the split-K slices) in grouped order, so the copies of its next tile
// overlap the stores of the last. Each src/kernels/*.cu instantiates one kernel from here.
//
// The hierarchy:
//   level 0  warpgroup tile: 64 x BN accumulators of wgmma m64nBNk16 in one consumer warpgroup's registers;
//   level 1  block tile: CONSUMERS warpgroup tiles stacked along wgmma's m, with 64-deep k slices of both operands
//            in STAGES shared-memory buffers (128-byte swizzled rows, as TMA writes and wgmma reads them);
//   level 2  grid: one block per SM over every tile and split, GROUP_M tile rows at a time for L2 reuse.
// SWAPPED computes C^T = B^T A^T: B's rows (N) fill wgmma's 64-row side and A's rows (M) its n side, so a call
// with a few rows of C still runs whole wgmma instructions. Both operands are K-major (A is M x K row-major, B is
// N x K row-major), which wgmma reads without a transpose.
#ifndef {{PACKAGE_UPPER}}_WGMMA_KERNELS_CUH_
#define {{PACKAGE_UPPER}}_WGMMA_KERNELS_CUH_

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links the driver library
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "gemm_kernels.cuh"

// wgmma and setmaxnreg exist only in the sm_90a instruction set; other targets compile an empty kernel that the
// dispatcher never launches (it checks the device and the kernel's binary version first).
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define {{PACKAGE_UPPER}}_WGMMA_DEVICE 1
#endif

namespace {{PACKAGE}}_detail {

// One 64-element (128-byte) k slice per shared row: the width of the 128-byte swizzle.
constexpr int kWgmmaSliceK = 64;
constexpr int kSwizzleAtomBytes = 1024;  // 8 rows of 128 bytes: the unit the swizzle repeats in

template <int CONSUMERS, int BN, int STAGES, bool SWAPPED>
struct WgmmaTiles {
  static_assert(CONSUMERS == 1 || CONSUMERS == 2, "one or two consumer warpgroups");
  static_assert(BN % 16 == 0 && BN >= 16 && BN <= 256, "wgmma's n, here in steps of 16");
  static_assert(STAGES >= 2, "the copy of one slice overlaps the products of another");
  static constexpr int kRowsA = 64 * CONSUMERS;  // wgmma's m side: rows of A, or of B when swapped
  static constexpr int kRowsB = BN;              // wgmma's n side
  static constexpr int kBlockM = SWAPPED ? kRowsB : kRowsA;  // the block's tile of C
  static constexpr int kBlockN = SWAPPED ? kRowsA : kRowsB;
  static constexpr int kStageA = kRowsA * kWgmmaSliceK * 2;  // bytes
  static constexpr int kStageB = kRowsB * kWgmmaSliceK * 2;
  static_assert(kStageA % kSwizzleAtomBytes == 0 && kStageB % kSwizzleAtomBytes == 0,
                "every stage starts on a swizzle atom");
  static constexpr int kThreads = 128 * (CONSUMERS + 1);
  // The stages, a full and an empty mbarrier per stage, 16 bytes for split-K's last-split flag, and room to align
  // the stages to a swizzle atom (dynamic shared memory is only 16-byte aligned).
  static constexpr int kSharedBytes = STAGES * (kStageA + kStageB) + STAGES * 16 + 16 + kSwizzleAtomBytes;
  // Registers per thread after setmaxnreg: the producer keeps few, the consumers take the rest of the SM's 64K.
  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = CONSUMERS == 2 ? 232 : 240;
};

// ---- Host side: tensor maps ------------------------------------------------------------------------------

// cuTensorMapEncodeTiled, found through the runtime's driver entry point once per process, or null when the
// driver lacks it.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                                           &found);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found);
#endif
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      fn = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

// A tensor map of `rows` rows of `cols` binary16 values, `ld` elements apart, read in boxes of box_rows x 64 with
// the 128-byte swizzle; boxes that hang over an edge are zero-filled. The caller guarantees a 16-byte aligned base
// and leading dimension.
inline cudaError_t encode_operand_map(CUtensorMap* map, const void* base, int64_t rows, int64_t cols, int64_t ld,
                                      int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols > 0 ? cols : 1), static_cast<cuuint64_t>(rows > 0 ? rows : 1)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kWgmmaSliceK), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void*>(base), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

// ---- Device side -----------------------------------------------------------------------------------------

__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// The producer's arrival on a full barrier, announcing the bytes the stage's copies will deliver.
__device__ __forceinline__ void mbarrier_expect_bytes(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// Waits until the barrier's phase of parity `parity` has completed. A fresh barrier counts its phase of parity 1
// as completed, so a producer's first wait on an empty stage (parity 1) passes at once.
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (done == 0);
}

// One box of a 2-D tensor map (x = k, y = row) into shared memory, completing on `bar` with its byte count.
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* map, uint32_t bar, int32_t x, int32_t y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
      ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(x), "r"(y)
      : "memory");
}

// A wgmma shared-memory descriptor for a K-major operand with the 128-byte swizzle: start address and the 1024-byte
// stride between 8-row groups, both in 16-byte units (the leading offset is unused in this mode and set to 1).
__device__ __forceinline__ uint64_t wgmma_descriptor(uint32_t address) {
  return static_cast<uint64_t>((address & 0x3FFFF) >> 4) | (static_cast<uint64_t>(1) << 16) |
         (static_cast<uint64_t>(kSwizzleAtomBytes >> 4) << 32) | (static_cast<uint64_t>(1) << 62);
}

#ifdef {{PACKAGE_UPPER}}_WGMMA_DEVICE
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
template <int kRegisters>
__device__ __forceinline__ void registers_decrease() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void registers_increase() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
#endif

// Keeps the compiler from moving reads or writes of the accumulators across an asynchronous wgmma.
template <unsigned kCount>
__device__ __forceinline__ void pin_registers(float (&d)[kCount]) {
#pragma unroll
  for (unsigned i = 0; i < kCount; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// d += a * b for one k16 step: A and B from shared memory through their descriptors, f32 accumulators.
template <int N>
struct Wgmma;

template <>
struct Wgmma<16> {
  __device__ __forceinline__ static void mma(float (&d)[8], uint64_t a, uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7"
        "}, %8, %9, 1, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
        : "l"(a), "l"(b));
  }
};

template <>
struct Wgmma<32> {
  __device__ __forceinline__ static void mma(float (&d)[16], uint64_t a, uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
        "}, %16, %17, 1, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(a), "l"(b));
  }
};

template <>
struct Wgmma<64> {
  __device__ __forceinline__ static void mma(float (&d)[32], uint64_t a, uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, 1, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(a), "l"(b));
  }
};

template <>
struct Wgmma<128> {
  __device__ __forceinline__ static void mma(float (&d)[64], uint64_t a, uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, 1, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a), "l"(b));
  }
};

template <>
struct Wgmma<256> {
  __device__ __forceinline__ static void mma(float (&d)[128], uint64_t a, uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, 1, 1, 1, 0, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b));
  }
};

// The C value of one accumulator pair at (r, c), (r, c + 1): alpha * sum + beta * C and the epilogue (finish()), or
// under split-K the raw sums into this split's slice of the workspace (a wgmma kernel runs single products). `pairs`: the two share an 8-byte aligned word when both are inside.
__device__ __forceinline__ void store_pair(const GemmParams& p, int64_t split, int64_t r, int64_t c, float v0,
                                           float v1, bool pairs) {
  if (r >= p.M || c >= p.N) return;
  float* out;
  if (p.partial != nullptr) {
    out = p.partial + (split * p.M + r) * p.N + c;
  } else {
    out = p.C + r * p.ldc + c;
    v0 = finish(p, r, c, v0, out);
    if (c + 1 < p.N) v1 = finish(p, r, c + 1, v1, out + 1);
  }
  if (c + 1 < p.N && pairs) {
    *reinterpret_cast<float2*>(out) = make_float2(v0, v1);
  } else {
    out[0] = v0;
    if (c + 1 < p.N) out[1] = v1;
  }
}

// The consumer warpgroups' own barrier (the producer does not take part): named barrier 1.
template <int kThreads>
__device__ __forceinline__ void consumers_sync() {
  asm volatile("bar.sync 1, %0;\n" ::"n"(kThreads) : "memory");
}

// The transposed product's accumulator (C^T at (n, m)) into C at (m, n).
__device__ __forceinline__ void store_one(const GemmParams& p, int64_t split, int64_t r, int64_t c, float v) {
  if (r >= p.M || c >= p.N) return;
  if (p.partial != nullptr) {
    p.partial[(split * p.M + r) * p.N + c] = v;
    return;
  }
  float* out = p.C + r * p.ldc + c;
  *out = finish(p, r, c, v, out);
}

// map_a holds the operand on wgmma's m side (A, or B when SWAPPED) in boxes of 64 * CONSUMERS rows, map_b the
// other in boxes of BN rows. gridDim.x blocks share p.m_tiles * p.n_tiles * splits units of work.
template <int CONSUMERS, int BN, int STAGES, int GROUP_M, bool SWAPPED>
__global__ void __launch_bounds__(WgmmaTiles<CONSUMERS, BN, STAGES, SWAPPED>::kThreads, 1)
    gemm_wgmma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, GemmParams p) {
#ifdef {{PACKAGE_UPPER}}_WGMMA_DEVICE
  using Tiles = WgmmaTiles<CONSUMERS, BN, STAGES, SWAPPED>;
  extern __shared__ uint8_t shared_raw[];
  const uint32_t base = (shared_address(shared_raw) + kSwizzleAtomBytes - 1) & ~uint32_t(kSwizzleAtomBytes - 1);
  const uint32_t stages_a = base;
  const uint32_t stages_b = stages_a + STAGES * Tiles::kStageA;
  const uint32_t full = stages_b + STAGES * Tiles::kStageB;  // STAGES barriers of 8 bytes: the stage has landed
  const uint32_t empty = full + STAGES * 8;                 // and: every consumer is done reading it
  // Split-K: whether this block's split of the current tile was the last to finish (see the epilogue).
  volatile uint32_t* const last_split =
      reinterpret_cast<volatile uint32_t*>(shared_raw + (empty + STAGES * 8 - shared_address(shared_raw)));
  const int warpgroup = static_cast<int>(threadIdx.x) / 128;
  const int thread = static_cast<int>(threadIdx.x) % 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(full + 8 * s, 1);
      mbarrier_init(empty + 8 * s, CONSUMERS);
    }
    // Makes the initialised barriers visible to the copy engine before any copy names them.
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int64_t tiles = p.m_tiles * p.n_tiles;
  const int64_t splits = p.K > 0 ? (p.K + p.k_per_split - 1) / p.k_per_split : 1;
  const int64_t units = tiles * splits;
  // Unit u: split u / tiles of tile u % tiles, whose origin in C and k range this returns.
  auto unit_origin = [&](int64_t u, int64_t* m0, int64_t* n0, int64_t* split, int64_t* k0, int* k_slices) {
    *split = u / tiles;
    int64_t tile_m, tile_n;
    tile_coordinates<GROUP_M>(u - *split * tiles, p.m_tiles, p.n_tiles, &tile_m, &tile_n);
    *m0 = tile_m * Tiles::kBlockM;
    *n0 = tile_n * Tiles::kBlockN;
    *k0 = *split * p.k_per_split;
    const int64_t k_end = *k0 + p.k_per_split < p.K ? *k0 + p.k_per_split : p.K;
    *k_slices = static_cast<int>((k_end - *k0 + kWgmmaSliceK - 1) / kWgmmaSliceK);
  };

  if (warpgroup == 0) {
    registers_decrease<Tiles::kProducerRegisters>();
    if (thread != 0) return;
    int stage = 0;
    uint32_t phase = 0;
    for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
      int64_t m0, n0, split, k0;
      int k_slices;
      unit_origin(u, &m0, &n0, &split, &k0, &k_slices);
      const int32_t row_a = static_cast<int32_t>(SWAPPED ? n0 : m0);
      const int32_t row_b = static_cast<int32_t>(SWAPPED ? m0 : n0);
      for (int s = 0; s < k_slices; ++s) {
        mbarrier_wait(empty + 8 * stage, phase ^ 1);
        mbarrier_expect_bytes(full + 8 * stage, Tiles::kStageA + Tiles::kStageB);
        const int32_t k = static_cast<int32_t>(k0 + static_cast<int64_t>(s) * kWgmmaSliceK);
        tma_load(stages_a + stage * Tiles::kStageA, &map_a, full + 8 * stage, k, row_a);
        tma_load(stages_b + stage * Tiles::kStageB, &map_b, full + 8 * stage, k, row_b);
        if (++stage == STAGES) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    return;
  }

  registers_increase<Tiles::kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int warp = thread / 32;
  const int lane = thread % 32;
  int stage = 0;
  uint32_t phase = 0;
  float acc[BN / 2];
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    int64_t m0, n0, split, k0;
    int k_slices;
    unit_origin(u, &m0, &n0, &split, &k0, &k_slices);
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    int last_stage = -1;
    for (int s = 0; s < k_slices; ++s) {
      mbarrier_wait(full + 8 * stage, phase);
      const uint32_t a = stages_a + stage * Tiles::kStageA + consumer * 64 * (kWgmmaSliceK * 2);
      const uint32_t b = stages_b + stage * Tiles::kStageB;
      pin_registers(acc);
      wgmma_fence();
#pragma unroll
      for (int k = 0; k < kWgmmaSliceK / 16; ++k)  // 16 elements are 32 bytes: 2 in the descriptor's units
        Wgmma<BN>::mma(acc, wgmma_descriptor(a) + 2 * k, wgmma_descriptor(b) + 2 * k);
      wgmma_commit();
      // One group stays in flight: the previous slice's products are done, so its stage goes back to the producer.
      wgmma_wait<1>();
      pin_registers(acc);
      if (last_stage >= 0 && thread == 0) mbarrier_arrive(empty + 8 * last_stage);
      last_stage = stage;
      if (++stage == STAGES) {
        stage = 0;
        phase ^= 1;
      }
    }
    wgmma_wait<0>();
    pin_registers(acc);
    if (last_stage >= 0 && thread == 0) mbarrier_arrive(empty + 8 * last_stage);

    // Accumulator i of m64nBN: row 16 * warp + lane / 4 (+ 8 for i % 4 >= 2) of the warpgroup's 64, column
    // 8 * (i / 4) + 2 * (lane % 4) + i % 2.
    const int64_t row = 64 * consumer + 16 * warp + lane / 4;
    const int col = 2 * (lane % 4);
    if constexpr (!SWAPPED) {
      const bool pairs = p.partial != nullptr ? p.N % 2 == 0
                                              : p.ldc % 2 == 0 && reinterpret_cast<uintptr_t>(p.C) % 8 == 0;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        store_pair(p, split, m0 + row, n0 + 8 * j + col, acc[4 * j], acc[4 * j + 1], pairs);
        store_pair(p, split, m0 + row + 8, n0 + 8 * j + col, acc[4 * j + 2], acc[4 * j + 3], pairs);
      }
    } else {
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int64_t m = m0 + 8 * j + col;
        store_one(p, split, m, n0 + row, acc[4 * j]);
        store_one(p, split, m + 1, n0 + row, acc[4 * j + 1]);
        store_one(p, split, m, n0 + row + 8, acc[4 * j + 2]);
        store_one(p, split, m + 1, n0 + row + 8, acc[4 * j + 3]);
      }
    }
    // Split-K in the same launch: every split writes its sums to its slice of the workspace and counts itself in
    // at the tile's counter (zeroed by the dispatcher before the launch); the split that arrives last adds all the
    // slices into C. The fences make each block's slice visible before its arrival is.
    if (p.partial != nullptr) {
      __threadfence();
      consumers_sync<128 * CONSUMERS>();
      if (consumer == 0 && thread == 0)
        *last_split = atomicAdd(p.tile_counters + (u - split * tiles), 1u) + 1 == static_cast<uint32_t>(splits);
      consumers_sync<128 * CONSUMERS>();
      if (*last_split != 0) {
        __threadfence();
        // Eight of the thread's elements at a time (its accumulators i of one n8 column pair), the splits in
        // order, each split's eight loads issued together: a chunk waits one L2 round trip per split, and holds
        // eight sums.
#pragma unroll 1
        for (int j = 0; j < BN / 8; j += 2) {
          int64_t r[8], c[8];
          float sum[8];
#pragma unroll
          for (int e = 0; e < 8; ++e) {
            const int i = 4 * j + e;
            const int64_t lead = row + (i % 4 >= 2 ? 8 : 0);    // along wgmma's m
            const int64_t across = 8 * (i / 4) + col + i % 2;  // along wgmma's n
            r[e] = SWAPPED ? m0 + across : m0 + lead;
            c[e] = SWAPPED ? n0 + lead : n0 + across;
            sum[e] = 0.0f;
          }
          for (int64_t s = 0; s < splits; ++s)
#pragma unroll
            for (int e = 0; e < 8; ++e)
              if (r[e] < p.M && c[e] < p.N) sum[e] += __ldcg(p.partial + (s * p.M + r[e]) * p.N + c[e]);
#pragma unroll
          for (int e = 0; e < 8; ++e) {
            if (r[e] >= p.M || c[e] >= p.N) continue;
            float* out = p.C + r[e] * p.ldc + c[e];
            *out = finish(p, r[e], c[e], sum[e], out);
          }
        }
      }
    }
  }
#else
  (void)map_a;
  (void)map_b;
  (void)p;
  __trap();
#endif
}

// Builds the two tensor maps and launches the kernel on `stream`: `blocks` persistent blocks (at most one per unit
// of work).
template <int CONSUMERS, int BN, int STAGES, int GROUP_M, bool SWAPPED>
cudaError_t launch_wgmma(const GemmParams& p, int splits, int64_t blocks, cudaStream_t stream) {
  using Tiles = WgmmaTiles<CONSUMERS, BN, STAGES, SWAPPED>;
  void (*const kernel)(const CUtensorMap, const CUtensorMap, GemmParams) =
      gemm_wgmma<CONSUMERS, BN, STAGES, GROUP_M, SWAPPED>;
  // Above 48 KiB a block's dynamic shared memory must be opted into, per kernel and device.
  static std::atomic<uint64_t> opted{0};
  cudaError_t e = opt_in_shared(reinterpret_cast<const void*>(kernel), Tiles::kSharedBytes, &opted);
  if (e != cudaSuccess) return e;
  // With K = 0 no copy is issued (the blocks write beta * C), and the maps stay unused.
  CUtensorMap map_a{}, map_b{};
  if (p.K > 0) {
    const void* m_side = SWAPPED ? p.B : p.A;
    const void* n_side = SWAPPED ? p.A : p.B;
    e = encode_operand_map(&map_a, m_side, SWAPPED ? p.N : p.M, p.K, SWAPPED ? p.ldb : p.lda, Tiles::kRowsA);
    if (e == cudaSuccess)
      e = encode_operand_map(&map_b, n_side, SWAPPED ? p.M : p.N, p.K, SWAPPED ? p.lda : p.ldb, Tiles::kRowsB);
    if (e != cudaSuccess) return e;
  }
  const int64_t units = p.m_tiles * p.n_tiles * splits;
  const unsigned grid = static_cast<unsigned>(units < blocks ? units : blocks);
  kernel<<<grid, Tiles::kThreads, Tiles::kSharedBytes, stream>>>(map_a, map_b, p);
  return cudaGetLastError();
}

}  // namespace {{PACKAGE}}_detail

#endif  // {{PACKAGE_UPPER}}_WGMMA_KERNELS_CUH_
