#include "analyze/wgmma_family.h"

#include <fmt/format.h>

#include <algorithm>

namespace strata {

int64_t wgmma_shared_bytes(int64_t rows_a, int64_t rows_b, int64_t slice_k, int stages) {
  constexpr int64_t kBytes = 2;      // f16 operands
  constexpr int64_t kAtom = 1024;    // the swizzle atom the stages are aligned to
  constexpr int64_t kBarriers = 16;  // a full and an empty mbarrier of 8 bytes per stage
  constexpr int64_t kFlag = 16;      // split-K's last-split flag
  return stages * ((rows_a + rows_b) * slice_k * kBytes + kBarriers) + kFlag + kAtom;
}

bool wgmma_applies(const Arch& arch, const Op& op) {
  return arch.isa.wgmma.present() && op.a_type == DataType::f16 && op.kind == OpKind::gemm;
}

SieveResult wgmma_family(const Arch& arch, const Op& op) {
  SieveResult family;
  family.unit = ComputeUnit::tensor_core;
  const WgmmaInfo& w = arch.isa.wgmma;
  for (const ComputeSpec& c : arch.compute)
    if (c.unit == ComputeUnit::tensor_core && c.input == op.a_type) family.peak_gflops = c.peak_gflops;
  family.levels.resize(3);
  for (size_t l = 0; l < 3 && l < arch.levels.size(); ++l) family.levels[l].name = arch.levels[l].name;
  if (!wgmma_applies(arch, op) || family.peak_gflops <= 0) return family;
  const int64_t k = w.slice_k;
  // Level 0: 64 x n tiles, and swapped n x 64 ones (C^T) for n below 64, where C has few rows.
  for (bool swapped : {false, true})
    for (int n : w.n) {
      if (swapped && n >= kWgmmaRows) continue;
      Candidate c;
      c.tile =
          swapped ? std::array<int64_t, kNumAxes>{n, kWgmmaRows, k} : std::array<int64_t, kNumAxes>{kWgmmaRows, n, k};
      c.swapped = swapped;
      c.registers = n / 2;  // the warpgroup's accumulators per thread
      family.levels[0].candidates.push_back(c);
    }
  // Level 1: blocks of `consumers` warpgroup tiles along wgmma's m, with the deepest ring that fits; level 2: the
  // grouped grid tile of each.
  const auto& tiles = family.levels[0].candidates;
  for (size_t i = 0; i < tiles.size(); ++i)
    for (int consumers : w.consumers) {
      const Candidate& t = tiles[i];
      const int64_t rows_a = kWgmmaRows * consumers;
      const int64_t rows_b = t.swapped ? t.tile[kAxisM] : t.tile[kAxisN];
      int stages = w.stages_max;
      while (stages >= 2 && wgmma_shared_bytes(rows_a, rows_b, k, stages) > arch.isa.shared_memory_per_block_bytes)
        --stages;
      if (stages < 2) continue;
      Candidate b;
      b.tile = t.tile;
      b.tile[t.swapped ? kAxisN : kAxisM] = rows_a;
      b.stages = stages;
      b.footprint_bytes = wgmma_shared_bytes(rows_a, rows_b, k, stages);
      b.blocks_per_sm = 1;
      b.children = {static_cast<int>(i)};
      Candidate g;
      g.tile = b.tile;
      g.tile[kAxisM] *= kWgmmaGroupM;
      g.children = {static_cast<int>(family.levels[1].candidates.size())};
      family.levels[1].candidates.push_back(b);
      family.levels[2].candidates.push_back(g);
    }
  for (auto& level : family.levels) level.considered = static_cast<int64_t>(level.candidates.size());
  return family;
}

strata_model::Machine wgmma_machine(const Arch& arch, const Op& op, const SieveResult& family) {
  strata_model::Machine m = make_machine(arch, op, family);
  m.level[1].parallel_units = 1;
  return m;
}

strata_gpu::Sm wgmma_sm(const Arch& arch) {
  strata_gpu::Sm sm = gpu_sm(arch);
  if (!strata_gpu::enabled(sm)) return sm;
  sm.step_k = arch.isa.wgmma.slice_k;
  sm.sync_s = 0;
  sm.step_latency_s = arch.isa.wgmma.slice_latency_cycles * 1e-9 / arch.clock_ghz;
  sm.step_floor_s = arch.isa.wgmma.slice_floor_cycles * 1e-9 / arch.clock_ghz;
  sm.shared_Bps = 0;
  return sm;
}

std::vector<double> wgmma_level0_seconds(const Arch& arch, const SieveResult& family) {
  const auto& tiles = family.levels.at(0).candidates;
  std::vector<double> seconds(tiles.size(), 0.0);
  const double sm_flops = family.peak_gflops * 1e9 * arch.isa.wgmma.efficiency /
                          static_cast<double>(std::max(1, arch.levels.back().parallel_units));
  for (size_t i = 0; i < tiles.size(); ++i) {
    const auto& t = tiles[i].tile;
    seconds[i] = 2.0 * static_cast<double>(t[kAxisM] * t[kAxisN] * t[kAxisK]) / sm_flops;
  }
  return seconds;
}

}  // namespace strata
