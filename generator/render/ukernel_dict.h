// The dictionary of one x86 micro-kernel (templates/cpu/ukernel.cpp.tpl), shared by the emitted package and the
// profiler, so that what is profiled is exactly what is shipped.
#pragma once

#include <ctemplate/template.h>

#include <string>

#include "spec/arch.h"

namespace strata {

struct UkernelSpec {
  VectorIsa isa = VectorIsa::avx512;
  int lanes = 16;  // floats per vector
  int mr = 0;      // rows
  int nr = 0;      // columns, a multiple of lanes
  int ku = 1;      // k unroll
  int vector_registers = 32;

  int vectors() const { return nr / lanes; }
  int registers() const { return mr * vectors() + vectors() + 1; }
  // e.g. "ukernel_avx512_14x32_k4": a C identifier, unique per tile.
  std::string name() const;
  // The compiler flags the kernel file needs (gcc/clang spelling).
  std::vector<std::string> compile_flags() const;
};

// Fills the per-kernel values and ROW/VEC/UNROLL sections, plus the ISA section (AVX512 or AVX2).
void fill_ukernel_dictionary(const UkernelSpec& spec, ctemplate::TemplateDictionary* dict);

const char* isa_display_name(VectorIsa isa);  // "AVX-512", "AVX2"

}  // namespace strata
