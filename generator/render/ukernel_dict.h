// The dictionary of one CPU micro-kernel (templates/cpu/ukernel.cpp.tpl), shared by the emitted package and the
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
  // How the A operand reaches the FMAs (the descriptor's isa.fma_broadcast): broadcast from memory, or, in packed
  // tiles, loaded as vectors of consecutive rows whose lanes the FMA selects (NEON FMLA by element).
  Broadcast broadcast = Broadcast::memory;

  int vectors() const { return nr / lanes; }
  // Lane broadcast needs at least one full vector of rows; a shorter tile broadcasts from memory like x86 does.
  bool lane_broadcast() const { return broadcast == Broadcast::lane && mr >= lanes; }
  int a_registers() const { return lane_broadcast() ? (mr + lanes - 1) / lanes : 1; }
  int registers() const { return mr * vectors() + vectors() + a_registers(); }
  // e.g. "ukernel_avx512_14x32_k4": a C identifier, unique per tile.
  std::string name() const;
  // The compiler flags the kernel file needs (gcc/clang spelling).
  std::vector<std::string> compile_flags() const;
};

// Fills the per-kernel values and ROW/VEC/UNROLL/A_GROUP sections, the ISA section (AVX512, AVX2 or NEON) and the
// broadcast section (MEMORY_BROADCAST or LANE_BROADCAST).
void fill_ukernel_dictionary(const UkernelSpec& spec, ctemplate::TemplateDictionary* dict);

const char* isa_display_name(VectorIsa isa);  // "AVX-512", "AVX2+FMA", "NEON"

// The most rows a one-vector tile runs over A in place (row r at a + r * lda, an offset register per row): on x86-64,
// with 16 general registers, GCC 12 kept the offsets of taller tiles on the stack and reloaded one per broadcast, so
// a taller tile in place runs as two shorter ones (ukernel.cpp.tpl) and a single row of such tiles is packed
// instead (dispatch.cpp.tpl, use_direct). AArch64 has 31 general registers; not measured there, so no limit.
int direct_tile_rows(VectorIsa isa);

}  // namespace strata
