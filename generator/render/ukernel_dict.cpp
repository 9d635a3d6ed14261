#include "render/ukernel_dict.h"

#include <fmt/format.h>

namespace strata {

std::string UkernelSpec::name() const { return fmt::format("ukernel_{}_{}x{}_k{}", to_string(isa), mr, nr, ku); }

std::vector<std::string> UkernelSpec::compile_flags() const {
  if (isa == VectorIsa::avx512) return {"-mavx512f", "-mfma"};
  return {"-mavx2", "-mfma"};
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

void fill_ukernel_dictionary(const UkernelSpec& spec, ctemplate::TemplateDictionary* dict) {
  dict->SetValue("NAME", spec.name());
  dict->SetIntValue("MR", spec.mr);
  dict->SetIntValue("NR", spec.nr);
  dict->SetIntValue("NV", spec.vectors());
  dict->SetIntValue("KU", spec.ku);
  dict->SetIntValue("LANES", spec.lanes);
  dict->SetIntValue("ACCUMULATORS", spec.mr * spec.vectors());
  dict->SetIntValue("REGISTERS", spec.registers());
  dict->SetIntValue("VECTOR_REGISTERS", spec.vector_registers);
  dict->SetValue("ISA_NAME", isa_display_name(spec.isa));
  dict->ShowSection(spec.isa == VectorIsa::avx512 ? "AVX512" : "AVX2");
  dict->SetValue("VPREFIX", spec.isa == VectorIsa::avx512 ? "mm512" : "mm256");
  // ROW and VEC are nested both ways in the template (rows of vectors, and vectors of a row), so each ROW
  // dictionary carries its own VEC children.
  auto add_vectors = [&](ctemplate::TemplateDictionary* parent) {
    for (int v = 0; v < spec.vectors(); ++v) {
      auto* vec = parent->AddSectionDictionary("VEC");
      vec->SetIntValue("V", v);
      vec->SetIntValue("V1", v + 1);
      vec->SetValue("VEC_GUARD", v == 0 ? "" : fmt::format("if constexpr (kVecs > {}) ", v));
    }
  };
  for (int r = 0; r < spec.mr; ++r) {
    auto* row = dict->AddSectionDictionary("ROW");
    row->SetIntValue("R", r);
    row->SetIntValue("R1", r + 1);
    add_vectors(row);
  }
  for (int u = 0; u < spec.ku; ++u) {
    auto* unroll = dict->AddSectionDictionary("UNROLL");
    unroll->SetIntValue("U", u);
    add_vectors(unroll);
    for (int r = 0; r < spec.mr; ++r) {
      auto* row = unroll->AddSectionDictionary("ROW");
      row->SetIntValue("R", r);
      add_vectors(row);
    }
  }
  add_vectors(dict);  // the remainder loop's top-level VEC section
}

}  // namespace strata
