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

// The optimisation flag that decides each source's compile line (the last -O, or "(none)"), by the file name of the
// source (the word after -c), from compile_commands.json.
std::map<std::string, std::string> last_optimisation_flags(const std::string& compile_commands);

}  // namespace strata::test
