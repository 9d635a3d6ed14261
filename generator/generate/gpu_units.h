// The kernels a CUDA package holds beside the selection for its descriptor's main unit: for f16 inputs, CUDA-core
// partners for the shapes where the Tensor Cores idle, and on Hopper the wgmma family's kernels. Each is its own
// candidate set, model and selection (select/select.h's UnitSelection), made here so that the emitter only renders.
#pragma once

#include <vector>

#include "select/select.h"
#include "spec/arch.h"
#include "spec/op.h"

namespace strata {

// The extra units of a package whose main unit is `main_unit` (empty for a CPU target or an fp32 CUDA package).
// Throws strata::Error when an f16 CUDA package's descriptor has no CUDA-core unit for the partners.
std::vector<UnitSelection> gpu_extra_units(const Arch& arch, const Op& op, ComputeUnit main_unit);

}  // namespace strata
