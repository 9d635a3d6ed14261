// Values as the package templates spell them: shared by every backend, so that the CPU and CUDA packages write the
// same model parameters the same way.
#pragma once

#include <ctemplate/template.h>

#include <string>

#include "cost_model.h"
#include "spec/arch.h"
#include "spec/op.h"

namespace strata {

// "abc_def" -> "ABC_DEF": a package name as a macro and enum prefix.
std::string upper(std::string s);

// A C++ double literal that round-trips ("1.0", "2.5e-09").
std::string literal(double x);

// The strata_model:: constant naming a loop kind.
const char* loop_constant(strata_model::LoopKind k);

// The model's machine as the dispatch templates spell it: NUM_LEVELS, TOP_LEVEL, one LEVEL section per level
// (named after arch's levels), the problem level, UNIT_FLOPS, FMA_LATENCY_S and LAUNCH_S.
void fill_model_machine(const Arch& arch, const strata_model::Machine& m, ctemplate::TemplateDictionary* d);

// A convolution package's section (CONV, with the op spec's stride, padding and dilation facts, as constants and as
// the self-test's copies, and the filter layout) and CONV_PACKAGE; returns the section, or null for other operators.
ctemplate::TemplateDictionary* fill_conv(const Op& op, ctemplate::TemplateDictionary* d);

}  // namespace strata
