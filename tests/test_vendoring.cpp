// A generated package as a team vendors it: licensed file by file, regenerated from its own inputs, built into a
// parent project with no build type and the parent's strict warnings, installed, linked from C, and linked beside
// another package into one program. The builds are few and small (two kernels, --no-profile) to keep the suite fast:
// one package built shared (gcc, optimised) and static (clang, -O0, selftest and bench included), and a second
// package static at -O0. The two static packages also run at the same time (tests/package_coexist).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"
#include "vendoring_util.h"

namespace fs = std::filesystem;
using namespace strata::test;

namespace {

constexpr char kStrictFlags[] = "-Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Werror";

bool have(const std::string& tool) { return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0; }

bool host_runs_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// Generates an AVX2 package named `name` with `kernels` kernels, modelled, into dir/name.
std::string generate(const ScratchDir& dir, const std::string& name, int kernels) {
  const auto r =
      run_strata("generate --arch " + source_path("archs/x86-avx2.yaml") + " --op " + source_path("ops/sgemm.yaml") +
                     " --no-profile --max-kernels " + std::to_string(kernels) + " --name " + name + " -o " + name,
                 dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir.path() + "/" + name;
}

}  // namespace

TEST_CASE("a package carries its licence and regenerates byte for byte from its own inputs", "[vendoring]") {
  ScratchDir dir;
  // Absolute paths, from elsewhere, and records that the package then carries: none of it may reach the package.
  const auto first =
      run_strata("generate --arch " + source_path("archs/x86-avx2.yaml") + " --op " + source_path("ops/sgemm.yaml") +
                     " --profile " + source_path("emitted_examples/strata_sgemm_x86_avx2/profile_records.yaml") +
                     " --max-kernels 3 -o " + dir.path() + "/made/pkg",
                 source_path("tools"));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const auto made = read_tree(dir.path() + "/made/pkg");

  for (const auto& [name, content] : made) {
    INFO(name);
    if (name.rfind("inputs/", 0) == 0) continue;  // verbatim copies: their sha256 is what the headers list
    if (name == "LICENSE") {
      CHECK_THAT(content, Catch::StartsWith("MIT No Attribution"));
      continue;
    }
    CHECK_THAT(content.substr(0, 200), Catch::Contains("SPDX-License-Identifier: MIT-0"));
  }
  CHECK(made.at("inputs/arch.yaml") == read_file(source_path("archs/x86-avx2.yaml")));
  CHECK(made.at("inputs/op.yaml") == read_file(source_path("ops/sgemm.yaml")));

  // From the package alone, under another name: the command its files record, run where they say.
  const std::string manifest = made.at("manifest.yaml");
  const std::string marker = "# Command (run in inputs/): strata ";
  const size_t at = manifest.find(marker);
  REQUIRE(at != std::string::npos);
  const std::string command = manifest.substr(at + marker.size(), manifest.find('\n', at) - at - marker.size());
  CHECK_THAT(command, Catch::Contains("--profile ../profile_records.yaml") && Catch::EndsWith("-o .."));
  fs::create_directories(dir.path() + "/vendored");
  fs::copy(dir.path() + "/made/pkg", dir.path() + "/vendored/gemm", fs::copy_options::recursive);
  const auto again = run_strata(command, dir.path() + "/vendored/gemm/inputs");
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  const auto regenerated = read_tree(dir.path() + "/vendored/gemm");
  REQUIRE(regenerated.size() == made.size());
  for (const auto& [name, content] : made) {
    INFO(name);
    REQUIRE(regenerated.count(name) == 1);
    CHECK(regenerated.at(name) == content);
  }
}

TEST_CASE("a vendored package builds optimised, exports its API alone, links from C beside another package",
          "[vendoring][package]") {
  for (const char* tool : {"cmake", "g++", "cc", "nm", "pkg-config"}) {
    INFO(tool);
    REQUIRE(have(tool));
  }
  const bool run_programs = host_runs_avx2();
  if (!run_programs) WARN("this host does not run AVX2: the programs are built but not run");
  ScratchDir dir;
  const std::string log = dir.path() + "/log";
  const std::string pkg_a = generate(dir, "vend_a", 2);
  const std::string pkg_b = generate(dir, "vend_b", 1);  // another kernel set: another version
  CHECK(read_file(pkg_a + "/include/vend_a.h").find("#define VEND_A_VERSION_STRING \"0.") != std::string::npos);

  // A parent that vendors it with add_subdirectory, with no build type and its own strict warnings, shared.
  const std::string parent = dir.path() + "/parent";
  fs::create_directories(parent);
  dir.write("parent/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.18)\nproject(parent LANGUAGES CXX)\n"
            "add_subdirectory(" +
                pkg_a +
                " vend_a)\nadd_executable(app app.cpp)\n"
                "target_link_libraries(app PRIVATE vend_a::vend_a)\n");
  dir.write("parent/app.cpp",
            "#include \"vend_a.h\"\nint main() {\n  float a = 2, b = 3, c = 0;\n"
            "  return vend_a(1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1) == VEND_A_OK && c == 6.0f ? 0 : 1;\n}\n");
  const std::string shared_prefix = dir.path() + "/shared";
  run_logged("cmake -S " + parent + " -B " + parent + "/build -DCMAKE_CXX_COMPILER=g++ -DBUILD_SHARED_LIBS=ON " +
                 "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON '-DCMAKE_CXX_FLAGS=" + kStrictFlags +
                 "' -DCMAKE_INSTALL_PREFIX=" + shared_prefix,
             log);
  run_logged("cmake --build " + parent + "/build --parallel 2 && cmake --install " + parent + "/build", log);
  if (run_programs) run_logged(parent + "/build/app", log);

  // Kernels and dispatcher at -O3 whatever the parent asked (here nothing: its own file has no -O at all).
  const auto flags = last_optimisation_flags(parent + "/build/compile_commands.json");
  CHECK(flags.at("app.cpp") == "(none)");
  CHECK(flags.at("dispatch.cpp") == "-O3");
  size_t kernel_files = 0;
  for (const auto& [file, flag] : flags)
    if (file.rfind("ukernel_", 0) == 0) {
      INFO(file);
      CHECK(flag == "-O3");
      ++kernel_files;
    }
  CHECK(kernel_files == 2);

  // The shared library exports the C API and nothing else.
  const auto api = api_functions(pkg_a + "/include/vend_a.h", "vend_a");
  CHECK(api.size() >= 14);
  const auto exported = nm_symbols("nm -D --defined-only " + shared_prefix + "/lib/libvend_a.so", "TDBRV", dir);
  CHECK(exported == api);
  for (const char* doc : {"README.md", "manifest.yaml", "LICENSE"}) {
    INFO(doc);
    CHECK(fs::exists(shared_prefix + "/share/doc/vend_a/" + doc));
  }

  // The same package static, on its own, with clang if there is one: -O0 (so inline functions stay out of line),
  // strict warnings as errors on everything it builds (library, selftest, bench). The second package beside it.
  const std::string static_prefix = dir.path() + "/static";
  const std::string clang = have("clang++") ? "clang++" : "g++";
  if (clang != "clang++") WARN("clang++ not found: the static build uses g++");
  run_logged("cmake -S " + pkg_a + " -B " + dir.path() + "/a-static -DCMAKE_CXX_COMPILER=" + clang +
                 " -DCMAKE_BUILD_TYPE=Debug -DVEND_A_OPTIMIZE=OFF '-DCMAKE_CXX_FLAGS=" + kStrictFlags +
                 "' -DCMAKE_INSTALL_PREFIX=" + static_prefix,
             log);
  run_logged("cmake --build " + dir.path() + "/a-static --parallel 2 && cmake --install " + dir.path() + "/a-static",
             log);
  run_logged("cmake -S " + pkg_b + " -B " + dir.path() +
                 "/b-static -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Debug " +
                 "-DVEND_B_OPTIMIZE=OFF -DVEND_B_BUILD_TESTS=OFF -DVEND_B_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX=" +
                 static_prefix,
             log);
  run_logged("cmake --build " + dir.path() + "/b-static --parallel 2 && cmake --install " + dir.path() + "/b-static",
             log);

  // No Strata namespace or symbol is shared between the packages, even at -O0 (see foreign_symbols).
  const ForeignSymbols foreign =
      foreign_symbols(static_prefix + "/lib/libvend_a.a", "vend_a", static_prefix + "/lib/libvend_b.a", dir);
  CHECK(foreign.weak > 0);
  for (const std::string& symbol : foreign.unprefixed) FAIL_CHECK("outside the package's names: " << symbol);
  for (const std::string& symbol : foreign.shared_weak) FAIL_CHECK("weak in both packages: " << symbol);

  // A C project links both static packages into one program (find_package), the shared one, and the static one
  // through pkg-config.
  const std::string c_main =
      "#include <string.h>\n#include \"vend_a.h\"\n#include \"vend_b.h\"\nint main(void) {\n"
      "  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {0}, d[4] = {0};\n"
      "  if (vend_a(2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2) != VEND_A_OK) return 1;\n"
      "  if (vend_b(2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, d, 2) != VEND_B_OK) return 2;\n"
      "  if (c[0] != 19.0f || c[3] != 50.0f || memcmp(c, d, sizeof c) != 0) return 3;\n"
      "  if (strcmp(vend_a_version(), VEND_A_VERSION_STRING) != 0) return 4;\n"
      "  return strcmp(vend_a_version(), vend_b_version()) != 0 && strstr(vend_a_provenance(), \"arch.yaml\") ? 0 : "
      "5;\n"
      "}\n";
  fs::create_directories(dir.path() + "/c");
  dir.write("c/main.c", c_main);
  dir.write("c/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.18)\nproject(c LANGUAGES C)\nfind_package(vend_a REQUIRED)\n"
            "find_package(vend_b REQUIRED)\nadd_executable(both main.c)\n"
            "target_link_libraries(both PRIVATE vend_a::vend_a vend_b::vend_b)\n");
  run_logged("cmake -S " + dir.path() + "/c -B " + dir.path() + "/c/build -DCMAKE_C_FLAGS=-O0 -DCMAKE_PREFIX_PATH=" +
                 static_prefix + " && cmake --build " + dir.path() + "/c/build",
             log);
  fs::create_directories(dir.path() + "/c-shared");
  dir.write("c-shared/main.c",
            "#include \"vend_a.h\"\nint main(void) {\n  float a = 2, b = 3, c = 0;\n"
            "  return vend_a(1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1) == VEND_A_OK && c == 6.0f ? 0 : 1;\n}\n");
  dir.write("c-shared/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.18)\nproject(c LANGUAGES C)\nfind_package(vend_a REQUIRED)\n"
            "add_executable(one main.c)\ntarget_link_libraries(one PRIVATE vend_a::vend_a)\n");
  run_logged("cmake -S " + dir.path() + "/c-shared -B " + dir.path() + "/c-shared/build -DCMAKE_PREFIX_PATH=" +
                 shared_prefix + " && cmake --build " + dir.path() + "/c-shared/build",
             log);
  run_logged("cc " + dir.path() + "/c/main.c $(PKG_CONFIG_PATH=" + static_prefix +
                 "/lib/pkgconfig pkg-config --cflags --libs vend_a vend_b) -o " + dir.path() + "/c/pc",
             log);
  // The two packages called at the same time under their default threads keep to their share of the CPUs.
  run_logged("c++ -std=c++17 -O1 -pthread " + source_path("tests/package_coexist/coexist.cpp") +
                 " $(PKG_CONFIG_PATH=" + static_prefix +
                 "/lib/pkgconfig pkg-config --cflags --libs vend_a vend_b) -o " + dir.path() + "/coexist",
             log);
  if (run_programs) {
    run_logged(dir.path() + "/c/build/both", log);
    run_logged(dir.path() + "/c-shared/build/one", log);
    run_logged(dir.path() + "/c/pc", log);
    run_logged(dir.path() + "/coexist", log);
  }
}
