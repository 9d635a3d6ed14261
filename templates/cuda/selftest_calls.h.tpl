// Self-test of {{PACKAGE}}'s calls with transposed operands, a fused epilogue and a strided batch (included by
// selftest.cpp, after its helpers): the argument checks, which need no GPU, then every transpose combination with
// and without an epilogue, single and batched (a broadcast operand, padded strides), against a double-precision
// host reference.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_CALLS_H_
#define {{PACKAGE_UPPER}}_SELFTEST_CALLS_H_

namespace {

constexpr {{PACKAGE}}_transpose kNo = {{PACKAGE_UPPER}}_NO_TRANS;
constexpr {{PACKAGE}}_transpose kTrans = {{PACKAGE_UPPER}}_TRANS;

void check_call_arguments() {
  float dummy[64] = {};
  const AElem* a = reinterpret_cast<const AElem*>(dummy);
  const BElem* b = reinterpret_cast<const BElem*>(dummy);
  float* c = dummy + 32;
  auto call = [&](int ta, int tb, int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc,
                  int64_t stride_c, int64_t batch, const {{PACKAGE}}_epilogue_t* e, int64_t stride_bias) {
    return {{PACKAGE}}_gemm_batched_epilogue(static_cast<{{PACKAGE}}_transpose>(ta),
                                             static_cast<{{PACKAGE}}_transpose>(tb), M, N, K, 1.0f, a, lda, 0, b, ldb,
                                             0, 0.0f, c, ldc, stride_c, batch, e, stride_bias, 0, nullptr);
  };
  expect(call(2, 0, 4, 4, 4, 4, 4, 4, 0, 1, nullptr, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "trans_a 2");
  expect(call(0, -1, 4, 4, 4, 4, 4, 4, 0, 1, nullptr, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "trans_b -1");
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, -1, nullptr, 0) == {{PACKAGE_UPPER}}_INVALID_SIZE, "batch -1");
  // A transposed A is K x M: lda >= M; a transposed B is N x K: ldb >= K; a plain B K x N: ldb >= N.
  expect(call(1, 0, 6, 4, 4, 4, 4, 4, 0, 1, nullptr, 0) == {{PACKAGE_UPPER}}_INVALID_LEADING_DIM, "TN lda < M");
  expect(call(0, 1, 4, 4, 6, 6, 4, 4, 0, 1, nullptr, 0) == {{PACKAGE_UPPER}}_INVALID_LEADING_DIM, "NT ldb < K");
  expect(call(0, 0, 4, 6, 4, 4, 4, 6, 0, 1, nullptr, 0) == {{PACKAGE_UPPER}}_INVALID_LEADING_DIM, "NN ldb < N");
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 15, 2, nullptr, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "C products overlap");
  expect({{PACKAGE}}_gemm_batched(kNo, kNo, 4, 4, 4, 1.0f, a, 4, -1, b, 4, 0, 0.0f, c, 4, 16, 2, nullptr) ==
             {{PACKAGE_UPPER}}_INVALID_ARGUMENT,
         "stride_a < 0");
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 16, 0, nullptr, 0) == {{PACKAGE_UPPER}}_OK, "batch 0");
  expect({{PACKAGE}}_gemm_batched(kTrans, kTrans, 0, 4, 4, 1.0f, nullptr, 1, 0, nullptr, 4, 0, 0.0f, nullptr, 4, 0,
                                  3, nullptr) == {{PACKAGE_UPPER}}_OK,
         "M = 0 without pointers");
  expect({{PACKAGE}}_gemm(kNo, kNo, 4, 4, 4, 1.0f, a, 4, b, 4, 0.0f, nullptr, 4, nullptr) ==
             {{PACKAGE_UPPER}}_NULL_POINTER,
         "gemm: C null");

  {{PACKAGE}}_epilogue_t e{};
  e.bias_kind = static_cast<{{PACKAGE}}_bias>(3);
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "bias kind 3");
  e = {};
  e.activation = static_cast<{{PACKAGE}}_activation>(5);
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "activation 5");
  e = {};
  e.clamp_min = 1.0f;
  e.clamp_max = 1.0f;
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "clamp min = max");
  e.clamp_min = std::numeric_limits<float>::quiet_NaN();
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "clamp NaN");
  e = {};
  e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_COLUMN;
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, 0) == {{PACKAGE_UPPER}}_NULL_POINTER, "bias null");
  e.bias = c + 3;  // inside C
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "bias overlaps C");
  e.bias = dummy;
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, -1) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "stride_bias < 0");
  e = {};
  e.residual = dummy;
  e.ldr = 3;
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, 0) == {{PACKAGE_UPPER}}_INVALID_LEADING_DIM, "ldr < N");
  e.ldr = 4;
  e.residual = c + 8;
  expect(call(0, 0, 4, 4, 4, 4, 4, 4, 0, 1, &e, 0) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "residual overlaps C");

  // Plans: a transpose adds its copy to the workspace and its pass to the prediction.
  {{PACKAGE}}_plan_t plain{}, transposed{};
  expect({{PACKAGE}}_gemm_plan(kNo, kNo, 64, 64, 64, 1, nullptr) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT,
         "gemm_plan: null plan");
  expect({{PACKAGE}}_gemm_plan(kNo, kNo, 64, 64, 64, -1, &plain) == {{PACKAGE_UPPER}}_INVALID_SIZE,
         "gemm_plan: batch -1");
  const {{PACKAGE}}_transpose native_b = kBRowMajor ? kNo : kTrans;
  expect({{PACKAGE}}_gemm_plan(kNo, native_b, 1000, 1000, 1000, 1, &plain) == {{PACKAGE_UPPER}}_OK &&
             {{PACKAGE}}_gemm_plan(kTrans, native_b, 1000, 1000, 1000, 1, &transposed) == {{PACKAGE_UPPER}}_OK,
         "gemm_plan");
  expect(transposed.workspace_bytes >= plain.workspace_bytes + 1000 * 1000 * sizeof(AElem) &&
             transposed.predicted_seconds > plain.predicted_seconds,
         "gemm_plan: a transposed A costs its copy");
  // A batch of small products is one grid: more blocks than a single product, far less than the sum of the calls.
  {{PACKAGE}}_plan_t one{}, many{};
  expect({{PACKAGE}}_gemm_plan(kNo, native_b, 128, 128, 64, 1, &one) == {{PACKAGE_UPPER}}_OK &&
             {{PACKAGE}}_gemm_plan(kNo, native_b, 128, 128, 64, 384, &many) == {{PACKAGE_UPPER}}_OK,
         "gemm_plan batched");
  expect(many.wgmma == 0 && many.predicted_seconds > one.predicted_seconds &&
             many.predicted_seconds < 384 * one.predicted_seconds,
         "gemm_plan: 384 products in one grid");
}

// Host value of the epilogue's activation, in double.
double activate(int activation, double x) {
  switch (activation) {
    case 1: return x < 0 ? 0 : x;
    case 2: return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case 3: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case 4: return x / (1 + std::exp(-x));
    default: return x;
  }
}

struct CallCase {
  int64_t M, N, K, batch;
  {{PACKAGE}}_transpose trans_a, trans_b;
  bool broadcast_b;  // stride_b = 0: one B for every product
  int epilogue;      // 0: none; 1: column bias + GELU (tanh); 2: row bias + residual + SiLU + clamp; 3: ReLU, erf-less
};

// Runs one call of `cs` through gemm_batched_epilogue and compares every product's C, padding included.
void run_call_case(const CallCase& cs, float alpha, float beta, std::mt19937& rng) {
  const int64_t M = cs.M, N = cs.N, K = cs.K, batch = cs.batch;
  const bool ta = cs.trans_a == kTrans, tb = cs.trans_b == kTrans;
  const int64_t a_rows = ta ? K : M, a_cols = ta ? M : K, b_rows = tb ? N : K, b_cols = tb ? K : N;
  const int64_t lda = (a_cols > 1 ? a_cols : 1) + 1, ldb = (b_cols > 1 ? b_cols : 1) + 2;
  const int64_t ldc = (N > 1 ? N : 1) + 3, ldr = N + 5;
  const int64_t stride_a = a_rows * lda + 7, stride_b = cs.broadcast_b ? 0 : b_rows * ldb + 3;
  const int64_t stride_c = M * ldc + 2, stride_res = M * ldr;
  const int64_t bias_len = cs.epilogue == 2 ? M : N, stride_bias = bias_len + 1;
  const std::vector<AElem> a = random_matrix<AElem>(rng, 1, stride_a * batch);
  const std::vector<BElem> b = random_matrix<BElem>(rng, 1, (cs.broadcast_b ? b_rows * ldb : stride_b) * batch);
  std::vector<float> c0 = random_matrix<float>(rng, 1, stride_c * batch);
  const std::vector<float> bias = random_matrix<float>(rng, 1, stride_bias * batch);
  const std::vector<float> residual = random_matrix<float>(rng, 1, stride_res * batch);
  if (beta == 0.0f)
    for (auto& x : c0) x = std::numeric_limits<float>::quiet_NaN();
  DeviceBuffer<AElem> da(a.size());
  DeviceBuffer<BElem> db(b.size());
  DeviceBuffer<float> dc(c0.size()), dbias(bias.size()), dres(residual.size());
  if (!da.get() || !db.get() || !dc.get() || !dbias.get() || !dres.get() ||
      !upload(da.get(), a.data(), a.size() * sizeof(AElem)) || !upload(db.get(), b.data(), b.size() * sizeof(BElem)) ||
      !upload(dc.get(), c0.data(), c0.size() * sizeof(float)) ||
      !upload(dbias.get(), bias.data(), bias.size() * sizeof(float)) ||
      !upload(dres.get(), residual.data(), residual.size() * sizeof(float))) {
    expect(false, "device allocation or copy failed");
    return;
  }
  {{PACKAGE}}_epilogue_t e{};
  if (cs.epilogue == 1) {
    e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_COLUMN;
    e.bias = dbias.get();
    e.activation = {{PACKAGE_UPPER}}_ACTIVATION_GELU_TANH;
  } else if (cs.epilogue == 2) {
    e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_ROW;
    e.bias = dbias.get();
    e.residual = dres.get();
    e.ldr = ldr;
    e.activation = {{PACKAGE_UPPER}}_ACTIVATION_SILU;
    e.clamp_min = -0.25f;
    e.clamp_max = 2.5f;
  } else if (cs.epilogue == 3) {
    e.activation = {{PACKAGE_UPPER}}_ACTIVATION_GELU_ERF;
    e.residual = dres.get();
    e.ldr = ldr;
  }
  char label[256];
  std::snprintf(label, sizeof label, "call %c%c M=%lld N=%lld K=%lld batch=%lld%s epilogue=%d alpha=%g beta=%g",
                ta ? 'T' : 'N', tb ? 'T' : 'N', static_cast<long long>(M), static_cast<long long>(N),
                static_cast<long long>(K), static_cast<long long>(batch), cs.broadcast_b ? " shared B" : "",
                cs.epilogue, alpha, beta);
  const {{PACKAGE}}_status status = {{PACKAGE}}_gemm_batched_epilogue(
      cs.trans_a, cs.trans_b, M, N, K, alpha, da.get(), lda, stride_a, db.get(), ldb, stride_b, beta, dc.get(), ldc,
      stride_c, batch, cs.epilogue != 0 ? &e : nullptr, stride_bias, stride_res, nullptr);
  expect(status == {{PACKAGE_UPPER}}_OK, std::string("status ") + status_text(status) + ": " + label);
  std::vector<float> c(c0.size());
  if (cudaDeviceSynchronize() != cudaSuccess || !download(c.data(), dc.get(), c.size() * sizeof(float))) {
    expect(false, std::string("kernel or copy failed: ") + label);
    return;
  }
  int64_t bad = 0;
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < ldc; ++j) {
        const size_t at = static_cast<size_t>(p * stride_c + i * ldc + j);
        if (j >= N) {  // padding: bit-identical
          if (std::memcmp(&c[at], &c0[at], sizeof(float)) != 0) ++bad;
          continue;
        }
        double sum = 0;
        const int64_t b0 = cs.broadcast_b ? 0 : p * stride_b;
        for (int64_t k = 0; k < K; ++k) {
          const double x = to_float(a[static_cast<size_t>(p * stride_a + (ta ? k * lda + i : i * lda + k))]);
          const double y = to_float(b[static_cast<size_t>(b0 + (tb ? j * ldb + k : k * ldb + j))]);
          sum += x * y;
        }
        const double c_term = beta == 0.0f ? 0.0 : beta * static_cast<double>(c0[at]);
        double v = alpha * sum + c_term, magnitude = std::fabs(alpha * sum) + std::fabs(c_term);
        if (cs.epilogue == 1 || cs.epilogue == 2) {
          const double add = bias[static_cast<size_t>(p * stride_bias + (cs.epilogue == 2 ? i : j))];
          v += add;
          magnitude += std::fabs(add);
        }
        if (cs.epilogue == 2 || cs.epilogue == 3) {
          const double add = residual[static_cast<size_t>(p * stride_res + i * ldr + j)];
          v += add;
          magnitude += std::fabs(add);
        }
        v = activate(cs.epilogue == 1 ? 2 : cs.epilogue == 2 ? 4 : cs.epilogue == 3 ? 3 : 0, v);
        if (cs.epilogue == 2) v = v < -0.25 ? -0.25 : (v > 2.5 ? 2.5 : v);
        // Exact sums; the rounding of alpha * sum + beta * C and the additions (a few ulps of their terms, which
        // the activations' slopes, at most 1.13, carry through) and of the activation itself (a few ulps).
        const double tolerance = std::ldexp(1.0, -20) * (magnitude + std::fabs(v)) + 1e-30;
        if (!(std::fabs(c[at] - v) <= tolerance)) {
          if (bad == 0)
            expect(false, std::string(label) + ": product " + std::to_string(p) + " C[" + std::to_string(i) + "][" +
                              std::to_string(j) + "] = " + std::to_string(c[at]) + ", expected " + std::to_string(v));
          ++bad;
        }
      }
  expect(bad == 0, std::string(label) + ": " + std::to_string(bad) + " wrong elements");
}

// Every transpose combination on edge shapes, single and batched, each epilogue in turn.
void run_call_cases(std::mt19937& rng) {
  const int64_t shapes[][3] = { {1, 1, 1}, {7, 13, 24}, {65, 129, 67}, {3, 200, 1031}, {200, 136, 0}, {131, 97, 520} };
  int variant = 0;
  for (const auto& s : shapes)
    for ({{PACKAGE}}_transpose ta : {kNo, kTrans})
      for ({{PACKAGE}}_transpose tb : {kNo, kTrans}) {
        const int64_t batch = variant % 2 == 0 ? 1 : 3 + variant % 4;
        const CallCase cs{s[0], s[1], s[2], batch, ta, tb, variant % 5 == 1, variant % 4};
        run_call_case(cs, variant % 3 == 0 ? 1.0f : -1.5f, variant % 2 == 0 ? 0.0f : 0.5f, rng);
        ++variant;
      }
  // Many small products (attention's per-head shapes) and a batch past one launch's grid.
  run_call_case(CallCase{16, 16, 64, 384, kNo, kTrans, false, 0}, 1.0f, 0.0f, rng);
  run_call_case(CallCase{2, 3, 4, 70000, kNo, kNo, true, 1}, 1.0f, 0.5f, rng);
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_CALLS_H_
