// Self-test for {{PACKAGE}}: weights packed once (_pack_b, _pack_b_alloc) and multiplied by many A's
// (_gemm_packed_b) against the reference, on the edges of the packed kernel's tiles and k slices, and their bad
// arguments. A part of test/selftest.cpp, which includes it after the helpers it uses.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_PACKED_B_H_
#define {{PACKAGE_UPPER}}_SELFTEST_PACKED_B_H_

namespace {

// ---- (i) packed weights -------------------------------------------------------------------------------------------

constexpr Status kPackedBMismatch = {{PACKAGE_UPPER}}_PACKED_B_MISMATCH;

// The problem's first `rows` rows: A, C and the references are row-major, so they are prefixes, and the calls of
// every M share one B.
Problem FirstRows(const Problem& p, int64_t rows) {
  Problem first = p;
  first.m = rows;
  first.a.resize(static_cast<size_t>(rows * p.k));
  first.c.resize(static_cast<size_t>(rows * p.n));
  first.ab.resize(static_cast<size_t>(rows * p.n));
  first.abs_ab.resize(static_cast<size_t>(rows * p.n));
  return first;
}

// A packed B in caller memory `offset` bytes past a buffer's start (any alignment), with guard bytes after the
// size packed_b_size() gave, or in memory the package allocated.
struct PackedB {
  std::vector<unsigned char> buffer;
  void* owned = nullptr;
  size_t offset = 0, bytes = 0;
  const void* data() const { return owned != nullptr ? owned : buffer.data() + offset; }
  bool GuardsIntact() const {
    return owned != nullptr ||
           std::all_of(buffer.begin() + static_cast<std::ptrdiff_t>(offset + bytes), buffer.end(),
                       [](unsigned char x) { return x == kWorkspaceFill; });
  }
  PackedB() = default;
  PackedB(const PackedB&) = delete;
  PackedB& operator=(const PackedB&) = delete;
  ~PackedB() { {{PACKAGE}}_packed_b_free(owned); }
};

Status Pack(const Problem& p, bool transposed, int64_t ldb_pad, int64_t max_m, bool allocate, size_t offset,
            PackedB* out) {
  const std::vector<float> stored = transposed ? Transposed(p.b, p.k, p.n) : p.b;
  const int64_t rows = transposed ? p.n : p.k, cols = transposed ? p.k : p.n;
  const int64_t ldb = std::max<int64_t>(cols, 1) + ldb_pad;
  const std::vector<float> b = Strided(stored, rows, cols, ldb);
  if (allocate)
    return {{PACKAGE}}_pack_b_alloc(Transpose(transposed), p.n, p.k, max_m, b.data(), ldb, &out->owned);
  out->bytes = {{PACKAGE}}_packed_b_size(p.n, p.k);
  out->offset = offset;
  out->buffer.assign(offset + out->bytes + kGuardBytes, kWorkspaceFill);
  return {{PACKAGE}}_pack_b(Transpose(transposed), p.n, p.k, max_m, b.data(), ldb, out->buffer.data() + offset,
                            out->bytes);
}

// One _gemm_packed_b call on fresh C (an epilogue where `e` is not null), checked element by element and for writes
// outside C.
std::string RunPackedBCase(const Problem& p, bool a_transposed, const Operands& ops, const void* packed,
                           const Combo& combo, const Epilogue* e) {
  GuardedC guarded(p, ops.ldc, combo.nan_c);
  const Status status = {{PACKAGE}}_gemm_packed_b(Transpose(a_transposed), p.m, p.n, p.k, combo.alpha, ops.a.data(),
                                                  ops.lda, packed, combo.beta, guarded.c, ops.ldc, e);
  if (status != kOk) return Format("returned status %d (%s)", static_cast<int>(status), StatusName(status));
  const std::string error =
      e != nullptr ? CompareEpilogueC(p, guarded.c, ops.ldc, combo, *e) : CompareC(p, guarded.c, ops.ldc, combo);
  if (!error.empty()) return error;
  return guarded.Outside();
}

// Weights of several widths and depths (within a vector of the usual panel widths, several k slices of the packed
// kernel), each packed once (B as stored or transposed, into caller memory at odd offsets or allocated, for several
// ranges of M) and multiplied by A's of 1 row to past the packed kernel's tile, A as stored or transposed, on one and
// two threads, some calls with an epilogue; the calls run both the packed path and A in place. A copy of the packed
// bytes elsewhere works as the original.
void CheckPackedB(Tally& tally) {
  Plan plan{};
  if ({{PACKAGE}}_kernel_plan(0, 1024, 1024, 1024, &plan) != kOk) {
    tally.Fail("kernel_plan(0, 1024x1024x1024) failed");
    return;
  }
  const std::vector<std::pair<int64_t, int64_t>> weights = {
      {1, 1}, {15, 7}, {47, 200}, {65, 2 * plan.kc + 5}, {129, 33}, {300, 200}, {1500, 260}};
  const int64_t max_ms[] = {1, 32, 4096};
  uint64_t seed = 4242;
  int variant = 0;
  int packed_calls = 0, in_place_calls = 0;  // plans of each kind among the calls
  for (size_t w = 0; w < weights.size(); ++w) {
    const int64_t n = weights[w].first, k = weights[w].second;
    const int64_t max_m = max_ms[w % 3];
    const bool b_transposed = w % 2 == 1, allocate = w % 3 == 2;
    const Problem full = MakeProblem(Shape{131, n, k}, seed++);
    PackedB packed;
    const Status packed_status = Pack(full, b_transposed, static_cast<int64_t>(w % 2) * 3, max_m, allocate, w % 4,
                                      &packed);
    const std::string what = Format("B %lldx%lld%s, packed for M <= %lld%s", static_cast<long long>(k),
                                    static_cast<long long>(n), b_transposed ? " stored transposed" : "",
                                    static_cast<long long>(max_m), allocate ? " (allocated)" : "");
    tally.Expect(packed_status == kOk && packed.GuardsIntact(),
                 Format("pack_b, %s: %s%s", what.c_str(), StatusName(packed_status),
                        packed.GuardsIntact() ? "" : "; wrote past packed_b_size()"));
    if (packed_status != kOk) continue;
    Plan packed_plan{};
    const Status planned = {{PACKAGE}}_gemm_packed_b_plan({{PACKAGE_UPPER}}_NO_TRANS, 1, n, k, packed.data(),
                                                          &packed_plan);
    tally.Expect(planned == kOk, Format("gemm_packed_b_plan, %s: %s", what.c_str(), StatusName(planned)));
    const int64_t mr = std::max<int64_t>(1, packed_plan.mr);
    for (int64_t m : {int64_t{1}, int64_t{2}, int64_t{5}, mr - 1, mr, mr + 1, int64_t{31}, int64_t{131}}) {
      if (m < 1 || (g_quick && Work(Shape{m, n, k}) > kQuickMaxWork / 8)) continue;
      if ({{PACKAGE}}_gemm_packed_b_plan({{PACKAGE_UPPER}}_NO_TRANS, m, n, k, packed.data(), &packed_plan) == kOk)
        ++(packed_plan.packed != 0 ? packed_calls : in_place_calls);
      const Problem problem = FirstRows(full, m);
      for (int threads : {1, 2}) {
        if (g_quick && threads > 1) continue;
        if (!SetThreads(tally, threads)) return;
        const bool a_transposed = variant % 2 == 1;
        const std::vector<Operands> operands = OperandsFor(problem, a_transposed ? 1 : 0);
        const Operands& ops = operands[static_cast<size_t>(variant) % operands.size()];
        const Combo& combo = kCombos[variant % kNumCombos];
        std::vector<float> bias(static_cast<size_t>(std::max(m, n)), 0.25f);
        const Epilogue e = MakeEpilogue(variant / 3, bias.data(), bias.data(), problem.c.data(), n);
        const Epilogue* epilogue = variant % 3 == 0 ? &e : nullptr;
        ++variant;
        const std::string error = RunPackedBCase(problem, a_transposed, ops, packed.data(), combo, epilogue);
        tally.Expect(error.empty(), Format("gemm_packed_b %s, M %lld, %s, threads %d, alpha=%g beta=%g%s: %s",
                                           a_transposed ? "A transposed" : "A", static_cast<long long>(m),
                                           what.c_str(), threads, static_cast<double>(combo.alpha),
                                           static_cast<double>(combo.beta),
                                           epilogue != nullptr ? (", " + EpilogueName(e)).c_str() : "",
                                           error.c_str()));
      }
    }
    // The packed bytes copied to another alignment are the same packed B.
    if (!allocate) {
      std::vector<unsigned char> copy(packed.bytes + 5);
      std::memcpy(copy.data() + 5, packed.data(), packed.bytes);
      const Problem problem = FirstRows(full, std::min<int64_t>(3, full.m));
      const std::string error =
          RunPackedBCase(problem, false, OperandsFor(problem)[0], copy.data() + 5, kCombos[0], nullptr);
      tally.Expect(error.empty(), Format("gemm_packed_b on a copy of the packed bytes, %s: %s", what.c_str(),
                                         error.c_str()));
    }
  }
  tally.Expect(g_quick || (packed_calls > 0 && in_place_calls > 0),
               Format("packed-B calls planned %d packed and %d with A in place, want both", packed_calls,
                      in_place_calls));
}

// Bad arguments of pack_b and gemm_packed_b: each returns its status and leaves C (and the packed memory's guards)
// as they were.
void CheckPackedBArguments(Tally& tally) {
  const int64_t M = 4, N = 6, K = 3;
  const std::vector<float> a(static_cast<size_t>(M * K), 1.0f), b(static_cast<size_t>(K * N), 1.0f);
  const size_t bytes = {{PACKAGE}}_packed_b_size(N, K);
  std::vector<unsigned char> memory(bytes + kGuardBytes, kWorkspaceFill);
  const auto transpose_value = [](int v) { return static_cast<{{PACKAGE}}_transpose>(v); };
  struct PackCase {
    const char* what;
    Status got, want;
  };
  const auto pack = [&](int trans, int64_t n, int64_t k, int64_t max_m, const float* from, int64_t ldb, void* to,
                        size_t size) {
    return {{PACKAGE}}_pack_b(transpose_value(trans), n, k, max_m, from, ldb, to, size);
  };
  const int64_t huge = int64_t{1} << 40;
  const PackCase packs[] = {
      {"trans_b 7", pack(7, N, K, 8, b.data(), N, memory.data(), bytes), kInvalidArgument},
      {"max_m 0", pack(0, N, K, 0, b.data(), N, memory.data(), bytes), kInvalidArgument},
      {"N -1", pack(0, -1, K, 8, b.data(), N, memory.data(), bytes), kInvalidSize},
      {"ldb < N", pack(0, N, K, 8, b.data(), N - 1, memory.data(), bytes), kInvalidLeadingDim},
      {"transposed, ldb < K", pack(1, N, K, 8, b.data(), K - 1, memory.data(), bytes), kInvalidLeadingDim},
      {"null memory", pack(0, N, K, 8, b.data(), N, nullptr, bytes), kNullPointer},
      {"null B", pack(0, N, K, 8, nullptr, N, memory.data(), bytes), kNullPointer},
      {"2^40 x 2^40", pack(0, huge, huge, 8, b.data(), huge, memory.data(), bytes), kSizeOverflow},
      {"one byte short", pack(0, N, K, 8, b.data(), N, memory.data(), bytes - 1), kWorkspaceTooSmall},
  };
  for (const PackCase& c : packs)
    tally.Expect(c.got == c.want, Format("pack_b with %s: returned %s, want %s", c.what, StatusName(c.got),
                                         StatusName(c.want)));
  tally.Expect(std::all_of(memory.begin(), memory.end(), [](unsigned char x) { return x == kWorkspaceFill; }),
               "a rejected pack_b wrote its memory");
  tally.Expect({{PACKAGE}}_packed_b_size(-1, K) == 0 && {{PACKAGE}}_packed_b_size(huge, huge) == 0,
               "packed_b_size of a negative or overflowing size is not 0");
  void* owned = &memory;
  const Status alloc_bad = {{PACKAGE}}_pack_b_alloc({{PACKAGE_UPPER}}_NO_TRANS, N, K, 0, b.data(), N, &owned);
  tally.Expect(alloc_bad == kInvalidArgument && owned == nullptr,
               Format("pack_b_alloc with max_m 0: %s, pointer %s", StatusName(alloc_bad),
                      owned == nullptr ? "null" : "set"));
  tally.Expect({{PACKAGE}}_pack_b_alloc({{PACKAGE_UPPER}}_NO_TRANS, N, K, 8, b.data(), N, nullptr) == kNullPointer,
               "pack_b_alloc with a null result pointer is not NULL_POINTER");
  {{PACKAGE}}_packed_b_free(nullptr);

  const Status packed = pack(0, N, K, 8, b.data(), N, memory.data(), bytes);
  tally.Expect(packed == kOk, Format("pack_b of %lldx%lld: %s", static_cast<long long>(K), static_cast<long long>(N),
                                     StatusName(packed)));
  std::vector<unsigned char> other_package(memory.begin(), memory.end());
  other_package[8] ^= 1;  // the header's record of the package that packed it
  const std::vector<unsigned char> zeros(bytes, 0);
  std::vector<float> c(static_cast<size_t>(M * (N + 1)), 2.0f);
  struct CallCase {
    const char* what;
    int trans_a;
    int64_t m, n, k, lda;
    const void* packed;
    Status want;
  };
  const CallCase calls[] = {
      {"N + 1", 0, M, N + 1, K, K, memory.data(), kPackedBMismatch},
      {"K - 1", 0, M, N, K - 1, K, memory.data(), kPackedBMismatch},
      {"zeros for a packed B", 0, M, N, K, K, zeros.data(), kPackedBMismatch},
      {"another package's packed B", 0, M, N, K, K, other_package.data(), kPackedBMismatch},
      {"trans_a 9", 9, M, N, K, K, memory.data(), kInvalidArgument},
      {"M -1", 0, -1, N, K, K, memory.data(), kInvalidSize},
      {"lda < K", 0, M, N, K, K - 1, memory.data(), kInvalidLeadingDim},
      {"a null packed B", 0, M, N, K, K, nullptr, kNullPointer},
  };
  for (const CallCase& call : calls) {
    std::fill(c.begin(), c.end(), 2.0f);
    const Status status = {{PACKAGE}}_gemm_packed_b(transpose_value(call.trans_a), call.m, call.n, call.k, 1.0f,
                                                    a.data(), call.lda, call.packed, 0.0f, c.data(), N + 1, nullptr);
    const bool untouched = std::all_of(c.begin(), c.end(), [](float x) { return x == 2.0f; });
    tally.Expect(status == call.want && untouched,
                 Format("gemm_packed_b with %s: returned %s, want %s%s", call.what, StatusName(status),
                        StatusName(call.want), untouched ? "" : "; C was written"));
  }
  // A call that reads no B takes a null one: K = 0 scales C.
  const Status no_b = {{PACKAGE}}_gemm_packed_b({{PACKAGE_UPPER}}_NO_TRANS, M, N, 0, 1.0f, a.data(), K, nullptr, 0.5f,
                                                c.data(), N + 1, nullptr);
  tally.Expect(no_b == kOk && c[0] == 1.0f, Format("gemm_packed_b with K = 0 and no B: %s, C[0] = %g",
                                                   StatusName(no_b), static_cast<double>(c[0])));
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_PACKED_B_H_
