// Loads and validates an architecture descriptor (archs/*.yaml, schema in archs/REFERENCE.md).
#pragma once

#include <string>

#include "spec/arch.h"

namespace strata {

// Throws strata::Error (file:line:col) on any problem; never returns a half-valid Arch.
Arch load_arch(const std::string& path);
// The same for `content` read elsewhere; errors name `path`.
Arch load_arch_text(const std::string& path, const std::string& content);

}  // namespace strata
