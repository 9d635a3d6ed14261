#include "spec/arch_writer.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <regex>
#include <vector>

namespace strata {
namespace {

// Plain scalars that a YAML 1.1 or 1.2 reader would resolve to a bool, null, number or timestamp. yaml-cpp's
// emitter writes such strings unquoted, so a description like "yes" would not read back as a string in other
// tools; these get double quotes.
bool needs_quotes(const std::string& s) {
  static const std::regex non_string(
      "|~|null|Null|NULL"
      "|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
      "|[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?"
      "|[-+]?0[xX][0-9a-fA-F_]+|0o[0-7]+|[-+]?0b[01_]+"
      "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?"
      "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)"
      "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*");
  return std::regex_match(s, non_string);
}

void put_string(YAML::Emitter& out, const std::string& key, const std::string& value) {
  out << YAML::Key << key << YAML::Value;
  if (needs_quotes(value)) out << YAML::DoubleQuoted;
  out << value;
}

// yaml-cpp prints doubles with max_digits10 digits (3.7 becomes 3.7000000000000002); fmt's "{}" is the shortest
// text that round-trips.
void put_number(YAML::Emitter& out, const std::string& key, double value) {
  if (!std::isfinite(value)) {
    throw Error({}, fmt::format("cannot write {} = {} into an architecture descriptor", key, value));
  }
  out << YAML::Key << key << YAML::Value << fmt::format("{}", value);
}

template <class Int>
void put_int(YAML::Emitter& out, const std::string& key, Int value) {
  out << YAML::Key << key << YAML::Value << value;
}

// Short integer lists read best on one line: `k_unroll: [1, 2, 4, 8]`.
void put_int_list(YAML::Emitter& out, const std::string& key, const std::vector<int>& values) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (int v : values) out << v;
  out << YAML::EndSeq;
}

void put_cpu_isa(YAML::Emitter& out, const IsaInfo& isa) {
  put_string(out, "vector", to_string(isa.vector));
  put_int(out, "vector_bits", isa.vector_bits);
  put_int(out, "vector_registers", isa.vector_registers);
  put_int(out, "fma_latency_cycles", isa.fma_latency_cycles);
  put_int(out, "fma_pipes", isa.fma_pipes);
  if (isa.half_width_fma_pipes > 0) put_int(out, "half_width_fma_pipes", isa.half_width_fma_pipes);
  put_string(out, "fma_broadcast", to_string(isa.fma_broadcast));
  put_int_list(out, "k_unroll", isa.k_unroll);
}

void put_mma(YAML::Emitter& out, const std::vector<MmaShape>& shapes) {
  out << YAML::Key << "mma" << YAML::Value << YAML::BeginSeq;
  for (const MmaShape& s : shapes) {
    out << YAML::BeginMap;
    put_string(out, "name", s.name);
    put_int(out, "m", s.m);
    put_int(out, "n", s.n);
    put_int(out, "k", s.k);
    put_string(out, "a", to_string(s.a));
    put_string(out, "b", to_string(s.b));
    put_string(out, "c", to_string(s.c));
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void put_cuda_isa(YAML::Emitter& out, const IsaInfo& isa) {
  put_int(out, "sm", isa.sm);
  put_int(out, "warp_size", isa.warp_size);
  put_int(out, "registers_per_thread_max", isa.registers_per_thread_max);
  put_int(out, "register_overhead_per_thread", isa.register_overhead_per_thread);
  put_int(out, "registers_per_sm", isa.registers_per_sm);
  put_int(out, "shared_memory_per_block_bytes", isa.shared_memory_per_block_bytes);
  put_int(out, "threads_per_block_max", isa.threads_per_block_max);
  put_int(out, "warps_per_block_max", isa.warps_per_block_max);
  put_int_list(out, "pipeline_stages", isa.pipeline_stages);
  put_int_list(out, "k_unroll", isa.k_unroll);
  put_mma(out, isa.mma);
  if (isa.models_occupancy()) {
    put_int(out, "shared_memory_per_sm_bytes", isa.shared_memory_per_sm_bytes);
    put_int(out, "shared_memory_reserved_per_block_bytes", isa.shared_memory_reserved_per_block_bytes);
    put_int(out, "threads_per_sm_max", isa.threads_per_sm_max);
    put_int(out, "blocks_per_sm_max", isa.blocks_per_sm_max);
    put_int(out, "register_allocation_unit", isa.register_allocation_unit);
    put_number(out, "block_sync_cycles", isa.block_sync_cycles);
    put_number(out, "warp_step_latency_cycles", isa.warp_step_latency_cycles);
  }
  if (isa.wgmma.present()) {
    out << YAML::Key << "wgmma" << YAML::Value << YAML::BeginMap;
    put_int_list(out, "n", isa.wgmma.n);
    put_int_list(out, "consumers", isa.wgmma.consumers);
    put_int(out, "slice_k", isa.wgmma.slice_k);
    put_int(out, "stages_max", isa.wgmma.stages_max);
    put_number(out, "efficiency", isa.wgmma.efficiency);
    put_number(out, "slice_floor_cycles", isa.wgmma.slice_floor_cycles);
    put_number(out, "slice_latency_cycles", isa.wgmma.slice_latency_cycles);
    put_string(out, "source", isa.wgmma.source);
    out << YAML::EndMap;
  }
}

void put_isa(YAML::Emitter& out, const Arch& arch) {
  out << YAML::Key << "isa" << YAML::Value << YAML::BeginMap;
  if (arch.is_gpu()) {
    put_cuda_isa(out, arch.isa);
  } else {
    put_cpu_isa(out, arch.isa);
  }
  put_string(out, "source", arch.isa.source);
  out << YAML::EndMap;
}

void put_compute(YAML::Emitter& out, const std::vector<ComputeSpec>& compute) {
  out << YAML::Key << "compute" << YAML::Value << YAML::BeginSeq;
  for (const ComputeSpec& c : compute) {
    out << YAML::BeginMap;
    put_string(out, "unit", to_string(c.unit));
    put_string(out, "input", to_string(c.input));
    put_number(out, "peak_gflops", c.peak_gflops);
    if (c.mma_sync_gflops > 0) put_number(out, "mma_sync_gflops", c.mma_sync_gflops);
    put_string(out, "source", c.source);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void put_memories(YAML::Emitter& out, const std::vector<MemorySpec>& memories) {
  out << YAML::Key << "memories" << YAML::Value << YAML::BeginSeq;
  for (const MemorySpec& m : memories) {
    out << YAML::BeginMap;
    put_string(out, "name", m.name);
    put_string(out, "kind", to_string(m.kind));
    put_int(out, "capacity_bytes", m.capacity_bytes);
    put_int(out, "shared_by", m.shared_by);
    put_number(out, "bandwidth_gbps", m.bandwidth_gbps);
    put_number(out, "latency_ns", m.latency_ns);
    if (m.kind == MemoryKind::cache) {
      put_int(out, "line_bytes", m.line_bytes);
      put_int(out, "associativity", m.associativity);
    }
    put_string(out, "source", m.source);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

// A level's memory is named by `memory`; an Arch built in code may have set only memory_index.
const std::string& level_memory_name(const Arch& arch, const LevelSpec& level) {
  if (level.memory.empty() && level.memory_index >= 0 &&
      static_cast<size_t>(level.memory_index) < arch.memories.size()) {
    return arch.memories[level.memory_index].name;
  }
  return level.memory;
}

void put_levels(YAML::Emitter& out, const Arch& arch) {
  out << YAML::Key << "levels" << YAML::Value << YAML::BeginSeq;
  for (size_t i = 0; i < arch.levels.size(); ++i) {
    const LevelSpec& l = arch.levels[i];
    out << YAML::BeginMap;
    put_string(out, "name", l.name);
    put_string(out, "memory", level_memory_name(arch, l));
    put_int(out, "parallel_units", l.parallel_units);
    put_string(out, "analyzer", to_string(l.analyzer));
    if (i >= 1) put_int_list(out, "tile_multiples", l.tile_multiples);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

}  // namespace

std::string write_arch_yaml(const Arch& arch) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::BeginMap;
  put_string(out, "schema", "strata-arch/1");
  put_string(out, "name", arch.name);
  put_string(out, "description", arch.description);
  put_string(out, "target", to_string(arch.target));
  put_number(out, "clock_ghz", arch.clock_ghz);
  put_number(out, "launch_overhead_ns", arch.launch_overhead_ns);
  put_string(out, "launch_source", arch.launch_source);
  put_isa(out, arch);
  put_compute(out, arch.compute);
  put_memories(out, arch.memories);
  put_levels(out, arch);
  out << YAML::EndMap;
  // The emitter only fails on unbalanced Begin/End calls, which would be a bug here, not bad input.
  if (!out.good()) throw Error({}, "internal: YAML emitter failed: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace strata
