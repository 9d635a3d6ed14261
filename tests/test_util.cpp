#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "strata_version.h"

namespace fs = std::filesystem;

namespace strata::test {

std::string source_path(const std::string& relative) { return std::string(STRATA_SOURCE_DIR) + "/" + relative; }

std::vector<std::string> shipped_specs(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(source_path(dir)))
    if (entry.path().extension() == ".yaml") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

ScratchDir::ScratchDir() {
  std::string templ = (fs::temp_directory_path() / "strata-test-XXXXXX").string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  path_ = templ;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::string ScratchDir::write(const std::string& name, const std::string& content) const {
  const std::string full = path_ + "/" + name;
  std::ofstream(full, std::ios::binary) << content;
  return full;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::map<std::string, std::string> read_tree(const std::string& root) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file())
      files[fs::relative(entry.path(), root).generic_string()] = read_file(entry.path().string());
  return files;
}

RunResult run_strata(const std::string& args, const std::string& cwd) {
  ScratchDir capture;
  const std::string out = capture.path() + "/out", err = capture.path() + "/err";
  std::string command = std::string(STRATA_CLI_PATH) + " " + args + " >" + out + " 2>" + err + " </dev/null";
  if (!cwd.empty()) command = "cd '" + cwd + "' && " + command;
  const int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace strata::test
