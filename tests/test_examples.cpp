// emitted_examples/ regenerates byte for byte from the records committed inside it, and generating twice gives
// identical trees.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "strata_version.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace strata::test;

namespace {

std::vector<std::string> example_commands() {
  std::vector<std::string> out;
  std::ifstream in(source_path("emitted_examples/commands.txt"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

std::string option_value(const std::string& command, const std::string& option) {
  const size_t at = command.find(" " + option + " ");
  REQUIRE(at != std::string::npos);
  const size_t start = at + option.size() + 2;
  return command.substr(start, command.find(' ', start) - start);
}

void copy_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

}  // namespace

TEST_CASE("emitted examples regenerate byte for byte", "[examples]") {
  const auto commands = example_commands();
  REQUIRE(commands.size() >= 2);
  for (const auto& command : commands) {
    INFO(command);
    const std::string out = option_value(command, "-o");
    // Run the committed command in a scratch copy of the inputs, so the source tree is never touched and the
    // command line (which every provenance header records) is exactly the committed one.
    ScratchDir dir;
    copy_tree(source_path("archs"), fs::path(dir.path()) / "archs");
    copy_tree(source_path("ops"), fs::path(dir.path()) / "ops");
    copy_tree(source_path(out), fs::path(dir.path()) / out);
    // A convolution example reads the records of the GEMM example beside it.
    const bool profiled = command.find(" --profile ") != std::string::npos;
    const std::string records = profiled ? option_value(command, "--profile") : std::string();
    const std::string records_dir = fs::path(records).parent_path().string();
    if (!records.empty() && records_dir != out && !fs::exists(fs::path(dir.path()) / records_dir))
      copy_tree(source_path(records_dir), fs::path(dir.path()) / records_dir);
    const auto r = run_strata(command, dir.path());
    REQUIRE(r.exit_code == 0);
    const auto expected = read_tree(source_path(out));
    const auto actual = read_tree((fs::path(dir.path()) / out).string());
    REQUIRE(expected.size() == actual.size());
    for (const auto& [name, content] : expected) {
      INFO(name);
      REQUIRE(actual.count(name) == 1);
      CHECK(actual.at(name) == content);
    }
  }
}

TEST_CASE("generating twice gives identical trees, with no absolute paths or dates", "[examples]") {
  ScratchDir dir;
  const std::string records = source_path("emitted_examples/strata_sgemm_x86_avx2/profile_records.yaml");
  const std::string common = "generate --arch " + source_path("archs/x86-avx2.yaml") + " --op " +
                             source_path("ops/sgemm.yaml") + " --profile " + records;
  REQUIRE(run_strata(common + " -o one", dir.path()).exit_code == 0);
  REQUIRE(run_strata(common + " -o two", dir.path()).exit_code == 0);
  const auto one = read_tree(dir.path() + "/one"), two = read_tree(dir.path() + "/two");
  REQUIRE(one.size() == two.size());
  for (const auto& [name, content] : one) {
    INFO(name);
    // The output directory's name is part of the recorded command line; everything else must match.
    std::string other = two.at(name);
    for (size_t at = other.find("-o two"); at != std::string::npos; at = other.find("-o two", at))
      other.replace(at, 6, "-o one");
    CHECK(other == content);
    // Paths given absolute on the command line are recorded relative to the working directory.
    CHECK(content.find(std::string(" ") + STRATA_SOURCE_DIR) == std::string::npos);
    CHECK(content.find(" " + dir.path()) == std::string::npos);
  }
}

TEST_CASE("generate refuses to overwrite a directory that is not a Strata package", "[examples][bad]") {
  ScratchDir dir;
  dir.write("precious.txt", "keep me");
  const std::string args = "generate --arch " + source_path("archs/x86-avx2.yaml") + " --op " +
                           source_path("ops/sgemm.yaml") + " --no-profile -o " + dir.path();
  const auto refused = run_strata(args);
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("is not a Strata package") && Catch::Contains("--force"));
  CHECK(read_file(dir.path() + "/precious.txt") == "keep me");
  // A failure halfway (here: records for another architecture) leaves no directory behind.
  ScratchDir out;
  const auto mismatch = run_strata("generate --arch " + source_path("archs/zen4-avx512.yaml") + " --op " +
                                   source_path("ops/sgemm.yaml") + " --profile " +
                                   source_path("emitted_examples/strata_sgemm_x86_avx2/profile_records.yaml") +
                                   " -o " + out.path() + "/pkg");
  CHECK(mismatch.exit_code == 1);
  CHECK_THAT(mismatch.err, Catch::Contains("records were made for arch descriptor"));
  CHECK(!fs::exists(out.path() + "/pkg"));
  CHECK(fs::is_empty(out.path()));
}

TEST_CASE("generate with --no-profile models level 0 and says so", "[examples]") {
  ScratchDir dir;
  const auto r = run_strata("generate --arch " + source_path("archs/x86-avx2.yaml") + " --op " +
                                source_path("ops/sgemm.yaml") + " --no-profile -o pkg",
                            dir.path());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("--no-profile: level 0 is modelled"));
  CHECK(!fs::exists(dir.path() + "/pkg/profile_records.yaml"));
  CHECK_THAT(read_file(dir.path() + "/pkg/manifest.yaml"),
             Catch::Contains("level0: \"modelled (Eq. 3): no profile records were used\""));
}
