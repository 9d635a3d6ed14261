#include "cli/spec_options.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "common/error.h"

namespace strata::cli {

void add_spec_options(CLI::App& cmd, SpecPaths& paths) {
  cmd.add_option("--arch", paths.arch, "architecture descriptor (archs/*.yaml)")->required();
  cmd.add_option("--op", paths.op, "operator spec (ops/*.yaml)")->required();
}

std::array<int64_t, kNumAxes> parse_shape(const std::string& text) {
  std::array<int64_t, kNumAxes> shape{};
  size_t start = 0;
  for (int axis = 0; axis < kNumAxes; ++axis) {
    const size_t comma = text.find(',', start);
    const bool last = axis == kNumAxes - 1;
    if (last != (comma == std::string::npos))
      throw Error({"--shape", 0, 0}, fmt::format("expected M,N,K (three non-negative integers), found '{}'", text));
    const std::string part = text.substr(start, last ? std::string::npos : comma - start);
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || errno == ERANGE || v < 0 || part[0] == '+' || part[0] == '-')
      throw Error({"--shape", 0, 0}, fmt::format("'{}' is not a non-negative integer (in '{}')", part, text));
    shape[static_cast<size_t>(axis)] = v;
    start = comma + 1;
  }
  return shape;
}

std::string tile_string(const std::array<int64_t, kNumAxes>& tile) {
  return fmt::format("{}x{}x{}", tile[0], tile[1], tile[2]);
}

}  // namespace strata::cli
