// The hybrid analyzer's model side: turns an (arch, op, compute unit) into the plain parameters of
// templates/cost_model.h and ranks sieve candidates with it.
#pragma once

#include <vector>

#include "cost_model.h"
#include "sieve/sieve.h"

namespace strata {

// Model parameters for one compute unit of `arch` running `op`. Bandwidths are what one parallel unit of a
// level sees: an instance's bandwidth divided by the units of that level that share it.
strata_model::Machine make_machine(const Arch& arch, const Op& op, const SieveResult& sieve);

// One complete tiling: a candidate index per level, L0 first, each a cross-layer child of the next.
struct RankedTiling {
  std::vector<int> chain;
  strata_model::Tiling tiling{};
  strata_model::Estimate estimate{};
  double score_s = 0;  // what the ranking computed (launch + problem level over the best sub-tilings)
};

// The best `count` tilings for `shape` (m, n, k), fastest first. Shape-independent parts are solved once per
// candidate by dynamic programming over the cross-layer map: the best way to build a level-L tile is the best
// of its children, since a tile's execution time only grows with its sub-tile's.
std::vector<RankedTiling> rank_tilings(const strata_model::Machine& machine, const SieveResult& sieve,
                                       const std::array<int64_t, kNumAxes>& shape, size_t count);

}  // namespace strata
