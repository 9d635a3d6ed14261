#include "spec/arch_loader.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/c_names.h"
#include "common/sha256.h"
#include "spec/yaml_reader.h"

namespace strata {
namespace {

const std::vector<std::string> kTargets = {"x86_64", "aarch64", "cuda"};
const std::vector<std::string> kVectorIsas = {"avx2", "avx512", "neon"};
const std::vector<std::string> kBroadcasts = {"memory", "lane"};
const std::vector<std::string> kUnits = {"cpu_fma", "cuda_core", "tensor_core"};
const std::vector<std::string> kDataTypes = {"f32", "f16", "bf16"};
const std::vector<std::string> kMemoryKinds = {"registers", "cache", "shared", "dram"};
const std::vector<std::string> kAnalyzers = {"profile", "model"};

const std::vector<std::string> kCpuIsaKeys = {
    "vector",    "vector_bits",          "vector_registers", "fma_latency_cycles",
    "fma_pipes", "half_width_fma_pipes", "fma_broadcast"};
const std::vector<std::string> kCudaIsaKeys = {"sm",
                                               "warp_size",
                                               "registers_per_thread_max",
                                               "register_overhead_per_thread",
                                               "registers_per_sm",
                                               "shared_memory_per_block_bytes",
                                               "threads_per_block_max",
                                               "warps_per_block_max",
                                               "pipeline_stages",
                                               "mma",
                                               "shared_memory_per_sm_bytes",
                                               "shared_memory_reserved_per_block_bytes",
                                               "threads_per_sm_max",
                                               "blocks_per_sm_max",
                                               "register_allocation_unit",
                                               "block_sync_cycles",
                                               "warp_step_latency_cycles",
                                               "wgmma"};
// The occupancy group of the CUDA isa: all or none.
const std::vector<std::string> kOccupancyKeys = {
    "shared_memory_per_sm_bytes", "shared_memory_reserved_per_block_bytes",
    "threads_per_sm_max",         "blocks_per_sm_max",
    "register_allocation_unit",   "block_sync_cycles",
    "warp_step_latency_cycles"};

std::vector<int> to_ints(const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }

// Keys that belong to the other family of targets get a message that says so, rather than "unknown key".
void reject_other_target_keys(MapReader& r, const std::vector<std::string>& keys, const char* owner) {
  for (const auto& key : keys)
    if (r.has(key)) r.fail(key, fmt::format("is only valid for {} targets", owner));
}

DataType read_type(MapReader& r, const std::string& key) { return static_cast<DataType>(r.choice(key, kDataTypes)); }

IsaInfo read_cpu_isa(MapReader& r, Target target) {
  IsaInfo isa;
  isa.vector = static_cast<VectorIsa>(r.choice("vector", kVectorIsas));
  const bool x86 = target == Target::x86_64;
  if (x86 == (isa.vector == VectorIsa::neon))
    r.fail("vector",
           fmt::format("'{}' is not a vector extension of target {}", to_string(isa.vector), to_string(target)));
  isa.vector_bits = static_cast<int>(r.integer("vector_bits", 128, 512));
  const int expected_bits = isa.vector == VectorIsa::avx512 ? 512 : isa.vector == VectorIsa::avx2 ? 256 : 128;
  if (isa.vector_bits != expected_bits)
    r.fail("vector_bits",
           fmt::format("must be {} for {}, found {}", expected_bits, to_string(isa.vector), isa.vector_bits));
  isa.vector_registers = static_cast<int>(r.integer("vector_registers", 1, 256));
  isa.fma_latency_cycles = static_cast<int>(r.integer("fma_latency_cycles", 1, 64));
  isa.fma_pipes = static_cast<int>(r.integer("fma_pipes", 1, 8));
  if (r.has("half_width_fma_pipes")) {
    if (isa.vector != VectorIsa::avx512)
      r.fail("half_width_fma_pipes",
             fmt::format("is only valid for avx512, whose 256-bit halves the kernels can use; "
                         "this descriptor's vector is {}",
                         to_string(isa.vector)));
    isa.half_width_fma_pipes = static_cast<int>(r.integer("half_width_fma_pipes", 1, 16));
  }
  isa.fma_broadcast = static_cast<Broadcast>(r.choice("fma_broadcast", kBroadcasts));
  isa.k_unroll = to_ints(r.integer_list("k_unroll", 1, 64));
  reject_other_target_keys(r, kCudaIsaKeys, "cuda");
  return isa;
}

MmaShape read_mma(const YAML::Node& node, const std::string& file, size_t index) {
  MapReader r(node, file, fmt::format("isa.mma[{}]", index));
  MmaShape mma;
  mma.name = r.identifier("name");
  mma.m = static_cast<int>(r.integer("m", 1, 256));
  mma.n = static_cast<int>(r.integer("n", 1, 256));
  mma.k = static_cast<int>(r.integer("k", 1, 256));
  mma.a = read_type(r, "a");
  mma.b = read_type(r, "b");
  mma.c = read_type(r, "c");
  r.finish();
  return mma;
}

WgmmaInfo read_wgmma(const YAML::Node& node, const std::string& file, const IsaInfo& isa) {
  MapReader r(node, file, "isa.wgmma");
  WgmmaInfo w;
  for (int64_t n : r.integer_list("n", 8, 256)) {
    if (n % 16 != 0) r.fail("n", fmt::format("{} is not a multiple of 16 (the kernels' wgmma n steps)", n));
    w.n.push_back(static_cast<int>(n));
  }
  w.consumers = to_ints(r.integer_list("consumers", 1, 2));
  w.slice_k = static_cast<int>(r.integer("slice_k", 64, 64));
  w.stages_max = static_cast<int>(r.integer("stages_max", 2, 64));
  w.efficiency = r.number("efficiency", 0, true);
  if (w.efficiency > 1) r.fail("efficiency", "is a fraction of the peak (at most 1)");
  w.slice_floor_cycles = r.number("slice_floor_cycles", 0, false);
  w.slice_latency_cycles = r.number("slice_latency_cycles", 0, false);
  w.source = r.string("source");
  r.finish();
  if (isa.sm != 90)
    throw Error(pos_of(node, file),
                fmt::format("isa: 'wgmma' needs sm 90 (sm_90a), this descriptor has sm {}", isa.sm));
  return w;
}

IsaInfo read_cuda_isa(MapReader& r) {
  IsaInfo isa;
  isa.vector = VectorIsa::none;
  isa.sm = static_cast<int>(r.integer("sm", 50, 200));
  isa.warp_size = static_cast<int>(r.integer("warp_size", 1, 64));
  isa.registers_per_thread_max = static_cast<int>(r.integer("registers_per_thread_max", 16, 1024));
  isa.register_overhead_per_thread = static_cast<int>(r.integer("register_overhead_per_thread", 0, 1024));
  if (isa.register_overhead_per_thread >= isa.registers_per_thread_max)
    r.fail("register_overhead_per_thread", "must leave registers for the tile (< registers_per_thread_max)");
  isa.registers_per_sm = static_cast<int>(r.integer("registers_per_sm", 1024, 1 << 24));
  isa.shared_memory_per_block_bytes = r.integer("shared_memory_per_block_bytes", 1024);
  isa.threads_per_block_max = static_cast<int>(r.integer("threads_per_block_max", isa.warp_size, 65536));
  isa.warps_per_block_max = static_cast<int>(r.integer("warps_per_block_max", 1, 1024));
  if (isa.warps_per_block_max * isa.warp_size > isa.threads_per_block_max)
    r.fail("warps_per_block_max",
           fmt::format("exceeds threads_per_block_max / warp_size = {}", isa.threads_per_block_max / isa.warp_size));
  isa.pipeline_stages = to_ints(r.integer_list("pipeline_stages", 1, 16));
  isa.k_unroll = to_ints(r.integer_list("k_unroll", 1, 256));
  YAML::Node mma = r.node("mma");
  if (!mma.IsSequence()) throw Error(pos_of(mma, r.file()), "isa: 'mma' expected a list of MMA instruction shapes");
  for (size_t i = 0; i < mma.size(); ++i) isa.mma.push_back(read_mma(mma[i], r.file(), i));
  size_t occupancy_keys = 0;
  for (const auto& key : kOccupancyKeys) occupancy_keys += r.has(key) ? 1 : 0;
  if (occupancy_keys > 0) {
    for (const auto& key : kOccupancyKeys)
      if (!r.has(key))
        throw Error(r.pos(), fmt::format("isa: missing key '{}': the occupancy fields (shared_memory_per_sm_bytes "
                                         "to warp_step_latency_cycles) come all together or not at all",
                                         key));
    isa.shared_memory_per_sm_bytes = r.integer("shared_memory_per_sm_bytes", isa.shared_memory_per_block_bytes);
    isa.shared_memory_reserved_per_block_bytes =
        r.integer("shared_memory_reserved_per_block_bytes", 0, isa.shared_memory_per_sm_bytes);
    if (isa.shared_memory_per_block_bytes + isa.shared_memory_reserved_per_block_bytes >
        isa.shared_memory_per_sm_bytes)
      r.fail("shared_memory_reserved_per_block_bytes",
             "with shared_memory_per_block_bytes exceeds shared_memory_per_sm_bytes: a largest block would not fit");
    isa.threads_per_sm_max = static_cast<int>(r.integer("threads_per_sm_max", isa.threads_per_block_max, 1 << 20));
    isa.blocks_per_sm_max = static_cast<int>(r.integer("blocks_per_sm_max", 1, 1024));
    isa.register_allocation_unit = static_cast<int>(r.integer("register_allocation_unit", 1, isa.registers_per_sm));
    if (static_cast<int64_t>(isa.registers_per_thread_max) * isa.warp_size > isa.registers_per_sm)
      r.fail("registers_per_sm", "is smaller than one warp of registers_per_thread_max");
    isa.block_sync_cycles = r.number("block_sync_cycles", 0, false);
    isa.warp_step_latency_cycles = r.number("warp_step_latency_cycles", 0, false);
  }
  if (r.has("wgmma")) {
    isa.wgmma = read_wgmma(r.node("wgmma"), r.file(), isa);
    if (!isa.models_occupancy())
      r.fail("wgmma",
             "needs the occupancy fields (shared_memory_per_sm_bytes to warp_step_latency_cycles): the "
             "wgmma kernels are ranked by the block level they configure");
  }
  reject_other_target_keys(r, kCpuIsaKeys, "CPU (x86_64, aarch64)");
  return isa;
}

ComputeSpec read_compute(const YAML::Node& node, const std::string& file, size_t index) {
  MapReader r(node, file, fmt::format("compute[{}]", index));
  ComputeSpec c;
  c.pos = r.pos();
  c.unit = static_cast<ComputeUnit>(r.choice("unit", kUnits));
  c.input = read_type(r, "input");
  c.peak_gflops = r.number("peak_gflops", 0, true);
  if (r.has("mma_sync_gflops")) {
    if (c.unit != ComputeUnit::tensor_core) r.fail("mma_sync_gflops", "is only valid for unit tensor_core");
    c.mma_sync_gflops = r.number("mma_sync_gflops", 0, true);
    if (c.mma_sync_gflops > c.peak_gflops) r.fail("mma_sync_gflops", "exceeds peak_gflops");
  }
  c.source = r.string("source");
  r.finish();
  return c;
}

MemorySpec read_memory(const YAML::Node& node, const std::string& file, size_t index) {
  MapReader r(node, file, fmt::format("memories[{}]", index));
  MemorySpec m;
  m.pos = r.pos();
  m.name = r.identifier("name");
  m.kind = static_cast<MemoryKind>(r.choice("kind", kMemoryKinds));
  m.capacity_bytes = r.integer("capacity_bytes", 1);
  m.shared_by = static_cast<int>(r.integer("shared_by", 1, 1 << 20));
  m.bandwidth_gbps = r.number("bandwidth_gbps", 0, true);
  m.latency_ns = r.number("latency_ns", 0, false);
  if (m.kind == MemoryKind::cache) {
    m.line_bytes = static_cast<int>(r.integer("line_bytes", 1, 4096));
    m.associativity = static_cast<int>(r.integer("associativity", 1, 1 << 16));
    const int64_t way_bytes = static_cast<int64_t>(m.line_bytes) * m.associativity;
    if (m.capacity_bytes % way_bytes != 0)
      r.fail("capacity_bytes",
             fmt::format("{} is not sets x associativity ({}) x line_bytes ({}) for an integer number of sets",
                         m.capacity_bytes, m.associativity, m.line_bytes));
  } else {
    for (const char* key : {"line_bytes", "associativity"})
      if (r.has(key)) r.fail(key, "is only valid for memories of kind cache");
  }
  m.source = r.string("source");
  r.finish();
  return m;
}

LevelSpec read_level(const YAML::Node& node, const std::string& file, size_t index) {
  MapReader r(node, file, fmt::format("levels[{}]", index));
  LevelSpec l;
  l.pos = r.pos();
  l.name = r.identifier("name");
  l.memory = r.identifier("memory");
  l.parallel_units = static_cast<int>(r.integer("parallel_units", 1, 1 << 20));
  l.analyzer = static_cast<Analyzer>(r.choice("analyzer", kAnalyzers));
  if (index == 0) {
    if (r.has("tile_multiples")) r.fail("tile_multiples", "is not valid on level 0 (it has no level below)");
  } else {
    l.tile_multiples = to_ints(r.integer_list("tile_multiples", 1, 1 << 16));
    if (std::find(l.tile_multiples.begin(), l.tile_multiples.end(), 1) == l.tile_multiples.end())
      r.fail("tile_multiples", "must include 1 (a level-L tile equal to the level-(L-1) tile)");
  }
  r.finish();
  return l;
}

template <typename T, typename F>
std::vector<T> read_list(MapReader& r, const std::string& key, F read_item) {
  YAML::Node list = r.node(key);
  if (!list.IsSequence() || list.size() == 0)
    throw Error(pos_of(list, r.file()), fmt::format("{}: '{}' expected a non-empty list", r.what(), key));
  std::vector<T> out;
  for (size_t i = 0; i < list.size(); ++i) out.push_back(read_item(list[i], r.file(), i));
  return out;
}

// Cross-field rules: names resolve, the hierarchy is possible.
void check_hierarchy(Arch& a) {
  for (size_t i = 0; i < a.memories.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (a.memories[i].name == a.memories[j].name)
        throw Error(a.memories[i].pos, fmt::format("memory '{}' is declared twice", a.memories[i].name));
  if (a.memories.front().kind != MemoryKind::registers)
    throw Error(a.memories.front().pos, "the first (innermost) memory must be of kind registers");
  if (a.memories.back().kind != MemoryKind::dram)
    throw Error(a.memories.back().pos, "the last (outermost) memory must be of kind dram");
  const MemorySpec* previous = nullptr;
  for (const auto& m : a.memories) {
    if (m.kind != MemoryKind::cache && m.kind != MemoryKind::dram) continue;
    if (previous && m.capacity_bytes < previous->capacity_bytes)
      throw Error(m.pos, fmt::format("impossible hierarchy: memory '{}' ({} bytes) is smaller than '{}' ({} bytes) "
                                     "inside it",
                                     m.name, m.capacity_bytes, previous->name, previous->capacity_bytes));
    previous = &m;
  }
  if (a.levels.size() < 2) throw Error(a.levels.front().pos, "at least two levels are needed (L0 and one above)");
  bool profiled_prefix = true;
  int previous_memory = -1;
  for (size_t i = 0; i < a.levels.size(); ++i) {
    LevelSpec& l = a.levels[i];
    for (size_t j = 0; j < i; ++j)
      if (a.levels[j].name == l.name) throw Error(l.pos, fmt::format("level '{}' is declared twice", l.name));
    auto it =
        std::find_if(a.memories.begin(), a.memories.end(), [&](const MemorySpec& m) { return m.name == l.memory; });
    if (it == a.memories.end())
      throw Error(l.pos,
                  fmt::format("level '{}' names memory '{}', which is not declared in 'memories'", l.name, l.memory));
    l.memory_index = static_cast<int>(it - a.memories.begin());
    if (i == 0 && it->kind != MemoryKind::registers)
      throw Error(l.pos, fmt::format("level 0 ('{}') must be staged in a memory of kind registers", l.name));
    if (it->kind == MemoryKind::dram)
      throw Error(l.pos,
                  fmt::format("level '{}' cannot be staged in dram: the problem itself streams from there", l.name));
    if (l.memory_index < previous_memory)
      throw Error(l.pos, fmt::format("impossible hierarchy: level '{}' is staged in '{}', inside the memory of the "
                                     "level below it",
                                     l.name, l.memory));
    previous_memory = l.memory_index;
    if (l.analyzer == Analyzer::profile && !profiled_prefix)
      throw Error(l.pos, fmt::format("level '{}' is profiled but a level below it is modelled; profiled levels "
                                     "must be the innermost ones",
                                     l.name));
    profiled_prefix = profiled_prefix && l.analyzer == Analyzer::profile;
  }
  for (const auto& c : a.compute) {
    const bool gpu_unit = c.unit != ComputeUnit::cpu_fma;
    if (gpu_unit != a.is_gpu())
      throw Error(c.pos,
                  fmt::format("compute unit {} does not exist on target {}", to_string(c.unit), to_string(a.target)));
  }
}

}  // namespace

Arch load_arch(const std::string& path) { return load_arch_text(path, read_spec_file(path)); }

Arch load_arch_text(const std::string& path, const std::string& content) {
  YAML::Node root = parse_yaml_text(path, content);
  MapReader r(root, path, "architecture descriptor");
  Arch a;
  a.file = path;
  a.content_sha = sha256_hex(content);
  const std::string schema = r.string("schema");
  if (schema != "strata-arch/1")
    r.fail("schema", fmt::format("must be 'strata-arch/1' (this Strata reads that version), found '{}'", schema));
  a.name = r.identifier("name");
  if (const std::string problem = name_part_problem(a.name); !problem.empty())
    r.fail("name",
           fmt::format("'{}' {}: it is a part of the default package name strata_<op>_<arch>", a.name, problem));
  a.description = r.string("description");
  a.target = static_cast<Target>(r.choice("target", kTargets));
  a.clock_ghz = r.number("clock_ghz", 0, true);
  a.launch_overhead_ns = r.number("launch_overhead_ns", 0, false);
  a.launch_source = r.string("launch_source");
  {
    MapReader isa(r.node("isa"), path, "isa");
    a.isa = a.is_gpu() ? read_cuda_isa(isa) : read_cpu_isa(isa, a.target);
    a.isa.source = isa.string("source");
    isa.finish();
  }
  a.compute = read_list<ComputeSpec>(r, "compute", read_compute);
  a.memories = read_list<MemorySpec>(r, "memories", read_memory);
  a.levels = read_list<LevelSpec>(r, "levels", read_level);
  r.finish();
  check_hierarchy(a);
  return a;
}

}  // namespace strata
