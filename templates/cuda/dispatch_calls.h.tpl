// Part of the dispatcher of {{PACKAGE}} (included by dispatch.cpp, inside its unnamed namespace): the calls with
// transposed operands, a fused epilogue and a strided batch. An operand stored the other way round from what the
// kernels read (A as M rows of K, B as {{B_ROWS_TEXT}}) is transposed into workspace first, a pass over it that is
// small beside the product's; the kernels then run as for the plain call, the products of a batch side by side in
// one grid, and finish C with the epilogue.

// ---- Arguments ---------------------------------------------------------------------------------------------------

struct Call {
  int32_t trans_a, trans_b;  // the API's transpose values
  int64_t M, N, K;
  float alpha;
  const void* A;
  int64_t lda, stride_a;
  const void* B;
  int64_t ldb, stride_b;
  float beta;
  float* C;
  int64_t ldc, stride_c;
  int64_t batch;
  const {{PACKAGE}}_epilogue_t* epilogue;  // null: none
  int64_t stride_bias, stride_residual;
  // A convolution's geometry (checked by conv_shape): A is then its input, gathered by the kernels, and lda unused.
  const ConvParams* conv = nullptr;
};

// The transpose of B the kernels read as it is: none for a row-major K x N B, TRANS for one stored N x K.
constexpr int32_t kNativeTransB = {{B_ROW_MAJOR}} ? {{PACKAGE_UPPER}}_NO_TRANS : {{PACKAGE_UPPER}}_TRANS;

// A and B as stored: rows and row length. A transposed A is K x M, a transposed B N x K.
void stored_a(const Call& c, int64_t* rows, int64_t* cols) {
  *rows = c.trans_a == {{PACKAGE_UPPER}}_TRANS ? c.K : c.M;
  *cols = c.trans_a == {{PACKAGE_UPPER}}_TRANS ? c.M : c.K;
}
void stored_b(const Call& c, int64_t* rows, int64_t* cols) {
  *rows = c.trans_b == {{PACKAGE_UPPER}}_TRANS ? c.N : c.K;
  *cols = c.trans_b == {{PACKAGE_UPPER}}_TRANS ? c.K : c.N;
}

// The elements a rows x cols matrix with leading dimension ld spans, (rows - 1) * ld + cols, and that span's last
// product `count - 1` strides on; -1 where either, in bytes of `bytes` each, overflows 64 bits.
int64_t span(int64_t rows, int64_t cols, int64_t ld, int64_t count, int64_t stride, int64_t bytes) {
  if (rows == 0 || cols == 0) return 0;
  const int64_t max = std::numeric_limits<int64_t>::max() / bytes;
  if (mul_overflows(rows - 1, ld) || (rows - 1) * ld > max - cols) return -1;
  const int64_t one = (rows - 1) * ld + cols;
  if (count <= 1) return one;
  if (mul_overflows(count - 1, stride) || (count - 1) * stride > max - one) return -1;
  return (count - 1) * stride + one;
}

// Whether the byte ranges of `a_floats` floats at a and `b_floats` at b share an element.
bool overlap(const float* a, int64_t a_floats, const float* b, int64_t b_floats) {
  const uintptr_t a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  return a0 < b0 + static_cast<uintptr_t>(b_floats) * sizeof(float) &&
         b0 < a0 + static_cast<uintptr_t>(a_floats) * sizeof(float);
}

// The checks of a call, in the order the header lists its statuses. The bias and the residual may not overlap any
// product's C: C is written while other blocks still read them.
{{PACKAGE}}_status check_call(const Call& c) {
  auto is_transpose = [](int32_t t) { return t == {{PACKAGE_UPPER}}_NO_TRANS || t == {{PACKAGE_UPPER}}_TRANS; };
  if (!is_transpose(c.trans_a) || !is_transpose(c.trans_b)) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  if (c.M < 0 || c.N < 0 || c.K < 0 || c.batch < 0) return {{PACKAGE_UPPER}}_INVALID_SIZE;
  int64_t a_rows, a_cols, b_rows, b_cols;
  stored_a(c, &a_rows, &a_cols);
  stored_b(c, &b_rows, &b_cols);
  const bool gathered = c.conv != nullptr;  // A is a convolution's input, checked with its description
  if ((!gathered && c.lda < (a_cols > 1 ? a_cols : 1)) || c.ldb < (b_cols > 1 ? b_cols : 1) ||
      c.ldc < (c.N > 1 ? c.N : 1))
    return {{PACKAGE_UPPER}}_INVALID_LEADING_DIM;
  if (c.stride_a < 0 || c.stride_b < 0 || c.stride_c < 0 || c.stride_bias < 0 || c.stride_residual < 0)
    return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  const {{PACKAGE}}_epilogue_t* e = c.epilogue;
  const bool clamp = e != nullptr && (e->clamp_min != 0.0f || e->clamp_max != 0.0f);
  if (e != nullptr) {
    const int32_t bias = static_cast<int32_t>(e->bias_kind), activation = static_cast<int32_t>(e->activation);
    if (bias < {{PACKAGE_UPPER}}_BIAS_NONE || bias > {{PACKAGE_UPPER}}_BIAS_PER_ROW ||
        activation < {{PACKAGE_UPPER}}_ACTIVATION_NONE || activation > {{PACKAGE_UPPER}}_ACTIVATION_SILU ||
        (clamp && !(e->clamp_min < e->clamp_max)))  // NaN bounds too
      return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  }
  if (c.M == 0 || c.N == 0 || c.batch == 0) return {{PACKAGE_UPPER}}_OK;
  if (c.C == nullptr || (c.K > 0 && (c.A == nullptr || c.B == nullptr))) return {{PACKAGE_UPPER}}_NULL_POINTER;
  const bool bias = e != nullptr && e->bias_kind != {{PACKAGE_UPPER}}_BIAS_NONE;
  if (bias && e->bias == nullptr) return {{PACKAGE_UPPER}}_NULL_POINTER;
  if (e != nullptr && e->residual != nullptr && e->ldr < c.N) return {{PACKAGE_UPPER}}_INVALID_LEADING_DIM;
  const int64_t c_span = span(c.M, c.N, c.ldc, c.batch, c.stride_c, 4);
  if ((!gathered && span(a_rows, a_cols, c.lda, c.batch, c.stride_a, {{A_BYTES}}) < 0) ||
      span(b_rows, b_cols, c.ldb, c.batch, c.stride_b, {{B_BYTES}}) < 0 || c_span < 0)
    return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  if (c.batch > 1 && c.stride_c < span(c.M, c.N, c.ldc, 1, 0, 4)) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  if (bias) {
    const int64_t length = e->bias_kind == {{PACKAGE_UPPER}}_BIAS_PER_ROW ? c.M : c.N;
    const int64_t bias_span = span(1, length, length, c.batch, c.stride_bias, 4);
    if (bias_span < 0) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
    if (overlap(e->bias, bias_span, c.C, c_span)) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  }
  if (e != nullptr && e->residual != nullptr) {
    const int64_t residual_span = span(c.M, c.N, e->ldr, c.batch, c.stride_residual, 4);
    if (residual_span < 0) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
    if (overlap(e->residual, residual_span, c.C, c_span)) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  }
  return {{PACKAGE_UPPER}}_OK;
}

// The checked epilogue as the kernels take it.
EpilogueParams epilogue_params(const {{PACKAGE}}_epilogue_t& e) {
  EpilogueParams p{};
  if (e.bias_kind != {{PACKAGE_UPPER}}_BIAS_NONE) {
    p.bias = e.bias;
    p.bias_per_row = e.bias_kind == {{PACKAGE_UPPER}}_BIAS_PER_ROW ? 1 : 0;
  }
  p.residual = e.residual;
  p.ldr = e.ldr;
  p.activation = static_cast<int32_t>(e.activation);
  p.clamp = e.clamp_min != 0.0f || e.clamp_max != 0.0f ? 1 : 0;
  p.clamp_min = e.clamp_min;
  p.clamp_max = e.clamp_max;
  return p;
}

// ---- Staging: the transposed copies ------------------------------------------------------------------------------

// The copies a call needs and where they go in the workspace: A transposed to M rows of K, B to the kernels' order.
// A copy's rows start on 16-byte boundaries (the cp.async path, tensor maps), and an operand with stride 0 (one
// matrix shared by the batch) is copied once.
struct Staging {
  bool copy_a = false, copy_b = false;
  int64_t lda = 0, ldb = 0;            // the copies' leading dimensions
  int64_t stride_a = 0, stride_b = 0;  // between the copies of successive products (0: one copy)
  int64_t a_bytes = 0, b_bytes = 0;    // each copy's region of the workspace, a multiple of 256 bytes
  int64_t moved_bytes = 0;             // read and written by the transposes
};

constexpr int64_t kRowAlignElements = 8;  // 16 bytes of fp16, or two rows' worth of fp32 chunks

int64_t round_up(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }

// Fills *s for a checked call; SIZE_OVERFLOW where the workspace would not be addressable.
{{PACKAGE}}_status staging_of(const Call& c, Staging* s) {
  *s = Staging{};
  if (c.K == 0 || c.M == 0 || c.N == 0 || c.batch == 0) return {{PACKAGE_UPPER}}_OK;  // A and B are not read
  s->copy_a = c.trans_a == {{PACKAGE_UPPER}}_TRANS;
  s->copy_b = c.trans_b != kNativeTransB;
  const int64_t max = std::numeric_limits<int64_t>::max() / 2 - 256;
  // One copy of `rows` rows of `ld` elements per product (or one for all): its region's bytes, or -1.
  auto region = [&](int64_t rows, int64_t ld, int64_t count, int64_t bytes, int64_t* stride) {
    *stride = count > 1 ? rows * ld : 0;
    if (mul_overflows(rows, ld) || mul_overflows(rows * ld, count) || mul_overflows(rows * ld * count, bytes) ||
        rows * ld * count * bytes > max)
      return int64_t{-1};
    return round_up(rows * ld * count * bytes, 256);
  };
  if (s->copy_a) {
    s->lda = round_up(c.K, kRowAlignElements);
    s->a_bytes = region(c.M, s->lda, c.stride_a == 0 ? 1 : c.batch, {{A_BYTES}}, &s->stride_a);
    if (s->a_bytes < 0) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
    s->moved_bytes += 2 * s->a_bytes;
  }
  if (s->copy_b) {
    const int64_t rows = {{B_ROW_MAJOR}} ? c.K : c.N, cols = {{B_ROW_MAJOR}} ? c.N : c.K;
    s->ldb = round_up(cols, kRowAlignElements);
    s->b_bytes = region(rows, s->ldb, c.stride_b == 0 ? 1 : c.batch, {{B_BYTES}}, &s->stride_b);
    if (s->b_bytes < 0 || s->b_bytes > max - s->a_bytes) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
    s->moved_bytes += 2 * s->b_bytes;
  }
  return {{PACKAGE_UPPER}}_OK;
}

// What the model adds to the kernels' time for a call: each transpose, a launch and a pass that reads and writes
// its operand at DRAM bandwidth (Eq. 2 at the problem level), and the epilogue's reads of the residual and the
// bias, which the kernels' stores do not otherwise pay.
double staging_seconds(const Call& c, const Staging& s, const strata_model::Machine& m) {
  double seconds = static_cast<double>(s.moved_bytes) / m.problem.bandwidth_Bps +
                   ((s.copy_a ? 1 : 0) + (s.copy_b ? 1 : 0)) * m.launch_s;
  const {{PACKAGE}}_epilogue_t* e = c.epilogue;
  if (e != nullptr) {
    double floats = e->residual != nullptr ? static_cast<double>(c.M) * static_cast<double>(c.N) : 0.0;
    if (e->bias_kind == {{PACKAGE_UPPER}}_BIAS_PER_ROW) floats += static_cast<double>(c.M);
    if (e->bias_kind == {{PACKAGE_UPPER}}_BIAS_PER_COLUMN) floats += static_cast<double>(c.N);
    seconds += floats * 4.0 * static_cast<double>(c.batch) / m.problem.bandwidth_Bps;
  }
  return seconds;
}

// Whether an operand the kernels read in place suits the cp.async path and tensor maps: its rows, and every
// product's first row, on 16-byte boundaries.
bool operand_aligned(const void* p, int64_t ld, int64_t stride, int64_t batch, int64_t bytes) {
  return aligned16(p) && (ld * bytes) % 16 == 0 && (batch <= 1 || (stride * bytes) % 16 == 0);
}

// ---- Running a call ----------------------------------------------------------------------------------------------

// The plan for a checked call on `device` (or for the header's assumptions where device is null: operands on
// 16-byte boundaries and, where the build has sm_90a code, a device that runs it), with the staging's workspace
// and time added to the kernels'. *aligned: the operands the kernels read suit the cp.async path.
void plan_call(const Call& c, const Staging& s, const DeviceFacts* device, {{PACKAGE}}_plan_t* plan,
               bool* aligned) {
  // A gathered from a convolution's input takes the cp.async path where each chunk is one tap's channels.
  const bool a_aligned = c.conv != nullptr ? aligned16(c.A) && (c.conv->in_c * {{A_BYTES}}) % 16 == 0
                                           : s.copy_a || operand_aligned(c.A, c.lda, c.stride_a, c.batch, {{A_BYTES}});
  const bool b_aligned = s.copy_b || operand_aligned(c.B, c.ldb, c.stride_b, c.batch, {{B_BYTES}});
  *aligned = device == nullptr || (a_aligned && b_aligned);
  const int64_t lda = s.copy_a ? s.lda : c.lda, ldb = s.copy_b ? s.ldb : c.ldb;
  const bool device_runs_wgmma = device == nullptr ? kWgmmaBuilt : kWgmmaBuilt && device->compute_capability == 90;
  const bool wgmma = c.batch == 1 && c.conv == nullptr && device_runs_wgmma &&
                     tensor_map_sizes(c.M, c.N, c.K, lda, ldb) &&
                     (c.K == 0 || *aligned);
  if (device == nullptr)
    plan_best(c.M, c.N, c.K, kMaxSplit, wgmma, plan, c.batch);
  else
    cached_plan(c.M, c.N, c.K, wgmma, plan, c.batch);
  plan->workspace_bytes += static_cast<size_t>(s.a_bytes + s.b_bytes);
  plan->predicted_seconds += staging_seconds(c, s, kMachines[kKernels[plan->kernel_id].machine]);
}

// The transposes, the kernels and the reduction of a planned call, on `stream`, with `workspace` holding the
// staging's copies and then the plan's partial sums.
{{PACKAGE}}_status launch_call(const Call& c, const Staging& s, const {{PACKAGE}}_plan_t& plan, bool aligned,
                               const DeviceFacts& device, unsigned char* workspace, cudaStream_t stream) {
  const KernelInfo& k = kKernels[plan.kernel_id];
  int64_t k_per_split = 0;
  const int splits = splits_for(k, c.K, plan.split_k, &k_per_split);
  GemmParams p{};
  p.M = c.M;
  p.N = c.N;
  p.K = c.K;
  p.A = s.copy_a ? static_cast<const void*>(workspace) : c.A;
  p.lda = s.copy_a ? s.lda : c.lda;
  p.stride_a = s.copy_a ? s.stride_a : c.stride_a;
  p.B = s.copy_b ? static_cast<const void*>(workspace + s.a_bytes) : c.B;
  p.ldb = s.copy_b ? s.ldb : c.ldb;
  p.stride_b = s.copy_b ? s.stride_b : c.stride_b;
  p.C = c.C;
  p.ldc = c.ldc;
  p.stride_c = c.stride_c;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.partial = splits > 1 ? reinterpret_cast<float*>(workspace + s.a_bytes + s.b_bytes) : nullptr;
  p.k_per_split = k_per_split;
  p.m_tiles = strata_model::ceil_div(c.M, k.block[0]);
  p.n_tiles = strata_model::ceil_div(c.N, k.block[1]);
  if (c.epilogue != nullptr) {
    p.has_epilogue = 1;
    p.epilogue = epilogue_params(*c.epilogue);
    p.stride_bias = c.stride_bias;
    p.stride_residual = c.stride_residual;
  }
  if (c.conv != nullptr) {
    p.gather = 1;
    p.conv = *c.conv;
  }
  p.persistent_blocks = static_cast<int64_t>(device.sms) * (k.blocks_per_sm > 0 ? k.blocks_per_sm : 1);
  cudaError_t e = cudaSuccess;
  if (s.copy_a) {
    e = launch_transpose(c.A, c.lda, c.stride_a, c.K, c.M, workspace, s.lda, s.stride_a,
                         s.stride_a == 0 ? 1 : c.batch, {{A_BYTES}}, stream);
  }
  if (e == cudaSuccess && s.copy_b) {
    int64_t rows, cols;
    stored_b(c, &rows, &cols);
    e = launch_transpose(c.B, c.ldb, c.stride_b, rows, cols, workspace + s.a_bytes, s.ldb, s.stride_b,
                         s.stride_b == 0 ? 1 : c.batch, {{B_BYTES}}, stream);
  }
  if (e == cudaSuccess) e = launch_products(k, p, splits, aligned, c.batch, stream);
  return from_cuda(e);
}

// Grid sizes a call's launches need: its block tiles, and the staged transposes' 32 x 32 tiles.
bool grids_fit(const Call& c, const Staging& s, const KernelInfo& k) {
  const int64_t tiles = strata_model::ceil_div(c.M, k.block[0]) * strata_model::ceil_div(c.N, k.block[1]);
  const int64_t a_tiles = s.copy_a ? strata_model::ceil_div(c.M, 32) * strata_model::ceil_div(c.K, 32) : 0;
  const int64_t b_tiles = s.copy_b ? strata_model::ceil_div(c.N, 32) * strata_model::ceil_div(c.K, 32) : 0;
  return tiles <= kMaxGridX && a_tiles <= kMaxGridX && b_tiles <= kMaxGridX;
}

{{PACKAGE}}_status run_call(const Call& c, cudaStream_t stream) {
  {{PACKAGE}}_status status = check_call(c);
  if (status != {{PACKAGE_UPPER}}_OK || c.M == 0 || c.N == 0 || c.batch == 0) return status;
  Staging s;
  status = staging_of(c, &s);
  if (status != {{PACKAGE_UPPER}}_OK) return status;
  DeviceFacts device{};
  status = current_device(&device);
  if (status != {{PACKAGE_UPPER}}_OK) return status;
  {{PACKAGE}}_plan_t plan;
  bool aligned = false;
  plan_call(c, s, &device, &plan, &aligned);
  status = check_device(kKernels[plan.kernel_id], device);
  if (status != {{PACKAGE_UPPER}}_OK) return status;
  if (!grids_fit(c, s, kKernels[plan.kernel_id])) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  if (plan.workspace_bytes == 0) return launch_call(c, s, plan, aligned, device, nullptr, stream);
  // Stream-ordered allocation, as the plain call's. Without room for the partial sums the call runs without
  // split-K; without room for the copies it cannot run.
  void* workspace = nullptr;
  if (cudaMallocAsync(&workspace, plan.workspace_bytes, stream) != cudaSuccess) {
    (void)cudaGetLastError();
    const size_t copies = static_cast<size_t>(s.a_bytes + s.b_bytes);
    if (plan.workspace_bytes == copies) return from_cuda(cudaErrorMemoryAllocation);
    plan_best(c.M, c.N, c.K, 1, plan.wgmma != 0, &plan, c.batch);
    if (copies == 0) return launch_call(c, s, plan, aligned, device, nullptr, stream);
    if (cudaMallocAsync(&workspace, copies, stream) != cudaSuccess) {
      (void)cudaGetLastError();
      return from_cuda(cudaErrorMemoryAllocation);
    }
  }
  status = launch_call(c, s, plan, aligned, device, static_cast<unsigned char*>(workspace), stream);
  const cudaError_t freed = cudaFreeAsync(workspace, stream);
  if (status == {{PACKAGE_UPPER}}_OK && freed != cudaSuccess) status = from_cuda(freed);
  return status;
}
