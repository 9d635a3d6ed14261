// Helpers shared by the tests: the shipped spec files, scratch files, running the strata CLI.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace strata::test {

std::string source_path(const std::string& relative);            // a path inside the source tree
std::vector<std::string> shipped_specs(const std::string& dir);  // sorted *.yaml of archs/ or ops/

// A scratch directory removed when the object goes away.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `content` to <dir>/<name> and returns the full path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

std::string read_file(const std::string& path);

// Every regular file below `root`, by path relative to it (with / separators), with its content.
std::map<std::string, std::string> read_tree(const std::string& root);

struct RunResult {
  int exit_code;
  std::string out;
  std::string err;
};
// Runs the strata CLI with `args` (already shell-quoted where needed) in `cwd`.
RunResult run_strata(const std::string& args, const std::string& cwd = "");

}  // namespace strata::test
