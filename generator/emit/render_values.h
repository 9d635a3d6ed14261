// Values as the package templates spell them: shared by every backend, so that the CPU and CUDA packages write the
// same model parameters the same way.
#pragma once

#include <string>

#include "cost_model.h"

namespace strata {

// "abc_def" -> "ABC_DEF": a package name as a macro and enum prefix.
std::string upper(std::string s);

// A C++ double literal that round-trips ("1.0", "2.5e-09").
std::string literal(double x);

// The strata_model:: constant naming a loop kind.
const char* loop_constant(strata_model::LoopKind k);

}  // namespace strata
