// Loads and validates an operator spec (ops/*.yaml, schema in ops/REFERENCE.md).
#pragma once

#include <string>

#include "spec/op.h"

namespace strata {

// Throws strata::Error (file:line:col) on any problem.
Op load_op(const std::string& path);
// The same for `content` read elsewhere; errors name `path`.
Op load_op_text(const std::string& path, const std::string& content);

}  // namespace strata
