#ifndef {{PACKAGE_UPPER}}_H_
#define {{PACKAGE_UPPER}}_H_

/*
 * {{PACKAGE}}: {{OP_DESCRIPTION:x-c-comment}}, for the {{ARCH_DESCRIPTION:x-c-comment}}.
 * C = alpha * A * B + beta * C on the GPU, with A ({{A_TYPE_TEXT}}) M x K {{A_LAYOUT}}, B ({{B_TYPE_TEXT}}) K x N
 * {{B_LAYOUT}}{{B_LAYOUT_NOTE}}, and C (float) M x N {{C_LAYOUT}}; products are accumulated in fp32. Leading
 * dimensions are in elements. A, B, C and any workspace are device pointers (cudaMalloc, cudaMallocAsync or
 * managed memory); the package cannot tell a host pointer from a device one, so passing one is undefined.
 *
 * Every call is asynchronous on the stream the caller passes (NULL: the legacy default stream), like a cuBLAS
 * call: it returns once the work is enqueued. Arguments are validated first and reported as a status; CUDA errors
 * come back as statuses too ({{PACKAGE}}_last_cuda_error() keeps the underlying cudaError_t). Nothing exits, aborts
 * or throws. M, N or K of zero is valid: with K = 0 the call computes C = beta * C (beta = 0 writes zeros without
 * reading C), and with M or N of zero it does nothing.
 */

#include <stddef.h>
#include <stdint.h>

/* The version: the generator's, with the package's content hash as build metadata. Packages that differ in anything
 * (kernels, templates, inputs) have different version strings; {{PACKAGE}}_version() says which one is linked. */
#define {{PACKAGE_UPPER}}_VERSION_MAJOR {{PACKAGE_VERSION_MAJOR}}
#define {{PACKAGE_UPPER}}_VERSION_MINOR {{PACKAGE_VERSION_MINOR}}
#define {{PACKAGE_UPPER}}_VERSION_PATCH {{PACKAGE_VERSION_PATCH}}
#define {{PACKAGE_UPPER}}_VERSION_STRING "{{PACKAGE_VERSION_STRING}}"

/* {{PACKAGE_UPPER}}_API marks the entry points, the only symbols a shared build exports (everything else is hidden).
 * For a Windows DLL, CMakeLists.txt defines {{PACKAGE_UPPER}}_SHARED for the library and its users and
 * {{PACKAGE_UPPER}}_BUILDING for the library. Define {{PACKAGE_UPPER}}_API yourself to override all of this. */
#ifndef {{PACKAGE_UPPER}}_API
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined({{PACKAGE_UPPER}}_SHARED) && defined({{PACKAGE_UPPER}}_BUILDING)
#define {{PACKAGE_UPPER}}_API __declspec(dllexport)
#elif defined({{PACKAGE_UPPER}}_SHARED)
#define {{PACKAGE_UPPER}}_API __declspec(dllimport)
#else
#define {{PACKAGE_UPPER}}_API
#endif
#elif defined(__GNUC__)
#define {{PACKAGE_UPPER}}_API __attribute__((visibility("default")))
#else
#define {{PACKAGE_UPPER}}_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The same type as cudaStream_t, so a cudaStream_t can be passed as is without including CUDA headers here. */
typedef struct CUstream_st* {{PACKAGE}}_stream;
{{#F16}}
/* IEEE 754 binary16 bits, the layout of CUDA's __half: pass __half data with a cast to const {{PACKAGE}}_half*. */
typedef uint16_t {{PACKAGE}}_half;
{{/F16}}
typedef enum {
  {{PACKAGE_UPPER}}_OK = 0,
  {{PACKAGE_UPPER}}_INVALID_SIZE = 1,         /* M, N or K negative */
  {{PACKAGE_UPPER}}_INVALID_LEADING_DIM = 2,  /* lda, ldb or ldc smaller than its row length (or < 1) */
  {{PACKAGE_UPPER}}_NULL_POINTER = 3,         /* A, B or C null while the call would touch it */
  {{PACKAGE_UPPER}}_SIZE_OVERFLOW = 4,        /* an index, byte count or grid size would overflow */
  {{PACKAGE_UPPER}}_INVALID_KERNEL = 5,       /* kernel id outside [0, kernel_count) */
  {{PACKAGE_UPPER}}_INVALID_ARGUMENT = 6,     /* e.g. a null plan or buffer, split_k outside [1, 64] */
  {{PACKAGE_UPPER}}_WORKSPACE_TOO_SMALL = 7,  /* caller workspace smaller than plan.workspace_bytes */
  {{PACKAGE_UPPER}}_OUT_OF_MEMORY = 8,        /* the GPU (cudaErrorMemoryAllocation) or the host could not allocate */
  {{PACKAGE_UPPER}}_NO_DEVICE = 9,            /* no CUDA device, or a driver too old for this CUDA runtime */
  {{PACKAGE_UPPER}}_UNSUPPORTED_DEVICE = 10,  /* the device cannot run these kernels: no image for its compute
                                                 capability (built for {{BUILT_FOR}}), or less shared memory per
                                                 block than a kernel needs */
  {{PACKAGE_UPPER}}_CUDA_ERROR = 11,          /* any other CUDA error; see {{PACKAGE}}_last_cuda_error() */
  {{PACKAGE_UPPER}}_SYSTEM_ERROR = 12,        /* the host refused a resource the call needed; C is unspecified */
  {{PACKAGE_UPPER}}_MISALIGNED = 13           /* execute() with a plan whose wgmma kernel cannot read these
                                                 operands: A and B must start on 16-byte boundaries with lda
                                                 and ldb multiples of 8 (the plain call picks another kernel) */
} {{PACKAGE}}_status;

/* A short English description of a status, never null. */
{{PACKAGE_UPPER}}_API const char* {{PACKAGE}}_status_string({{PACKAGE}}_status status);

/* The cudaError_t (as an int) behind the last status other than OK returned on this host thread by a call that
 * reached CUDA; 0 if there was none. */
{{PACKAGE_UPPER}}_API int32_t {{PACKAGE}}_last_cuda_error(void);

/* C = alpha * A * B + beta * C: the plan of {{PACKAGE}}_plan(), run on `stream`. When the plan splits K, the
 * workspace for the partial sums is taken with cudaMallocAsync and returned with cudaFreeAsync on the same stream;
 * if that allocation fails, the call falls back to the best plan without split-K. Use {{PACKAGE}}_execute() with a
 * workspace of your own to avoid allocating at all. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}(int64_t M, int64_t N, int64_t K, float alpha,
                                                    const {{A_CTYPE}}* A, int64_t lda, const {{B_CTYPE}}* B,
                                                    int64_t ldb, float beta, float* C, int64_t ldc,
                                                    {{PACKAGE}}_stream stream);

/* What a call of this shape would do: the cost model's choice of kernel (Tensor Cores or CUDA cores), tiles,
 * split-K and grid. Pure host computation: needs no GPU. */
typedef struct {
  int32_t kernel_id;                  /* index into the kernel table, see kernel_count() */
  int32_t tensor_cores;               /* 1: Tensor Cores (mma.sync or wgmma); 0: fp32 FMA on CUDA cores */
  int32_t wgmma;                      /* 1: a persistent wgmma kernel (sm_90a): warp_* is a consumer warpgroup's
                                         tile, block_* the block's; blocks stay resident and walk the tiles */
  int32_t warp_m, warp_n, warp_k;     /* level 0: one warp's tile */
  int32_t block_m, block_n, block_k;  /* level 1: one thread block's tile in shared memory, per pipeline stage */
  int32_t stages;                     /* cp.async pipeline depth */
  int32_t threads_per_block;
  int32_t shared_bytes;               /* dynamic shared memory per block */
  int32_t group_m;                    /* level 2: block rows launched together for L2 reuse */
  int32_t split_k;                    /* slices of K computed by separate blocks, then reduced (1: none) */
  int64_t k_per_split;                /* depth of each slice, a multiple of block_k */
  int64_t grid_blocks;                /* blocks per split: ceil(M / block_m) * ceil(N / block_n) */
  int64_t waves;                      /* ceil(grid_blocks * split_k / SMs), one block per SM as the model sees it */
  size_t workspace_bytes;             /* device workspace the call needs (split_k * M * N floats, and for a wgmma
                                         kernel a 4-byte counter per block tile after them; 0 without split) */
  double predicted_seconds;           /* the cost model's estimate for the whole call, reduction included */
} {{PACKAGE}}_plan_t;

/* {{PACKAGE}}_plan() plans for operands on 16-byte boundaries and, where the package was built for sm_90a, a device
 * of compute capability 9.0, without asking the runtime. The plain call plans for its own operands and device, and
 * keeps its plans per shape. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_plan(int64_t M, int64_t N, int64_t K,
                                                         {{PACKAGE}}_plan_t* plan);

/* The kernels in this package, and the best plan with the kernel forced by id (split-K still from the model). */
{{PACKAGE_UPPER}}_API int32_t {{PACKAGE}}_kernel_count(void);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_kernel_plan(int32_t kernel_id, int64_t M, int64_t N,
                                                                int64_t K, {{PACKAGE}}_plan_t* plan);

/* One line describing `plan` in English (kernel, tiles, split-K, grid, prediction), written like snprintf: at
 * most `size` bytes including the terminating NUL; returns the length the full line needs, or -1 for a null plan. */
{{PACKAGE_UPPER}}_API int32_t {{PACKAGE}}_explain(const {{PACKAGE}}_plan_t* plan, char* buffer,
                                                  size_t size);

/* Runs `plan` for this call. Only plan->kernel_id and plan->split_k are read (so a caller may force either);
 * everything else is derived again from the shape. `workspace` must hold the plan's workspace_bytes for this
 * shape and split_k (split_k * M * N floats, plus ceil(M / block_m) * ceil(N / block_n) 4-byte counters for a
 * wgmma plan; device memory, 4-byte aligned); it may be null when split_k is 1.
 * Nothing is allocated. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_execute(const {{PACKAGE}}_plan_t* plan, int64_t M, int64_t N,
                                                            int64_t K, float alpha, const {{A_CTYPE}}* A,
                                                            int64_t lda, const {{B_CTYPE}}* B, int64_t ldb,
                                                            float beta, float* C, int64_t ldc, void* workspace,
                                                            size_t workspace_bytes, {{PACKAGE}}_stream stream);

/* Transposed operands: C = alpha * op(A) * op(B) + beta * C with op(X) = X or X^T and C row-major M x N. A
 * transposed A is stored K x M (lda >= M), a transposed B N x K (ldb >= K): a weight matrix stored [out_features,
 * in_features] is B transposed. The kernels read A as M rows of K and B as {{B_ROWS_TEXT}}; an operand
 * stored the other way round is first transposed into workspace (stream-ordered, as for split-K), a pass over it
 * that the plan's prediction includes. A column-major caller computes C^T = op(B)^T op(A)^T: swap A and B, M and N,
 * and flip both transposes. trans_a or trans_b outside the enum: INVALID_ARGUMENT. If the workspace for a transpose
 * cannot be allocated the call returns OUT_OF_MEMORY and leaves C as it was. */
typedef enum {
  {{PACKAGE_UPPER}}_NO_TRANS = 0,
  {{PACKAGE_UPPER}}_TRANS = 1
} {{PACKAGE}}_transpose;

{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm({{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b,
                                                         int64_t M, int64_t N, int64_t K, float alpha,
                                                         const {{A_CTYPE}}* A, int64_t lda, const {{B_CTYPE}}* B,
                                                         int64_t ldb, float beta, float* C, int64_t ldc,
                                                         {{PACKAGE}}_stream stream);

/* Fused epilogue: C = clamp(activation(alpha * op(A) * op(B) + beta * C + bias + residual)), applied by the kernels
 * as they store C (under split-K, by the reduction, once), so that a layer's bias, activation and residual cost no
 * pass over C. Each part is optional:
 *   bias       bias[j] added to column j (BIAS_PER_COLUMN, N floats: a linear layer's) or bias[i] to row i
 *              (BIAS_PER_ROW, M floats), a device pointer;
 *   residual   an M x N row-major matrix in device memory (leading dimension ldr >= N) added element by element;
 *              NULL for none;
 *   activation RELU max(x, 0); GELU_TANH x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2; GELU_ERF
 *              x (1 + erf(x / sqrt(2))) / 2; SILU x / (1 + e^-x); by CUDA's tanhf, erff and expf (NaN stays NaN);
 *   clamp      min(max(x, clamp_min), clamp_max), last, unless both are 0 (ReLU6: 0 and 6; +-INFINITY leaves a side
 *              open).
 * A zero-initialised epilogue_t is none of them; a NULL epilogue is the plain call. Statuses, besides the GEMM's:
 * INVALID_ARGUMENT for a bias kind or activation outside its enum, a NaN clamp bound or clamp_min >= clamp_max, or
 * a bias or residual that overlaps C; NULL_POINTER for a bias kind whose bias is NULL; INVALID_LEADING_DIM for
 * ldr < N. With K = 0 or alpha = 0 the epilogue applies to beta * C. */
typedef enum {
  {{PACKAGE_UPPER}}_BIAS_NONE = 0,
  {{PACKAGE_UPPER}}_BIAS_PER_COLUMN = 1,
  {{PACKAGE_UPPER}}_BIAS_PER_ROW = 2
} {{PACKAGE}}_bias;

typedef enum {
  {{PACKAGE_UPPER}}_ACTIVATION_NONE = 0,
  {{PACKAGE_UPPER}}_ACTIVATION_RELU = 1,
  {{PACKAGE_UPPER}}_ACTIVATION_GELU_TANH = 2,
  {{PACKAGE_UPPER}}_ACTIVATION_GELU_ERF = 3,
  {{PACKAGE_UPPER}}_ACTIVATION_SILU = 4
} {{PACKAGE}}_activation;

typedef struct {
  {{PACKAGE}}_bias bias_kind;
  const float* bias;
  const float* residual;
  int64_t ldr;
  {{PACKAGE}}_activation activation;
  float clamp_min, clamp_max;
} {{PACKAGE}}_epilogue_t;

{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_epilogue(
    {{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N, int64_t K, float alpha,
    const {{A_CTYPE}}* A, int64_t lda, const {{B_CTYPE}}* B, int64_t ldb, float beta, float* C, int64_t ldc,
    const {{PACKAGE}}_epilogue_t* epilogue, {{PACKAGE}}_stream stream);

/* Strided batched: `batch` products C_i = alpha * op(A_i) * op(B_i) + beta * C_i, i in [0, batch), with
 * A_i = A + i * stride_a, B_i = B + i * stride_b and C_i = C + i * stride_c (strides in elements; attention's
 * per-head products). A stride of 0 gives every product the same A or B. The products run side by side in one grid
 * (the batch is a grid dimension), so that many small products fill the GPU; the persistent wgmma kernels take
 * single products only. The products' C must not overlap: with batch > 1, stride_c >= (M - 1) * ldc + N, else
 * INVALID_ARGUMENT; a negative stride is INVALID_ARGUMENT and a negative batch INVALID_SIZE; a batch of 0 does
 * nothing. With an epilogue, product i's bias is bias + i * stride_bias and its residual residual + i *
 * stride_residual (0 shares one: a layer's bias); a bias or residual whose span (first product to last) overlaps
 * that of the products' C is INVALID_ARGUMENT. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_batched(
    {{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N, int64_t K, float alpha,
    const {{A_CTYPE}}* A, int64_t lda, int64_t stride_a, const {{B_CTYPE}}* B, int64_t ldb, int64_t stride_b,
    float beta, float* C, int64_t ldc, int64_t stride_c, int64_t batch, {{PACKAGE}}_stream stream);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_batched_epilogue(
    {{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N, int64_t K, float alpha,
    const {{A_CTYPE}}* A, int64_t lda, int64_t stride_a, const {{B_CTYPE}}* B, int64_t ldb, int64_t stride_b,
    float beta, float* C, int64_t ldc, int64_t stride_c, int64_t batch, const {{PACKAGE}}_epilogue_t* epilogue,
    int64_t stride_bias, int64_t stride_residual, {{PACKAGE}}_stream stream);

/* The plan of such a call (tightest leading dimensions, products one after another, operands on 16-byte
 * boundaries, no epilogue): workspace_bytes then counts the transposed copies as well as the partial sums, and
 * predicted_seconds the transposes. Pure host computation. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_plan({{PACKAGE}}_transpose trans_a,
                                                              {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N,
                                                              int64_t K, int64_t batch, {{PACKAGE}}_plan_t* plan);

{{#CONV}}/* 2-D convolution, as an implicit GEMM on this package's kernels (M = batch * out_h * out_w, N = out_c,
 * K = kernel_h * kernel_w * in_c): output = alpha * conv(input, filter) + beta * output, with input NHWC
 * ({{A_TYPE_TEXT}}, batch x in_h x in_w x in_c), filter {{FILTER_LAYOUT}} ({{B_TYPE_TEXT}}) and output NHWC (float,
 * batch x out_h x out_w x out_c), all dense device memory, on `stream` like every call.
 * out_h = (in_h + 2 pad_h - dilation_h (kernel_h - 1) - 1) / stride_h + 1, likewise out_w; padding is symmetric
 * (pad_h rows above and below, pad_w columns left and right) and reads as zeros. The kernels gather the GEMM's A
 * from the input as they copy it to shared memory: no im2col buffer and no padded copy of the input is made (with
 * in_c a multiple of {{CHUNK_ELEMENTS}} and the input on a 16-byte boundary, in 16-byte copies; otherwise element
 * by element). One group (groups = 1). {{CONV_FACTS}}
 * Statuses: INVALID_ARGUMENT for a null description, a stride or dilation below 1, a negative padding or a value
 * that differs from one the op spec fixes; INVALID_SIZE for a negative extent, a filter extent below 1, or a
 * filter larger than the padded input (no output pixel); SIZE_OVERFLOW where an operand's bytes overflow 64 bits,
 * a padded extent or kernel_h * kernel_w * in_c exceeds 2^31 - 1, or the grid would; NULL_POINTER where output
 * (or, with K > 0, input or filter) is null but needed. A batch or out_c of 0 is valid and does nothing; in_c of 0
 * computes output = beta * output. */
typedef struct {
  int64_t batch, in_h, in_w, in_c, out_c, kernel_h, kernel_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
} {{PACKAGE}}_conv2d_t;

{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d(const {{PACKAGE}}_conv2d_t* conv, float alpha,
                                                          const {{A_CTYPE}}* input, const {{B_CTYPE}}* filter,
                                                          float beta, float* output, {{PACKAGE}}_stream stream);
/* The same with a fused epilogue (see gemm_epilogue): a BIAS_PER_COLUMN bias is one per output channel, and a
 * residual is an NHWC image of the output's extent, ldr floats from one output pixel to the next (out_c when
 * dense). */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_epilogue(const {{PACKAGE}}_conv2d_t* conv, float alpha,
                                                                   const {{A_CTYPE}}* input,
                                                                   const {{B_CTYPE}}* filter, float beta,
                                                                   float* output,
                                                                   const {{PACKAGE}}_epilogue_t* epilogue,
                                                                   {{PACKAGE}}_stream stream);
/* The output's extent, with the same checks as conv2d(). Needs no GPU. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_output_size(const {{PACKAGE}}_conv2d_t* conv,
                                                                      int64_t* out_h, int64_t* out_w);
/* The plan of the convolution's GEMM (input and filter on 16-byte boundaries, no epilogue); workspace_bytes counts
 * a transposed copy of the filter where the kernels read B the other way. Pure host computation. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_plan(const {{PACKAGE}}_conv2d_t* conv,
                                                               {{PACKAGE}}_plan_t* plan);

{{/CONV}}/* {{PACKAGE_UPPER}}_VERSION_STRING of the library linked, and how it was generated: the generator's version, the
 * command that regenerates the package (run in its inputs/ directory) and the sha256 of every input, one per line.
 * Neither needs a GPU. */
{{PACKAGE_UPPER}}_API const char* {{PACKAGE}}_version(void);
{{PACKAGE_UPPER}}_API const char* {{PACKAGE}}_provenance(void);

#ifdef __cplusplus
}
#endif

#endif /* {{PACKAGE_UPPER}}_H_ */
