#include "emit/render_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace strata {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string literal(double x) {
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

const char* loop_constant(strata_model::LoopKind k) {
  switch (k) {
    case strata_model::kParallel: return "strata_model::kParallel";
    case strata_model::kTemporal: return "strata_model::kTemporal";
    case strata_model::kReduction: return "strata_model::kReduction";
  }
  return "strata_model::kTemporal";
}

}  // namespace strata
