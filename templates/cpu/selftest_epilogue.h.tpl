// Self-test for {{PACKAGE}}: fused epilogues through _gemm_epilogue (bias, residual, activations, clamp) against the
// reference on the shapes of every path, and their bad arguments. A part of test/selftest.cpp, which includes it
// after the helpers it uses.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_EPILOGUE_H_
#define {{PACKAGE_UPPER}}_SELFTEST_EPILOGUE_H_

namespace {

// ---- (h) epilogues ------------------------------------------------------------------------------------------------

using Epilogue = {{PACKAGE}}_epilogue_t;

double ActivationReference(int activation, double x) {
  switch (activation) {
    case {{PACKAGE_UPPER}}_ACTIVATION_RELU:
      return x < 0.0 ? 0.0 : x;
    case {{PACKAGE_UPPER}}_ACTIVATION_GELU_TANH:
      return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case {{PACKAGE_UPPER}}_ACTIVATION_GELU_ERF:
      return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case {{PACKAGE_UPPER}}_ACTIVATION_SILU:
      return x / (1.0 + std::exp(-x));
    default:
      return x;
  }
}

// The element the epilogue makes of `pre` (alpha A B + beta C + bias + residual, within `tolerance`), and its own
// tolerance: the activations' slopes are below 1.2, and their approximations within 2e-6 of the value.
double EpilogueReference(const Epilogue& e, double pre, double tolerance, double* out_tolerance) {
  double x = ActivationReference(e.activation, pre);
  if (e.clamp_min != 0.0f || e.clamp_max != 0.0f) x = std::min<double>(std::max<double>(x, e.clamp_min), e.clamp_max);
  *out_tolerance = 1.2 * tolerance + 2e-6 * std::fabs(x) + 1e-6;
  return x;
}

// The epilogue the op spec fixes with its epilogue fragments, numbered as epilogue_t (kEpilogueFixedByOp false: a
// call gives any).
constexpr bool kEpilogueFixedByOp = {{EPILOGUE_FIXED}};
constexpr int kOpBias = {{FIXED_BIAS}}, kOpActivation = {{FIXED_ACTIVATION}};
constexpr bool kOpResidual = {{FIXED_RESIDUAL}}, kOpClamp = {{FIXED_CLAMP}};

// The op spec's epilogue over these operands.
Epilogue FixedEpilogue(const float* bias_per_column, const float* bias_per_row, const float* residual, int64_t ldr) {
  Epilogue e{};
  e.bias_kind = static_cast<{{PACKAGE}}_bias>(kOpBias);
  e.bias = kOpBias == 1 ? bias_per_column : kOpBias == 2 ? bias_per_row : nullptr;
  if (kOpResidual) e.residual = residual, e.ldr = ldr;
  e.activation = static_cast<{{PACKAGE}}_activation>(kOpActivation);
  if (kOpClamp) e.clamp_min = -0.25f, e.clamp_max = 0.5f;
  return e;
}

// The epilogues a case cycles through: each part alone and together, every activation; the op spec's alone where
// it fixes one.
Epilogue MakeEpilogue(int variant, const float* bias_per_column, const float* bias_per_row, const float* residual,
                      int64_t ldr) {
  if (kEpilogueFixedByOp) return FixedEpilogue(bias_per_column, bias_per_row, residual, ldr);
  Epilogue e{};
  switch (variant % 5) {
    case 0:
      e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_COLUMN, e.bias = bias_per_column;
      e.activation = {{PACKAGE_UPPER}}_ACTIVATION_GELU_TANH;
      break;
    case 1:
      e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_ROW, e.bias = bias_per_row;
      e.residual = residual, e.ldr = ldr;
      e.activation = {{PACKAGE_UPPER}}_ACTIVATION_RELU;
      break;
    case 2:
      e.activation = {{PACKAGE_UPPER}}_ACTIVATION_GELU_ERF;
      e.clamp_min = -0.25f, e.clamp_max = 0.5f;
      break;
    case 3:
      e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_COLUMN, e.bias = bias_per_column;
      e.residual = residual, e.ldr = ldr;
      e.activation = {{PACKAGE_UPPER}}_ACTIVATION_SILU;
      e.clamp_min = -std::numeric_limits<float>::infinity(), e.clamp_max = 1.0f;
      break;
    default:
      e.residual = residual, e.ldr = ldr;
      break;
  }
  return e;
}

std::string EpilogueName(const Epilogue& e) {
  return Format("bias %d, residual %s, activation %d, clamp [%g, %g]", static_cast<int>(e.bias_kind),
                e.residual != nullptr ? "yes" : "no", static_cast<int>(e.activation), static_cast<double>(e.clamp_min),
                static_cast<double>(e.clamp_max));
}

// C (ldc apart) against the epilogue of alpha * A * B + beta * C, element by element; an empty string, else the first
// element out of tolerance.
std::string CompareEpilogueC(const Problem& p, const float* c, int64_t ldc, const Combo& combo, const Epilogue& e) {
  const int64_t m = p.m, n = p.n, k = p.k;
  const double scale = 1e-5 * static_cast<double>(k + 1);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const size_t at = static_cast<size_t>(i * n + j);
      const double beta_c = combo.beta == 0.0f ? 0.0 : static_cast<double>(combo.beta) * p.c[at];
      double pre = combo.alpha * p.ab[at] + beta_c;
      const double tolerance = scale * (std::fabs(combo.alpha) * p.abs_ab[at] + std::fabs(beta_c)) + 1e-6;
      if (e.bias_kind == {{PACKAGE_UPPER}}_BIAS_PER_COLUMN) pre += e.bias[j];
      if (e.bias_kind == {{PACKAGE_UPPER}}_BIAS_PER_ROW) pre += e.bias[i];
      if (e.residual != nullptr) pre += e.residual[i * e.ldr + j];
      double allowed = 0.0;
      const double want = EpilogueReference(e, pre, tolerance, &allowed);
      const double got = c[i * ldc + j];
      if (!(std::fabs(got - want) <= allowed))
        return Format("C[%lld][%lld] = %.9g, want %.9g (tolerance %.3g)", static_cast<long long>(i),
                      static_cast<long long>(j), got, want, allowed);
    }
  return std::string();
}

{{PACKAGE}}_transpose Transpose(bool transposed) {
  return transposed ? {{PACKAGE_UPPER}}_TRANS : {{PACKAGE_UPPER}}_NO_TRANS;
}

// One _gemm_epilogue call on fresh C, checked element by element and for writes outside C.
std::string RunEpilogueCase(const Problem& p, int layout, const Operands& ops, const Combo& combo,
                            const Epilogue& e) {
  GuardedC guarded(p, ops.ldc, combo.nan_c);
  const Status status =
      {{PACKAGE}}_gemm_epilogue(Transpose((layout & 1) != 0), Transpose((layout & 2) != 0), p.m, p.n, p.k, combo.alpha,
                                ops.a.data(), ops.lda, ops.b.data(), ops.ldb, combo.beta, guarded.c, ops.ldc, &e);
  if (status != kOk) return Format("returned status %d (%s)", static_cast<int>(status), StatusName(status));
  if (const std::string error = CompareEpilogueC(p, guarded.c, ops.ldc, combo, e); !error.empty()) return error;
  return guarded.Outside();
}

// Every epilogue on the shapes of every path: a single tile, row streams (a few rows), wide rows (narrow C), strips
// in place, the packed blocks around kernel 0's tiles, a split K (one row of tiles over a deep, wide B on two
// threads), and dot products (B transposed, deep K); k sliced where K is deep, so that the epilogue must wait for
// the last slice.
void CheckEpilogues(Tally& tally) {
  Plan plan{};
  if ({{PACKAGE}}_kernel_plan(0, 1024, 1024, 1024, &plan) != kOk) {
    tally.Fail("kernel_plan(0, 1024x1024x1024) failed");
    return;
  }
  std::vector<Shape> shapes = {Shape{0, 5, 7},     Shape{4, 0, 3},     Shape{1, 1, 1},      Shape{2, 16, 8},
                               Shape{2, 300, 200}, Shape{3, 70, 61},   Shape{13, 17, 1},    Shape{31, 33, 63},
                               Shape{61, 127, 9},  Shape{96, 160, 48}, Shape{4, 9, 0},      Shape{9, 21, 20000},
                               Shape{int64_t{plan.mr}, 1500, 2600}};
  for (int64_t v : {int64_t{plan.mr} + 1, int64_t{plan.nr} + 1}) shapes.push_back(Shape{v + 30, v + 2, v});
  shapes.push_back(Shape{2, 3000, 200});
  Shape packed_shape{0, 0, 0};
  // A packed plan over three k slices, B packed where the blocks have rows enough: the first of these the model
  // packs.
  for (const Shape& s : {Shape{259, 261, 2 * plan.kc + 5}, Shape{200, 200, 2 * plan.kc + 5},
                         Shape{131, 261, 2 * plan.kc + 5}}) {
    Plan packed_plan{};
    if (Work(s) <= 2 * kMaxWork && {{PACKAGE}}_plan(s[0], s[1], s[2], &packed_plan) == kOk &&
        packed_plan.packed != 0) {
      packed_shape = s;
      break;
    }
  }
  int packed = 0, in_place = 0;  // plans of each kind among the shapes run
  uint64_t seed = 777;
  int variant = 0;
  if (!g_quick && packed_shape[0] > 0) shapes.push_back(packed_shape);
  for (const Shape& s : shapes) {
    if (Work(s) > (g_quick ? kQuickMaxWork / 8 : kMaxWork) && s != packed_shape) continue;
    Plan shape_plan{};
    if ({{PACKAGE}}_plan(s[0], s[1], s[2], &shape_plan) == kOk && s[0] * s[1] * s[2] > 0)
      ++(shape_plan.packed != 0 ? packed : in_place);
    const Problem problem = MakeProblem(s, seed++);
    Lcg random(seed++);
    std::vector<float> bias_per_column(static_cast<size_t>(s[1]) + 1), bias_per_row(static_cast<size_t>(s[0]) + 1);
    for (float& x : bias_per_column) x = random.Next();
    for (float& x : bias_per_row) x = random.Next();
    const int64_t ldr = s[1] + 5;
    std::vector<float> residual_dense(static_cast<size_t>(s[0] * s[1]));
    for (float& x : residual_dense) x = random.Next();
    const std::vector<float> residual = Strided(residual_dense, s[0], s[1], ldr);
    for (int layout : {0, 2, 3}) {
      const std::vector<Operands> operands = OperandsFor(problem, layout);
      for (int threads : {1, 2}) {
        if (g_quick && threads > 1) continue;
        if (!SetThreads(tally, threads)) return;
        const Epilogue e =
            MakeEpilogue(variant, bias_per_column.data(), bias_per_row.data(), residual.data(), ldr);
        const Combo& combo = kCombos[variant % kNumCombos];
        const Operands& ops = operands[static_cast<size_t>(variant) % operands.size()];
        ++variant;
        const std::string error = RunEpilogueCase(problem, layout, ops, combo, e);
        tally.Expect(error.empty(), Format("gemm_epilogue %s, threads %d, %s, alpha=%g beta=%g, %s: %s",
                                           kLayoutNames[layout], threads, ShapeName(s).c_str(),
                                           static_cast<double>(combo.alpha), static_cast<double>(combo.beta),
                                           EpilogueName(e).c_str(), error.c_str()));
      }
    }
  }
  tally.Expect(g_quick || (packed > 0 && in_place > 0),
               Format("epilogues ran %d packed and %d in-place plans, want both", packed, in_place));
}

// The epilogue's own bad arguments, each leaving C untouched.
void CheckEpilogueArguments(Tally& tally) {
  const int64_t M = 4, N = 6, K = 3;
  const std::vector<float> a(static_cast<size_t>(M * K), 1.0f), b(static_cast<size_t>(K * N), 1.0f);
  std::vector<float> c(static_cast<size_t>(M * N), 2.0f), bias(static_cast<size_t>(N), 1.0f);
  std::vector<float> residual(static_cast<size_t>(M * N), 1.0f);
  struct BadCase {
    const char* what;
    Epilogue epilogue;
    Status want;
  };
  // Each case changes one thing of a valid epilogue: none, or the op spec's where it fixes one (where the change
  // also departs from the fixed parts, the call is refused for that first).
  const auto with = [&](auto change) {
    Epilogue e = kEpilogueFixedByOp ? FixedEpilogue(bias.data(), bias.data(), residual.data(), N) : Epilogue{};
    change(e);
    return e;
  };
  const Status unless_fixed_bias = kEpilogueFixedByOp && kOpBias != 1 ? kInvalidArgument : kNullPointer;
  const Status unless_fixed_residual = kEpilogueFixedByOp && !kOpResidual ? kInvalidArgument : kInvalidLeadingDim;
  const BadCase cases[] = {
      {"activation 5", with([](Epilogue& e) { e.activation = static_cast<{{PACKAGE}}_activation>(5); }),
       kInvalidArgument},
      {"bias kind 3", with([](Epilogue& e) { e.bias_kind = static_cast<{{PACKAGE}}_bias>(3); }), kInvalidArgument},
      {"bias per column, null",
       with([](Epilogue& e) { e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_COLUMN, e.bias = nullptr; }),
       unless_fixed_bias},
      {"clamp [1, -1]", with([](Epilogue& e) { e.clamp_min = 1.0f, e.clamp_max = -1.0f; }), kInvalidArgument},
      {"clamp [NaN, 1]", with([](Epilogue& e) { e.clamp_min = kNaN, e.clamp_max = 1.0f; }), kInvalidArgument},
      {"residual, ldr < N", with([&](Epilogue& e) { e.residual = residual.data(), e.ldr = N - 1; }),
       unless_fixed_residual},
      {"residual is C", with([&](Epilogue& e) { e.residual = c.data(), e.ldr = N; }), kInvalidArgument},
      {"bias inside C",
       with([&](Epilogue& e) { e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_ROW, e.bias = c.data() + N; }),
       kInvalidArgument},
  };
  std::vector<BadCase> all(std::begin(cases), std::end(cases));
  if (kEpilogueFixedByOp)  // another activation than the op spec's
    all.push_back({"another activation than the op spec's", with([](Epilogue& e) {
                     e.activation = static_cast<{{PACKAGE}}_activation>((kOpActivation + 1) % 5);
                   }),
                   kInvalidArgument});
  for (const BadCase& bad : all) {
    std::fill(c.begin(), c.end(), 2.0f);
    const Status status = {{PACKAGE}}_gemm_epilogue({{PACKAGE_UPPER}}_NO_TRANS, {{PACKAGE_UPPER}}_NO_TRANS, M, N, K,
                                                    1.0f, a.data(), K, b.data(), N, 0.0f, c.data(), N, &bad.epilogue);
    const bool untouched = std::all_of(c.begin(), c.end(), [](float x) { return x == 2.0f; });
    tally.Expect(status == bad.want && untouched,
                 Format("gemm_epilogue with %s: returned %s, want %s%s", bad.what, StatusName(status),
                        StatusName(bad.want), untouched ? "" : "; C was written"));
  }
  // A null epilogue is the plain call; an empty C takes any epilogue.
  const Status plain = {{PACKAGE}}_gemm_epilogue({{PACKAGE_UPPER}}_NO_TRANS, {{PACKAGE_UPPER}}_NO_TRANS, M, N, K, 1.0f,
                                                 a.data(), K, b.data(), N, 0.0f, c.data(), N, nullptr);
  tally.Expect(plain == kOk && c[0] == 3.0f, Format("gemm_epilogue with no epilogue: %s", StatusName(plain)));
  const Epilogue null_bias =
      kEpilogueFixedByOp ? with([](Epilogue& e) { e.bias = nullptr; })
                         : with([](Epilogue& e) { e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_ROW; });
  const Status empty = {{PACKAGE}}_gemm_epilogue({{PACKAGE_UPPER}}_NO_TRANS, {{PACKAGE_UPPER}}_NO_TRANS, 0, N, K, 1.0f,
                                                 a.data(), K, b.data(), N, 0.0f, c.data(), N, &null_bias);
  tally.Expect(empty == kOk, Format("gemm_epilogue with M = 0: %s", StatusName(empty)));
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_EPILOGUE_H_
