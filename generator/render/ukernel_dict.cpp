#include "render/ukernel_dict.h"

#include <fmt/format.h>

namespace strata {

std::string UkernelSpec::name() const { return fmt::format("ukernel_{}_{}x{}_k{}", to_string(isa), mr, nr, ku); }

std::vector<std::string> UkernelSpec::compile_flags() const {
  switch (isa) {
    case VectorIsa::avx512: return {"-mavx512f", "-mfma"};
    case VectorIsa::avx2: return {"-mavx2", "-mfma"};
    // Advanced SIMD, FMA included, is part of the AArch64 baseline every compiler targets by default. An -march or
    // -mcpu for the descriptor's core would only tie the package to compilers that know that core, and to CPUs that
    // have its extensions, without giving these kernels an instruction they do not already have.
    case VectorIsa::neon: return {};
    case VectorIsa::none: break;
  }
  return {};
}

const char* isa_display_name(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::avx512: return "AVX-512";
    case VectorIsa::avx2: return "AVX2+FMA";
    case VectorIsa::neon: return "NEON";
    case VectorIsa::none: break;
  }
  return "none";
}

int direct_tile_rows(VectorIsa isa) { return isa == VectorIsa::neon ? 1 << 10 : 12; }

void fill_ukernel_dictionary(const UkernelSpec& spec, ctemplate::TemplateDictionary* dict) {
  dict->SetValue("NAME", spec.name());
  dict->SetValue("ISA", to_string(spec.isa));
  dict->SetIntValue("MR", spec.mr);
  dict->SetIntValue("NR", spec.nr);
  dict->SetIntValue("NV", spec.vectors());
  dict->SetIntValue("KU", spec.ku);
  dict->SetIntValue("LANES", spec.lanes);
  dict->SetIntValue("ACCUMULATORS", spec.mr * spec.vectors());
  dict->SetIntValue("REGISTERS", spec.registers());
  dict->SetIntValue("VECTOR_REGISTERS", spec.vector_registers);
  dict->SetValue("ISA_NAME", isa_display_name(spec.isa));
  dict->SetIntValue("A_VECTORS", spec.a_registers());
  dict->ShowSection(spec.lane_broadcast() ? "LANE_BROADCAST" : "MEMORY_BROADCAST");
  dict->SetValue("LANE_BROADCAST_VALUE", spec.lane_broadcast() ? "true" : "false");
}

}  // namespace strata
