#include "verify/targets.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace strata {

const std::vector<TargetEntry>& verify_targets() {
  static const std::vector<TargetEntry> table = {
      {"x86_64", &x86_64_configs},
      {"aarch64", &aarch64_configs},
      {"cuda", &cuda_configs},
  };
  return table;
}

bool program_exists(const std::string& program) {
  if (program.empty()) return false;
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (access(((dir.empty() ? "." : dir) + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace strata
