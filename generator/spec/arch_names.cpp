// YAML spellings of the descriptor enums (archs/REFERENCE.md) and small derived facts of strata::Arch.
#include "spec/arch.h"

namespace strata {

const char* to_string(Target t) {
  switch (t) {
    case Target::x86_64: return "x86_64";
    case Target::aarch64: return "aarch64";
    case Target::cuda: return "cuda";
  }
  return "?";
}

const char* to_string(VectorIsa v) {
  switch (v) {
    case VectorIsa::avx2: return "avx2";
    case VectorIsa::avx512: return "avx512";
    case VectorIsa::neon: return "neon";
    case VectorIsa::none: return "none";  // not a descriptor spelling: GPU targets have no vector ISA
  }
  return "?";
}

const char* to_string(Broadcast b) {
  switch (b) {
    case Broadcast::memory: return "memory";
    case Broadcast::lane: return "lane";
  }
  return "?";
}

const char* to_string(ComputeUnit u) {
  switch (u) {
    case ComputeUnit::cpu_fma: return "cpu_fma";
    case ComputeUnit::cuda_core: return "cuda_core";
    case ComputeUnit::tensor_core: return "tensor_core";
  }
  return "?";
}

const char* to_string(DataType d) {
  switch (d) {
    case DataType::f32: return "f32";
    case DataType::f16: return "f16";
    case DataType::bf16: return "bf16";
  }
  return "?";
}

const char* to_string(MemoryKind k) {
  switch (k) {
    case MemoryKind::registers: return "registers";
    case MemoryKind::cache: return "cache";
    case MemoryKind::shared: return "shared";
    case MemoryKind::dram: return "dram";
  }
  return "?";
}

const char* to_string(Analyzer a) {
  switch (a) {
    case Analyzer::profile: return "profile";
    case Analyzer::model: return "model";
  }
  return "?";
}

int size_of(DataType d) {
  switch (d) {
    case DataType::f32: return 4;
    case DataType::f16: return 2;
    case DataType::bf16: return 2;
  }
  return 0;
}

int64_t Arch::level0_units() const {
  int64_t units = 1;
  for (size_t i = 1; i < levels.size(); ++i) units *= levels[i].parallel_units;
  return units;
}

}  // namespace strata
