#include "emit/render_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <utility>
#include <vector>

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

// A convolution package's section: its entry points, the gather in each kernel and the spec's facts; null for others.
ctemplate::TemplateDictionary* fill_conv(const Op& op, ctemplate::TemplateDictionary* d) {
  const bool conv = op.kind == OpKind::conv2d;
  d->SetIntValue("CONV_PACKAGE", conv ? 1 : 0);
  if (!conv) return nullptr;
  ctemplate::TemplateDictionary* c = d->AddSectionDictionary("CONV");
  // Each fact as the package's constant (kConvRuntime where a call gives it) and as the self-test's copy (-1).
  const auto fact = [](const std::optional<std::array<int64_t, 2>>& pair, size_t i, const char* runtime) {
    return pair ? std::to_string((*pair)[i]) : std::string(runtime);
  };
  const std::pair<const char*, const std::optional<std::array<int64_t, 2>>*> pairs[] = {
      {"STRIDE", &op.conv.stride}, {"PAD", &op.conv.padding}, {"DILATION", &op.conv.dilation}};
  for (const auto& [key, pair] : pairs)
    for (size_t i = 0; i < 2; ++i) {
      const std::string name = std::string(key) + (i == 0 ? "_H" : "_W");
      d->SetValue(name, fact(*pair, i, "kConvRuntime"));
      d->SetValue("FACT_" + name, fact(*pair, i, "-1"));
    }
  d->SetValue("FILTER_KRSC", op.conv.filter_krsc ? "true" : "false");
  d->SetValue("FILTER_LAYOUT", op.conv.filter_krsc ? "KRSC (out_c x kernel_h x kernel_w x in_c)"
                                                   : "RSCK (kernel_h x kernel_w x in_c x out_c)");
  std::vector<std::string> facts;
  const auto add = [&](const char* what, const std::optional<std::array<int64_t, 2>>& pair) {
    if (pair) facts.push_back(fmt::format("{} [{}, {}]", what, (*pair)[0], (*pair)[1]));
  };
  add("stride", op.conv.stride);
  add("padding", op.conv.padding);
  add("dilation", op.conv.dilation);
  std::string text = "The op spec fixes no stride, padding or dilation: a call gives them.";
  if (!facts.empty()) {
    text = "The op spec fixes ";
    for (size_t i = 0; i < facts.size(); ++i)
      text += (i == 0 ? "" : i + 1 == facts.size() ? " and " : ", ") + facts[i];
    text += ": a call must give these values.";
  }
  d->SetValue("CONV_FACTS", text);
  return c;
}

}  // namespace strata
