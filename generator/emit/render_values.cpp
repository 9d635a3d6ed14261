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

void fill_model_machine(const Arch& arch, const strata_model::Machine& m, ctemplate::TemplateDictionary* d) {
  d->SetIntValue("NUM_LEVELS", m.num_levels);
  d->SetIntValue("TOP_LEVEL", m.num_levels - 1);
  for (int l = 0; l < m.num_levels; ++l) {
    auto* level = d->AddSectionDictionary("LEVEL");
    level->SetIntValue("INDEX", l);
    level->SetValue("LEVEL_NAME", arch.levels[static_cast<size_t>(l)].name);
    level->SetValue("LATENCY_S", literal(m.level[l].latency_s));
    level->SetValue("BANDWIDTH_BPS", literal(m.level[l].bandwidth_Bps));
    level->SetValue("PARALLEL_UNITS", std::to_string(m.level[l].parallel_units));
    level->SetValue("LOOP_M", loop_constant(m.level[l].loop[0]));
    level->SetValue("LOOP_N", loop_constant(m.level[l].loop[1]));
    level->SetValue("LOOP_K", loop_constant(m.level[l].loop[2]));
    level->SetValue("SERIAL_LOAD", m.level[l].serial_load ? "true" : "false");
  }
  d->SetValue("PROBLEM_LATENCY_S", literal(m.problem.latency_s));
  d->SetValue("PROBLEM_BANDWIDTH_BPS", literal(m.problem.bandwidth_Bps));
  d->SetValue("UNIT_FLOPS", literal(m.unit_flops));
  d->SetValue("FMA_LATENCY_S", literal(m.fma_latency_s));
  d->SetValue("LAUNCH_S", literal(m.launch_s));
}

}  // namespace strata
