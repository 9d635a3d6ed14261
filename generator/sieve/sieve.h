// The hierarchical candidate sieve (Helix Algorithm 2).
//
// Level 0: register (CPU) or warp (GPU) tiles, enumerated under the register budget and filtered by the ISA.
// Level L > 0: tiles that are per-axis integer multiples (from the level's `tile_multiples`) of a level L-1
// candidate and fit the level's capacity (Eq. 1); the cross-layer map records, for every kept tile, the lower
// candidates it composes. Every rejection is counted under the constraint that caused it, so
// `strata sieve --explain` can say what removed what.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spec/arch.h"
#include "spec/op.h"

namespace strata {

struct Candidate {
  std::array<int64_t, kNumAxes> tile{};  // m, n, k extents
  int64_t footprint_bytes = 0;           // what Eq. 1 compared with the capacity
  // Level 0 detail.
  int registers = 0;   // CPU: vector registers; GPU: 32-bit registers per thread
  int mma_index = -1;  // Tensor Cores: index into isa.mma
  int thread_m = 0, thread_n = 0, warp_rows = 0, warp_cols = 0;  // CUDA cores: per-thread tile and warp layout
  // GPU level 0: a wgmma warpgroup tile that computes C^T (B's rows on wgmma's 64-row side; see WgmmaInfo).
  bool swapped = false;
  // GPU level 1 detail.
  int stages = 1;
  // GPU level 1, > 0: the blocks per SM the kernel runs with whatever its resources allow (a persistent kernel).
  int64_t blocks_per_sm = 0;
  // Cross-layer map: indices of the level L-1 candidates this tile is a multiple of (sorted).
  std::vector<int> children;
};

struct SieveLevel {
  std::string name;
  int64_t considered = 0;                 // initial candidates (L0) or (lower candidate, multiple) pairs (L>0)
  std::map<std::string, int64_t> pruned;  // constraint -> rejected count
  std::map<std::string, std::vector<std::string>> examples;  // constraint -> first few rejected tiles
  std::vector<std::string> constraint_order;
  std::vector<Candidate> candidates;  // sorted by (tile, mma, stages)
  int64_t map_edges = 0;              // total size of the cross-layer map
};

struct SieveResult {
  ComputeUnit unit = ComputeUnit::cpu_fma;
  double peak_gflops = 0;  // of the whole machine for this unit
  std::vector<SieveLevel> levels;
  int64_t total_candidates() const;
};

// Bounds on the candidate space, checked as the sieve runs so that no descriptor makes it (or the stages after it)
// run for minutes or take gigabytes: a level may consider at most kMaxConsidered (tile, multiple) pairs, about
// four times the largest shipped descriptor's, and keep at most kMaxCandidates tiles. Going past either is a
// strata::Error at the level in the descriptor, saying which bound and by how much.
constexpr int64_t kMaxConsidered = 20'000'000;
constexpr int64_t kMaxCandidates = 1'000'000;

// Runs the sieve once for every compute unit of `arch` that can run `op` (matching input type). Throws
// strata::Error naming the spec when the pair cannot work (no matching unit, no rKernel for the target, level
// counts that differ).
std::vector<SieveResult> run_sieve(const Arch& arch, const Op& op);

// Throws strata::Error, at the level in the descriptor, when a level of `result` kept no candidate: nothing
// could be generated or modelled. Says how many candidates each constraint removed.
void require_candidates(const SieveResult& result, const Arch& arch);

// The vector loads one k step of CPU register tile `c` issues per FMA: its row of B (nr / lanes vectors) and its
// column of A (a broadcast per row, or a vector per `lanes` rows where the ISA broadcasts from a register lane),
// over its mr x nr / lanes FMAs. Tiles that all reach the FMA peak in the level-0 profile still differ here, and
// the loads of the package's real loops (C tiles, A read in place, prefetches) share the load ports with these.
double cpu_loads_per_fma(const Arch& arch, const Op& op, const Candidate& c);

// Human-readable description of a constraint key used in SieveLevel::pruned.
std::string describe_constraint(const std::string& key);

}  // namespace strata
