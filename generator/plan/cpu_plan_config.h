// What a CPU package's planner reads: the kernel table, the machine as the model sees it, and the thresholds from the
// descriptor's memory hierarchy. One value serves both the package, whose dispatch_config.h and config.h render it
// (emit/cpu_package.cpp), and the generator's copy of the planner (cpu_planner.h), so that the two price a call from
// the same numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost_model.h"
#include "spec/arch.h"

namespace strata {

// The most threads a CPU package runs a call on.
constexpr int32_t kCpuMaxThreads = 256;

struct CpuPlanKernel {
  std::string name;                     // "k<id>_<micro-kernel>", as the package's kernel table names it
  int32_t mr = 0, nr = 0, ku = 0;       // level 0: register tile and k unroll
  int64_t m1 = 0, n1 = 0, k1 = 0;       // level 1: the cache block a thread packs and runs
  int64_t m2 = 0, n2 = 0, k2 = 0;       // level 2: the block of cache blocks spread over threads
  double level0_seconds = 0;            // profiled time of one tile step; 0 when modelled
  strata_model::Level1Measured level1;  // profiled level-1 tile in its parts; all 0 when modelled
};

struct CpuPlanConfig {
  std::vector<CpuPlanKernel> kernels;
  strata_model::Machine machine{};
  int top_level = 0;                 // the level whose parallel units are a call's threads
  int64_t direct_bytes = 0;          // half the direct cache (level 1's memory)
  int64_t stream_a_bytes = 0;        // the direct cache
  int64_t tile_cache_bytes = 0;      // half the tile cache (the smallest cache)
  int64_t tile_cache_way_bytes = 0;  // one of its ways, 0 where the descriptor gives no associativity
  int64_t line_bytes = 0;            // its line
  int64_t outer_bytes = 0;           // half the outer cache (the outermost level's memory)
  int64_t vector_floats = 0;         // floats in a vector register
  int fma_chains = 0, fma_pipes = 0, half_fma_pipes = 0, vector_registers = 0, direct_rows = 0;
  std::string direct_cache, tile_cache, outer_cache;  // the caches' names, for the package's comments
};

// The machine part of a CPU package's configuration (no kernels yet), from its descriptor and model machine.
CpuPlanConfig cpu_plan_machine(const Arch& arch, const strata_model::Machine& machine);

// A kernel table entry for a full tiling (levels 0 to 2, profiled times included).
CpuPlanKernel cpu_plan_kernel(std::string name, const strata_model::Tiling& tiling);

}  // namespace strata
