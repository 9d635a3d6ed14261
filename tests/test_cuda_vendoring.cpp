// A generated CUDA package as a team vendors it: built shared into a parent project with no build type, and static on
// its own in Debug at -O0 with strict warnings as errors, installed, and linked from C through its CMake config and
// its pkg-config file, and beside a second package in one program. There is no GPU here, so the programs are linked,
// not run. The builds are the smallest the generator makes (one or two a100 sgemm kernels, sm_80 only) to keep the
// test short.
//
// It needs nvcc. Without it the test fails and says so, like the other CUDA builds; exclude it with '~[nvcc]'.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "test_util.h"
#include "vendoring_util.h"
#include "verify/targets.h"

namespace fs = std::filesystem;
using namespace strata::test;

namespace {

constexpr char kName[] = "cuda_vend";

// The host compiler's strict warnings, as errors, for the C++ sources and, through nvcc, for the host side of the .cu
// files; nvcc's own warnings as errors too.
constexpr char kStrictCxxFlags[] = "-Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Werror";
constexpr char kStrictCudaFlags[] =
    "-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Wconversion,-Wsign-conversion,-Wshadow,-Werror";

std::string generate_cuda(const ScratchDir& dir, const std::string& name, int kernels) {
  const std::string pkg = dir.path() + "/" + name;
  const RunResult generated =
      run_strata("generate --arch archs/a100.yaml --op ops/sgemm.yaml --no-profile " + std::string("--max-kernels ") +
                     std::to_string(kernels) + " --name " + name + " -o " + pkg,
                 source_path(""));
  INFO(generated.err);
  REQUIRE(generated.exit_code == 0);
  return pkg;
}

// The defined global and weak symbols of an object file or archive that keep default visibility, from readelf's
// symbol table (Num: Value Size Type Bind Vis Ndx Name).
std::set<std::string> default_visibility_symbols(const std::string& library, const ScratchDir& dir) {
  const std::string out = dir.path() + "/readelf.out";
  run_logged("readelf -sW " + library + " >" + out, dir.path() + "/readelf.log");
  std::set<std::string> symbols;
  std::istringstream in(read_file(out));
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string num, value, size, type, bind, visibility, section, name;
    if (!(fields >> num >> value >> size >> type >> bind >> visibility >> section >> name)) continue;
    if ((bind == "GLOBAL" || bind == "WEAK") && visibility == "DEFAULT" && section != "UND") symbols.insert(name);
  }
  return symbols;
}

}  // namespace

TEST_CASE("a vendored CUDA package builds optimised and warning-free, exports its API alone, links beside another",
          "[cuda][nvcc][vendoring]") {
  for (const char* tool : {"nvcc", "cmake", "cc", "nm", "readelf", "pkg-config"}) {
    INFO(tool << " is not on PATH; exclude these tests with '~[nvcc]' where there is no CUDA toolkit");
    REQUIRE(strata::program_exists(tool));
  }
  ScratchDir dir;
  const std::string log = dir.path() + "/log";
  const std::string pkg = generate_cuda(dir, kName, 1);
  const std::string header = pkg + "/include/" + kName + ".h";
  CHECK_THAT(read_file(header), Catch::Contains("#define CUDA_VEND_VERSION_STRING \"0."));
  const auto api = api_functions(header, kName);
  CHECK(api.count("cuda_vend_version") == 1);
  CHECK(api.count("cuda_vend_provenance") == 1);
  CHECK(api.size() >= 10);

  // A parent that vendors it with add_subdirectory, with no build type (CMake's default) and no CUDA of its own,
  // shared, and installs it.
  const std::string parent = dir.path() + "/parent";
  fs::create_directories(parent);
  dir.write("parent/CMakeLists.txt",
            std::string("cmake_minimum_required(VERSION 3.18)\nproject(parent LANGUAGES CXX)\nadd_subdirectory(") +
                pkg +
                " vendored)\nadd_executable(app app.cpp)\ntarget_link_libraries(app PRIVATE cuda_vend::cuda_vend)\n");
  dir.write("parent/app.cpp",
            "#include \"cuda_vend.h\"\nint main() {\n  cuda_vend_plan_t plan;\n"
            "  return cuda_vend_plan(64, 64, 64, &plan) == CUDA_VEND_OK ? 0 : 1;\n}\n");
  const std::string shared_prefix = dir.path() + "/shared";
  run_logged("cmake -S " + parent + " -B " + parent + "/build -DBUILD_SHARED_LIBS=ON -DCMAKE_CUDA_ARCHITECTURES=80 " +
                 "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_INSTALL_PREFIX=" + shared_prefix,
             log);
  run_logged("cmake --build " + parent + "/build --parallel 2 && cmake --install " + parent + "/build", log);

  // The dispatcher and every .cu file at -O3, though the parent asked for nothing (its own file has no -O at all).
  const auto flags = last_optimisation_flags(parent + "/build/compile_commands.json");
  CHECK(flags.at("app.cpp") == "(none)");
  CHECK(flags.at("dispatch.cpp") == "-O3");
  size_t cuda_files = 0;
  for (const auto& [file, flag] : flags)
    if (fs::path(file).extension() == ".cu") {
      INFO(file);
      CHECK(flag == "-O3");
      ++cuda_files;
    }
  CHECK(cuda_files == 3);  // the kernel, the split-K reduction and the transpose

  // The shared library exports the C API and nothing else; the documents are installed beside it.
  const auto exported = nm_symbols("nm -D --defined-only " + shared_prefix + "/lib/libcuda_vend.so", "TDBRVW", dir);
  CHECK(exported == api);
  for (const char* doc : {"README.md", "manifest.yaml", "LICENSE"}) {
    INFO(doc);
    CHECK(fs::exists(shared_prefix + "/share/doc/cuda_vend/" + doc));
  }

  // Static, on its own, in Debug at -O0 (inline functions stay out of line), strict warnings as errors on everything
  // it builds (library, selftest, bench): every symbol but the API is hidden there too. A second package, another
  // kernel set and so another version, static beside it.
  const std::string static_prefix = dir.path() + "/static";
  run_logged("cmake -S " + pkg + " -B " + dir.path() + "/static-build -DCMAKE_BUILD_TYPE=Debug " +
                 "-DCMAKE_CUDA_ARCHITECTURES=80 -DCUDA_VEND_OPTIMIZE=OFF '-DCMAKE_CXX_FLAGS=" + kStrictCxxFlags +
                 "' '-DCMAKE_CUDA_FLAGS=" + kStrictCudaFlags + "' -DCMAKE_INSTALL_PREFIX=" + static_prefix,
             log);
  run_logged(
      "cmake --build " + dir.path() + "/static-build --parallel 2 && cmake --install " + dir.path() + "/static-build",
      log);
  CHECK(default_visibility_symbols(static_prefix + "/lib/libcuda_vend.a", dir) == api);
  const std::string pkg_b = generate_cuda(dir, "cuda_vend_b", 2);
  run_logged("cmake -S " + pkg_b + " -B " + dir.path() + "/b-build -DCMAKE_BUILD_TYPE=Debug " +
                 "-DCMAKE_CUDA_ARCHITECTURES=80 -DCUDA_VEND_B_OPTIMIZE=OFF -DCUDA_VEND_B_BUILD_TESTS=OFF " +
                 "-DCUDA_VEND_B_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX=" + static_prefix,
             log);
  run_logged("cmake --build " + dir.path() + "/b-build --parallel 2 && cmake --install " + dir.path() + "/b-build",
             log);
  const ForeignSymbols foreign =
      foreign_symbols(static_prefix + "/lib/libcuda_vend.a", kName, static_prefix + "/lib/libcuda_vend_b.a", dir);
  CHECK(foreign.weak > 0);
  for (const std::string& symbol : foreign.unprefixed) FAIL_CHECK("outside the package's names: " << symbol);
  for (const std::string& symbol : foreign.shared_weak) FAIL_CHECK("weak in both packages: " << symbol);

  // A C project links each installed library with a C compiler, through the CMake config and through pkg-config:
  // the static one needs the C++ runtime and the CUDA runtime from its link interface, the shared one the CUDA
  // runtime. Linked only: whether they run depends on the machine's CUDA driver and loader paths, not the package.
  const std::string c_main =
      "#include <string.h>\n#include \"cuda_vend.h\"\nint main(void) {\n  cuda_vend_plan_t plan;\n"
      "  if (cuda_vend_plan(64, 64, 64, &plan) != CUDA_VEND_OK) return 1;\n"
      "  if (cuda_vend(8, 8, 8, 1.0f, NULL, 8, NULL, 8, 0.0f, NULL, 8, NULL) != CUDA_VEND_NULL_POINTER) return 2;\n"
      "  return strcmp(cuda_vend_version(), CUDA_VEND_VERSION_STRING) == 0 && cuda_vend_provenance() ? 0 : 3;\n"
      "}\n";
  fs::create_directories(dir.path() + "/c");
  dir.write("c/main.c", c_main);
  // Both static packages in one program, from C, at -O0.
  dir.write("c/both.c",
            "#include <string.h>\n#include \"cuda_vend.h\"\n#include \"cuda_vend_b.h\"\nint main(void) {\n"
            "  cuda_vend_plan_t plan;\n  cuda_vend_b_plan_t plan_b;\n"
            "  if (cuda_vend_plan(64, 64, 64, &plan) != CUDA_VEND_OK) return 1;\n"
            "  if (cuda_vend_b_plan(64, 64, 64, &plan_b) != CUDA_VEND_B_OK) return 2;\n"
            "  return strcmp(cuda_vend_version(), cuda_vend_b_version()) != 0 ? 0 : 3;\n}\n");
  fs::create_directories(dir.path() + "/c-both");
  dir.write("c-both/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.18)\nproject(c LANGUAGES C)\nfind_package(cuda_vend REQUIRED)\n"
            "find_package(cuda_vend_b REQUIRED)\nadd_executable(both " +
                dir.path() +
                "/c/both.c)\n"
                "target_link_libraries(both PRIVATE cuda_vend::cuda_vend cuda_vend_b::cuda_vend_b)\n");
  run_logged("cmake -S " + dir.path() + "/c-both -B " + dir.path() + "/c-both/build -DCMAKE_C_FLAGS=-O0 " +
                 "-DCMAKE_PREFIX_PATH=" + static_prefix + " && cmake --build " + dir.path() + "/c-both/build",
             log);
  dir.write("c/CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.18)\nproject(c LANGUAGES C)\nfind_package(cuda_vend REQUIRED)\n"
            "add_executable(app main.c)\ntarget_link_libraries(app PRIVATE cuda_vend::cuda_vend)\n");
  for (const std::string& prefix : {static_prefix, shared_prefix}) {
    INFO(prefix);
    const std::string build = prefix + "-c";
    run_logged(
        "cmake -S " + dir.path() + "/c -B " + build + " -DCMAKE_PREFIX_PATH=" + prefix + " && cmake --build " + build,
        log);
    run_logged("cc " + dir.path() + "/c/main.c $(PKG_CONFIG_PATH=" + prefix +
                   "/lib/pkgconfig pkg-config --cflags --libs cuda_vend) -o " + build + "/pc",
               log);
  }
}
