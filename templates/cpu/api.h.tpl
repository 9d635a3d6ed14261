#ifndef {{PACKAGE_UPPER}}_H_
#define {{PACKAGE_UPPER}}_H_

/*
 * {{PACKAGE}}: {{OP_DESCRIPTION:x-c-comment}}.
 * C = alpha * op(A) * op(B) + beta * C with A {{A_LAYOUT}}, B {{B_LAYOUT}}, C {{C_LAYOUT}}; A is M x K, B is K x N and
 * C is M x N in the mathematical sense, element type float. Leading dimensions are in elements.
 *
 * Every entry point validates its arguments and returns a status; none of them exits, aborts or throws.
 * M, N or K of zero is valid: with K = 0 the call computes C = beta * C (beta = 0 writes zeros without reading C).
 * When beta is 0, C is never read, so it may hold NaN or garbage.
 * Calls from several host threads at once are safe; they take turns on the internal thread pool.
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

typedef enum {
  {{PACKAGE_UPPER}}_OK = 0,
  {{PACKAGE_UPPER}}_INVALID_SIZE = 1,         /* M, N or K negative */
  {{PACKAGE_UPPER}}_INVALID_LEADING_DIM = 2,  /* lda, ldb or ldc smaller than its row length (or < 1) */
  {{PACKAGE_UPPER}}_NULL_POINTER = 3,         /* A, B or C null while the call would touch it */
  {{PACKAGE_UPPER}}_SIZE_OVERFLOW = 4,        /* an index or byte count would overflow 64 bits */
  {{PACKAGE_UPPER}}_INVALID_KERNEL = 5,       /* kernel id outside [0, kernel_count) */
  {{PACKAGE_UPPER}}_INVALID_ARGUMENT = 6,     /* e.g. a thread count below 1, a null plan pointer */
  {{PACKAGE_UPPER}}_WORKSPACE_TOO_SMALL = 7,  /* caller-provided workspace smaller than workspace_size() */
  {{PACKAGE_UPPER}}_OUT_OF_MEMORY = 8,        /* the internal workspace could not be allocated */
  {{PACKAGE_UPPER}}_UNSUPPORTED_CPU = 9,      /* this CPU lacks {{ISA_NAME}}, which the kernels were built for */
  {{PACKAGE_UPPER}}_SYSTEM_ERROR = 10,        /* the system refused a resource the call needed; C is unspecified */
  {{PACKAGE_UPPER}}_PACKED_B_MISMATCH = 11    /* a packed B from another package, or packed for another N or K */
} {{PACKAGE}}_status;

/* A short English description of a status, never null. */
{{PACKAGE_UPPER}}_API const char* {{PACKAGE}}_status_string({{PACKAGE}}_status status);

/* C = alpha * A * B + beta * C, choosing kernel, blocking and threads with the cost model. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}(int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                                    int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                                                    int64_t ldc);

/* Transposed operands: op(A) = A or A^T, op(B) = B or B^T, C = alpha * op(A) * op(B) + beta * C with C row-major
 * M x N. A transposed A is stored K x M (lda >= M), a transposed B N x K (ldb >= K); a weight matrix stored
 * [out_features, in_features] is B transposed. Packing absorbs a transpose; a call small enough to run in place
 * reads a transposed operand from a row-major copy. */
typedef enum {
  {{PACKAGE_UPPER}}_NO_TRANS = 0,
  {{PACKAGE_UPPER}}_TRANS = 1
} {{PACKAGE}}_transpose;

{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm({{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b,
                                                         int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                                         int64_t lda, const float* B, int64_t ldb, float beta,
                                                         float* C, int64_t ldc);

/* Fused epilogue: C = clamp(activation(alpha * op(A) * op(B) + beta * C + bias + residual)), applied to each block
 * of C as the call finishes it, while it is in the cache, so that a layer's bias, activation and residual cost no
 * pass over C in memory. Each part is optional:
 *   bias      bias[j] added to column j (BIAS_PER_COLUMN, N floats: a linear layer's) or bias[i] to row i
 *             (BIAS_PER_ROW, M floats);
 *   residual  an M x N row-major matrix (leading dimension ldr >= N) added element by element; NULL for none;
 *   activation RELU max(x, 0); GELU_TANH x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2; GELU_ERF
 *             x (1 + erf(x / sqrt(2))) / 2; SILU x / (1 + e^-x); within 2e-6 of each one's value relative to its
 *             magnitude (NaN stays NaN);
 *   clamp     min(max(x, clamp_min), clamp_max), last, unless both are 0 (ReLU6: 0 and 6; +-INFINITY leaves a side
 *             open).
 * A zero-initialised epilogue_t is none of them. Statuses, besides the GEMM's: INVALID_ARGUMENT for a bias kind or
 * activation outside its enum, a NaN clamp bound or clamp_min >= clamp_max, or a bias or residual that overlaps C;
 * NULL_POINTER for a bias kind whose bias is NULL; INVALID_LEADING_DIM for ldr < N. A NULL epilogue is the plain
 * call. With K = 0 or alpha = 0 the epilogue applies to beta * C.
 * {{EPILOGUE_FACTS}} */
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
    const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
    const {{PACKAGE}}_epilogue_t* epilogue);

/* Strided batched: `batch` products C_i = alpha * op(A_i) * op(B_i) + beta * C_i, i in [0, batch), with
 * A_i = A + i * stride_a, B_i = B + i * stride_b and C_i = C + i * stride_c (strides in elements; attention's
 * per-head products, a layer over a batch of inputs). A stride of 0 gives every product the same A or B. The
 * products' C must not overlap: with batch > 1, stride_c >= (M - 1) * ldc + N, else INVALID_ARGUMENT; a negative
 * stride is INVALID_ARGUMENT and a negative batch INVALID_SIZE. The cost model chooses between running the products
 * one after another, each on the package's threads, and side by side, each on one thread. A failing product's status
 * is returned; the products that succeeded are written. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_batched(
    {{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N, int64_t K, float alpha,
    const float* A, int64_t lda, int64_t stride_a, const float* B, int64_t ldb, int64_t stride_b, float beta,
    float* C, int64_t ldc, int64_t stride_c, int64_t batch);
/* The same with an epilogue (see gemm_epilogue) on every product: product i's bias is bias + i * stride_bias and its
 * residual residual + i * stride_residual (a stride of 0 shares one among the products: a layer's bias). Besides the
 * epilogue's statuses: INVALID_ARGUMENT for a negative stride, or for a bias or residual whose span (first product
 * to last) overlaps that of the products' C; SIZE_OVERFLOW where a span is out of reach of 64-bit offsets. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_batched_epilogue(
    {{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N, int64_t K, float alpha,
    const float* A, int64_t lda, int64_t stride_a, const float* B, int64_t ldb, int64_t stride_b, float beta,
    float* C, int64_t ldc, int64_t stride_c, int64_t batch, const {{PACKAGE}}_epilogue_t* epilogue,
    int64_t stride_bias, int64_t stride_residual);

/* Packed weights: op(B) (K x N) packed once into the micro-panels of one kernel, for calls of 1 to max_m rows (the
 * kernel whose plans the cost model prices best over that range; a call with more rows is still computed, on that
 * kernel), then multiplied by any number of A's. Inference calls the same weights for every input: packing them on
 * each call is a pass over B that this skips. A transposed B (trans_b = TRANS, stored N x K: a linear layer's
 * [out_features, in_features] weights) packs into the same panels, so its calls run as a plain one's.
 *   packed_b_size  the bytes pack_b needs for N x K (the same for every max_m and thread count); 0 where N or K is
 *                  negative or the size overflows;
 *   pack_b         packs into caller memory of packed_bytes >= packed_b_size(N, K) (any alignment), which the caller
 *                  keeps and frees; it may be copied or moved as it is (it holds no pointers);
 *   pack_b_alloc   the same into memory the package allocates, *packed, freed by packed_b_free (NULL is ignored);
 *   gemm_packed_b  C = alpha * op(A) * B + beta * C with the packed B, and an optional epilogue (see
 *                  gemm_epilogue; NULL for none); calls may share one packed B from several threads;
 *   gemm_packed_b_plan  what such a call would do.
 * The packed form records what it was packed for: a call with another N or K, or a packed B from another package
 * (another version), returns PACKED_B_MISMATCH. pack_b's statuses: INVALID_ARGUMENT for a trans_b outside its enum
 * or max_m < 1, INVALID_SIZE for a negative N or K, INVALID_LEADING_DIM for ldb below B's stored row length,
 * NULL_POINTER for null memory (or a null B with N and K positive), SIZE_OVERFLOW, WORKSPACE_TOO_SMALL where
 * packed_bytes < packed_b_size(N, K), UNSUPPORTED_CPU. */
{{PACKAGE_UPPER}}_API size_t {{PACKAGE}}_packed_b_size(int64_t N, int64_t K);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_pack_b({{PACKAGE}}_transpose trans_b, int64_t N, int64_t K,
                                                           int64_t max_m, const float* B, int64_t ldb, void* packed,
                                                           size_t packed_bytes);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_pack_b_alloc({{PACKAGE}}_transpose trans_b, int64_t N,
                                                                 int64_t K, int64_t max_m, const float* B,
                                                                 int64_t ldb, void** packed);
{{PACKAGE_UPPER}}_API void {{PACKAGE}}_packed_b_free(void* packed);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_packed_b({{PACKAGE}}_transpose trans_a, int64_t M,
                                                                  int64_t N, int64_t K, float alpha, const float* A,
                                                                  int64_t lda, const void* packed_b, float beta,
                                                                  float* C, int64_t ldc,
                                                                  const {{PACKAGE}}_epilogue_t* epilogue);

/* BLAS-compatible: cblas_sgemm's arguments and values (order 101 row-major or 102 column-major; transposes 111 no,
 * 112 and 113 yes), so that existing callers can switch to it. Returns 0, or the number of the first invalid
 * argument as netlib's cblas_xerbla numbers it (1 order, 2 and 3 the transposes, 4 to 6 M, N and K, 9 lda, 11 ldb,
 * 14 ldc; 8, 10 and 13 for a null A, B or C the call needs), or minus a status for any other failure. It never
 * prints or exits. */
{{PACKAGE_UPPER}}_API int {{PACKAGE}}_cblas_sgemm(int order, int trans_a, int trans_b, int M, int N, int K,
                                                 float alpha, const float* A, int lda, const float* B, int ldb,
                                                 float beta, float* C, int ldc);

/* What a call of this shape would do, without running anything. */
typedef struct {
  int32_t kernel_id;          /* index into the kernel table, see kernel_count() */
  int32_t mr, nr, k_unroll;   /* register tile (level 0) */
  int64_t mc, nc, kc;         /* cache blocking: rows of packed A, columns of packed B, depth of both */
  int32_t threads;            /* threads the call would use */
  int32_t packed;             /* 1: A and B are packed into the workspace; 0: the kernel reads them in place */
  double predicted_seconds;   /* the cost model's estimate for the whole call */
  int32_t row_shares;         /* packed: C's rows are cut into this many thread blocks, its columns into
                                 threads / row_shares */
} {{PACKAGE}}_plan_t;

{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_plan(int64_t M, int64_t N, int64_t K,
                                                         {{PACKAGE}}_plan_t* plan);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_packed_b_plan({{PACKAGE}}_transpose trans_a, int64_t M,
                                                                       int64_t N, int64_t K, const void* packed_b,
                                                                       {{PACKAGE}}_plan_t* plan);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_gemm_plan({{PACKAGE}}_transpose trans_a,
                                                              {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N,
                                                              int64_t K, {{PACKAGE}}_plan_t* plan);

/* The kernels in this package, and the same call with the kernel forced by id (blocking and threads still come
 * from the model for that kernel). */
{{PACKAGE_UPPER}}_API int32_t {{PACKAGE}}_kernel_count(void);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_kernel_plan(int32_t kernel_id, int64_t M, int64_t N,
                                                                int64_t K, {{PACKAGE}}_plan_t* plan);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_with_kernel(int32_t kernel_id, int64_t M, int64_t N,
                                                                int64_t K, float alpha, const float* A, int64_t lda,
                                                                const float* B, int64_t ldb, float beta, float* C,
                                                                int64_t ldc);

/* Threads: at most this many are used per call (default: the CPUs this process may run on, from its affinity mask
 * where the system has one, capped at {{MAX_THREADS}}). get_num_threads() returns what was set, or the default.
 * Under the default the package does not oversubscribe the CPUs: its pool measures the CPU time its threads get
 * during a call, and where others (another package, another program) run on the same CPUs it plans the next calls
 * for the CPUs it got, for 10 ms to 0.5 s, then measures again; {{PACKAGE}}_plan() shows the threads a call would
 * use now. A count set here is used as set. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_set_num_threads(int32_t threads);
{{PACKAGE_UPPER}}_API int32_t {{PACKAGE}}_get_num_threads(void);

/* A host application can run the package's parallel work on its own threads: parallel_for must call
 * task(task_context, i) once for every i in [0, count), from any threads, and return when all calls are done.
 * Pass NULL to return to the internal pool. count never exceeds get_num_threads(). */
typedef void (*{{PACKAGE}}_task_fn)(void* task_context, int64_t index);
typedef void (*{{PACKAGE}}_parallel_for_fn)(void* host_context, int64_t count, {{PACKAGE}}_task_fn task,
                                            void* task_context);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_set_parallel_for({{PACKAGE}}_parallel_for_fn parallel_for,
                                                             void* host_context);

/* The package's own pool as a parallel_for (host_context is unused). Several packages in one process share one pool
 * when each is given the same parallel_for: this one, another Strata package's, or the host's; their calls then
 * take turns on it. Left alone, each package runs its own pool, and calls into one package take turns on its pool;
 * packages called at the same time from different threads keep to the CPUs they find free (see set_num_threads). */
{{PACKAGE_UPPER}}_API void {{PACKAGE}}_parallel_for(void* host_context, int64_t count, {{PACKAGE}}_task_fn task,
                                                   void* task_context);

/* Caller-provided workspace: the bytes a call of this shape needs with the current thread count, and the same call
 * using `workspace` (any alignment) instead of allocating. Nothing is allocated inside this variant. */
{{PACKAGE_UPPER}}_API size_t {{PACKAGE}}_workspace_size(int64_t M, int64_t N, int64_t K);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_with_workspace(int64_t M, int64_t N, int64_t K,
                                                                   float alpha, const float* A, int64_t lda,
                                                                   const float* B, int64_t ldb, float beta, float* C,
                                                                   int64_t ldc, void* workspace,
                                                                   size_t workspace_bytes);

{{#CONV}}/* 2-D convolution, as an implicit GEMM on this package's kernels (M = batch * out_h * out_w, N = out_c,
 * K = kernel_h * kernel_w * in_c): output = alpha * conv(input, filter) + beta * output, with input NHWC
 * (batch x in_h x in_w x in_c), filter {{FILTER_LAYOUT}} and output NHWC (batch x out_h x out_w x out_c), all dense.
 * out_h = (in_h + 2 pad_h - dilation_h (kernel_h - 1) - 1) / stride_h + 1, likewise out_w; padding is symmetric
 * (pad_h rows above and below, pad_w columns left and right) and reads as zeros; no padded copy of the input is made.
 * One group (groups = 1). {{CONV_FACTS}}
 * Statuses: INVALID_ARGUMENT for a null description, a stride or dilation below 1, a negative padding or a value
 * that differs from one the op spec fixes; INVALID_SIZE for a negative extent, a filter extent below 1, or a
 * filter larger than the padded input (no output pixel); SIZE_OVERFLOW where an operand's bytes overflow 64 bits;
 * NULL_POINTER where output (or, with alpha != 0 and K > 0, input or filter) is null but needed. A batch or out_c
 * of 0 is valid and does nothing; in_c of 0 computes output = beta * output. */
typedef struct {
  int64_t batch, in_h, in_w, in_c, out_c, kernel_h, kernel_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
} {{PACKAGE}}_conv2d_t;

{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d(const {{PACKAGE}}_conv2d_t* conv, float alpha,
                                                          const float* input, const float* filter, float beta,
                                                          float* output);
/* The same with a fused epilogue (see gemm_epilogue): a BIAS_PER_COLUMN bias is one per output channel, and a
 * residual is an NHWC image of the output's extent, ldr floats from one output pixel to the next (out_c when
 * dense). */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_epilogue(const {{PACKAGE}}_conv2d_t* conv, float alpha,
                                                                   const float* input, const float* filter,
                                                                   float beta, float* output,
                                                                   const {{PACKAGE}}_epilogue_t* epilogue);
/* A filter packed once (see pack_b) for the convolutions of this description's filter extent, channels and output
 * channels: conv2d_pack_filter packs into caller memory of packed_b_size(out_c, kernel_h * kernel_w * in_c) bytes,
 * conv2d_pack_filter_alloc into memory the package allocates (freed by packed_b_free); the kernel is the one the
 * model prices best for this description's output pixels. conv2d_packed is conv2d_epilogue on it; a packed filter
 * from another package, or for another out_c, in_c, kernel_h or kernel_w, returns PACKED_B_MISMATCH. The other
 * statuses are conv2d's, and pack_b's for the memory. */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_pack_filter(const {{PACKAGE}}_conv2d_t* conv,
                                                                      const float* filter, void* packed,
                                                                      size_t packed_bytes);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_pack_filter_alloc(const {{PACKAGE}}_conv2d_t* conv,
                                                                            const float* filter, void** packed);
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_packed(const {{PACKAGE}}_conv2d_t* conv, float alpha,
                                                                 const float* input, const void* packed_filter,
                                                                 float beta, float* output,
                                                                 const {{PACKAGE}}_epilogue_t* epilogue);
/* The output's extent, with the same checks as conv2d(). */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_output_size(const {{PACKAGE}}_conv2d_t* conv,
                                                                      int64_t* out_h, int64_t* out_w);
/* The plan of the convolution's GEMM (a gathered A is always packed). */
{{PACKAGE_UPPER}}_API {{PACKAGE}}_status {{PACKAGE}}_conv2d_plan(const {{PACKAGE}}_conv2d_t* conv,
                                                               {{PACKAGE}}_plan_t* plan);

{{/CONV}}/* {{PACKAGE_UPPER}}_VERSION_STRING of the library linked, and how it was generated: the generator's version, the
 * command that regenerates the package (run in its inputs/ directory) and the sha256 of every input, one per line. */
{{PACKAGE_UPPER}}_API const char* {{PACKAGE}}_version(void);
{{PACKAGE_UPPER}}_API const char* {{PACKAGE}}_provenance(void);

#ifdef __cplusplus
}
#endif

#endif /* {{PACKAGE_UPPER}}_H_ */
