// Free text in the inputs (descriptions, `source:` strings, a records file's names, the output path on the command
// line) cannot change the meaning of any emitted file: a package generated from specs carrying comment closers,
// newlines, preprocessor and CMake commands, template markers, backslashes, NUL, control and bidirectional
// characters in every such field configures and builds with warnings as errors, runs nothing it was handed, and
// declares nothing it was handed.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/inert_text.h"
#include "common/sha256.h"
#include "test_util.h"

using namespace strata;
using namespace strata::test;

namespace {

// Every way out of a comment, a string or a line the emitted syntaxes have, each followed by code that would
// show if it ran: a declaration (C), a directive (C, CMake's own text), a CMake command, a template marker.
const std::string kHostile = std::string(
                                 "x */ int injected_close_comment = 1; /* y\n"
                                 "#define INJECTED_DEFINE 1\n"
                                 "message(FATAL_ERROR \"INJECTED_CMAKE_EXECUTED\")\n"
                                 "# {{PACKAGE}} {{#KERNEL}} ?\?/\n"
                                 "int injected_after_trigraph = 1; \\\n"
                                 "int injected_after_splice = 1;\r\t\x01\x1b[2J <script>--> \xe2\x80\xae bidi \xff") +
                             std::string(1, '\0') + "nul\\";

// Replaces every scalar under the keys `description`, `source` and `launch_source`, at any depth.
void poison(YAML::Node node) {
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      if ((key == "description" || key == "source" || key == "launch_source") && it->second.IsScalar())
        it->second = kHostile;
      else
        poison(it->second);
    }
  } else if (node.IsSequence()) {
    for (auto item : node) poison(item);
  }
}

std::string poisoned_yaml(const std::string& shipped) {
  YAML::Node root = YAML::LoadFile(source_path(shipped));
  poison(root);
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

bool run(const std::string& command) { return std::system(command.c_str()) == 0; }

// No raw control byte but the newline, and no bidirectional override, anywhere in the package but inputs/, which
// holds the specs themselves, byte for byte (data a generator reads, never compiled or configured).
void check_bytes(const std::string& dir) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().parent_path().filename() == "inputs") continue;
    const std::string text = read_file(entry.path().string());
    INFO(entry.path().string());
    CHECK(text.find("\xe2\x80\xae") == std::string::npos);
    CHECK(text.find('\0') == std::string::npos);
    CHECK(text.find('\r') == std::string::npos);
    CHECK(text.find('\x1b') == std::string::npos);
  }
}

// A C and a C++ translation unit that include the package header and would not compile if the header declared or
// defined anything it was handed; C is compiled with trigraphs on, as ISO C compilers read them.
void check_header(const ScratchDir& dir, const std::string& header) {
  const std::string probe =
      dir.write("probe.c", "#include \"" + header +
                               "\"\n"
                               "#ifdef INJECTED_DEFINE\n#error INJECTED_DEFINE reached the header\n#endif\n"
                               "static double injected_close_comment[2];\n"
                               "static double injected_after_trigraph[2];\n"
                               "static double injected_after_splice[2];\n"
                               "int main(void) { return (int)(injected_close_comment[0] + "
                               "injected_after_trigraph[0] + injected_after_splice[0]); }\n");
  const bool c_ok =
      run("cc -std=c11 -trigraphs -Wall -Wextra -Werror -fsyntax-only " + probe + " 2> " + dir.path() + "/c.log");
  const bool cxx_ok =
      run("c++ -x c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only " + probe + " 2> " + dir.path() + "/cxx.log");
  INFO(read_file(dir.path() + "/c.log") + read_file(dir.path() + "/cxx.log"));
  CHECK(c_ok);
  CHECK(cxx_ok);
}

}  // namespace

TEST_CASE("inert text: each syntax's delimiters are broken and the text stays one printable line", "[inject]") {
  for (const std::string& s : {printable_line(kHostile), c_comment_text(kHostile), hash_comment_text(kHostile),
                               markdown_text(kHostile), html_comment_text(kHostile)}) {
    INFO(s);
    CHECK(s.find('\n') == std::string::npos);
    CHECK(s.find('\r') == std::string::npos);
    CHECK(s.find('\0') == std::string::npos);
    CHECK(s.find("{{") == std::string::npos);
    CHECK(s.back() != '\\');
    for (const char c : s) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));
  }
  const std::string c = c_comment_text(kHostile + "/*/ */*");
  CHECK(c.find("*/") == std::string::npos);
  CHECK(c.find("/*") == std::string::npos);
  CHECK(c.find("??") == std::string::npos);
  CHECK(c_comment_text("?\?\?/") == "?\\?\\?/");
  CHECK(html_comment_text("a --> b").find("-->") == std::string::npos);
  CHECK(markdown_text("<b>*x*</b> [l](u)") == "\\<b\\>\\*x\\*\\</b\\> \\[l\\](u)");
  CHECK(printable_line("caf\xc3\xa9 \xe2\x80\x8b") == "caf\xc3\xa9 \\u{200B}");
  CHECK(printable_line("\xc0\xaf") == "\\xc0\\xaf");  // an overlong '/' is not UTF-8
  // YAML keeps the text exactly where it is UTF-8.
  const std::string exact = "a\"b\\c\nd\te\x01 \xe2\x80\xae";
  CHECK(YAML::Load("v: " + yaml_quoted(exact))["v"].as<std::string>() == exact);
}

TEST_CASE("spec text reaches a CPU package only inert", "[inject][package]") {
  ScratchDir dir;
  const std::string arch = dir.write("arch.yaml", poisoned_yaml("archs/x86-avx2.yaml"));
  const std::string op = dir.write("op.yaml", poisoned_yaml("ops/sgemm.yaml"));
  // The committed records of the AVX2 example, re-keyed to the poisoned descriptor, with poisoned names.
  YAML::Node records = YAML::LoadFile(source_path("emitted_examples/strata_sgemm_x86_avx2/profile_records.yaml"));
  records["arch_sha256"] = sha256_hex(read_file(arch));
  records["compiler"] = kHostile;
  records["cpu"] = kHostile;
  records["method"] = kHostile;
  YAML::Emitter emitted;
  emitted << records;
  dir.write("records.yaml", std::string(emitted.c_str()) + "\n");
  // The output path carries the hostile text too (less the NUL, which no path holds): it is on the command line
  // every provenance header quotes.
  const std::string out_name = "pkg */ \n#define INJECTED_DEFINE 1\n\xe2\x80\xae";
  const auto gen =
      run_strata("generate --max-kernels 1 --arch arch.yaml --op op.yaml --profile records.yaml --name hostile -o '" +
                     out_name + "'",
                 dir.path());
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  CHECK(gen.err.find("\n#define") == std::string::npos);  // status lines stay one printable line each
  CHECK(gen.err.find("\xe2\x80\xae") == std::string::npos);
  // CMake cannot build from a directory whose name holds a newline; the package moves to a plain one.
  const std::string pkg = dir.path() + "/pkg";
  std::filesystem::rename(dir.path() + "/" + out_name, pkg);
  check_bytes(pkg);
  check_header(dir, pkg + "/include/hostile.h");
  const std::string log = dir.path() + "/build.log";
  const bool built =
      run("cmake -S '" + pkg + "' -B " + dir.path() + "/build -DHOSTILE_WERROR=ON -DHOSTILE_BUILD_BENCH=OFF > " +
          log + " 2>&1 && cmake --build " + dir.path() + "/build --parallel 2 >> " + log + " 2>&1");
  const std::string output = read_file(log);
  INFO(output);
  CHECK(built);
  CHECK(output.find("INJECTED") == std::string::npos);
}

TEST_CASE("spec text reaches a CUDA package only inert", "[inject][cuda]") {
  ScratchDir dir;
  dir.write("arch.yaml", poisoned_yaml("archs/h100.yaml"));
  dir.write("op.yaml", poisoned_yaml("ops/hgemm_tc.yaml"));
  const auto gen = run_strata("generate --arch arch.yaml --op op.yaml --name hostile -o pkg", dir.path());
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  check_bytes(dir.path() + "/pkg");
  check_header(dir, dir.path() + "/pkg/include/hostile.h");
  // CMake reads the whole file when it configures; only a CUDA toolchain lets it get that far.
  if (!run("command -v nvcc > /dev/null 2>&1")) return;
  const std::string log = dir.path() + "/configure.log";
  const bool configured = run("cmake -S " + dir.path() + "/pkg -B " + dir.path() +
                              "/build -DCMAKE_CUDA_ARCHITECTURES=90 > " + log + " 2>&1");
  const std::string output = read_file(log);
  INFO(output);
  CHECK(configured);
  CHECK(output.find("INJECTED") == std::string::npos);
}
