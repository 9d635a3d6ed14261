// Level-0 profiling on the host: the hybrid analyzer measures register tiles instead of modelling them, because
// the few cycles a micro-kernel loses to its loads, broadcasts and loop overhead decide which tile wins and no
// simple model predicts them. Where a descriptor asks for it, level-1 blocks are timed the same way.
//
// Profiling on the host is the profile kit (profile_kit.h) run here: the kit is rendered into a temporary
// directory, its files are compiled with the host compiler and the kit's own flags, its profiler runs once and
// writes the records file, and that file is loaded back. A kit built for a device and run there makes the same
// records by the same code.
#pragma once

#include <string>
#include <vector>

#include "profile/profile_kit.h"
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
// stamped with `arch` (name and content sha), `op_name`, the compiler (compiler_id) and this CPU (host_cpu_id).
// Every failure (no compiler, a compile error, a kernel whose result is wrong, a crash, an unreadable records
// file) throws strata::Error({"<profiler>", 0, 0}, ...) naming the failing command and the start of its error
// output; the temporary directory is removed in every case.
// With `blocks`, the level-1 tiles listed are timed too (see templates/cpu/kit/profiler.cpp.tpl) and come back as
// the records' level1 list; their kernels must be among `kernels`.
ProfileRecords profile_on_host(const Arch& arch, const std::string& op_name, const std::vector<UkernelSpec>& kernels,
                               const ProfileOptions& options, const std::vector<KitBlock>& blocks = {});

// Whether this host's CPU (and OS) runs micro-kernels of `isa`: the precondition of profile_on_host.
bool host_runs(VectorIsa isa);

// How records made with `compiler` name it ("GCC 12.2.0 for x86-64"): the kit's STRATA_KIT_COMPILER_ID
// (templates/cpu/kit/compiler_id.h) as that compiler's preprocessor expands it. Throws strata::Error when the
// compiler cannot be run.
std::string compiler_id(const std::string& compiler);

// How records made on this machine name its CPU: strata_kit::cpu_identity() of templates/cpu/kit/device_info.h,
// the code a kit runs on a device ("<brand>, <vendor> family F model M stepping S" from CPUID on x86-64).
std::string host_cpu_id();

}  // namespace strata
