// The --arch/--op options shared by the commands that pair an architecture with an operator.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <cstdint>
#include <string>

#include "spec/arch.h"
#include "spec/op.h"

namespace strata::cli {

struct SpecPaths {
  std::string arch;
  std::string op;
};

void add_spec_options(CLI::App& cmd, SpecPaths& paths);

// Parses "M,N,K" (non-negative integers); throws strata::Error naming the option on bad input.
std::array<int64_t, kNumAxes> parse_shape(const std::string& text);

std::string tile_string(const std::array<int64_t, kNumAxes>& tile);

}  // namespace strata::cli
