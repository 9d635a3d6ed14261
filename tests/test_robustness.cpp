// Whatever the input, loading a spec either succeeds or throws strata::Error: never another exception, an
// abort or a crash. Mutates the shipped specs deterministically: dropped lines, swapped values, truncations.
#include <catch2/catch.hpp>
#include <random>

#include "sieve/sieve.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "test_util.h"

using namespace strata;
using namespace strata::test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string mutate(const std::vector<std::string>& lines, std::mt19937& rng) {
  static const std::vector<std::string> values = {"0",    "-1",   "1e309",         "[]",       "{}",
                                                  "~",    "\"\"", "x y",           "[1, [2]]", "99999999999999999999",
                                                  "&a 1", "*a",   "!!binary AAAA", "3.5",      "{unit: cpu_fma}",
                                                  "'",    "\t"};
  std::vector<std::string> out = lines;
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !out.empty(); ++e) {
    const size_t i = rng() % out.size();
    switch (rng() % 5) {
      case 0: out.erase(out.begin() + static_cast<long>(i)); break;
      case 1: {
        const size_t colon = out[i].find(": ");
        if (colon != std::string::npos) out[i] = out[i].substr(0, colon + 2) + values[rng() % values.size()];
        break;
      }
      case 2: out[i] = out[i].substr(0, rng() % (out[i].size() + 1)); break;
      case 3: out.insert(out.begin() + static_cast<long>(i), out[rng() % out.size()]); break;
      case 4: out[i] = "  " + out[i]; break;
    }
  }
  std::string text;
  for (const auto& l : out) text += l + "\n";
  return text;
}

}  // namespace

TEST_CASE("mutated specs give strata::Error, never a crash", "[spec][robustness]") {
  std::mt19937 rng(20261121);
  ScratchDir dir;
  const Op sgemm = load_op(source_path("ops/sgemm.yaml"));
  int errors = 0, loaded = 0;
  for (const std::string kind : {"archs", "ops"})
    for (const auto& file : shipped_specs(kind)) {
      const auto lines = lines_of(read_file(file));
      for (int trial = 0; trial < 150; ++trial) {
        const std::string path = dir.write("mutated.yaml", mutate(lines, rng));
        try {
          if (kind == "archs") {
            const Arch arch = load_arch(path);
            // A descriptor that still loads must also survive the sieve (or refuse the pairing cleanly). The
            // sieve takes about a second on a CPU descriptor, so only every tenth trial runs it.
            if (!arch.is_gpu() && trial % 10 == 0) run_sieve(arch, sgemm);
          } else {
            load_op(path);
          }
          ++loaded;
        } catch (const Error& e) {
          ++errors;
          const std::string message = e.what();
          // Located in the mutated file, or (for a pairing the mutation broke) in the op it was paired with.
          CHECK_THAT(message, Catch::StartsWith(path) || Catch::StartsWith(sgemm.file));
        }
      }
    }
  CHECK(errors > 0);
  CHECK(loaded > 0);
}
