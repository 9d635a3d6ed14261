// Loads and validates an operator spec (ops/*.yaml, schema in ops/REFERENCE.md).
#pragma once

#include <string>

#include "spec/op.h"

namespace strata {

// Throws strata::Error (file:line:col) on any problem.
Op load_op(const std::string& path);

}  // namespace strata
