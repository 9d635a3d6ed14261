// One model: a generated CPU package's _plan() and `strata plan` (the generator's copy of the package's planner,
// which the selection ranks kernels with) choose the same kernel, path, thread blocks and threads, with the same
// estimate to the last bit, for the four benchmark suites' shapes and random shapes from 1 to 4096 per axis, in every
// layout (A and B transposed or not), at 1 and 2 threads. Checked for the AVX-512 example (levels 0 and 1 profiled)
// and the AVX2 one (level 0 profiled), each built here whatever the host's ISA: planning runs no kernel. Built
// unoptimised, which compiles faster: the dispatcher contracts no floating-point operation (-ffp-contract=off), so
// its prices do not depend on the optimisation level.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace strata::test;

namespace {

// The suites' shapes, then `random` shapes: each axis uniform in [1, 4096] for half of them, log-uniform for the
// other half (small extents are where the paths differ most).
std::string write_shapes(const ScratchDir& dir, int random) {
  const std::string path = dir.path() + "/shapes.txt";
  std::ofstream out(path);
  out << read_file(source_path("tests/plan_agreement/suite_shapes.txt"));
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<int64_t> uniform(1, 4096);
  std::uniform_real_distribution<double> exponent(0.0, 12.0);
  for (int i = 0; i < random; ++i) {
    for (int axis = 0; axis < 3; ++axis) {
      const int64_t extent = i % 2 == 0 ? uniform(rng) : static_cast<int64_t>(std::exp2(exponent(rng)));
      out << (axis > 0 ? "," : "") << extent;
    }
    out << "\n";
  }
  return path;
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream fields_in(line);
    std::string field;
    while (std::getline(fields_in, field, ',')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

}  // namespace

TEST_CASE("a package's plans are the generator's: kernel, path, thread blocks, threads and estimate", "[plan]") {
  for (const std::string example : {"strata_sgemm_zen4_avx512", "strata_sgemm_x86_avx2"}) {
    SECTION(example) {
      ScratchDir dir;
      const std::string inputs = source_path("emitted_examples/" + example);
      const std::string spec = "--arch " + inputs + "/inputs/arch.yaml --op " + inputs +
                               "/inputs/op.yaml --profile " + inputs + "/profile_records.yaml";
      const auto gen = run_strata("generate " + spec + " --name planned -o pkg", dir.path());
      INFO(gen.err);
      REQUIRE(gen.exit_code == 0);
      const std::string log = dir.path() + "/build.log";
      const std::string build = "cmake -S " + source_path("tests/plan_agreement") + " -B " + dir.path() +
                                "/build -DPACKAGE_DIR=" + dir.path() +
                                "/pkg -DPACKAGE_NAME=planned -DPLANNED_OPTIMIZE=OFF > " + log +
                                " 2>&1 && cmake --build " + dir.path() + "/build --parallel 2 >> " + log + " 2>&1";
      const int built = std::system(build.c_str());
      INFO(read_file(log));
      REQUIRE(built == 0);

      const std::string shapes = write_shapes(dir, 1900);
      const std::string package_csv = dir.path() + "/package.csv";
      REQUIRE(std::system((dir.path() + "/build/plans " + shapes + " NN,NT,TN,TT 1 2 > " + package_csv).c_str()) ==
              0);
      const auto generator =
          run_strata("plan " + spec + " --layouts NN,NT,TN,TT --threads 1,2 --shapes " + shapes, dir.path());
      INFO(generator.err);
      REQUIRE(generator.exit_code == 0);

      const auto package_rows = csv_rows(read_file(package_csv));
      const auto generator_rows = csv_rows(generator.out);
      REQUIRE(package_rows.size() == generator_rows.size());
      REQUIRE(package_rows.size() >= 16001);  // a header, then at least 2,000 shapes in 4 layouts at 1 and 2 threads
      int disagreements = 0;
      for (size_t r = 1; r < package_rows.size(); ++r) {
        const auto& p = package_rows[r];
        const auto& g = generator_rows[r];
        REQUIRE(p.size() == 11);
        REQUIRE(g.size() == 11);
        bool same = std::strtod(p[10].c_str(), nullptr) == std::strtod(g[10].c_str(), nullptr);
        for (size_t f = 0; f < 10; ++f)
          if (f != 6) same = same && p[f] == g[f];  // field 6, the kernel's name, is the generator's alone
        if (!same) {
          ++disagreements;
          UNSCOPED_INFO("package " << p[0] << "x" << p[1] << "x" << p[2] << " " << p[3] << " at " << p[4]
                                   << " threads: kernel " << p[5] << " packed " << p[7] << " rows " << p[8]
                                   << " threads " << p[9] << " " << p[10] << "; generator kernel " << g[5]
                                   << " packed " << g[7] << " rows " << g[8] << " threads " << g[9] << " " << g[10]);
        }
      }
      CHECK(disagreements == 0);
    }
  }
}
