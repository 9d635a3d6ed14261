#include "common/process_status.h"

#include <fmt/format.h>
#include <sys/wait.h>

namespace strata {

std::string status_text(int status) {
  if (status == -1) return "could not be started";
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 127) return "exit status 127: command not found";
  // The shell reports a child killed by a signal as 128 + signal.
  if (code > 128 && code < 160) return fmt::format("exit status {}: killed by signal {}", code, code - 128);
  return fmt::format("exit status {}", code);
}

bool succeeded(int status) { return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0; }

}  // namespace strata
