// Serializes a strata::Arch back into an architecture descriptor (archs/REFERENCE.md, schema strata-arch/1).
// `strata detect` uses it to write what it measured; the output loads back into an equal Arch.
#pragma once

#include <string>

#include "spec/arch.h"

namespace strata {

// Block-style YAML with the keys in REFERENCE.md order, only the ISA keys that belong to arch.target, cache-only
// keys only on caches and tile_multiples only on levels >= 1. Deterministic: the same Arch gives the same bytes.
// Numbers use the shortest text that reads back to the same double. Arch::file and Arch::content_sha describe
// a file on disk, not its contents, and are not written. Throws strata::Error for a non-finite number, which no
// descriptor may contain.
std::string write_arch_yaml(const Arch& arch);

}  // namespace strata
