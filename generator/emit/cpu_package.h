// Renders the CPU fp32 GEMM package (x86-64 AVX-512 / AVX2, AArch64 NEON): every file of DESIGN.md's package layout,
// in memory.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "emit/provenance.h"
#include "plan/cpu_plan_config.h"
#include "profile/profile_kit.h"
#include "profile/records.h"
#include "render/template_renderer.h"
#include "render/ukernel_dict.h"
#include "select/select.h"

namespace strata {

struct PackageInputs {
  const Arch* arch = nullptr;
  const Op* op = nullptr;
  const SieveResult* sieve = nullptr;
  strata_model::Machine machine{};
  const Selection* selection = nullptr;
  std::vector<const UnitSelection*> extra_units;  // GPU: kernels of other units beside the selection's
  std::vector<double> level0_seconds;             // per level-0 candidate: profiled tile time, 0 when modelled
  const ProfileRecords* records = nullptr;        // null: level 0 modelled
  bool level1_profiled = false;                   // the selection's level-1 times are records->level1's
  std::string records_yaml;                       // shipped as profile_records.yaml when records != nullptr
  std::string name;                               // package name, a C identifier
  Provenance provenance;                          // command line and input hashes (arch, op, records)
  // Relative path -> content of the inputs the package carries verbatim (kInputArch, kInputOp), so that its own
  // provenance command regenerates it.
  std::map<std::string, std::string> input_files;
};

// The configuration the package's planner reads (its dispatch_config.h and config.h render it): the selection's
// kernels, named as the package names them, the machine and the thresholds.
CpuPlanConfig cpu_plan_config(const PackageInputs& in);

// Relative path -> content, sorted. Throws strata::Error when the op or arch is outside what this backend emits.
std::map<std::string, std::string> render_cpu_package(const PackageInputs& in, TemplateRenderer& renderer);

// The micro-kernel of a level-0 CPU candidate.
UkernelSpec ukernel_for(const Arch& arch, const Op& op, const Candidate& level0);

// Per level-0 candidate of `sieve`, its profiled time per tile from `records`, or 0 where none was measured.
std::vector<double> level0_seconds_from(const Arch& arch, const Op& op, const SieveResult& sieve,
                                        const ProfileRecords& records);

// Whether `arch` asks for level 1 to be profiled: a CPU descriptor with `analyzer: profile` on level 1 (GPU levels
// are modelled whatever the descriptor says).
bool level1_profiling_asked(const Arch& arch);

// The measured level 1 (see Level1Profile) for every level-1 candidate of `sieve` over each of its children in
// `pool` (level-0 candidate indices), from `records`. *blocks receives all those tiles, as the kit's blocks to time.
// Empty unless `records` hold every one of them: a level half profiled and half modelled ranks nothing fairly.
Level1Profile level1_profile_from(const Arch& arch, const Op& op, const SieveResult& sieve,
                                  const std::vector<int>& pool, const ProfileRecords& records,
                                  std::vector<KitBlock>* blocks);

// Checks that this backend can emit `op` for `arch` (x86-64 AVX2/AVX-512 or AArch64 NEON, fp32, row-major A, B, C).
void check_cpu_support(const Arch& arch, const Op& op);

}  // namespace strata
