// Inputs that once crashed, hung or slipped through the generator: each is now a one-line, printable
// `file:line:col` error with a non-zero exit, found before the work it would have spoiled. One test per failure,
// named after what it guards.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>

#include "common/c_names.h"
#include "spec_fixtures.h"
#include "test_util.h"

using namespace strata::test;

namespace {

std::string avx2_with(const std::string& from, const std::string& to) {
  return replaced(read_file(source_path("archs/x86-avx2.yaml")), from, to);
}

// One line, printable ASCII or UTF-8, naming the file and position.
void check_one_line_error(const RunResult& r, const std::string& located) {
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind("strata: error: " + located, 0) == 0);
  CHECK(r.err.find('\n') == r.err.size() - 1);
  for (const char c : r.err.substr(0, r.err.size() - 1)) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));
}

// Runs `strata generate ... -o pkg` in `cwd`, killing it with SIGKILL if it is still running after `delay`.
void generate_and_kill(const std::string& cwd, const std::string& max_kernels, std::chrono::milliseconds delay) {
  const std::string arch = source_path("archs/x86-avx2.yaml"), op = source_path("ops/sgemm.yaml");
  std::vector<std::string> args = {
      STRATA_CLI_PATH, "generate", "--no-profile", "--max-kernels", max_kernels, "--arch", arch,
      "--op",          op,         "-o",           cwd + "/pkg"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, STRATA_CLI_PATH, &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  const auto deadline = std::chrono::steady_clock::now() + delay;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
}

}  // namespace

TEST_CASE("a killed generate leaves the old package or the new one, and the next run removes its temporaries",
          "[hostile]") {
  ScratchDir dir;
  const std::string pkg = dir.path() + "/pkg";
  generate_and_kill(dir.path(), "3", std::chrono::seconds(20));
  const auto new_files = read_tree(pkg);
  generate_and_kill(dir.path(), "2", std::chrono::seconds(20));
  const auto old_files = read_tree(pkg);
  REQUIRE(old_files != new_files);
  for (int round = 0; round < 8; ++round) {
    generate_and_kill(dir.path(), "3", std::chrono::milliseconds(50 + 110 * round));
    const auto files = read_tree(pkg);
    CHECK((files == old_files || files == new_files));
    if (files == new_files) generate_and_kill(dir.path(), "2", std::chrono::seconds(20));
  }
  generate_and_kill(dir.path(), "2", std::chrono::seconds(20));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().find("strata-tmp") == std::string::npos);
}

TEST_CASE("a register file too small for any tile is an error, not a read past the candidates", "[hostile]") {
  ScratchDir dir;
  dir.write("arch.yaml", avx2_with("vector_registers: 16", "vector_registers: 1"));
  for (const std::string command : {"generate --no-profile -o pkg", "model --shape 64,64,64", "profile-kit -o kit"}) {
    const auto r = run_strata(command + " --arch arch.yaml --op " + source_path("ops/sgemm.yaml"), dir.path());
    check_one_line_error(r, "arch.yaml:");
    CHECK_THAT(r.err, Catch::Contains("keeps no candidate") && Catch::Contains("isa.register_budget"));
  }
}

TEST_CASE("a dimension fixed at zero is refused when the spec loads", "[hostile]") {
  ScratchDir dir;
  dir.write("op.yaml", replaced(read_file(source_path("ops/sgemm.yaml")), "  m: {}", "  m: {max: 0}"));
  const auto r = run_strata("generate --no-profile -o pkg --op op.yaml --arch " + source_path("archs/x86-avx2.yaml"),
                            dir.path());
  check_one_line_error(r, "op.yaml:18:12: dims.m: 'max' must be >= 1, found 0");
}

TEST_CASE("descriptor lists are short and hold distinct values", "[hostile]") {
  ScratchDir dir;
  std::string many = "k_unroll: [1";
  for (int i = 0; i < 200000; ++i) many += ", 1";
  dir.write("long.yaml", avx2_with("k_unroll: [1, 2, 4, 8]", many + "]"));
  check_one_line_error(run_strata("check long.yaml", dir.path()),
                       "long.yaml:21:13: isa: 'k_unroll' lists 200001 values");
  dir.write("twice.yaml", avx2_with("k_unroll: [1, 2, 4, 8]", "k_unroll: [1, 2, 4, 2]"));
  check_one_line_error(run_strata("check twice.yaml", dir.path()), "twice.yaml:21:23: isa: 'k_unroll' lists 2 twice");
}

TEST_CASE("the candidate space is bounded before a level is enumerated", "[hostile]") {
  ScratchDir dir;
  std::string multiples = "tile_multiples: [1";
  for (int i = 2; i <= 64; ++i) multiples += ", " + std::to_string(i);
  dir.write("arch.yaml", avx2_with("tile_multiples: [1, 2, 4, 8, 16]", multiples + "]"));
  const auto start = std::chrono::steady_clock::now();
  for (const std::string command : {"sieve", "model --shape 64,64,64", "generate --no-profile -o pkg"}) {
    const auto r = run_strata(command + " --arch arch.yaml --op " + source_path("ops/sgemm.yaml"), dir.path());
    check_one_line_error(r, "arch.yaml:107:5: level 'cores' would consider");
    CHECK_THAT(r.err, Catch::Contains("the most a level may"));
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("package names that are keywords or reserved identifiers are refused", "[hostile]") {
  for (const std::string bad : {"int", "and", "main", "typeof", "_Z", "_lower", "a__b", "pkg_", "1x", "a-b", ""})
    CHECK_FALSE(strata::package_name_problem(bad).empty());
  for (const std::string good : {"strata_sgemm", "gemm2", "Linear", "x"})
    CHECK(strata::package_name_problem(good).empty());
  ScratchDir dir;
  const std::string specs =
      " --arch " + source_path("archs/x86-avx2.yaml") + " --op " + source_path("ops/sgemm.yaml");
  check_one_line_error(run_strata("generate --no-profile -o pkg --name int" + specs, dir.path()),
                       "--name: 'int' cannot name a package: it is a C or C++ keyword");
  // A spec name becomes part of the default package name, strata_<op>_<arch>.
  dir.write("op.yaml", replaced(read_file(source_path("ops/sgemm.yaml")), "name: sgemm", "name: _Z"));
  check_one_line_error(run_strata("check op.yaml", dir.path()),
                       "op.yaml:5:7: operator spec: 'name' '_Z' starts with");
}

TEST_CASE("errors about binary and escape-laden input are one printable line", "[hostile]") {
  ScratchDir dir;
  dir.write("esc.yaml", "schema: strata-op/1\nname: \"a\\x01\\e[31mred\\nnext\\u202e\"\n");
  const auto esc = run_strata("check esc.yaml", dir.path());
  check_one_line_error(esc, "esc.yaml:2:7:");
  CHECK_THAT(esc.err, Catch::Contains("a\\x01\\x1b[31mred\\x0anext\\u{202E}"));
  const char binary[] =
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\xff\xfe\n\x1b[2J:";
  dir.write("bin.yaml", std::string(binary, sizeof binary - 1));
  check_one_line_error(run_strata("check bin.yaml", dir.path()), "bin.yaml");
}
