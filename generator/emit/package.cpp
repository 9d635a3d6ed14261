#include "emit/package.h"

#include <fmt/format.h>

#include "emit/cuda_package.h"
#include "emit/package_writer.h"
#include "plan/cpu_planner.h"

namespace strata {

void check_package_support(const Arch& arch, const Op& op) {
  switch (arch.target) {
    case Target::x86_64:
    case Target::aarch64: check_cpu_support(arch, op); return;
    case Target::cuda: check_cuda_support(arch, op); return;
  }
  throw Error({arch.file, 0, 0}, fmt::format("no package backend emits target {} yet (architecture '{}')",
                                             to_string(arch.target), arch.name));
}

std::vector<bool> emittable_level0(const Arch& arch, const Op& op, const SieveResult& sieve) {
  return arch.target == Target::cuda ? cuda_emittable_level0(arch, op, sieve) : std::vector<bool>{};
}

SelectOptions select_options_for(const Arch& arch, const Op& op, const SieveResult& sieve,
                                 const strata_model::Machine& machine) {
  SelectOptions so;
  // A CPU package plans every call with its planner (direct, streamed and packed paths, thread counts), so the
  // selection ranks kernels by the planner's prices, each grid shape on one thread and on the descriptor's cores (a
  // package's default is the CPUs it may run on, a caller's choice often one).
  if (!arch.is_gpu()) {
    const CpuPlanConfig base = cpu_plan_machine(arch, machine);
    const int32_t cores = static_cast<int32_t>(machine.level[base.top_level].parallel_units);
    so.price = [base, cores](const strata_model::Tiling& tiling,
                             const std::vector<std::array<int64_t, kNumAxes>>& grid) {
      CpuPlanConfig config = base;
      config.kernels.push_back(cpu_plan_kernel("k0_candidate", tiling));
      const CpuPlanner planner(std::move(config));
      const size_t settings = cores > 1 ? 2 : 1;
      std::vector<double> seconds(settings * grid.size());
      for (size_t s = 0; s < grid.size(); ++s) {
        const CpuPlan plan = planner.plan(grid[s][0], grid[s][1], grid[s][2], cores);
        seconds[s] = plan.alone_seconds;
        if (settings > 1) seconds[grid.size() + s] = plan.seconds;
      }
      return seconds;
    };
  }
  so.level0_allowed = emittable_level0(arch, op, sieve);
  if (sieve.unit == ComputeUnit::cpu_fma)
    for (const Candidate& c : sieve.levels[0].candidates)
      so.level0_tie_break.push_back(cpu_loads_per_fma(arch, op, c));
  if (!arch.is_gpu()) {
    so.narrow_partner_rows = direct_tile_rows(arch.isa.vector);
    // A blocking variant costs a CPU package a table row: worth it at a tenth of a new kernel's gain.
    so.variant_gain = so.min_gain / 10.0;
  }
  if (arch.is_gpu()) so.whole_levels = 2;  // thread blocks run whole warp and block tiles, even at the edges
  // Occupancy and the block's k loop (templates/cuda/gpu_model.h), where the descriptor models them: for Tensor Core
  // blocks only. CUDA-core blocks keep Eqs. 5-7: the sieve counts about 184 registers for an 8x16 thread tile where
  // ptxas gives 255, so their occupancy would be wrong by a block per SM, and no CUDA-core timings fitted the terms.
  if (sieve.unit == ComputeUnit::tensor_core) so.gpu = gpu_sm(arch);
  // A modelled GPU level 0 ranks many warp tiles within a few percent of each other (the loads-and-issue model
  // cannot tell them apart more finely), and six of them left out the 128x128 blocks of 8x16 thread tiles that
  // the upper levels prefer; the selection is cheap enough to weigh more.
  if (arch.is_gpu()) so.level0_pool = kGpuLevel0Pool;
  // With occupancy modelled, the block level weighs every emittable Tensor Core warp tile: blocks of small warp tiles
  // share an SM four or more at a time and hide each other's waits, which a pool ranked by one warp's throughput
  // leaves out (on an H100, 64x64x64 blocks of 32x32 warp tiles, four per SM, ran 2000x3072x768 at 118 TFLOP/s,
  // 64x128x256 blocks of 32x64 ones at 97; neither warp tile was among the 32 best by level-0 throughput).
  if (strata_gpu::enabled(so.gpu)) so.level0_pool = sieve.levels[0].candidates.size();
  return so;
}

std::map<std::string, std::string> render_package(const PackageInputs& in, TemplateRenderer& renderer) {
  check_package_support(*in.arch, *in.op);
  std::map<std::string, std::string> files =
      in.arch->target == Target::cuda ? render_cuda_package(in, renderer) : render_cpu_package(in, renderer);
  // The licence every file's SPDX line names, verbatim: it is the licence text itself, so it carries no header.
  const ctemplate::TemplateDictionary none("license");
  files[kLicenseFile] = renderer.render("LICENSE.generated", none);
  // Verbatim as well: their sha256 is what the provenance headers list.
  for (const auto& [path, content] : in.input_files) files[path] = content;
  stamp_package_version(&files);
  return files;
}

size_t package_kernel_count(const std::map<std::string, std::string>& files) {
  const auto manifest = files.find(kManifestFile);
  if (manifest == files.end()) return 0;
  // Every backend's manifest lists its kernels as "kernels:" followed by "  - id: N" entries.
  size_t count = 0;
  for (size_t at = manifest->second.find("\n  - id: "); at != std::string::npos;
       at = manifest->second.find("\n  - id: ", at + 1))
    ++count;
  return count;
}

}  // namespace strata
