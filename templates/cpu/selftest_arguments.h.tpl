// Self-test for {{PACKAGE}}: the status strings and every kind of bad argument, each of which must return its
// documented status and leave C and any workspace as they were. A part of test/selftest.cpp, which includes it after
// the helpers it uses.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_ARGUMENTS_H_
#define {{PACKAGE_UPPER}}_SELFTEST_ARGUMENTS_H_

namespace {

// ---- (e) status strings -------------------------------------------------------------------------------------------

void CheckStatusStrings(Tally& tally) {
  // 15 is outside the named statuses but within the enum's range, so it is a legal value to pass.
  for (int s = 0; s <= 15; ++s) {
    const char* text = {{PACKAGE}}_status_string(static_cast<Status>(s));
    tally.Expect(text != nullptr, Format("status_string(%d) returned null", s));
  }
}

// ---- (b) bad arguments --------------------------------------------------------------------------------------------

// Rejected calls must return the documented status and leave C (and any workspace) exactly as they found it.
void CheckBadArguments(Tally& tally) {
  constexpr int64_t m = 4, n = 5, k = 6;
  const std::vector<float> a(m * k, 1.0f), b(k * n, 1.0f);
  std::vector<float> c(m * n);
  const int32_t kernel_count = {{PACKAGE}}_kernel_count();

  struct Args {
    int64_t m, n, k;
    const float* a;
    int64_t lda;
    const float* b;
    int64_t ldb;
    float* c;
    int64_t ldc;
  };
  const Args good{m, n, k, a.data(), k, b.data(), n, c.data(), n};

  // `may_write`: the call is valid and computes something, so C is not compared.
  auto expect = [&](const char* what, const Caller& caller, Status want, const Args& args, bool may_write) {
    std::fill(c.begin(), c.end(), kSentinel);
    bool workspace_ok = true;
    Status got = kOk;
    if (caller.entry == Entry::kWorkspace) {
      // Enough workspace for the valid base shape, so only the argument under test is wrong.
      const size_t bytes = {{PACKAGE}}_workspace_size(m, n, k);
      std::vector<unsigned char> buffer(bytes + 1 + kGuardBytes, kWorkspaceFill);
      got = {{PACKAGE}}_with_workspace(args.m, args.n, args.k, 1.0f, args.a, args.lda, args.b, args.ldb, 0.0f,
                                         args.c, args.ldc, buffer.data() + 1, bytes);
      if (want != kOk) {
        for (unsigned char byte : buffer) workspace_ok = workspace_ok && byte == kWorkspaceFill;
      }
    } else {
      got = Call(caller, args.m, args.n, args.k, 1.0f, args.a, args.lda, args.b, args.ldb, 0.0f, args.c, args.ldc,
                 &workspace_ok);
    }
    bool untouched = true;
    if (!may_write) {
      for (float x : c) untouched = untouched && BitsOf(x) == kSentinelBits;
    }
    tally.Expect(got == want && untouched && workspace_ok,
                 Format("%s, %s: returned %d (%s), want %d (%s)%s%s", CallerName(caller).c_str(), what,
                        static_cast<int>(got), StatusName(got), static_cast<int>(want), StatusName(want),
                        untouched ? "" : ", and wrote to C", workspace_ok ? "" : ", and wrote to the workspace"));
  };

  std::vector<Caller> callers = {Caller{Entry::kDispatch, 0}, Caller{Entry::kWorkspace, 0}};
  if (kernel_count > 0) callers.push_back(Caller{Entry::kKernel, 0});
  for (const Caller& caller : callers) {
    Args args = good;
    expect("valid base call", caller, kOk, args, true);
    for (int dim = 0; dim < 3; ++dim) {
      args = good;
      (dim == 0 ? args.m : dim == 1 ? args.n : args.k) = -1;
      expect(dim == 0 ? "M = -1" : dim == 1 ? "N = -1" : "K = -1", caller, kInvalidSize, args, false);
    }
    args = good;
    args.lda = k - 1;
    expect("lda < K", caller, kInvalidLeadingDim, args, false);
    args = good;
    args.ldb = n - 1;
    expect("ldb < N", caller, kInvalidLeadingDim, args, false);
    args = good;
    args.ldc = n - 1;
    expect("ldc < N", caller, kInvalidLeadingDim, args, false);
    args = good;
    args.k = 0;
    args.lda = 0;
    expect("K = 0 with lda = 0", caller, kInvalidLeadingDim, args, false);

    args = good;
    args.a = nullptr;
    expect("A null", caller, kNullPointer, args, false);
    args = good;
    args.b = nullptr;
    expect("B null", caller, kNullPointer, args, false);
    args = good;
    args.c = nullptr;
    expect("C null", caller, kNullPointer, args, false);
    args = good;
    args.a = nullptr;
    args.b = nullptr;
    args.c = nullptr;
    args.m = 0;
    expect("A, B and C null with M = 0", caller, kOk, args, false);
    args.m = m;
    args.n = 0;
    expect("A, B and C null with N = 0", caller, kOk, args, false);
    // With K = 0 the call computes C = beta * C and never touches A or B (see the header).
    args = good;
    args.a = nullptr;
    args.b = nullptr;
    args.k = 0;
    args.lda = 1;
    expect("A and B null with K = 0", caller, kOk, args, true);
  }

  // Overflow: (M - 1) * lda elements of A do not fit in 64 bits. The workspace variant is left out because its
  // workspace check could legitimately come first for a shape this large.
  constexpr int64_t kHuge = int64_t{1} << 40;
  for (const Caller& caller : callers) {
    if (caller.entry == Entry::kWorkspace) continue;
    Args args = good;
    args.m = kHuge;
    args.k = kHuge;
    args.lda = kHuge;
    expect("M = K = lda = 2^40", caller, kSizeOverflow, args, false);
    args = good;
    args.m = kHuge;
    args.ldc = kHuge;
    expect("M = ldc = 2^40", caller, kSizeOverflow, args, false);
  }

  for (int32_t id : {int32_t{-1}, kernel_count}) {
    Args args = good;
    expect(Format("kernel id %d", static_cast<int>(id)).c_str(), Caller{Entry::kKernel, id}, kInvalidKernel, args,
           false);
    Plan plan{};
    const Status status = {{PACKAGE}}_kernel_plan(id, m, n, k, &plan);
    tally.Expect(status == kInvalidKernel, Format("kernel_plan(%d, ...) returned %s, want %s", static_cast<int>(id),
                                                  StatusName(status), StatusName(kInvalidKernel)));
  }

  const int32_t threads_before = {{PACKAGE}}_get_num_threads();
  for (int32_t threads : {0, -1}) {
    const Status status = {{PACKAGE}}_set_num_threads(threads);
    const int32_t threads_after = {{PACKAGE}}_get_num_threads();
    tally.Expect(status == kInvalidArgument && threads_after == threads_before,
                 Format("set_num_threads(%d) returned %s (want %s) and changed the thread count from %d to %d",
                        static_cast<int>(threads), StatusName(status), StatusName(kInvalidArgument),
                        static_cast<int>(threads_before), static_cast<int>(threads_after)));
  }

  Plan plan{};
  Status status = {{PACKAGE}}_plan(m, n, k, nullptr);
  tally.Expect(status == kInvalidArgument, Format("plan(..., NULL) returned %s", StatusName(status)));
  status = {{PACKAGE}}_plan(-1, n, k, &plan);
  tally.Expect(status == kInvalidSize, Format("plan(M = -1) returned %s", StatusName(status)));
  if (kernel_count > 0) {
    status = {{PACKAGE}}_kernel_plan(0, m, n, k, nullptr);
    tally.Expect(status == kInvalidArgument, Format("kernel_plan(0, ..., NULL) returned %s", StatusName(status)));
    status = {{PACKAGE}}_kernel_plan(0, m, n, -1, &plan);
    tally.Expect(status == kInvalidSize, Format("kernel_plan(0, K = -1) returned %s", StatusName(status)));
  }

  // Workspace one byte short, on the first shape that needs any: refused, with C and the workspace untouched.
  for (const Shape& s : {Shape{64, 64, 64}, Shape{300, 200, 500}, Shape{1024, 1024, 256}}) {
    const size_t bytes = {{PACKAGE}}_workspace_size(s[0], s[1], s[2]);
    if (bytes == 0) continue;
    const std::vector<float> big_a(static_cast<size_t>(s[0] * s[2]), 1.0f);
    const std::vector<float> big_b(static_cast<size_t>(s[2] * s[1]), 1.0f);
    std::vector<float> big_c(static_cast<size_t>(s[0] * s[1]), kSentinel);
    std::vector<unsigned char> buffer(bytes + kGuardBytes, kWorkspaceFill);
    status = {{PACKAGE}}_with_workspace(s[0], s[1], s[2], 1.0f, big_a.data(), s[2], big_b.data(), s[1], 0.0f,
                                          big_c.data(), s[1], buffer.data() + 1, bytes - 1);
    bool untouched = true;
    for (float x : big_c) untouched = untouched && BitsOf(x) == kSentinelBits;
    for (unsigned char byte : buffer) untouched = untouched && byte == kWorkspaceFill;
    tally.Expect(status == kWorkspaceTooSmall && untouched,
                 Format("with_workspace(%s) with workspace_size() - 1 bytes returned %s%s", ShapeName(s).c_str(),
                        StatusName(status), untouched ? "" : " and wrote to C or the workspace"));
    break;
  }
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_ARGUMENTS_H_
