// Level-0 profiling on the host (x86-64, AVX-512 or AVX2): the hybrid analyzer measures register tiles instead
// of modelling them, because the few cycles a micro-kernel loses to its loads, broadcasts and loop overhead
// decide which tile wins and no simple model predicts them.
//
// The profiler renders the very micro-kernel template the package ships (templates/cpu/ukernel.cpp.tpl, with its
// PROFILE_ENTRY section) plus a timing main (templates/cpu/profiler.cpp.tpl), compiles them with the host
// compiler in a temporary directory, runs the result once and reads one line per kernel back.
#pragma once

#include <string>
#include <vector>

#include "profile/records.h"
#include "render/ukernel_dict.h"
#include "spec/arch.h"

namespace strata {

struct ProfileOptions {
  // Compiler command (split by the shell, so "ccache g++" works); gcc/clang option spelling.
  std::string compiler = "c++";
  std::string templates_dir;  // empty: default_templates_dir()
  bool progress = false;      // progress lines on stderr; the CLI sets it to isatty(2)
  int jobs = 2;               // translation units compiled in parallel
  int depth = 256;            // k of each timed call
  int rounds = 3;             // passes over all kernels; a kernel's time is its fastest pass (see the template)
};

// Profiles every kernel of `kernels` (unique names, all of an ISA this host runs) and returns their records,
// stamped with `arch` (name and content sha) and `op_name`. Every failure (no compiler, a compile error, a kernel
// whose result is wrong, a crash, unreadable output) throws strata::Error({"<profiler>", 0, 0}, ...) naming the
// failing command and the start of its error output; the temporary directory is removed in every case.
ProfileRecords profile_on_host(const Arch& arch, const std::string& op_name, const std::vector<UkernelSpec>& kernels,
                               const ProfileOptions& options);

// Whether this host's CPU (and OS) runs micro-kernels of `isa`: the precondition of profile_on_host.
bool host_runs(VectorIsa isa);

// The first line of `<compiler> --version`: how records name the compiler that built the profiled kernels. Throws
// strata::Error when the compiler cannot be run.
std::string compiler_id(const std::string& compiler);

// "<brand string>, <vendor> family F model M stepping S" from CPUID (x86-64), or a note that it is unknown.
std::string host_cpu_id();

}  // namespace strata
