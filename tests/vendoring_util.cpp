#include "vendoring_util.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace strata::test {

void run_logged(const std::string& command, const std::string& log) {
  const int status = std::system(("(" + command + ") >>" + log + " 2>&1").c_str());
  INFO(command << "\n" << read_file(log));
  REQUIRE(status == 0);
}

std::set<std::string> api_functions(const std::string& header, const std::string& name) {
  std::set<std::string> out;
  const std::regex declaration("_API [^(]*\\b(" + name + "\\w*)\\(");
  std::istringstream in(read_file(header));
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, declaration)) out.insert(m[1]);
  }
  return out;
}

std::set<std::string> nm_symbols(const std::string& command, const std::string& types, const ScratchDir& dir) {
  const std::string out = dir.path() + "/nm.out";
  run_logged(command + " >" + out, dir.path() + "/nm.log");
  std::set<std::string> symbols;
  std::istringstream in(read_file(out));
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string address, type, symbol;
    if (fields >> address >> type >> symbol && types.find(type) != std::string::npos) symbols.insert(symbol);
  }
  return symbols;
}

ForeignSymbols foreign_symbols(const std::string& library, const std::string& name, const std::string& other,
                               const ScratchDir& dir) {
  // The C++ standard library's templates and type information, the CUDA runtime's inline types (dim3), the
  // compiler's helpers.
  const std::regex standard(
      "_Z(N|NK)?(St|S[absiod]|9__gnu_cxx|4dim3).*|DW\\.ref\\.(__gxx_personality_v0|_ZTISt.*)|__clang_call_terminate");
  const auto global = nm_symbols("nm --defined-only " + library, "TDBRWVu", dir);
  const auto weak = nm_symbols("nm --defined-only " + library, "WVu", dir);
  const auto weak_other = nm_symbols("nm --defined-only " + other, "WVu", dir);
  ForeignSymbols out;
  out.weak = weak.size();
  for (const std::string& symbol : global)
    if (symbol.find(name) == std::string::npos && !std::regex_match(symbol, standard)) out.unprefixed.insert(symbol);
  for (const std::string& symbol : weak)
    if (weak_other.count(symbol) && !std::regex_match(symbol, standard)) out.shared_weak.insert(symbol);
  return out;
}

std::map<std::string, std::string> last_optimisation_flags(const std::string& compile_commands) {
  std::map<std::string, std::string> out;
  const std::regex command("\"command\": \"([^\"]*)\"");
  const std::string text = read_file(compile_commands);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), command); it != std::sregex_iterator(); ++it) {
    std::istringstream words((*it)[1].str());
    std::string last = "(none)", source, previous;
    for (std::string w; words >> w; previous = w) {
      if (w.rfind("-O", 0) == 0) last = w;
      if (previous == "-c") source = w;
    }
    INFO((*it)[1].str());
    REQUIRE(!source.empty());
    out[fs::path(source).filename().string()] = last;
  }
  return out;
}

}  // namespace strata::test
