#include "generate/gpu_units.h"

#include <fmt/format.h>

#include <algorithm>

#include "analyze/wgmma_family.h"
#include "common/error.h"
#include "emit/cuda_package.h"

namespace strata {
namespace {

constexpr int64_t kPartnerMaxM = 16;  // one m16 MMA tile: below this the Tensor Cores compute padding
constexpr size_t kPartnerKernels = 2;
constexpr size_t kWgmmaKernels = 6;

// The CUDA-core kernels an f16 package adds beside its Tensor Core kernels: the same sieve and selection, over a
// copy of the descriptor whose CUDA-core unit reads the op's input type (the kernels widen f16 to f32 as it
// leaves shared memory and run FMA at the fp32 peak the descriptor gives).
UnitSelection cuda_core_partner(const Arch& arch, const Op& op) {
  Arch partner = arch;
  auto& compute = partner.compute;
  compute.erase(std::remove_if(compute.begin(), compute.end(),
                               [](const ComputeSpec& c) { return c.unit != ComputeUnit::cuda_core; }),
                compute.end());
  for (ComputeSpec& c : compute) c.input = op.a_type;
  if (compute.empty())
    throw Error({arch.file, 0, 0}, fmt::format("architecture '{}' has no cuda_core compute unit, which the CUDA "
                                               "package needs for shapes the Tensor Cores leave idle",
                                               arch.name));
  UnitSelection u;
  u.unit = ComputeUnit::cuda_core;
  u.grid_max_m = kPartnerMaxM;
  u.sieve = run_sieve(partner, op).at(0);
  require_candidates(u.sieve, partner);
  u.machine = make_machine(partner, op, u.sieve);
  SelectOptions so;
  // Partners for the shapes where Tensor Cores idle (Helix, Figure 12: tiny M), not a second full kernel set:
  // selected over the grid's shapes with at most 16 rows, one m16 MMA tile.
  so.max_kernels = kPartnerKernels;
  so.grid_max_m = kPartnerMaxM;
  so.whole_levels = 2;
  so.level0_pool = kGpuLevel0Pool;
  so.level0_allowed = cuda_emittable_level0(partner, op, u.sieve);
  u.selection = select_kernels(u.sieve, u.machine, gpu_level0_seconds(partner, op, u.sieve), so);
  return u;
}

// The wgmma kernels of a Hopper package: the family ranked over the whole selection grid by its own SM parameters.
UnitSelection wgmma_unit(const Arch& arch, const Op& op) {
  UnitSelection u;
  u.unit = ComputeUnit::tensor_core;
  u.wgmma = true;
  u.sieve = wgmma_family(arch, op);
  u.machine = wgmma_machine(arch, op, u.sieve);
  u.sm = wgmma_sm(arch);
  SelectOptions so;
  so.max_kernels = kWgmmaKernels;
  so.level0_pool = u.sieve.levels[0].candidates.size();
  so.whole_levels = 2;
  so.gpu = u.sm;
  u.selection = select_kernels(u.sieve, u.machine, wgmma_level0_seconds(arch, u.sieve), so);
  return u;
}

}  // namespace

std::vector<UnitSelection> gpu_extra_units(const Arch& arch, const Op& op, ComputeUnit main_unit) {
  std::vector<UnitSelection> units;
  if (arch.target != Target::cuda) return units;
  if (main_unit == ComputeUnit::tensor_core) units.push_back(cuda_core_partner(arch, op));
  if (wgmma_applies(arch, op)) units.push_back(wgmma_unit(arch, op));
  return units;
}

}  // namespace strata
