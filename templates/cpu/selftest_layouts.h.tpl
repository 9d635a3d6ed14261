// Self-test for {{PACKAGE}}: transposed operands through _gemm and the BLAS-compatible _cblas_sgemm, in both orders,
// against the reference over edge shapes, and their bad arguments. A part of test/selftest.cpp, which includes it after
// the helpers it uses.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_LAYOUTS_H_
#define {{PACKAGE_UPPER}}_SELFTEST_LAYOUTS_H_

namespace {

// ---- (f) layouts --------------------------------------------------------------------------------------------------

// Every layout through every entry that takes one, on shapes around kernel 0's register tile and blocks (packing
// absorbs the transposes), on small ones (run in place on row-major copies or as dot products) and on deep ones, on
// one and two threads.
void CheckLayouts(Tally& tally) {
  Plan plan{};
  if ({{PACKAGE}}_kernel_plan(0, 1024, 1024, 1024, &plan) != kOk) {
    tally.Fail("kernel_plan(0, 1024x1024x1024) failed");
    return;
  }
  std::vector<Shape> shapes = {Shape{0, 5, 7},    Shape{3, 0, 7},     Shape{1, 1, 1},
                               Shape{1, 37, 61},  Shape{37, 1, 61},   Shape{13, 17, 1},
                               Shape{31, 33, 63}, Shape{61, 127, 9},  Shape{127, 61, 300}};
  for (int64_t v : {int64_t{plan.mr} + 1, int64_t{plan.nr} + 1, plan.kc + 1, plan.mc + 1}) {
    shapes.push_back(Shape{v, 33, 65});
    shapes.push_back(Shape{65, v, 33});
    shapes.push_back(Shape{33, 65, v});
  }
  shapes.push_back(Shape{plan.mc + 3, plan.nc + 5, plan.kc + 7});  // several blocks along every axis
  // Deep calls whose A outgrows the direct cache: a transposed B is read by dot products over k slices.
  shapes.push_back(Shape{9, 21, 20000});
  shapes.push_back(Shape{40, 9, 5000});
  uint64_t seed = 4242;
  for (const Shape& s : shapes) {
    if (Work(s) > (g_quick ? kQuickMaxWork / 8 : kMaxWork)) continue;
    const Problem problem = MakeProblem(s, seed++);
    for (int layout = 0; layout < 4; ++layout) {
      const std::vector<Operands> operands = OperandsFor(problem, layout);
      for (int threads : {1, 2}) {
        if (g_quick && threads > 1) continue;  // an emulator: one thread, and _gemm and column-major cblas only
        if (!SetThreads(tally, threads)) return;
        for (Entry entry : {Entry::kGemm, Entry::kCblasRow, Entry::kCblasColumn}) {
          if (g_quick && entry == Entry::kCblasRow) continue;
          const size_t pick = static_cast<size_t>(layout + threads + static_cast<int>(entry));
          CheckCase(tally, problem, Caller{entry, 0, layout}, threads, operands[pick % operands.size()],
                    kCombos[pick % kNumCombos]);
        }
      }
    }
  }
}

// _gemm's transposes and its leading dimensions in the stored shapes; _cblas_sgemm's arguments, each invalid one
// numbered as netlib's cblas_xerbla numbers it. C must stay as it was.
void CheckLayoutArguments(Tally& tally) {
  const int64_t M = 5, N = 7, K = 3;
  const std::vector<float> a(static_cast<size_t>(M * K + 8), 1.0f), b(static_cast<size_t>(K * N + 8), 1.0f);
  std::vector<float> c(static_cast<size_t>(M * N), 2.0f);
  const auto c_untouched = [&] { return std::all_of(c.begin(), c.end(), [](float x) { return x == 2.0f; }); };
  const auto trans = [](int value) { return static_cast<{{PACKAGE}}_transpose>(value); };
  struct GemmCase {
    int trans_a, trans_b;
    int64_t lda, ldb;
    Status want;
  };
  const GemmCase gemm_cases[] = {
      {2, 0, K, N, kInvalidArgument},  {0, -1, K, N, kInvalidArgument}, {1, 0, M - 1, N, kInvalidLeadingDim},
      {0, 1, K, K - 1, kInvalidLeadingDim}, {1, 1, K, N, kInvalidLeadingDim},
  };
  for (const GemmCase& g : gemm_cases) {
    const Status got = {{PACKAGE}}_gemm(trans(g.trans_a), trans(g.trans_b), M, N, K, 1.0f, a.data(), g.lda, b.data(),
                                        g.ldb, 0.0f, c.data(), N);
    tally.Expect(got == g.want && c_untouched(),
                 Format("gemm(trans %d %d, lda %lld, ldb %lld) returned %s, want %s%s", g.trans_a, g.trans_b,
                        static_cast<long long>(g.lda), static_cast<long long>(g.ldb), StatusName(got),
                        StatusName(g.want), c_untouched() ? "" : "; C changed"));
  }
  Plan plan{};
  tally.Expect({{PACKAGE}}_gemm_plan(trans(1), trans(1), M, N, K, &plan) == kOk && plan.threads >= 1,
               "gemm_plan(TT, 5x7x3) failed");
  tally.Expect({{PACKAGE}}_gemm_plan(trans(3), trans(0), M, N, K, &plan) == kInvalidArgument,
               "gemm_plan with a transpose of 3 did not return INVALID_ARGUMENT");
  struct BlasCase {
    int order, trans_a, trans_b, m, n, k, lda, ldb, ldc;
    bool null_a;
    int want;
  };
  const int m = static_cast<int>(M), n = static_cast<int>(N), k = static_cast<int>(K);
  const BlasCase blas_cases[] = {
      {100, 111, 111, m, n, k, k, n, n, false, 1},    {101, 110, 111, m, n, k, k, n, n, false, 2},
      {101, 111, 114, m, n, k, k, n, n, false, 3},    {101, 111, 111, -1, n, k, k, n, n, false, 4},
      {101, 111, 111, m, -1, k, k, n, n, false, 5},   {101, 111, 111, m, n, -1, k, n, n, false, 6},
      {101, 111, 111, m, n, k, k - 1, n, n, false, 9}, {101, 112, 111, m, n, k, m - 1, n, n, false, 9},
      {101, 111, 111, m, n, k, k, n - 1, n, false, 11}, {101, 111, 112, m, n, k, k, k - 1, n, false, 11},
      {101, 111, 111, m, n, k, k, n, n - 1, false, 14}, {102, 111, 111, m, n, k, m - 1, k, m, false, 9},
      {102, 111, 111, m, n, k, m, k - 1, m, false, 11}, {102, 111, 111, m, n, k, m, k, m - 1, false, 14},
      {101, 111, 111, m, n, k, k, n, n, true, 8},     {101, 111, 111, -1, n, k, 0, n, n, false, 4},
  };
  for (const BlasCase& t : blas_cases) {
    const int got = {{PACKAGE}}_cblas_sgemm(t.order, t.trans_a, t.trans_b, t.m, t.n, t.k, 1.0f,
                                            t.null_a ? nullptr : a.data(), t.lda, b.data(), t.ldb, 0.0f, c.data(),
                                            t.ldc);
    tally.Expect(got == t.want && c_untouched(),
                 Format("cblas_sgemm(%d, %d, %d, %d, %d, %d, lda %d, ldb %d, ldc %d%s) returned %d, want %d%s",
                        t.order, t.trans_a, t.trans_b, t.m, t.n, t.k, t.lda, t.ldb, t.ldc, t.null_a ? ", A null" : "",
                        got, t.want, c_untouched() ? "" : "; C changed"));
  }
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_LAYOUTS_H_
