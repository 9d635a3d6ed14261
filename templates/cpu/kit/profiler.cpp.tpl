// The profiler of a Strata profile kit: times every level-0 micro-kernel of {{ARCH_NAME}} for {{OP_NAME}} on the
// machine it runs on, and the level-1 blocks listed below if any, and writes a strata-profile/1 records file for
// `strata generate --profile FILE`.
//
// For every micro-kernel below it checks the full register tile once against a plain reference (a wrong kernel
// must never be profiled as fast), then times it on packed panels small enough to stay in L1. Calls are batched
// (~2 ms a batch); each round over all kernels takes the median time per call of a few batches per kernel, and a
// kernel's result is its fastest round's median. Rounds, because on a shared machine a neighbour can slow the
// core for seconds at a time: the median rejects short spikes, the best round long stretches that would
// otherwise hit a run of consecutive kernels.
//
// A level-1 block (M1 x N1 x K1 of one kernel, whole register tiles) is timed as the package's packed path runs it,
// in three parts: packing its A block, packing its B block (each from a source that is in the outermost cache but
// not in the one the panels are packed for: every repetition takes the next region of a pool too big for the
// latter), and its register tiles over the packed panels, column panel by column panel as the package does, on a
// C that is read and written (beta = 1) and taken from a pool like the sources. Each part's result is the median
// of kBlockBatches batches of repetitions.
//
// Usage: strata_profile [-o FILE] [--depth N] [--rounds N]
//   -o FILE      the records file to write (default profile_records.yaml); written whole or not at all
//   --depth N    k of each timed call (default {{DEPTH}})
//   --rounds N   passes over all kernels (default {{ROUNDS}})
// Progress goes to stdout, one "kernel I/N round R/RS: NAME" line before each timing. Exit status: 0 ok, 1 a
// kernel computed a wrong result or the file could not be written, 2 bad usage or out of memory.
//
// The records carry what `strata generate` checks before it uses them: the arch descriptor's name and sha256 and
// the operator (baked in when the kit was generated), the CPU (read here, at run time) and the compiler (baked in
// when this file was compiled).
//
// Dependency-free on purpose: it is built with the target's compiler alone, and without ISA flags (only the
// kernel files get them), so nothing here runs vector code the CPU may lack.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device_info.h"
#include "tile_args.h"

using {{PACKAGE}}_internal::TileArgs;
using {{PACKAGE}}_internal::TileFn;

// Each kernel is compiled inside a namespace of its own, so that several kernels can share a translation unit.
{{#KERNEL}}namespace {{NS}}::{{PACKAGE}}_internal {
void {{NAME}}_full_packed(const TileArgs& args);
{{#PACKING}}void {{NAME}}_pack_a(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out);
void {{NAME}}_pack_b(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* out);
{{/PACKING}}}
{{/KERNEL}}
namespace {

constexpr char kArch[] = "{{ARCH_NAME}}";
constexpr char kArchSha256[] = "{{ARCH_SHA256}}";
constexpr char kOp[] = "{{OP_NAME}}";
constexpr char kBuildFlags[] = "{{BUILD_FLAGS}}";

using PackFn = void (*)(const float* src, int64_t ld, int64_t extent, int64_t depth, float* out);

struct Kernel {
  const char* name;
  int mr;
  int nr;
  int ku;
  TileFn fn;
  PackFn pack_a;
  PackFn pack_b;
};

// Sorted by name; the last entry only ends the table (a kit may hold no kernel at all).
const Kernel kKernels[] = {
{{#KERNEL}}    {"{{NAME}}", {{MR}}, {{NR}}, {{KU}}, &{{NS}}::{{PACKAGE}}_internal::{{NAME}}_full_packed,
     {{#PACKING}}&{{NS}}::{{PACKAGE}}_internal::{{NAME}}_pack_a, &{{NS}}::{{PACKAGE}}_internal::{{NAME}}_pack_b{{/PACKING}}{{#NO_PACKING}}nullptr, nullptr{{/NO_PACKING}}},
{{/KERNEL}}    {nullptr, 0, 0, 0, nullptr, nullptr, nullptr}};
constexpr size_t kCount = sizeof(kKernels) / sizeof(kKernels[0]) - 1;

// Level-1 blocks to time: an index into kKernels and the block's extents. The last entry only ends the table.
struct Block {
  size_t kernel;
  int64_t m, n, k;
};
const Block kBlocks[] = {
{{#BLOCK}}    { {{KERNEL_INDEX}}, {{M}}, {{N}}, {{K}} },
{{/BLOCK}}    {0, 0, 0, 0}};
constexpr size_t kBlockCount = sizeof(kBlocks) / sizeof(kBlocks[0]) - 1;
// Bytes of each of the two pools level-1 sources and C blocks are taken from: four times the cache the panels are
// packed for ({{PACK_CACHE}}), so that a region has left it when it comes round again, or a quarter of
// {{SOURCE_CACHE}} where that is more (at least 1 MiB).
constexpr size_t kPoolBytes = {{POOL_BYTES}};
constexpr int kBlockBatches = 5;
constexpr int64_t kBlockBatchMacs = int64_t{1} << 20;  // a batch repeats a small block to about this much work
constexpr int64_t kRowPad = 16;  // floats between the rows of a source or C region: no power-of-two strides

constexpr int kBatches = 3;  // per kernel and round
constexpr double kBatchSeconds = 2e-3;
constexpr double kCalibrationSeconds = 0.25e-3;

[[noreturn]] void die(int status, const std::string& message) {
  std::fprintf(stderr, "strata_profile: error: %s\n", message.c_str());
  std::exit(status);
}

// 64-byte aligned floats, like the package's packed panels.
class Buffer {
 public:
  explicit Buffer(size_t count) {
    const size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
    data_ = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!data_) die(2, "cannot allocate " + std::to_string(bytes) + " bytes");
  }
  ~Buffer() { std::free(data_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  float* data() const { return data_; }

 private:
  float* data_ = nullptr;
};

// Multiples of 1/4 in [-0.75, 0.75]: every product and partial sum is exact in float, whatever order a kernel
// adds in, so the check can demand equality up to a tiny slack.
float small_value(size_t i, int salt) { return static_cast<float>(static_cast<int>((i * 5 + salt) % 7) - 3) * 0.25f; }

void fill(float* p, size_t count, int salt) {
  for (size_t i = 0; i < count; ++i) p[i] = small_value(i, salt);
}

TileArgs tile_args(const Kernel& k, int64_t depth, const float* a, const float* b, float* c, float alpha,
                   float beta) {
  TileArgs t{};
  t.k = depth;
  t.a = a;
  t.lda = 0;  // ignored for packed panels
  t.b = b;
  t.ldb = 0;
  t.c = c;
  t.ldc = k.nr;
  t.alpha = alpha;
  t.beta = beta;
  t.rows = k.mr;
  t.cols = k.nr;
  return t;
}

// Runs the kernel once with (alpha, beta) on C = c_init and compares with the reference; exits on a mismatch.
void check_once(const Kernel& k, int64_t depth, const float* a, const float* b, float* c, const float* c_init,
                float alpha, float beta) {
  const size_t tile = static_cast<size_t>(k.mr) * k.nr;
  std::copy(c_init, c_init + tile, c);
  k.fn(tile_args(k, depth, a, b, c, alpha, beta));
  for (int r = 0; r < k.mr; ++r)
    for (int j = 0; j < k.nr; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < depth; ++p) sum += double(a[p * k.mr + r]) * double(b[p * k.nr + j]);
      const double old = beta == 0.0f ? 0.0 : double(c_init[r * k.nr + j]);
      const double expected = alpha * sum + beta * old;
      const double got = c[r * k.nr + j];
      if (!(std::fabs(got - expected) <= 1e-5 * (1.0 + std::fabs(expected)))) {
        char text[256];
        std::snprintf(text, sizeof text, "%s: C(%d, %d) = %.9g but the reference is %.9g (depth %lld, alpha %g, beta %g)",
                      k.name, r, j, got, expected, static_cast<long long>(depth), alpha, beta);
        die(1, text);
      }
    }
}

double seconds_of(const Kernel& k, const TileArgs& args, long calls) {
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i) k.fn(args);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The number of calls that take about kBatchSeconds (doubling up from one call also warms the kernel up).
long calls_per_batch(const Kernel& k, const TileArgs& args) {
  long calls = 1;
  double t = 0;
  while ((t = seconds_of(k, args, calls)) < kCalibrationSeconds) calls *= 2;
  return std::max(1L, static_cast<long>(calls * kBatchSeconds / t));
}

// Median time per call over kBatches batches. beta = 1 keeps C read and written in L1 as in the package's inner
// loop; C is reset between batches (untimed) so its values stay small.
double median_seconds(const Kernel& k, const TileArgs& args, long batch) {
  const size_t tile = static_cast<size_t>(k.mr) * k.nr;
  seconds_of(k, args, batch);  // warm-up at the batch length: caches, predictors and clock settle
  double per_call[kBatches];
  for (double& t : per_call) {
    std::fill(args.c, args.c + tile, 0.0f);
    t = seconds_of(k, args, batch) / batch;
  }
  std::sort(per_call, per_call + kBatches);
  return per_call[kBatches / 2];
}

// The panels of one kernel, filled with the check's values.
struct Panels {
  Panels(const Kernel& k, int64_t depth)
      : a(static_cast<size_t>(k.mr) * depth), b(static_cast<size_t>(depth) * k.nr), c(tile(k)), c_init(tile(k)) {
    fill(a.data(), static_cast<size_t>(k.mr) * depth, 1);
    fill(b.data(), static_cast<size_t>(depth) * k.nr, 2);
  }
  static size_t tile(const Kernel& k) { return static_cast<size_t>(k.mr) * k.nr; }
  Buffer a, b, c, c_init;
};

void check(const Kernel& k, int64_t depth, Panels& p) {
  // beta == 0 must not read C: NaN there would show through.
  std::fill(p.c_init.data(), p.c_init.data() + Panels::tile(k), std::nanf(""));
  check_once(k, depth, p.a.data(), p.b.data(), p.c.data(), p.c_init.data(), 0.5f, 0.0f);
  fill(p.c_init.data(), Panels::tile(k), 3);
  check_once(k, depth, p.a.data(), p.b.data(), p.c.data(), p.c_init.data(), 1.0f, 0.5f);
}

// ---------------------------------------------------------------------------------------------------------------
// Level 1.
// ---------------------------------------------------------------------------------------------------------------

// Regions handed out round robin from one buffer, each 64-byte aligned.
class Pool {
 public:
  Pool(size_t floats, int salt) : floats_(floats), buffer_(floats) { fill(buffer_.data(), floats_, salt); }
  float* take(size_t count) {
    const size_t aligned = (count + 15) / 16 * 16;
    if (next_ + aligned > floats_) next_ = 0;
    float* p = buffer_.data() + next_;
    next_ += aligned;
    return p;
  }

 private:
  size_t floats_;
  size_t next_ = 0;
  Buffer buffer_;
};

struct BlockTimes {
  double pack_a, pack_b, tiles;
};

double median_of(double* values, int count) {
  std::sort(values, values + count);
  return values[count / 2];
}

BlockTimes time_block(const Block& b, Pool& sources, Pool& outputs) {
  const Kernel& k = kKernels[b.kernel];
  const int64_t lda = b.k + kRowPad, ldb = b.n + kRowPad, ldc = b.n + kRowPad;
  const size_t a_floats = static_cast<size_t>(b.m * lda), b_floats = static_cast<size_t>(b.k * ldb);
  const size_t c_floats = static_cast<size_t>(b.m * ldc);
  Buffer a_panels(static_cast<size_t>(b.m * b.k)), b_panels(static_cast<size_t>(b.k * b.n));
  const long reps = std::max<int64_t>(1, kBlockBatchMacs / (b.m * b.n * b.k));
  double pack_a[kBlockBatches], pack_b[kBlockBatches], tiles[kBlockBatches];
  for (int batch = -1; batch < kBlockBatches; ++batch) {  // batch -1 warms up
    const auto t0 = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) k.pack_a(sources.take(a_floats), lda, b.m, b.k, a_panels.data());
    const auto t1 = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) k.pack_b(sources.take(b_floats), ldb, b.n, b.k, b_panels.data());
    const auto t2 = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) {
      float* c = outputs.take(c_floats);
      // Column panel by column panel, a panel's tiles top to bottom: the package's order (dispatch.cpp, run_block).
      for (int64_t j = 0; j < b.n; j += k.nr)
        for (int64_t i = 0; i < b.m; i += k.mr) {
          TileArgs t = tile_args(k, b.k, a_panels.data() + i * b.k, b_panels.data() + j * b.k, c + i * ldc + j, 1.0f,
                                 1.0f);
          t.ldc = ldc;
          k.fn(t);
        }
    }
    const auto t3 = std::chrono::steady_clock::now();
    if (batch < 0) continue;
    pack_a[batch] = std::chrono::duration<double>(t1 - t0).count() / reps;
    pack_b[batch] = std::chrono::duration<double>(t2 - t1).count() / reps;
    tiles[batch] = std::chrono::duration<double>(t3 - t2).count() / reps;
  }
  return {median_of(pack_a, kBlockBatches), median_of(pack_b, kBlockBatches), median_of(tiles, kBlockBatches)};
}

// ---------------------------------------------------------------------------------------------------------------
// The records file.
// ---------------------------------------------------------------------------------------------------------------

// A YAML double-quoted scalar: quotes and backslashes escaped, control characters as \xNN, UTF-8 passed through.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// 4 significant digits: what a ~1% measurement supports, and what keeps the records file readable.
std::string significant4(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", x);
  return text;
}

std::string method_text(long long depth, long long rounds) {
  return "Wall time per call of each kernel's full MR x NR register tile on 64-byte aligned packed panels of depth " +
         std::to_string(depth) +
         " kept in L1 (alpha = beta = 1), after a check against a reference: the fastest of " +
         std::to_string(rounds) +
         " rounds over all kernels of the median of 3 batches of about 2 ms after a warm-up batch, on one unpinned "
         "thread, compiled with " +
         kBuildFlags + " and the kernel's ISA flags.";
}

std::string level1_method_text() {
  return " Level 1: per block, the median of " + std::to_string(kBlockBatches) +
         " batches (after a warm-up batch) of packing its A block, of packing its B block, each repetition from the "
         "next region of a " +
         std::to_string(kPoolBytes >> 20) +
         " MiB pool, and of its register tiles over the packed panels with C (beta = 1) from another such pool; "
         "a batch repeats a block up to about 2^20 multiply-adds.";
}

std::string records_yaml(const double* seconds, long long depth, long long rounds, const BlockTimes* blocks) {
  std::string y;
  y += "# Profile records written by a Strata profile kit on the machine named below; pass this file to\n";
  y += "# strata generate --profile FILE.\n";
  y += "schema: strata-profile/1\n";
  y += "arch: " + quoted(kArch) + "\n";
  y += "arch_sha256: " + std::string(kArchSha256) + "\n";
  y += "op: " + quoted(kOp) + "\n";
  y += "compiler: " + quoted(strata_kit::compiler_identity()) + "\n";
  y += "cpu: " + quoted(strata_kit::cpu_identity()) + "\n";
  y += "method: " + quoted(method_text(depth, rounds) + (kBlockCount > 0 ? level1_method_text() : "")) + "\n";
  y += kCount == 0 ? "records: []\n" : "records:\n";
  for (size_t i = 0; i < kCount; ++i) {
    const Kernel& k = kKernels[i];
    // gflops from the seconds as written, so that the file agrees with itself.
    const std::string s = significant4(seconds[i]);
    const double flops = 2.0 * k.mr * k.nr * static_cast<double>(depth);
    y += std::string("  - kernel: ") + k.name + "\n";
    y += "    mr: " + std::to_string(k.mr) + "\n    nr: " + std::to_string(k.nr) + "\n";
    y += "    ku: " + std::to_string(k.ku) + "\n    depth: " + std::to_string(depth) + "\n";
    y += "    seconds_per_call: " + s + "\n";
    y += "    gflops: " + significant4(flops / std::strtod(s.c_str(), nullptr) / 1e9) + "\n";
  }
  if (kBlockCount > 0) y += "level1:\n";
  for (size_t i = 0; i < kBlockCount; ++i) {
    const Block& b = kBlocks[i];
    y += std::string("  - kernel: ") + kKernels[b.kernel].name + "\n";
    y += "    block: [" + std::to_string(b.m) + ", " + std::to_string(b.n) + ", " + std::to_string(b.k) + "]\n";
    y += "    pack_a_seconds: " + significant4(blocks[i].pack_a) + "\n";
    y += "    pack_b_seconds: " + significant4(blocks[i].pack_b) + "\n";
    y += "    tiles_seconds: " + significant4(blocks[i].tiles) + "\n";
  }
  return y;
}

// Writes beside `path` and renames over it, so that an interrupted run leaves no half-written records behind.
void write_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".partial";
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) die(1, "cannot write " + temp + ": " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !written) {
    std::remove(temp.c_str());
    die(1, "cannot write " + temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    die(1, "cannot rename " + temp + " to " + path + ": " + reason);
  }
}

[[noreturn]] void usage(const char* self, const std::string& problem) {
  std::fprintf(stderr, "strata_profile: error: %s\nusage: %s [-o FILE] [--depth N >= 1] [--rounds N >= 1]\n",
               problem.c_str(), self);
  std::exit(2);
}

long long positive(const char* self, const char* option, const char* text) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < 1 || v > (1 << 20))
    usage(self, std::string(option) + " expects an integer from 1 to 1048576, not '" + text + "'");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  long long depth = {{DEPTH}}, rounds = {{ROUNDS}};
  std::string output = "profile_records.yaml";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc && (arg == "-o" || arg == "--depth" || arg == "--rounds")) usage(argv[0], arg + " needs a value");
    if (arg == "-o") {
      output = argv[++i];
    } else if (arg == "--depth") {
      depth = positive(argv[0], "--depth", argv[++i]);
    } else if (arg == "--rounds") {
      rounds = positive(argv[0], "--rounds", argv[++i]);
    } else {
      usage(argv[0], "unknown argument '" + arg + "'");
    }
  }
  long batch[kCount + 1] = {};
  double best[kCount + 1] = {};
  for (long long round = 0; round < rounds; ++round)
    for (size_t i = 0; i < kCount; ++i) {
      const Kernel& k = kKernels[i];
      std::printf("kernel %zu/%zu round %lld/%lld: %s\n", i + 1, kCount, round + 1, rounds, k.name);
      std::fflush(stdout);
      Panels p(k, depth);
      if (round == 0) check(k, depth, p);
      const TileArgs args = tile_args(k, depth, p.a.data(), p.b.data(), p.c.data(), 1.0f, 1.0f);
      if (round == 0) batch[i] = calls_per_batch(k, args);
      const double t = median_seconds(k, args, batch[i]);
      best[i] = round == 0 ? t : std::min(best[i], t);
    }
  for (size_t i = 0; i < kCount; ++i)
    if (!(best[i] > 0) || !std::isfinite(best[i]))
      die(1, std::string(kKernels[i].name) + ": measured " + std::to_string(best[i]) + " s per call: the clock is unusable");
  std::vector<BlockTimes> blocks(kBlockCount);
  if (kBlockCount > 0) {
    Pool sources(kPoolBytes / sizeof(float), 4), outputs(kPoolBytes / sizeof(float), 5);
    for (size_t i = 0; i < kBlockCount; ++i) {
      const Block& b = kBlocks[i];
      std::printf("block %zu/%zu: %s %lldx%lldx%lld\n", i + 1, kBlockCount, kKernels[b.kernel].name,
                  static_cast<long long>(b.m), static_cast<long long>(b.n), static_cast<long long>(b.k));
      std::fflush(stdout);
      blocks[i] = time_block(b, sources, outputs);
      for (double t : {blocks[i].pack_a, blocks[i].pack_b, blocks[i].tiles})
        if (!(t > 0) || !std::isfinite(t))
          die(1, std::string(kKernels[b.kernel].name) + ": a level-1 block measured " + std::to_string(t) +
                     " s: the clock is unusable");
    }
  }
  write_atomically(output, records_yaml(best, depth, rounds, blocks.data()));
  std::printf("wrote %s: %zu kernels and %zu level-1 blocks of %s for %s\n", output.c_str(), kCount, kBlockCount,
              kArch, kOp);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
