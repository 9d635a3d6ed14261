// The architecture descriptor as plain data: what archs/*.yaml says, validated. The field reference is
// archs/REFERENCE.md; keep the two in step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"

namespace strata {

enum class Target { x86_64, aarch64, cuda };
enum class VectorIsa { avx2, avx512, neon, none };
enum class Broadcast { memory, lane };
enum class ComputeUnit { cpu_fma, cuda_core, tensor_core };
enum class DataType { f32, f16, bf16 };
enum class MemoryKind { registers, cache, shared, dram };
enum class Analyzer { profile, model };

struct MmaShape {
  std::string name;
  int m = 0, n = 0, k = 0;
  DataType a = DataType::f16, b = DataType::f16, c = DataType::f32;
};

// Hopper's warpgroup MMA (wgmma, sm_90a) as the CUDA package's persistent kernels use it: one producer warpgroup
// copying k slices of both operands into shared-memory stages with the tensor copy engine, one or more consumer
// warpgroups each issuing wgmma m64nNk16 for 64 rows. Absent (n empty): the descriptor's GPU has no wgmma.
struct WgmmaInfo {
  std::vector<int> n;               // wgmma n the kernels may use (level 0: 64 x n warpgroup tiles)
  std::vector<int> consumers;       // consumer warpgroups per block (level 1)
  int slice_k = 0;                  // k elements per shared-memory stage: one swizzled row
  int stages_max = 0;               // deepest ring of stages
  double efficiency = 0;            // the fraction of the Tensor Cores' peak that back-to-back wgmma sustains
  double slice_floor_cycles = 0;    // a k slice's dependent wgmma take at least this long, however narrow the tile
  double slice_latency_cycles = 0;  // per k slice a lone consumer waits beyond its wgmma work (barrier, hand-over)
  std::string source;
  bool present() const { return !n.empty(); }
};

// Instruction-set facts for the level-0 sieve. CPU fields are meaningful for x86_64/aarch64, GPU fields for
// cuda; the loader rejects keys that do not belong to the descriptor's target.
struct IsaInfo {
  // CPU
  VectorIsa vector = VectorIsa::none;
  int vector_bits = 0;
  int vector_registers = 0;
  int fma_latency_cycles = 0;
  int fma_pipes = 0;
  // AVX-512 only, optional (0: absent): FMAs issued per cycle on vectors of half the width (256 bits), where a core
  // runs 512-bit FMAs as two halves and issues more half-width ones than full ones.
  int half_width_fma_pipes = 0;
  Broadcast fma_broadcast = Broadcast::memory;
  // Independent FMA chains that keep the FMA pipes busy: the latency of one FMA times the FMAs started per cycle.
  int fma_chains() const { return fma_latency_cycles * fma_pipes; }
  // FMAs issued per cycle at half the vector width: as many as at the full width unless the descriptor says more.
  int half_fma_pipes() const { return half_width_fma_pipes > 0 ? half_width_fma_pipes : fma_pipes; }
  // both
  std::vector<int> k_unroll;
  // CUDA
  int sm = 0;
  int warp_size = 0;
  int registers_per_thread_max = 0;
  int register_overhead_per_thread = 0;
  int registers_per_sm = 0;
  int64_t shared_memory_per_block_bytes = 0;
  int threads_per_block_max = 0;
  int warps_per_block_max = 0;
  std::vector<int> pipeline_stages;
  std::vector<MmaShape> mma;
  // CUDA, optional as a group (all present or all 0): what decides how many blocks an SM holds at once, and what a
  // block's k loop costs beyond its warps' work; the block level of the GPU model uses them (templates/cuda/
  // gpu_model.h). Absent: the block level is Eqs. 5-7 alone.
  int64_t shared_memory_per_sm_bytes = 0;
  int64_t shared_memory_reserved_per_block_bytes = 0;
  int threads_per_sm_max = 0;
  int blocks_per_sm_max = 0;
  int register_allocation_unit = 0;     // registers a warp is given at a time
  double block_sync_cycles = 0;         // per k tile of a block: barrier, pipeline wait, next stage's copies issued
  double warp_step_latency_cycles = 0;  // per k16 step of a warp that no other warp of its sub-partition covers
  bool models_occupancy() const { return blocks_per_sm_max > 0; }
  WgmmaInfo wgmma;  // CUDA, optional
  std::string source;
};

struct ComputeSpec {
  ComputeUnit unit = ComputeUnit::cpu_fma;
  DataType input = DataType::f32;
  double peak_gflops = 0;
  // Tensor Cores, optional (0: peak_gflops): the peak of mma.sync, the instruction the CUDA kernels issue, where it
  // is below the unit's peak (Hopper reaches peak_gflops only with wgmma).
  double mma_sync_gflops = 0;
  std::string source;
  SourcePos pos;
};

struct MemorySpec {
  std::string name;
  MemoryKind kind = MemoryKind::cache;
  int64_t capacity_bytes = 0;
  int shared_by = 1;
  double bandwidth_gbps = 0;
  double latency_ns = 0;
  int line_bytes = 0;     // caches only, else 0
  int associativity = 0;  // caches only, else 0
  std::string source;
  SourcePos pos;
};

struct LevelSpec {
  std::string name;
  std::string memory;  // name of a MemorySpec
  int memory_index = -1;
  int parallel_units = 1;
  Analyzer analyzer = Analyzer::model;
  std::vector<int> tile_multiples;  // empty for level 0
  SourcePos pos;
};

struct Arch {
  std::string file;         // path as given on the command line
  std::string content_sha;  // sha256 of the file bytes, hex
  std::string name;
  std::string description;
  Target target = Target::x86_64;
  double clock_ghz = 0;
  double launch_overhead_ns = 0;
  std::string launch_source;
  IsaInfo isa;
  std::vector<ComputeSpec> compute;
  std::vector<MemorySpec> memories;
  std::vector<LevelSpec> levels;

  bool is_gpu() const { return target == Target::cuda; }
  const MemorySpec& memory_of(const LevelSpec& level) const { return memories.at(level.memory_index); }
  const MemorySpec& outermost_memory() const { return memories.back(); }
  // Product of parallel_units over levels 1..top: the number of level-0 execution units in the machine.
  int64_t level0_units() const;
};

const char* to_string(Target t);
const char* to_string(VectorIsa v);
const char* to_string(Broadcast b);
const char* to_string(ComputeUnit u);
const char* to_string(DataType d);
const char* to_string(MemoryKind k);
const char* to_string(Analyzer a);
int size_of(DataType d);

}  // namespace strata
