#include "detect/host_detect.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define STRATA_HOST_DETECT 1
#endif

#ifdef STRATA_HOST_DETECT

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "common/error.h"
#include "detect/cache_facts.h"
#include "detect/cpu_identity.h"
#include "detect/host_system.h"
#include "detect/measure.h"
#include "detect/timing_kernels.h"

namespace strata {
namespace detect {
namespace {

// ---------------------------------------------------------------------------------------------------------------
// Assembling the descriptor
// ---------------------------------------------------------------------------------------------------------------

struct HostFacts {
  CpuIdentity cpu;
  std::vector<int> cpus;
  int cores = 0;           // usable logical CPUs: the outermost level's parallel units
  int physical_cores = 0;  // distinct cores among them, for the machine's peak
  int64_t memory_bytes = 0;
  std::vector<CacheFacts> caches;
};

MemorySpec cache_memory(const Kernels& k, const CacheFacts& c, const CacheFacts* inner) {
  // Half the capacity, so the buffer fits with room for the rest of the program. For a shared cache one thread
  // per sharing CPU streams at once (its bandwidth is the instance's), but each share must stay well above the
  // cache inside it, or the inner caches would serve the reads.
  const int64_t half = c.size / 2;
  int threads = c.shared_by;
  if (inner) threads = static_cast<int>(std::clamp<int64_t>(half / (2 * inner->size), 1, c.shared_by));
  const Probe p = probe_memory(k, half, threads, c.line);
  MemorySpec m;
  m.name = cache_name(c);
  m.kind = MemoryKind::cache;
  m.capacity_bytes = c.size;
  m.shared_by = c.shared_by;
  m.bandwidth_gbps = round_sig(p.gbps);
  m.latency_ns = round_sig(p.latency_ns);
  m.line_bytes = c.line;
  m.associativity = c.ways;
  std::string partial;
  if (p.threads < c.shared_by)
    partial = fmt::format(" (only {} of the {} sharing CPUs stream, so the bandwidth is a lower bound)", p.threads,
                          c.shared_by);
  m.source = fmt::format("capacity, geometry and sharing from {}: {} sets x {} ways x {}-byte lines, {}{}; {}{}",
                         c.origin, c.sets, c.ways, c.line, c.sharing, c.note.empty() ? "" : " (" + c.note + ")",
                         probe_text(k, p, c.line), partial);
  return m;
}

MemorySpec dram_memory(const Kernels& k, const HostFacts& h) {
  // Far larger than all outer-level cache instances together, and each thread's share far larger than its
  // private caches, so that streaming misses every cache: at least 64 MiB, at most 1 GiB or a quarter of memory.
  const CacheFacts& outer = h.caches.back();
  const int64_t instances = (h.cores + outer.shared_by - 1) / outer.shared_by;
  int64_t bytes = std::max<int64_t>(int64_t{64} << 20, 4 * outer.size * instances);
  if (h.caches.size() >= 2) bytes = std::max(bytes, int64_t{4} * h.cores * h.caches[h.caches.size() - 2].size);
  bytes = std::min({bytes, int64_t{1} << 30, h.memory_bytes / 4});
  const Probe p = probe_memory(k, bytes, h.cores, outer.line);
  MemorySpec m;
  m.name = "dram";
  m.kind = MemoryKind::dram;
  m.capacity_bytes = h.memory_bytes;
  m.shared_by = h.cores;
  m.bandwidth_gbps = round_sig(p.gbps);
  m.latency_ns = round_sig(p.latency_ns);
  m.source = fmt::format(
      "capacity: physical memory from sysconf(_SC_PHYS_PAGES x _SC_PAGESIZE); {}; huge pages "
      "requested (madvise) to keep TLB misses out of the latency",
      probe_text(k, p, outer.line));
  return m;
}

MemorySpec register_memory(const Kernels& k, const CpuIdentity& cpu, const MemorySpec& l1) {
  MemorySpec m;
  m.name = "registers";
  m.kind = MemoryKind::registers;
  m.capacity_bytes = int64_t{k.vector_registers} * k.vector_bits / 8;
  m.shared_by = 1;
  m.bandwidth_gbps = l1.bandwidth_gbps;
  m.latency_ns = 0;
  m.source = fmt::format(
      "{} architectural {}-bit {} registers ({}); bandwidth is the measured {} read bandwidth, "
      "since register tiles are loaded from it; latency 0 by convention",
      k.vector_registers, k.vector_bits, k.isa_name, cpu.isa_evidence, l1.name);
  return m;
}

// cache_block: L2 when it is private to a core, else the largest such cache (the innermost cache when none is).
// SMT siblings share a core's caches, so up to `smt` sharing CPUs still count as private. cores: the outermost
// cache.
std::vector<LevelSpec> host_levels(const std::vector<MemorySpec>& memories, int cores, int smt) {
  const MemorySpec* block = nullptr;
  auto per_core = [&](const MemorySpec& m) { return m.shared_by <= smt; };
  for (const MemorySpec& m : memories) {
    if (m.kind != MemoryKind::cache) continue;
    if (!block) block = &m;
    if (per_core(m) && (!per_core(*block) || m.capacity_bytes > block->capacity_bytes)) block = &m;
    if (m.name == "l2" && per_core(m)) {
      block = &m;
      break;
    }
  }
  const MemorySpec& outer = memories[memories.size() - 2];  // last cache, before dram
  std::vector<LevelSpec> levels(3);
  levels[0].name = "register_tile";
  levels[0].memory = "registers";
  levels[0].memory_index = 0;
  levels[0].parallel_units = 1;
  levels[0].analyzer = Analyzer::profile;
  levels[1].name = "cache_block";
  levels[1].memory = block->name;
  levels[1].memory_index = static_cast<int>(block - memories.data());
  levels[1].parallel_units = 1;
  // Level 1 profiled too (Helix's "levels 0 and 1 profiled"): the descriptor describes the machine that generates,
  // so its blocks can be timed, and a register tile whose packed panels outgrow L1 runs far below its level-0 time
  // in a call, which the model, fed the level-0 time and a streaming read bandwidth of L2, does not see
  // (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "detect-level1-profiled").
  levels[1].analyzer = Analyzer::profile;
  // Up to 48: a k block of 48 k-unrolled steps (e.g. 8 x 48 = 384, BLIS's KC) amortises draining C.
  levels[1].tile_multiples = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48};
  levels[2].name = "cores";
  levels[2].memory = outer.name;
  levels[2].memory_index = static_cast<int>(memories.size() - 2);
  levels[2].parallel_units = cores;
  levels[2].analyzer = Analyzer::model;
  levels[2].tile_multiples = {1, 2, 4, 8, 16};
  return levels;
}

IsaInfo host_isa(const Kernels& k, const HostFacts& h, const ComputeFacts& m) {
  // The FMA loop and the loaded clock loop run in the same frequency licence, so their ratio is flops per cycle.
  const double flops_per_cycle = m.fma_gflops / m.loaded_ghz;
  const double pipes_measured = flops_per_cycle / (2.0 * k.lanes());
  IsaInfo isa;
  isa.vector = k.isa;
  isa.vector_bits = k.vector_bits;
  isa.vector_registers = k.vector_registers;
  isa.fma_latency_cycles = h.cpu.fma_latency_cycles;
  isa.fma_pipes = static_cast<int>(std::clamp<long>(std::lround(pipes_measured), 1, k.max_fma_pipes));
  isa.fma_broadcast = k.broadcast;
  isa.k_unroll = {1, 2, 4, 8};
  const bool ambiguous = std::fabs(pipes_measured - std::round(pipes_measured)) > 0.25;
  isa.source = fmt::format(
      "{}: {}; {} architectural vector registers; fma_latency_cycles {} is {}; fma_pipes {} from measurement: {} "
      "independent {} chains in registers reach {:.1f} flop/cycle = {:.2f} x 2 x {} lanes{}, at the {:.3g} GHz "
      "clock measured by a chain of dependent 1-cycle integer adds interleaved with {} FMAs (the same adds alone: "
      "{:.3g} GHz); clock_ghz is that FMA-loaded clock",
      h.cpu.model, h.cpu.isa_evidence, k.vector_registers, isa.fma_latency_cycles, h.cpu.fma_latency_basis,
      isa.fma_pipes, k.fma_chains, k.fma_insn, flops_per_cycle, pipes_measured, k.lanes(),
      ambiguous ? " (far from a whole number: the host was probably busy; rerun on an idle machine)" : "",
      m.loaded_ghz, k.isa_name, m.scalar_ghz);
  if (m.half_fma_gflops > 0) {
    const double half_pipes_measured = m.half_fma_gflops / m.loaded_ghz / (2.0 * (k.lanes() / 2));
    isa.half_width_fma_pipes =
        static_cast<int>(std::clamp<long>(std::lround(half_pipes_measured), 1, 2 * k.max_fma_pipes));
    isa.source += fmt::format(
        "; half_width_fma_pipes {} from measurement: the same chains as {} reach {:.2f} x 2 x {} lanes a cycle",
        isa.half_width_fma_pipes, k.half_fma_insn, half_pipes_measured, k.lanes() / 2);
  }
  return isa;
}

ComputeSpec host_compute(const Kernels& k, const HostFacts& h, const ComputeFacts& m) {
  ComputeSpec fma;
  fma.unit = ComputeUnit::cpu_fma;
  fma.input = DataType::f32;
  fma.peak_gflops = round_sig(m.fma_gflops * h.physical_cores);
  fma.source = fmt::format(
      "measured: {} independent {} chains in registers on one thread, best of 6 windows of ~10 ms, {:.4g} GFLOP/s "
      "per core; times {} cores (distinct core_id among the {} usable CPUs in /sys/devices/system/cpu)",
      k.fma_chains, k.fma_insn, m.fma_gflops, h.physical_cores, h.cores);
  return fma;
}

Arch build_host_arch() {
  HostFacts h;
  h.cpu = identify_cpu();
  const Kernels& k = h.cpu.kernels;
  h.cpus = usable_cpus();
  h.cores = static_cast<int>(h.cpus.size());
  h.physical_cores = physical_cores(h.cpus);
  h.memory_bytes = physical_memory_bytes();
  h.caches = read_caches(h.cpu, h.cpus);
  const ComputeFacts measured = measure_compute(k);

  Arch a;
  a.name = std::string("host_") + to_string(k.isa);
  a.description = fmt::format("{}, {} usable CPUs ({} cores), {}; measured by strata's host detection", h.cpu.model,
                              h.cores, h.physical_cores, k.isa_name);
#if defined(__x86_64__)
  a.target = Target::x86_64;
#else
  a.target = Target::aarch64;
#endif
  a.clock_ghz = round_sig(measured.loaded_ghz);
  a.launch_overhead_ns = 50;
  a.launch_source = "default estimate for a C function call plus the generated dispatch; not measured";
  a.isa = host_isa(k, h, measured);
  a.compute.push_back(host_compute(k, h, measured));
  std::vector<MemorySpec> caches;
  for (size_t i = 0; i < h.caches.size(); ++i)
    caches.push_back(cache_memory(k, h.caches[i], i == 0 ? nullptr : &h.caches[i - 1]));
  a.memories.push_back(register_memory(k, h.cpu, caches.front()));
  a.memories.insert(a.memories.end(), caches.begin(), caches.end());
  a.memories.push_back(dram_memory(k, h));
  a.levels = host_levels(a.memories, h.cores, std::max(1, h.cores / std::max(1, h.physical_cores)));
  return a;
}

}  // namespace
}  // namespace detect

Arch detect_host_arch() {
  try {
    return detect::build_host_arch();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {  // std::thread or allocation failures
    detect::fail(std::string("host detection failed: ") + e.what());
  }
}

}  // namespace strata

#else  // not Linux on x86-64 or aarch64

namespace strata {

Arch detect_host_arch() {
  throw Error(SourcePos{"<host>", 0, 0},
              "host detection supports Linux on x86-64 and aarch64 only; write an architecture descriptor by hand "
              "(see archs/REFERENCE.md)");
}

}  // namespace strata

#endif
