// Self-test for {{PACKAGE}}: the helpers every part uses: statuses, the tally of checks, random problems and their
// stored operands, the callers of each entry point and the comparison with the double-precision reference. A part of
// test/selftest.cpp, which includes it after the standard headers.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_SUPPORT_H_
#define {{PACKAGE_UPPER}}_SELFTEST_SUPPORT_H_

namespace {

using Status = {{PACKAGE}}_status;
using Plan = {{PACKAGE}}_plan_t;

constexpr Status kOk = {{PACKAGE_UPPER}}_OK;
constexpr Status kInvalidSize = {{PACKAGE_UPPER}}_INVALID_SIZE;
constexpr Status kInvalidLeadingDim = {{PACKAGE_UPPER}}_INVALID_LEADING_DIM;
constexpr Status kNullPointer = {{PACKAGE_UPPER}}_NULL_POINTER;
constexpr Status kSizeOverflow = {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
constexpr Status kInvalidKernel = {{PACKAGE_UPPER}}_INVALID_KERNEL;
constexpr Status kInvalidArgument = {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
constexpr Status kWorkspaceTooSmall = {{PACKAGE_UPPER}}_WORKSPACE_TOO_SMALL;
constexpr Status kUnsupportedCpu = {{PACKAGE_UPPER}}_UNSUPPORTED_CPU;

constexpr int kMaxPrinted = 20;
// Shapes above this many multiply-adds are left out: they add run time, not coverage.
constexpr double kMaxWork = 4e7;
// With --quick: edge shapes up to this many multiply-adds, larger fixed shapes through the dispatcher only, and one
// alpha/beta and layout combination per call.
constexpr double kQuickMaxWork = 4e6;
bool g_quick = false;
// Shapes up to this size (and C up to this many elements) get every layout and alpha/beta combination; larger
// ones get one each, since checking C costs as much as computing it when K is small.
constexpr double kSmallWork = 1e5;
constexpr double kSmallOutput = 4096;
// Floats of sentinel before and after C, and bytes of guard after a caller-provided workspace.
constexpr int64_t kGuardFloats = 16;
constexpr size_t kGuardBytes = 64;
// Also the first kPoisonedWorkspaceBytes of a caller's workspace: as a float, 0x4B4B4B4B is 1.3e7, so a result that
// sums workspace the package never wrote is far off.
constexpr unsigned char kWorkspaceFill = 0x4B;
constexpr size_t kPoisonedWorkspaceBytes = size_t{1} << 20;
// An odd bit pattern no kernel computes by accident; compared as bits because NaN compares unequal to itself.
constexpr uint32_t kSentinelBits = 0x7FBADBADu;

#if defined(__GNUC__)
#define SELFTEST_PRINTF_LIKE __attribute__((format(printf, 1, 2)))
#else
#define SELFTEST_PRINTF_LIKE
#endif

SELFTEST_PRINTF_LIKE std::string Format(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint32_t BitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

const float kSentinel = FloatFromBits(kSentinelBits);
const float kNaN = std::numeric_limits<float>::quiet_NaN();

class Tally {
 public:
  void Pass() { ++passed_; }
  void Fail(const std::string& what) {
    ++failed_;
    if (failed_ <= kMaxPrinted) {
      std::printf("FAIL %s\n", what.c_str());
    } else if (failed_ == kMaxPrinted + 1) {
      std::printf("(further failures are counted but not printed)\n");
    }
  }
  void Expect(bool ok, const std::string& what) {
    if (ok) {
      Pass();
    } else {
      Fail(what);
    }
  }
  int64_t passed() const { return passed_; }
  int64_t failed() const { return failed_; }

 private:
  int64_t passed_ = 0;
  int64_t failed_ = 0;
};

const char* StatusName(Status status) {
  const char* text = {{PACKAGE}}_status_string(status);
  return text != nullptr ? text : "(null)";
}

// Deterministic data, so a failure reproduces exactly. Values are k / 2^23 for integer k, exact in float, so the
// double reference sees the very inputs the package does.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed * 2 + 1) {}
  float Next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    const int32_t top24 = static_cast<int32_t>(state_ >> 40);
    return static_cast<float>(top24 - (1 << 23)) / static_cast<float>(1 << 23);
  }

 private:
  uint64_t state_;
};

using Shape = std::array<int64_t, 3>;  // M, N, K

std::string ShapeName(const Shape& s) {
  return Format("M=%lld N=%lld K=%lld", static_cast<long long>(s[0]), static_cast<long long>(s[1]),
                static_cast<long long>(s[2]));
}

double Work(const Shape& s) {
  return static_cast<double>(s[0]) * static_cast<double>(s[1]) * static_cast<double>(s[2]);
}

// One shape's logical operands and the exact products the reference needs, computed once and shared by every
// kernel, thread count, layout and alpha/beta combination of that shape.
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  std::vector<float> a, b, c;     // dense row-major: M x K, K x N, M x N
  std::vector<double> ab, abs_ab;  // A * B and |A| * |B|, M x N
};

// The reference products of p's A and B: A * B and |A| * |B|.
void Multiply(Problem& p) {
  p.ab.assign(p.c.size(), 0.0);
  p.abs_ab.assign(p.c.size(), 0.0);
  // Raw pointers and no calls in the inner loop: sanitizer builds are often unoptimised, and this loop and the
  // checks in RunCase are most of the selftest's own run time.
  for (int64_t i = 0; i < p.m; ++i) {
    double* row = p.ab.data() + i * p.n;
    double* abs_row = p.abs_ab.data() + i * p.n;
    const float* a_row = p.a.data() + i * p.k;
    for (int64_t l = 0; l < p.k; ++l) {
      const double a = a_row[l];
      const float* b_row = p.b.data() + l * p.n;
      for (int64_t j = 0; j < p.n; ++j) {
        const double product = a * b_row[j];
        row[j] += product;
        abs_row[j] += product < 0.0 ? -product : product;
      }
    }
  }
}

Problem MakeProblem(const Shape& shape, uint64_t seed) {
  Problem p;
  p.m = shape[0];
  p.n = shape[1];
  p.k = shape[2];
  Lcg lcg(seed);
  p.a.resize(static_cast<size_t>(p.m * p.k));
  p.b.resize(static_cast<size_t>(p.k * p.n));
  p.c.resize(static_cast<size_t>(p.m * p.n));
  for (float& x : p.a) x = lcg.Next();
  for (float& x : p.b) x = lcg.Next();
  for (float& x : p.c) x = lcg.Next();
  Multiply(p);
  return p;
}

// Lays out a dense rows x cols matrix with leading dimension ld. The gaps between rows hold NaN, so a kernel that
// lets padding leak into a result fails loudly. The buffer ends right after the last element (it is never empty,
// so a zero-size operand is still a valid pointer), letting AddressSanitizer catch reads past the end.
std::vector<float> Strided(const std::vector<float>& dense, int64_t rows, int64_t cols, int64_t ld) {
  const int64_t size = rows == 0 ? 1 : std::max<int64_t>(1, (rows - 1) * ld + cols);
  std::vector<float> out(static_cast<size_t>(size), kNaN);
  for (int64_t i = 0; i < rows; ++i) {
    std::copy(dense.begin() + i * cols, dense.begin() + (i + 1) * cols, out.begin() + i * ld);
  }
  return out;
}

// A and B laid out with one choice of leading dimensions, built once per shape and shared by all its calls.
struct Operands {
  int64_t lda, ldb, ldc;
  std::vector<float> a, b;
};

// A dense rows x cols matrix transposed (cols x rows).
std::vector<float> Transposed(const std::vector<float>& dense, int64_t rows, int64_t cols) {
  std::vector<float> out(dense.size());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[static_cast<size_t>(j * rows + i)] = dense[static_cast<size_t>(i * cols + j)];
  }
  return out;
}

// The operands in `layout`'s storage (bit 1: A stored K x M, bit 2: B stored N x K), with tight rows, an odd padding
// that misaligns every row, and a large stride that puts rows far apart.
std::vector<Operands> OperandsFor(const Problem& p, int layout = 0) {
  const bool ta = (layout & 1) != 0, tb = (layout & 2) != 0;
  const std::vector<float> a = ta ? Transposed(p.a, p.m, p.k) : p.a, b = tb ? Transposed(p.b, p.k, p.n) : p.b;
  const int64_t a_rows = ta ? p.k : p.m, a_cols = ta ? p.m : p.k, b_rows = tb ? p.n : p.k, b_cols = tb ? p.k : p.n;
  std::vector<Operands> all;
  for (int64_t pad : {0, 3, 64}) {
    Operands ops;
    ops.lda = std::max<int64_t>(a_cols, 1) + pad;
    ops.ldb = std::max<int64_t>(b_cols, 1) + pad;
    ops.ldc = std::max<int64_t>(p.n, 1) + pad;
    ops.a = Strided(a, a_rows, a_cols, ops.lda);
    ops.b = Strided(b, b_rows, b_cols, ops.ldb);
    all.push_back(std::move(ops));
  }
  return all;
}

struct Combo {
  float alpha, beta;
  bool nan_c;  // C starts as NaN: with beta = 0 the package must not read it
};

const Combo kCombos[] = {
    {1.0f, 0.0f, false},
    {1.0f, 1.0f, false},
    {0.5f, -2.0f, false},
    {0.0f, 1.0f, false},
    {1.5f, 0.0f, true},
};
constexpr int kNumCombos = static_cast<int>(sizeof(kCombos) / sizeof(kCombos[0]));

// kGemm: _gemm with the caller's layout; kCblasRow and kCblasColumn: _cblas_sgemm in row-major order, and in
// column-major order on C transposed (C^T = op(B)^T op(A)^T: the operands trade places and keep their storage).
enum class Entry { kDispatch, kKernel, kWorkspace, kGemm, kCblasRow, kCblasColumn };

struct Caller {
  Entry entry;
  int32_t kernel;
  int layout = 0;  // see OperandsFor
};

const char* const kLayoutNames[] = {"NN", "TN", "NT", "TT"};  // by layout bits: A's transpose first

std::string CallerName(const Caller& caller) {
  switch (caller.entry) {
    case Entry::kDispatch:
      return "dispatcher";
    case Entry::kKernel:
      return Format("kernel %d", static_cast<int>(caller.kernel));
    case Entry::kWorkspace:
      return "with_workspace";
    case Entry::kGemm:
      return Format("gemm %s", kLayoutNames[caller.layout & 3]);
    case Entry::kCblasRow:
      return Format("cblas_sgemm row-major %s", kLayoutNames[caller.layout & 3]);
    case Entry::kCblasColumn:
      return Format("cblas_sgemm column-major %s", kLayoutNames[caller.layout & 3]);
  }
  return "?";
}

// One GEMM call through the chosen entry point. The workspace variant gets exactly workspace_size() bytes, one
// byte off alignment, with guard bytes after it; `workspace_ok` reports whether those stayed untouched.
Status Call(const Caller& caller, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
            const float* b, int64_t ldb, float beta, float* c, int64_t ldc, bool* workspace_ok) {
  *workspace_ok = true;
  const bool ta = (caller.layout & 1) != 0, tb = (caller.layout & 2) != 0;
  const int cblas_a = ta ? 112 : 111, cblas_b = tb ? 112 : 111;
  // cblas_sgemm's int arguments: the self-test's sizes and strides all fit.
  const auto i32 = [](int64_t v) { return static_cast<int>(v); };
  switch (caller.entry) {
    case Entry::kGemm:
      return {{PACKAGE}}_gemm(ta ? {{PACKAGE_UPPER}}_TRANS : {{PACKAGE_UPPER}}_NO_TRANS,
                              tb ? {{PACKAGE_UPPER}}_TRANS : {{PACKAGE_UPPER}}_NO_TRANS, m, n, k, alpha, a, lda, b, ldb,
                              beta, c, ldc);
    case Entry::kCblasRow:
      return {{PACKAGE}}_cblas_sgemm(101, cblas_a, cblas_b, i32(m), i32(n), i32(k), alpha, a, i32(lda), b, i32(ldb),
                                     beta, c, i32(ldc)) == 0
                 ? kOk
                 : kInvalidArgument;
    case Entry::kCblasColumn:
      return {{PACKAGE}}_cblas_sgemm(102, cblas_b, cblas_a, i32(n), i32(m), i32(k), alpha, b, i32(ldb), a, i32(lda),
                                     beta, c, i32(ldc)) == 0
                 ? kOk
                 : kInvalidArgument;
    case Entry::kDispatch:
      return {{PACKAGE}}(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    case Entry::kKernel:
      return {{PACKAGE}}_with_kernel(caller.kernel, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    case Entry::kWorkspace: {
      const size_t bytes = {{PACKAGE}}_workspace_size(m, n, k);
      // Filled up to kPoisonedWorkspaceBytes, beyond that left uninitialised apart from the guards: filling
      // megabytes per call would dominate the run time.
      std::unique_ptr<unsigned char[]> buffer(new unsigned char[bytes + 1 + kGuardBytes]);
      std::memset(buffer.get(), kWorkspaceFill, 1 + std::min(bytes, kPoisonedWorkspaceBytes));
      std::memset(buffer.get() + 1 + bytes, kWorkspaceFill, kGuardBytes);
      const Status status = {{PACKAGE}}_with_workspace(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                                         buffer.get() + 1, bytes);
      if (buffer[0] != kWorkspaceFill) *workspace_ok = false;
      for (size_t i = bytes + 1; i < bytes + 1 + kGuardBytes; ++i) {
        if (buffer[i] != kWorkspaceFill) *workspace_ok = false;
      }
      return status;
    }
  }
  return kInvalidArgument;
}

// C (ldc apart) against alpha * A * B + beta * C, C's old value from p, within a tolerance of the sum of magnitudes;
// an empty string, else the worst element.
std::string CompareC(const Problem& p, const float* c, int64_t ldc, const Combo& combo) {
  const int64_t m = p.m, n = p.n, k = p.k;
  const float* c_old = p.c.data();
  const double alpha = combo.alpha, beta = combo.beta;
  const double abs_alpha = alpha < 0.0 ? -alpha : alpha;
  const double scale = 1e-5 * static_cast<double>(k + 1);
  const double* ab = p.ab.data();
  const double* abs_ab = p.abs_ab.data();
  double max_error = 0.0;
  int64_t bad_i = -1, bad_j = -1;
  double bad_error = 0.0, bad_tolerance = 0.0, bad_got = 0.0, bad_want = 0.0;
  for (int64_t i = 0; i < m; ++i) {
    const float* row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t idx = i * n + j;
      // beta = 0 means C is not read at all, so its old value (possibly NaN) must not leak in.
      const double beta_c = beta == 0.0 ? 0.0 : beta * c_old[idx];
      const double want = alpha * ab[idx] + beta_c;
      const double tolerance = scale * (abs_alpha * abs_ab[idx] + (beta_c < 0.0 ? -beta_c : beta_c)) + 1e-6;
      const double got = row[j];
      const double error = got > want ? got - want : want - got;
      if (!(error <= tolerance)) {  // written this way round so that NaN counts as an error
        if (bad_i < 0 || std::isnan(error) || error / tolerance > bad_error / bad_tolerance) {
          bad_i = i;
          bad_j = j;
          bad_error = error;
          bad_tolerance = tolerance;
          bad_got = got;
          bad_want = want;
        }
      }
      if (error != error || error > max_error) max_error = error;
    }
  }
  if (bad_i >= 0) {
    return Format("max error %.3g; C[%lld][%lld] = %.9g, want %.9g (error %.3g > tolerance %.3g)", max_error,
                  static_cast<long long>(bad_i), static_cast<long long>(bad_j), bad_got, bad_want, bad_error,
                  bad_tolerance);
  }
  return std::string();
}

// C for one call: M rows of ldc floats inside a buffer of sentinels, kGuardFloats before C and a row and
// kGuardFloats after it, holding p's C (or NaN where the combo asks). After the call, Outside() checks that nothing
// but C's elements changed.
struct GuardedC {
  std::vector<float> buffer, before;
  float* c;
  int64_t m, n, ldc;
  GuardedC(const Problem& p, int64_t ld, bool nan_c)
      : buffer(static_cast<size_t>(kGuardFloats + p.m * ld + ld + kGuardFloats), kSentinel),
        c(buffer.data() + kGuardFloats), m(p.m), n(p.n), ldc(ld) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = nan_c ? kNaN : p.c[static_cast<size_t>(i * n + j)];
    }
    before = buffer;
  }
  // An empty string where every float outside C proper (the guards and the gaps between a row's end and ldc) is as
  // it was, else the first one written. C's elements are copied into the old buffer, so that one memcmp covers the
  // rest.
  std::string Outside() {
    for (int64_t i = 0; i < m; ++i) {
      std::memcpy(before.data() + kGuardFloats + i * ldc, c + i * ldc, static_cast<size_t>(n) * sizeof(float));
    }
    if (std::memcmp(before.data(), buffer.data(), buffer.size() * sizeof(float)) == 0) return std::string();
    for (size_t idx = 0; idx < buffer.size(); ++idx) {
      if (BitsOf(buffer[idx]) == BitsOf(before[idx])) continue;
      const int64_t offset = static_cast<int64_t>(idx) - kGuardFloats;
      return Format("wrote outside C: float %lld from the start of C (row %lld, column %lld)",
                    static_cast<long long>(offset), static_cast<long long>(offset >= 0 ? offset / ldc : -1),
                    static_cast<long long>(offset >= 0 ? offset % ldc : offset));
    }
    return std::string();
  }
};

// Runs one call on fresh copies of the operands and checks status, every element of C against the reference, and
// the memory around C. Returns an empty string on success, else what went wrong.
std::string RunCase(const Problem& p, const Caller& caller, const Operands& ops, const Combo& combo) {
  GuardedC guarded(p, ops.ldc, combo.nan_c);
  bool workspace_ok = true;
  const Status status = Call(caller, p.m, p.n, p.k, combo.alpha, ops.a.data(), ops.lda, ops.b.data(), ops.ldb,
                             combo.beta, guarded.c, ops.ldc, &workspace_ok);
  if (status != kOk) return Format("returned status %d (%s)", static_cast<int>(status), StatusName(status));
  if (!workspace_ok) return "wrote outside its workspace";
  if (const std::string error = CompareC(p, guarded.c, ops.ldc, combo); !error.empty()) return error;
  return guarded.Outside();
}

void CheckCase(Tally& tally, const Problem& p, const Caller& caller, int threads, const Operands& ops,
               const Combo& combo) {
  const std::string error = RunCase(p, caller, ops, combo);
  if (error.empty()) {
    tally.Pass();
    return;
  }
  tally.Fail(Format("%s, threads %d, %s lda=%lld ldb=%lld ldc=%lld, alpha=%g beta=%g%s: %s",
                    CallerName(caller).c_str(), threads, ShapeName(Shape{p.m, p.n, p.k}).c_str(),
                    static_cast<long long>(ops.lda),
                    static_cast<long long>(ops.ldb), static_cast<long long>(ops.ldc),
                    static_cast<double>(combo.alpha), static_cast<double>(combo.beta),
                    combo.nan_c ? " (C prefilled with NaN)" : "", error.c_str()));
}

bool SetThreads(Tally& tally, int threads) {
  const Status status = {{PACKAGE}}_set_num_threads(threads);
  tally.Expect(status == kOk, Format("set_num_threads(%d) returned %s", threads, StatusName(status)));
  return status == kOk;
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_SUPPORT_H_
