#include "render/ukernel_dict.h"

#include <fmt/format.h>

#include <algorithm>

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
  dict->SetIntValue("DIRECT_ROWS", direct_tile_rows(spec.isa));
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
  if (spec.isa == VectorIsa::neon) {
    dict->ShowSection("NEON");
    dict->SetValue("ISA_HEADER", "arm_neon.h");
    dict->SetValue("VSTORE", "vst1q_f32");
  } else {
    const bool avx512 = spec.isa == VectorIsa::avx512;
    dict->ShowSection(avx512 ? "AVX512" : "AVX2");
    dict->SetValue("ISA_HEADER", "immintrin.h");
    dict->SetValue("VPREFIX", avx512 ? "mm512" : "mm256");
    dict->SetValue("VSTORE", avx512 ? "_mm512_storeu_ps" : "_mm256_storeu_ps");
  }
  dict->ShowSection(spec.lane_broadcast() ? "LANE_BROADCAST" : "MEMORY_BROADCAST");
  // Lane broadcast: vector g of a packed k step holds rows offset(g) .. offset(g) + lanes - 1. The last one is pulled
  // back to end at row mr - 1 when lanes does not divide mr, so every load stays inside the mr-tall panel.
  const int groups = spec.a_registers();
  auto group_offset = [&](int g) { return std::min(g * spec.lanes, spec.mr - spec.lanes); };
  std::string group_list;
  for (int g = 0; spec.lane_broadcast() && g < groups; ++g)
    group_list += fmt::format("{}a{} (rows {}-{})",
                              g == 0            ? ""
                              : g + 1 == groups ? " and "
                                                : ", ",
                              g, group_offset(g), group_offset(g) + spec.lanes - 1);
  dict->SetValue("A_GROUP_LIST", group_list);
  if (spec.lane_broadcast() && spec.mr % spec.lanes != 0) dict->ShowSection("A_OVERLAP");
  auto add_groups = [&](ctemplate::TemplateDictionary* parent) {
    for (int g = 0; spec.lane_broadcast() && g < groups; ++g) {
      auto* group = parent->AddSectionDictionary("A_GROUP");
      group->SetIntValue("G", g);
      group->SetIntValue("FIRST", g * spec.lanes);
      group->SetIntValue("OFFSET", group_offset(g));
    }
  };
  auto set_lane = [&](ctemplate::TemplateDictionary* row, int r) {
    const int g = spec.lane_broadcast() ? r / spec.lanes : 0;
    row->SetIntValue("G", g);
    row->SetIntValue("LANE", spec.lane_broadcast() ? r - group_offset(g) : 0);
  };
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
    set_lane(row, r);
    add_vectors(row);
  }
  for (int u = 0; u < spec.ku; ++u) {
    auto* unroll = dict->AddSectionDictionary("UNROLL");
    unroll->SetIntValue("U", u);
    add_vectors(unroll);
    add_groups(unroll);
    for (int r = 0; r < spec.mr; ++r) {
      auto* row = unroll->AddSectionDictionary("ROW");
      row->SetIntValue("R", r);
      set_lane(row, r);
      add_vectors(row);
    }
  }
  add_vectors(dict);  // the remainder loop's top-level VEC and A_GROUP sections
  add_groups(dict);
}

}  // namespace strata
