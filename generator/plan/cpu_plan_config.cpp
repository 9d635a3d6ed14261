#include "plan/cpu_plan_config.h"

#include <utility>

#include "render/ukernel_dict.h"

namespace strata {

CpuPlanConfig cpu_plan_machine(const Arch& arch, const strata_model::Machine& machine) {
  CpuPlanConfig c;
  c.machine = machine;
  c.top_level = machine.num_levels - 1;
  const MemorySpec& block_memory = arch.memory_of(arch.levels.at(1));
  c.direct_cache = block_memory.name;
  c.direct_bytes = block_memory.capacity_bytes / 2;
  c.stream_a_bytes = block_memory.capacity_bytes;
  // The cache register tiles load their operands from: the smallest one (the first-level data cache).
  const MemorySpec* tile_memory = &block_memory;
  for (const MemorySpec& m : arch.memories)
    if (m.kind == MemoryKind::cache && m.capacity_bytes > 0 && m.capacity_bytes < tile_memory->capacity_bytes)
      tile_memory = &m;
  c.tile_cache = tile_memory->name;
  c.tile_cache_bytes = tile_memory->capacity_bytes / 2;
  const int ways = tile_memory->associativity;
  c.tile_cache_way_bytes = ways > 0 ? tile_memory->capacity_bytes / ways : 0;
  c.line_bytes = tile_memory->line_bytes;
  const MemorySpec& outer_memory = arch.memory_of(arch.levels.back());
  c.outer_cache = outer_memory.name;
  c.outer_bytes = outer_memory.capacity_bytes / 2;
  c.vector_floats = arch.isa.vector_bits / 32;
  c.fma_chains = arch.isa.fma_chains();
  c.fma_pipes = arch.isa.fma_pipes;
  c.half_fma_pipes = arch.isa.half_fma_pipes();
  c.vector_registers = arch.isa.vector_registers;
  c.direct_rows = direct_tile_rows(arch.isa.vector);
  return c;
}

CpuPlanKernel cpu_plan_kernel(std::string name, const strata_model::Tiling& tiling) {
  const auto& t = tiling.tile;
  CpuPlanKernel k;
  k.name = std::move(name);
  k.mr = static_cast<int32_t>(t[0][0]);
  k.nr = static_cast<int32_t>(t[0][1]);
  k.ku = static_cast<int32_t>(t[0][2]);
  k.m1 = t[1][0], k.n1 = t[1][1], k.k1 = t[1][2];
  k.m2 = t[2][0], k.n2 = t[2][1], k.k2 = t[2][2];
  k.level0_seconds = tiling.l0_measured_s;
  k.level1 = tiling.l1;
  return k;
}

}  // namespace strata
