// Helpers for the tests that vendor a generated package (CPU and CUDA): running build steps into a log, and reading
// what the build made: the API a header declares, the symbols a library defines, the flags each source got.
#pragma once

#include <map>
#include <set>
#include <string>

#include "test_util.h"

namespace strata::test {

// Runs `command` with its output appended to `log`; on failure the test stops and shows the log.
void run_logged(const std::string& command, const std::string& log);

// The functions a package header marks with its export macro (<NAME>_API), whose names start with `name`.
std::set<std::string> api_functions(const std::string& header, const std::string& name);

// The third column of `nm` lines whose type is one of `types`, from the output of `command`.
std::set<std::string> nm_symbols(const std::string& command, const std::string& types, const ScratchDir& dir);

// What two static libraries of two packages would share in one program: the global symbols `library` defines that
// carry neither its package's `name` nor belong to the C++ standard library, the CUDA runtime's inline types or the
// compiler's helpers (the same code wherever they come from), and the weak definitions it has in common with `other`
// but those. Both empty: no Strata namespace or symbol is shared between the packages, even at -O0. `weak` gets the
// count of `library`'s weak definitions, so that a test can tell an empty list from an empty archive.
struct ForeignSymbols {
  std::set<std::string> unprefixed, shared_weak;
  size_t weak = 0;
};
ForeignSymbols foreign_symbols(const std::string& library, const std::string& name, const std::string& other,
                               const ScratchDir& dir);

// The optimisation flag that decides each source's compile line (the last -O, or "(none)"), by the file name of the
// source (the word after -c), from compile_commands.json.
std::map<std::string, std::string> last_optimisation_flags(const std::string& compile_commands);

}  // namespace strata::test
