// One entry point over the package backends: the generator asks here whether it can emit a package for an
// (arch, op) pair and renders it, without knowing which backend does the work.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "emit/cpu_package.h"

namespace strata {

// Every package carries the licence of its files and copies of the inputs it was generated from. Its provenance
// command runs in kInputsDir and names these copies and the package's own records, so that the package regenerates
// itself byte for byte whatever paths the first run was given.
inline constexpr char kLicenseFile[] = "LICENSE";
inline constexpr char kInputsDir[] = "inputs/";
inline constexpr char kInputArch[] = "arch.yaml";  // in kInputsDir
inline constexpr char kInputOp[] = "op.yaml";      // in kInputsDir

// Throws strata::Error naming the descriptor when no backend emits `op` for `arch`.
void check_package_support(const Arch& arch, const Op& op);

// Per level-0 candidate of `sieve`, whether the backend for arch's target can emit it; empty when it can emit
// them all. Selection passes this on (SelectOptions::level0_allowed).
std::vector<bool> emittable_level0(const Arch& arch, const Op& op, const SieveResult& sieve);

// The selection options a package for `arch` is generated with (before the command line's --max-kernels): what
// the backend can emit, the tie-break among CPU register tiles the profile cannot tell apart, and the GPU's
// whole tiles and wider pool. The tests that repeat the generator's selection use these too.
SelectOptions select_options_for(const Arch& arch, const Op& op, const SieveResult& sieve,
                                 const strata_model::Machine& machine);

// Relative path -> content of the whole package, from the backend for in.arch's target, with the LICENSE, the input
// copies and the version hash (stamp_package_version) added.
std::map<std::string, std::string> render_package(const PackageInputs& in, TemplateRenderer& renderer);

// The kernels a rendered package holds, as its manifest lists them (a CUDA package adds CUDA-core partners to the
// selection it was given, so the selection's size is not the package's).
size_t package_kernel_count(const std::map<std::string, std::string>& files);

}  // namespace strata
