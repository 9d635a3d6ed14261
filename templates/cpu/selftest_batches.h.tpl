// Self-test for {{PACKAGE}}: strided batches through _gemm_batched (and _gemm_batched_epilogue), in every layout,
// with A or B shared by all products, against the reference, and their bad arguments. A part of
// test/selftest.cpp, which includes it after the helpers it uses.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_BATCHES_H_
#define {{PACKAGE_UPPER}}_SELFTEST_BATCHES_H_

namespace {

// ---- (g) batches --------------------------------------------------------------------------------------------------

// Which operands all products of a batch share (their stride is 0).
enum class Shared { kNone, kA, kB };

// One batched call: its products, each its own problem (sharing product 0's A or B where asked), stored at strides
// in one buffer per operand, NaN between the products' matrices and sentinels between their C's.
struct BatchCase {
  std::vector<Problem> products;
  int64_t lda = 0, ldb = 0, ldc = 0, stride_a = 0, stride_b = 0, stride_c = 0;
  std::vector<float> a, b, c;
};

// Stores `count` dense rows x cols matrices in `layout`'s storage (transposed: cols x rows) with leading dimension
// ld, `stride` apart (0: the first alone), into out.
void StoreAll(const std::vector<const std::vector<float>*>& dense, int64_t rows, int64_t cols, bool transposed,
              int64_t ld, int64_t stride, std::vector<float>* out) {
  const int64_t stored_rows = transposed ? cols : rows, stored_cols = transposed ? rows : cols;
  const int64_t one = stored_rows == 0 ? 1 : (stored_rows - 1) * ld + stored_cols;
  const size_t count = stride == 0 ? 1 : dense.size();
  out->assign(static_cast<size_t>(std::max<int64_t>(1, static_cast<int64_t>(count - 1) * stride + one)), kNaN);
  for (size_t i = 0; i < count; ++i) {
    const std::vector<float> stored = transposed ? Transposed(*dense[i], rows, cols) : *dense[i];
    const std::vector<float> strided = Strided(stored, stored_rows, stored_cols, ld);
    std::copy(strided.begin(), strided.begin() + std::min<int64_t>(one, static_cast<int64_t>(strided.size())),
              out->begin() + static_cast<int64_t>(i) * stride);
  }
}

BatchCase MakeBatch(const Shape& s, int64_t count, int layout, Shared shared, bool tight_c, uint64_t seed) {
  BatchCase batch;
  for (int64_t i = 0; i < count; ++i) {
    Problem p = MakeProblem(s, seed + static_cast<uint64_t>(i));
    if (i > 0 && shared != Shared::kNone) {
      if (shared == Shared::kA) p.a = batch.products[0].a;
      if (shared == Shared::kB) p.b = batch.products[0].b;
      Multiply(p);
    }
    batch.products.push_back(std::move(p));
  }
  const bool ta = (layout & 1) != 0, tb = (layout & 2) != 0;
  const int64_t m = s[0], n = s[1], k = s[2];
  batch.lda = std::max<int64_t>(ta ? m : k, 1) + 3;  // odd paddings: every row misaligned
  batch.ldb = std::max<int64_t>(tb ? k : n, 1) + 3;
  batch.ldc = std::max<int64_t>(n, 1) + 2;
  batch.stride_a = shared == Shared::kA ? 0 : (ta ? k : m) * batch.lda + 5;
  batch.stride_b = shared == Shared::kB ? 0 : (tb ? n : k) * batch.ldb + 5;
  // Tight: the next product's C starts right after this one's last element.
  batch.stride_c = m == 0 || n == 0 ? 0 : tight_c ? (m - 1) * batch.ldc + n : m * batch.ldc + 7;
  std::vector<const std::vector<float>*> as, bs;
  for (const Problem& p : batch.products) {
    as.push_back(&p.a);
    bs.push_back(&p.b);
  }
  StoreAll(as, m, k, ta, batch.lda, batch.stride_a, &batch.a);
  StoreAll(bs, k, n, tb, batch.ldb, batch.stride_b, &batch.b);
  batch.c.assign(static_cast<size_t>(std::max<int64_t>(1, count * (batch.stride_c + 1) + batch.ldc)), kSentinel);
  return batch;
}

// A batch's epilogue: `epilogue` for product 0, its bias and residual stride_bias and stride_residual further on for
// each next product; none where epilogue is null.
struct BatchEpilogue {
  const Epilogue* epilogue = nullptr;
  int64_t stride_bias = 0, stride_residual = 0;
  Epilogue Of(int64_t product) const {
    Epilogue e = *epilogue;
    if (e.bias != nullptr) e.bias += product * stride_bias;
    if (e.residual != nullptr) e.residual += product * stride_residual;
    return e;
  }
};

// Runs one batched call (_gemm_batched_epilogue where `post` has an epilogue) and checks every product's C and every
// float around them.
std::string RunBatch(BatchCase& batch, int layout, const Combo& combo, const BatchEpilogue& post = BatchEpilogue{}) {
  const Problem& first = batch.products[0];
  const int64_t m = first.m, n = first.n, k = first.k, count = static_cast<int64_t>(batch.products.size());
  for (int64_t i = 0; i < count; ++i)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < n; ++j)
        batch.c[static_cast<size_t>(i * batch.stride_c + r * batch.ldc + j)] =
            combo.nan_c ? kNaN : batch.products[static_cast<size_t>(i)].c[static_cast<size_t>(r * n + j)];
  std::vector<float> expected(batch.c);
  const auto trans = [](bool t) { return t ? {{PACKAGE_UPPER}}_TRANS : {{PACKAGE_UPPER}}_NO_TRANS; };
  const Status status =
      post.epilogue == nullptr
          ? {{PACKAGE}}_gemm_batched(trans((layout & 1) != 0), trans((layout & 2) != 0), m, n, k, combo.alpha,
                                     batch.a.data(), batch.lda, batch.stride_a, batch.b.data(), batch.ldb,
                                     batch.stride_b, combo.beta, batch.c.data(), batch.ldc, batch.stride_c, count)
          : {{PACKAGE}}_gemm_batched_epilogue(trans((layout & 1) != 0), trans((layout & 2) != 0), m, n, k,
                                              combo.alpha, batch.a.data(), batch.lda, batch.stride_a, batch.b.data(),
                                              batch.ldb, batch.stride_b, combo.beta, batch.c.data(), batch.ldc,
                                              batch.stride_c, count, post.epilogue, post.stride_bias,
                                              post.stride_residual);
  if (status != kOk) return Format("returned status %d (%s)", static_cast<int>(status), StatusName(status));
  for (int64_t i = 0; i < count; ++i) {
    float* c = batch.c.data() + i * batch.stride_c;
    const Problem& p = batch.products[static_cast<size_t>(i)];
    const std::string error = post.epilogue == nullptr ? CompareC(p, c, batch.ldc, combo)
                                                       : CompareEpilogueC(p, c, batch.ldc, combo, post.Of(i));
    if (!error.empty()) return Format("product %lld: %s", static_cast<long long>(i), error.c_str());
    for (int64_t r = 0; r < m; ++r)
      std::memcpy(expected.data() + i * batch.stride_c + r * batch.ldc, c + r * batch.ldc,
                  static_cast<size_t>(n) * sizeof(float));
  }
  for (size_t idx = 0; idx < expected.size(); ++idx)
    if (BitsOf(batch.c[idx]) != BitsOf(expected[idx]))
      return Format("wrote outside the products' C: float %zu of the batch's C", idx);
  return std::string();
}

// Batches of 1 to 12 products, tiny to a few register tiles and deeper than a block, in every layout, with nothing,
// A or B shared, C's products tight or apart, on one and two threads (one after another or side by side, as the
// model prices them).
void CheckBatches(Tally& tally) {
  Plan plan{};
  if ({{PACKAGE}}_kernel_plan(0, 1024, 1024, 1024, &plan) != kOk) {
    tally.Fail("kernel_plan(0, 1024x1024x1024) failed");
    return;
  }
  const std::vector<Shape> shapes = {Shape{1, 1, 1},   Shape{2, 3, 4},   Shape{16, 16, 64},
                                     Shape{33, 17, 5}, Shape{0, 4, 3},   Shape{5, 7, 0},
                                     Shape{int64_t{plan.mr} + 1, int64_t{plan.nr} + 1, plan.kc + 1}};
  uint64_t seed = 7070;
  int pick = 0;
  for (const Shape& s : shapes)
    for (int64_t count : {1, 2, 5, 12}) {
      if (g_quick && count > 5) continue;
      for (int layout = 0; layout < 4; ++layout) {
        ++pick;
        const Shared shared = static_cast<Shared>(pick % 3);
        BatchCase batch = MakeBatch(s, count, layout, shared, pick % 2 == 0, seed++);
        for (int threads : {1, 2}) {
          if (g_quick && threads > 1) continue;
          if (!SetThreads(tally, threads)) return;
          const Combo& combo = kCombos[(pick + threads) % kNumCombos];
          // Every third call with an epilogue: a bias per product (or one shared), a residual per product.
          const int64_t m = s[0], n = s[1], ldr = n + 3, residual_stride = m * ldr + 2;
          std::vector<float> biases(static_cast<size_t>(count * (std::max(m, n) + 1)) + 1),
              residuals(static_cast<size_t>(count * residual_stride) + 1);
          Lcg random(seed + 100);
          for (float& x : biases) x = random.Next();
          for (float& x : residuals) x = random.Next();
          const Epilogue e = MakeEpilogue(pick, biases.data(), biases.data(), residuals.data(), ldr);
          BatchEpilogue post;
          if ((pick + threads) % 3 == 0) post = BatchEpilogue{&e, pick % 2 == 0 ? 0 : std::max(m, n) + 1,
                                                              residual_stride};
          const std::string error = RunBatch(batch, layout, combo, post);
          tally.Expect(error.empty(),
                       Format("gemm_batched(layout %d, %s, batch %lld, shared %d, strides %lld %lld %lld), threads %d, "
                              "alpha=%g beta=%g%s: %s",
                              layout, ShapeName(s).c_str(), static_cast<long long>(count), static_cast<int>(shared),
                              static_cast<long long>(batch.stride_a), static_cast<long long>(batch.stride_b),
                              static_cast<long long>(batch.stride_c), threads, static_cast<double>(combo.alpha),
                              static_cast<double>(combo.beta),
                              post.epilogue != nullptr ? (", " + EpilogueName(e)).c_str() : "", error.c_str()));
        }
      }
    }
}

// _gemm_batched's own arguments: the batch count, the strides, C's products overlapping, a last product out of
// reach; each with its status, and C as it was.
void CheckBatchArguments(Tally& tally) {
  const int64_t M = 3, N = 4, K = 2, kCount = 3;
  const std::vector<float> a(static_cast<size_t>(kCount * M * K), 1.0f), b(static_cast<size_t>(kCount * K * N), 1.0f);
  std::vector<float> c(static_cast<size_t>(kCount * M * N), 2.0f);
  const auto c_untouched = [&] { return std::all_of(c.begin(), c.end(), [](float x) { return x == 2.0f; }); };
  struct BatchArguments {
    const char* what;
    int trans_a;
    int64_t stride_a, stride_b, stride_c, count;
    bool null_c;
    Status want;
  };
  const int64_t huge = int64_t{1} << 61;
  const BatchArguments cases[] = {
      {"a negative batch", 0, M * K, K * N, M * N, -1, false, kInvalidSize},
      {"a negative stride of A", 0, -1, K * N, M * N, kCount, false, kInvalidArgument},
      {"a negative stride of B", 0, M * K, -K * N, M * N, kCount, false, kInvalidArgument},
      {"a negative stride of C", 0, M * K, K * N, -1, kCount, false, kInvalidArgument},
      {"C's products overlapping", 0, M * K, K * N, (M - 1) * N + N - 1, kCount, false, kInvalidArgument},
      {"C shared by the products", 0, M * K, K * N, 0, kCount, false, kInvalidArgument},
      {"a transpose of 2", 2, M * K, K * N, M * N, kCount, false, kInvalidArgument},
      {"a last product out of reach", 0, huge, K * N, M * N, kCount, false, kSizeOverflow},
      {"a null C", 0, M * K, K * N, M * N, kCount, true, kNullPointer},
  };
  for (const BatchArguments& t : cases) {
    const Status got = {{PACKAGE}}_gemm_batched(static_cast<{{PACKAGE}}_transpose>(t.trans_a),
                                                {{PACKAGE_UPPER}}_NO_TRANS, M, N, K, 1.0f, a.data(), K, t.stride_a,
                                                b.data(), N, t.stride_b, 0.0f, t.null_c ? nullptr : c.data(), N,
                                                t.stride_c, t.count);
    tally.Expect(got == t.want && c_untouched(), Format("gemm_batched with %s returned %s, want %s%s", t.what,
                                                        StatusName(got), StatusName(t.want),
                                                        c_untouched() ? "" : "; C changed"));
  }
  const Status empty = {{PACKAGE}}_gemm_batched({{PACKAGE_UPPER}}_NO_TRANS, {{PACKAGE_UPPER}}_NO_TRANS, M, N, K, 1.0f,
                                                nullptr, K, 0, nullptr, N, 0, 0.0f, nullptr, N, 0, 0);
  tally.Expect(empty == kOk, Format("gemm_batched with a batch of 0 returned %s, want OK", StatusName(empty)));
  // The epilogue's own: a bad epilogue, negative strides, a bias or residual span reaching into the products' C, or
  // out of reach.
  std::vector<float> bias(static_cast<size_t>(kCount * N), 1.0f), residual(static_cast<size_t>(kCount * M * N), 1.0f);
  const Epilogue valid = MakeEpilogue(3, bias.data(), bias.data(), residual.data(), N);
  Epilogue bad_activation = valid;
  bad_activation.activation = static_cast<{{PACKAGE}}_activation>(5);
  Epilogue bias_in_c = valid, residual_in_c = valid;
  if (bias_in_c.bias != nullptr) bias_in_c.bias = c.data() + (kCount - 1) * M * N;
  if (residual_in_c.residual != nullptr) residual_in_c.residual = c.data() + (kCount - 1) * M * N;
  struct EpilogueArguments {
    const char* what;
    const Epilogue* epilogue;
    int64_t stride_bias, stride_residual;
    Status want;
  };
  const EpilogueArguments epilogue_cases[] = {
      {"an activation of 5", &bad_activation, N, M * N, kInvalidArgument},
      {"a negative bias stride", &valid, -1, M * N, kInvalidArgument},
      {"a negative residual stride", &valid, N, -1, kInvalidArgument},
      {"a bias in the last product's C", &bias_in_c, 0, M * N,
       bias_in_c.bias != nullptr ? kInvalidArgument : kOk},
      {"a residual in the last product's C", &residual_in_c, N, 0,
       residual_in_c.residual != nullptr ? kInvalidArgument : kOk},
      {"a residual stride out of reach", &valid, N, huge, valid.residual != nullptr ? kSizeOverflow : kOk},
  };
  for (const EpilogueArguments& t : epilogue_cases) {
    std::fill(c.begin(), c.end(), 2.0f);
    const Status got = {{PACKAGE}}_gemm_batched_epilogue(
        {{PACKAGE_UPPER}}_NO_TRANS, {{PACKAGE_UPPER}}_NO_TRANS, M, N, K, 1.0f, a.data(), K, M * K, b.data(), N, K * N,
        0.0f, c.data(), N, M * N, kCount, t.epilogue, t.stride_bias, t.stride_residual);
    const bool untouched = t.want != kOk ? c_untouched() : true;
    tally.Expect(got == t.want && untouched, Format("gemm_batched_epilogue with %s returned %s, want %s%s", t.what,
                                                    StatusName(got), StatusName(t.want),
                                                    untouched ? "" : "; C changed"));
  }
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_BATCHES_H_
