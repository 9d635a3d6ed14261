// Part of the dispatcher: a B packed once (pack_b) into the micro-panels of one kernel, and the calls that read it
// (gemm_packed_b): inference multiplies the same weights by thousands of inputs, and packing them on every call is a
// pass over B per call. Fixed text, copied verbatim into every CPU package; included at the end of dispatch.cpp.
#ifndef STRATA_DISPATCH_PACKED_B_H_
#define STRATA_DISPATCH_PACKED_B_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// What a packed B records ahead of its panels: a call checks that this package packed it, for the call's N and K.
struct PackedBHeader {
  char magic[8];
  uint64_t package;       // package_fingerprint() of the package that packed it
  int64_t n, k, max_m;    // what it was packed for
  int64_t filter_h;       // a convolution's filter: its height and width (then K = filter_h filter_w in_c);
  int64_t filter_w;       // 0 for a GEMM's B
  int64_t width;          // the panels' padded width: N rounded up to the kernel's NR
  int64_t panels_offset;  // bytes from the header's start to the panels, which start 64-byte aligned
  int32_t kernel;         // the kernel whose panels these are
  int32_t b_transposed;   // 1 where B was stored N x K
};
constexpr char kPackedBMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', 'P', 'B'};

// FNV-1a of the package's version string, which carries its content hash: another package's panels (another kernel
// table, another blocking) are told apart.
uint64_t package_fingerprint() {
  uint64_t hash = 0xcbf29ce484222325u;
  for (const char* c = STRATA_C(VERSION_STRING); *c != '\0'; ++c)
    hash = (hash ^ static_cast<unsigned char>(*c)) * 0x100000001b3u;
  return hash;
}

// The bytes a packed B of N x K needs whichever kernel packs it (the choice depends on the threads at packing time,
// the size must not): the header, room to align the panels, and the widest kernel's panels. 0 where they overflow.
size_t packed_b_bytes(int64_t N, int64_t K) {
  int64_t floats = 0;
  for (int32_t id = 0; id < kKernelCount; ++id) {
    const int64_t nr = kKernels[id].nr;
    int64_t kernel_floats = 0;
    if (N > std::numeric_limits<int64_t>::max() - nr ||
        __builtin_mul_overflow((N + nr - 1) / nr * nr, K, &kernel_floats))
      return 0;
    floats = std::max(floats, kernel_floats);
  }
  int64_t bytes = 0;
  constexpr int64_t kFixed = static_cast<int64_t>(sizeof(PackedBHeader) + kAlign);
  if (__builtin_mul_overflow(floats, static_cast<int64_t>(sizeof(float)), &bytes) ||
      __builtin_add_overflow(bytes, kFixed, &bytes))
    return 0;
  return static_cast<size_t>(bytes);
}

// The kernel whose packed plans the model prices best, on `threads` threads, over calls of 1 to max_m rows: the
// least geometric mean of their seconds at M = 1, 2, 4, ... and max_m. Past `threads` level-2 rows of the tallest
// kernel each plan's time grows in proportion to M, and larger samples would change no ranking. layout: the calls'
// layout bits besides kPackedB (a convolution's gather, see conv_layout).
int32_t packed_b_kernel(int64_t N, int64_t K, int64_t max_m, int32_t threads, int32_t layout) {
  if (N == 0 || K == 0) return 0;
  int64_t tallest = 1;
  for (int32_t id = 0; id < kKernelCount; ++id) tallest = std::max(tallest, kKernels[id].m2);
  const int64_t last = std::min(max_m, tallest * threads);
  int32_t best = 0;
  double best_score = std::numeric_limits<double>::infinity();
  for (int32_t id = 0; id < kKernelCount; ++id) {
    double score = 0.0;
    for (int64_t m = 1;; m = std::min(2 * m, last)) {
      score += std::log(planned(m, N, K, threads, id, layout | kPackedB).seconds);
      if (m == last) break;
    }
    if (score < best_score) {
      best_score = score;
      best = id;
    }
  }
  return best;
}

// What a packed B is for besides its N and K: the calls' layout bits (see packed_b_kernel), and for a convolution's
// filter its height and width (both 0 for a GEMM's B).
struct PackedBUse {
  int32_t layout;
  int64_t filter_h, filter_w;
};

// pack_b's arguments, checked in the order of the status list, and B packed into `memory`.
STRATA_X(status)
pack_b_into(STRATA_X(transpose) trans_b, int64_t N, int64_t K, int64_t max_m, const float* B, int64_t ldb,
            void* memory, size_t bytes, const PackedBUse& use) {
  const int32_t layout = layout_of(STRATA_C(NO_TRANS), trans_b);
  if (layout < 0 || max_m < 1) return STRATA_C(INVALID_ARGUMENT);
  if (N < 0 || K < 0) return STRATA_C(INVALID_SIZE);
  const bool transposed = layout == kTransB;
  if (ldb < std::max<int64_t>(1, transposed ? K : N)) return STRATA_C(INVALID_LEADING_DIM);
  if (memory == nullptr || (B == nullptr && N > 0 && K > 0)) return STRATA_C(NULL_POINTER);
  const size_t needed = packed_b_bytes(N, K);
  if (needed == 0 || (transposed ? extent(N, K, ldb) : extent(K, N, ldb)) < 0) return STRATA_C(SIZE_OVERFLOW);
  if (bytes < needed) return STRATA_C(WORKSPACE_TOO_SMALL);
  if (!cpu_supported()) return STRATA_C(UNSUPPORTED_CPU);
  const int32_t id = packed_b_kernel(N, K, max_m, configured_threads(), use.layout);
  const Kernel& k = kKernels[id];
  unsigned char* const base = static_cast<unsigned char*>(memory);
  const uintptr_t after_header = reinterpret_cast<uintptr_t>(base) + sizeof(PackedBHeader);
  const int64_t offset =
      static_cast<int64_t>((after_header + kAlign - 1) / kAlign * kAlign - reinterpret_cast<uintptr_t>(base));
  PackedBHeader header{};
  std::memcpy(header.magic, kPackedBMagic, sizeof header.magic);
  header.package = package_fingerprint();
  header.n = N, header.k = K, header.max_m = max_m;
  header.filter_h = use.filter_h, header.filter_w = use.filter_w;
  header.width = round_up(N, k.nr);
  header.panels_offset = offset;
  header.kernel = id;
  header.b_transposed = transposed ? 1 : 0;
  float* const panels = reinterpret_cast<float*>(base + offset);
  // A short last panel's missing columns are zeros: the kernels never store them to C, and zeros keep the memory
  // defined and the packed bytes reproducible.
  std::memset(panels, 0, static_cast<size_t>(header.width * K) * sizeof(float));
  // The k slices as the packed path walks them (level-2 slices cut into level-1 ones), each slice's rows of every
  // panel at p * width, as Gemm::packed_b_panels reads them.
  const Gemm source{0, N, K, 1.0f, 0.0f, nullptr, 1, B, ldb, nullptr, 1, layout};
  for (int64_t p2 = 0; p2 < K; p2 += k.k2)
    for (int64_t p1 = p2; p1 < std::min(K, p2 + k.k2); p1 += k.k1) {
      const int64_t depth = std::min({k.k1, K - p1, p2 + k.k2 - p1});
      if (N > 0) source.pack_b(k, p1, 0, N, depth, panels + p1 * header.width);
    }
  std::memcpy(base, &header, sizeof header);
  return STRATA_C(OK);
}

// Turns g, a call on N x K that passed its own size checks, into a call on the packed B (kPackedB; B as packed
// needs no transpose bit): B its panels, ldb their width, *forced the kernel they were packed for; PACKED_B_MISMATCH
// where this package did not pack it for g's N and K and `filter_h` x `filter_w` (0 x 0: a GEMM's B). A null packed
// B is allowed where the call reads no B, as a null B is: check() says whether it does.
STRATA_X(status) on_packed_b(const void* packed, int64_t filter_h, int64_t filter_w, Gemm* g, int32_t* forced) {
  g->layout = (g->layout & ~kTransB) | kPackedB;
  g->B = nullptr;
  g->ldb = std::max<int64_t>(1, g->N);
  *forced = 0;
  if (packed == nullptr) return STRATA_C(OK);
  PackedBHeader header;
  std::memcpy(&header, packed, sizeof header);
  if (std::memcmp(header.magic, kPackedBMagic, sizeof header.magic) != 0 || header.package != package_fingerprint() ||
      header.kernel < 0 || header.kernel >= kKernelCount || header.n != g->N || header.k != g->K ||
      header.filter_h != filter_h || header.filter_w != filter_w)
    return STRATA_C(PACKED_B_MISMATCH);
  g->B = reinterpret_cast<const float*>(static_cast<const unsigned char*>(packed) + header.panels_offset);
  g->ldb = std::max<int64_t>(1, header.width);
  *forced = header.kernel;
  return STRATA_C(OK);
}

// Packs with pack(memory, bytes) into packed_b_bytes(N, K) of memory the package allocates, returned in *packed where
// it succeeds (else null, and the memory freed). pack catches what it throws.
template <typename Pack>
STRATA_X(status)
pack_allocated(int64_t N, int64_t K, void** packed, Pack pack) {
  if (packed == nullptr) return STRATA_C(NULL_POINTER);
  *packed = nullptr;
  const size_t bytes = N < 0 || K < 0 ? 0 : packed_b_bytes(N, K);
  void* const memory = bytes == 0 ? nullptr : std::malloc(bytes);
  if (bytes > 0 && memory == nullptr) return STRATA_C(OUT_OF_MEMORY);
  const STRATA_X(status) status = pack(memory, bytes);
  if (status != STRATA_C(OK)) {
    std::free(memory);
    return status;
  }
  *packed = memory;
  return STRATA_C(OK);
}

// A GEMM call on a packed B (see on_packed_b).
STRATA_X(status)
packed_b_gemm(STRATA_X(transpose) trans_a, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
              const void* packed, float beta, float* C, int64_t ldc, Gemm* g, int32_t* forced) {
  const int32_t layout = layout_of(trans_a, STRATA_C(NO_TRANS));
  if (layout < 0) return STRATA_C(INVALID_ARGUMENT);
  if (M < 0 || N < 0 || K < 0) return STRATA_C(INVALID_SIZE);
  *g = Gemm{M, N, K, alpha, beta, A, lda, nullptr, 1, C, ldc, layout};
  return on_packed_b(packed, 0, 0, g, forced);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

extern "C" {

size_t STRATA_X(packed_b_size)(int64_t N, int64_t K) { return N < 0 || K < 0 ? 0 : packed_b_bytes(N, K); }

STRATA_X(status)
STRATA_X(pack_b)
(STRATA_X(transpose) trans_b, int64_t N, int64_t K, int64_t max_m, const float* B, int64_t ldb, void* packed,
 size_t packed_bytes) {
  try {
    return pack_b_into(trans_b, N, K, max_m, B, ldb, packed, packed_bytes, PackedBUse{0, 0, 0});
  } catch (...) {  // the plans' thread count may ask the system for a resource
    return STRATA_C(SYSTEM_ERROR);
  }
}

STRATA_X(status)
STRATA_X(pack_b_alloc)
(STRATA_X(transpose) trans_b, int64_t N, int64_t K, int64_t max_m, const float* B, int64_t ldb, void** packed) {
  return pack_allocated(N, K, packed, [&](void* memory, size_t bytes) {
    return STRATA_X(pack_b)(trans_b, N, K, max_m, B, ldb, memory, bytes);
  });
}

void STRATA_X(packed_b_free)(void* packed) { std::free(packed); }

STRATA_X(status)
STRATA_X(gemm_packed_b)
(STRATA_X(transpose) trans_a, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
 const void* packed_b, float beta, float* C, int64_t ldc, const STRATA_X(epilogue_t) * epilogue) {
  Gemm g{};
  int32_t forced = 0;
  const STRATA_X(status) s = packed_b_gemm(trans_a, M, N, K, alpha, A, lda, packed_b, beta, C, ldc, &g, &forced);
  if (s != STRATA_C(OK)) return s;
  return execute_with_epilogue(g, epilogue, forced);
}

STRATA_X(status)
STRATA_X(gemm_packed_b_plan)
(STRATA_X(transpose) trans_a, int64_t M, int64_t N, int64_t K, const void* packed_b, STRATA_X(plan_t) * plan) {
  if (plan == nullptr || packed_b == nullptr) return STRATA_C(INVALID_ARGUMENT);
  Gemm g{};
  int32_t forced = 0;
  const STRATA_X(status) s =
      packed_b_gemm(trans_a, M, N, K, 1.0f, nullptr, 1, packed_b, 0.0f, nullptr, 1, &g, &forced);
  if (s != STRATA_C(OK)) return s;
  if (const STRATA_X(status) p = plannable(M, N, K); p != STRATA_C(OK)) return p;
  fill_plan(choose_plan(M, N, K, current_threads(), forced, g.layout), plan);
  return STRATA_C(OK);
}

}  // extern "C"

#endif  // STRATA_DISPATCH_PACKED_B_H_
