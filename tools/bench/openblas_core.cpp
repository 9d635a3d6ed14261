#include "openblas_core.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace strata_bench {
namespace {

// OpenBLAS's x86-64 cores whose SGEMM kernels use AVX2 and FMA (or AVX-512): any other choice on a CPU that has
// them is a fallback.
bool HasAvx2Kernels(const std::string& core) {
  const char* const cores[] = {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids", "Excavator"};
  for (const char* name : cores)
    if (core == name) return true;
  return false;
}

// The core OpenBLAS picks for this CPU: the plugin is loaded in a child process (the choice is made, and its
// threads started, when the library loads, so the parent must not load it before OPENBLAS_CORETYPE is settled),
// which writes openblas_get_corename() to a pipe. "" when that fails.
std::string ProbeCore(const std::string& plugin_path) {
  int fds[2];
  if (pipe(fds) != 0) return "";
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return "";
  }
  if (pid == 0) {
    close(fds[0]);
    void* handle = dlopen(plugin_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    // dlsym on the plugin's handle also searches the libraries it depends on, OpenBLAS among them.
    using CoreName = char* (*)();
    const auto core_name =
        handle != nullptr ? reinterpret_cast<CoreName>(dlsym(handle, "openblas_get_corename")) : nullptr;
    const char* name = core_name != nullptr ? core_name() : nullptr;
    if (name != nullptr) {
      const std::string text(name);
      if (write(fds[1], text.data(), text.size()) != static_cast<ssize_t>(text.size())) _exit(1);
    }
    _exit(name != nullptr ? 0 : 1);  // no exit(): the child must not run the parent's atexit handlers
  }
  close(fds[1]);
  std::string core;
  char buffer[64];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;) core.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  return core;
}

}  // namespace

std::string ChooseOpenBlasCore(const std::string& plugin_path) {
  if (const char* set = std::getenv("OPENBLAS_CORETYPE"))
    return std::string("OpenBLAS's kernels: OPENBLAS_CORETYPE=") + set + " was set in the environment.";
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return "";
  const std::string core = ProbeCore(plugin_path);
  if (core.empty()) return "OpenBLAS's kernels: could not ask OpenBLAS which core it picks; its own choice stands.";
  if (HasAvx2Kernels(core)) return "";
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512cd");
  const char* chosen = avx512 ? "SkylakeX" : "Haswell";
  setenv("OPENBLAS_CORETYPE", chosen, /*overwrite=*/1);
  return "OpenBLAS's kernels: on this CPU OpenBLAS picks its " + core + " kernels (a fallback for a CPU model it " +
         "does not know, without AVX2), so the harness set OPENBLAS_CORETYPE=" + chosen +
         ", the kernels a choice by the CPU's features gives (" + (avx512 ? "AVX-512" : "AVX2 and FMA") + ").";
}

}  // namespace strata_bench
