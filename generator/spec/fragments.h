// The template fragments an op spec's rkernel levels name (ops/REFERENCE.md), per target family and slot. A level's
// load, compute and store names must be among them; a CPU level's store list may go on with epilogue fragments,
// which fix the package's fused epilogue (Op::epilogue).
#ifndef STRATA_SPEC_FRAGMENTS_H_
#define STRATA_SPEC_FRAGMENTS_H_

#include <string>
#include <vector>

namespace strata {

enum class FragmentSlot { load, compute, store, epilogue };

const char* to_string(FragmentSlot slot);

// The names a level of `family` ("cpu" or "cuda") may give in `slot`; empty where the family has no such slot.
const std::vector<std::string>& fragment_names(const std::string& family, FragmentSlot slot);

}  // namespace strata

#endif  // STRATA_SPEC_FRAGMENTS_H_
