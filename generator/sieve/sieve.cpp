#include "sieve/sieve.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace strata {
namespace {

// Constraint keys, in the order they are tested; describe_constraint() explains each.
constexpr const char* kVectorWidth = "isa.vector_width";
constexpr const char* kMmaShape = "isa.mma_shape";
constexpr const char* kRegisterBudget = "isa.register_budget";
constexpr const char* kFmaLatency = "isa.fma_latency";
constexpr const char* kOpMax = "op.dim_max";
constexpr const char* kSharedBanks = "gpu.shared_banks";
constexpr const char* kWarpsPerBlock = "gpu.warps_per_block";
constexpr const char* kSharedMemory = "gpu.shared_memory";
constexpr const char* kRegistersPerSm = "gpu.registers_per_sm";
constexpr const char* kCapacity = "capacity";

using Tile = std::array<int64_t, kNumAxes>;

// The largest size of each axis the op's facts allow (INT64_MAX where unbounded), worked out once per level:
// axis_facts walks the gemm view's dimension names, which a convolution has several of per axis.
Tile axis_max(const Op& op) {
  Tile max{};
  for (int a = 0; a < kNumAxes; ++a) max[static_cast<size_t>(a)] = op.axis_facts(a).max;
  return max;
}

// A tile is pointlessly large along an axis when a tile one step smaller would still cover the axis' largest
// size (`max`, from axis_max); the step is the granularity the level can change that extent by.
bool exceeds_op_max(const Tile& max, const Tile& tile, const Tile& step) {
  for (size_t a = 0; a < static_cast<size_t>(kNumAxes); ++a)
    if (max[a] != INT64_MAX && tile[a] >= max[a] + step[a]) return true;
  return false;
}

// The identity of a candidate within its level: its tile and the level-0 detail that tells apart tiles of one shape.
auto identity(const Candidate& c) {
  return std::make_tuple(c.tile, c.mma_index, c.stages, c.thread_m, c.thread_n, c.warp_rows);
}

// Finds a level's candidates by identity. An upper level looks up millions of (tile, multiple) products among
// a few hundred thousand tiles, so the index is an open-addressed table of candidate indices (linear probing,
// at most half full) rather than a tree of keys.
class CandidateIndex {
 public:
  int find(const Candidate& c, const std::vector<Candidate>& candidates) const {
    if (slots_.empty()) return -1;
    for (size_t s = hash(c) & mask(); slots_[s] >= 0; s = (s + 1) & mask())
      if (identity(candidates[static_cast<size_t>(slots_[s])]) == identity(c)) return slots_[s];
    return -1;
  }
  // Adds candidates[at], which find() did not hold.
  void insert(const std::vector<Candidate>& candidates, int at) {
    if (2 * (count_ + 1) > slots_.size()) grow(candidates);
    place(candidates[static_cast<size_t>(at)], at);
    ++count_;
  }

 private:
  static size_t hash(const Candidate& c) {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    const auto mix = [&h](int64_t v) {
      h = (h ^ static_cast<uint64_t>(v)) * 0xff51afd7ed558ccdULL;
      h ^= h >> 32;
    };
    for (int64_t extent : c.tile) mix(extent);
    for (int detail : {c.mma_index, c.stages, c.thread_m, c.thread_n, c.warp_rows}) mix(detail);
    return static_cast<size_t>(h);
  }
  size_t mask() const { return slots_.size() - 1; }
  void place(const Candidate& c, int at) {
    size_t s = hash(c) & mask();
    while (slots_[s] >= 0) s = (s + 1) & mask();
    slots_[s] = at;
  }
  void grow(const std::vector<Candidate>& candidates) {
    std::vector<int> old = std::move(slots_);
    slots_.assign(std::max<size_t>(1024, 2 * old.size()), -1);
    for (int at : old)
      if (at >= 0) place(candidates[static_cast<size_t>(at)], at);
  }
  std::vector<int> slots_;
  size_t count_ = 0;
};

class LevelBuilder {
 public:
  static constexpr size_t kExamples = 3;

  LevelBuilder(SieveLevel& level, std::vector<std::string> order, SourcePos pos) : level_(level), pos_(pos) {
    level_.constraint_order = std::move(order);
    for (const auto& key : level_.constraint_order) {
      level_.pruned[key] = 0;
      slots_.push_back({key, 0, &level_.examples[key]});
    }
  }
  void consider() { ++level_.considered; }
  // Counts a rejection under `key` (one of the constraint order's keys). Runs millions of times per level, so the
  // count lives in a slot found by a short scan, and a tile is formatted only while examples are wanted.
  void reject(const char* key, const Tile& tile) {
    auto slot = std::find_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.key == key; });
    if (slot == slots_.end()) throw std::logic_error(std::string("sieve: constraint not in order: ") + key);
    ++slot->count;
    if (slot->examples->size() >= kExamples) return;
    const std::string text = fmt::format("{}x{}x{}", tile[0], tile[1], tile[2]);
    if (std::find(slot->examples->begin(), slot->examples->end(), text) == slot->examples->end())
      slot->examples->push_back(text);
  }
  // Adds `c` (deduplicated by identity) and records the cross-layer edge to `child` when child >= 0. upper_level
  // walks the level below in order, so a candidate's children arrive ascending and a repeat is the last one.
  void keep(const Candidate& c, int child) {
    int at = index_.find(c, level_.candidates);
    if (at < 0) {
      if (static_cast<int64_t>(level_.candidates.size()) >= kMaxCandidates)
        throw Error(pos_,
                    fmt::format("level '{}' keeps more than {} candidates, the most a level may keep (sieve.h): "
                                "give it fewer tile_multiples or a smaller capacity",
                                level_.name, kMaxCandidates));
      at = static_cast<int>(level_.candidates.size());
      level_.candidates.push_back(c);
      index_.insert(level_.candidates, at);
    }
    if (child < 0) return;
    std::vector<int>& children = level_.candidates[static_cast<size_t>(at)].children;
    if (!children.empty() && children.back() > child) throw std::logic_error("sieve: children out of order");
    if (children.empty() || children.back() != child) children.push_back(child);
  }
  // Sorts candidates deterministically by identity (called before the next level is built).
  void finish() {
    for (const Slot& slot : slots_) level_.pruned[slot.key] = slot.count;
    std::vector<size_t> order(level_.candidates.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto rank = [&](size_t i) { return identity(level_.candidates[i]); };
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return rank(x) < rank(y); });
    std::vector<Candidate> sorted;
    sorted.reserve(order.size());
    for (size_t i : order) {
      sorted.push_back(std::move(level_.candidates[i]));
      level_.map_edges += static_cast<int64_t>(sorted.back().children.size());
    }
    level_.candidates = std::move(sorted);
  }

 private:
  struct Slot {
    std::string key;
    int64_t count;
    std::vector<std::string>* examples;
  };
  SieveLevel& level_;
  SourcePos pos_;
  std::vector<Slot> slots_;
  CandidateIndex index_;
};

// ---- Level 0 -------------------------------------------------------------------------------------------

// CPU register tile mr x nr with k unrolled kr times; B is vectorised along n, A broadcast.
void cpu_level0(const Arch& arch, const Op& op, SieveLevel& level) {
  const Tile max = axis_max(op);
  const IsaInfo& isa = arch.isa;
  LevelBuilder b(level, {kVectorWidth, kRegisterBudget, kFmaLatency, kOpMax}, arch.levels.at(0).pos);
  const int lanes = isa.vector_bits / (8 * op.b_bytes());
  const int regs = isa.vector_registers;
  const int64_t tiles = static_cast<int64_t>(regs) * lanes * regs * static_cast<int64_t>(isa.k_unroll.size());
  if (tiles > kMaxConsidered)
    throw Error(arch.levels.at(0).pos,
                fmt::format("level '{}' would consider {} register tiles ({} registers x {} x {} k_unroll values), "
                            "more than a level may (sieve.h, {})",
                            arch.levels.at(0).name, tiles, regs, lanes * regs, isa.k_unroll.size(), kMaxConsidered));
  // Initial candidates under the resource limit: every mr and nr a register file could hold at all.
  for (int mr = 1; mr <= regs; ++mr)
    for (int nr = 1; nr <= lanes * regs; ++nr)
      for (int kr : isa.k_unroll) {
        b.consider();
        if (nr % lanes != 0) {
          b.reject(kVectorWidth, {mr, nr, kr});
          continue;
        }
        const int b_regs = nr / lanes;
        const int accumulators = mr * b_regs;
        const int a_regs = isa.fma_broadcast == Broadcast::memory ? 1 : (mr + lanes - 1) / lanes;
        const int used = accumulators + b_regs + a_regs;
        if (used > regs) {
          b.reject(kRegisterBudget, {mr, nr, kr});
          continue;
        }
        if (accumulators < isa.fma_chains()) {
          b.reject(kFmaLatency, {mr, nr, kr});
          continue;
        }
        Candidate c;
        c.tile = {mr, nr, kr};
        if (exceeds_op_max(max, c.tile, {1, lanes, 1})) {
          b.reject(kOpMax, c.tile);
          continue;
        }
        c.registers = used;
        c.footprint_bytes = static_cast<int64_t>(used) * isa.vector_bits / 8;
        b.keep(c, -1);
      }
  b.finish();
}

int gpu_overhead(const IsaInfo& isa) { return isa.register_overhead_per_thread; }

// Tensor Core warp tile: a multiple of an mma.sync shape.
void tensor_core_level0(const Arch& arch, const Op& op, SieveLevel& level) {
  const Tile max = axis_max(op);
  const IsaInfo& isa = arch.isa;
  LevelBuilder b(level, {kMmaShape, kRegisterBudget, kOpMax}, arch.levels.at(0).pos);
  const int warp = isa.warp_size;
  // Initial candidates: warp tiles in steps of 8 up to 256 x 256 x 64 (beyond that no register file holds
  // the accumulators), tried against every MMA instruction for the op's types.
  for (int mi = 0; mi < static_cast<int>(isa.mma.size()); ++mi) {
    const MmaShape& mma = isa.mma[static_cast<size_t>(mi)];
    if (mma.a != op.a_type || mma.c != op.accumulate) continue;
    for (int wm = 8; wm <= 256; wm += 8)
      for (int wn = 8; wn <= 256; wn += 8)
        for (int wk = 8; wk <= 64; wk += 8) {
          b.consider();
          if (wm % mma.m || wn % mma.n || wk % mma.k) {
            b.reject(kMmaShape, {wm, wn, wk});
            continue;
          }
          // Per thread: fp32 accumulators, then one k-slice of A and B fragments (packed two halves per
          // 32-bit register), then addressing overhead.
          const int element = op.a_bytes();
          const int accumulators = wm * wn / warp;
          const int a_frag = wm * wk * element / (4 * warp);
          const int b_frag = wk * wn * element / (4 * warp);
          const int used = accumulators + a_frag + b_frag + gpu_overhead(isa);
          if (used > isa.registers_per_thread_max) {
            b.reject(kRegisterBudget, {wm, wn, wk});
            continue;
          }
          Candidate c;
          c.tile = {wm, wn, wk};
          if (exceeds_op_max(max, c.tile, {mma.m, mma.n, mma.k})) {
            b.reject(kOpMax, c.tile);
            continue;
          }
          c.mma_index = mi;
          c.registers = used;
          c.footprint_bytes = static_cast<int64_t>(used) * 4 * warp;
          b.keep(c, -1);
        }
  }
  b.finish();
}

// CUDA-core warp tile: every thread owns a thread_m x thread_n FMA tile; the warp's threads are arranged
// warp_rows x warp_cols.
void cuda_core_level0(const Arch& arch, const Op& op, SieveLevel& level) {
  const Tile max = axis_max(op);
  const IsaInfo& isa = arch.isa;
  LevelBuilder b(level, {kVectorWidth, kSharedBanks, kRegisterBudget, kOpMax}, arch.levels.at(0).pos);
  const int warp = isa.warp_size;
  // Shared-memory rows are padded by one 16-byte chunk (gpu_stage_bytes), which shifts each row by four banks: at
  // one k, up to eight neighbouring rows fall in different banks, more collide. The kernel gives each lane of a
  // warp row its own row of A (and, where B is stored N x K, each lane of a warp column its own row of B), so a
  // warp may span at most that many of them.
  constexpr int kConflictFreeRows = 8;
  const bool b_rows_per_column = op.b_layout != Layout::row_major;
  for (int tm = 1; tm <= 16; ++tm)
    for (int tn = 1; tn <= 16; ++tn)
      for (int rows = 1; rows <= warp; rows *= 2)
        for (int kk : isa.k_unroll) {
          b.consider();
          const int cols = warp / rows;
          Candidate c;
          c.tile = {tm * rows, tn * cols, kk};
          // Shared-memory fragments are read as float2/float4: a thread tile side is 1, 2 or a multiple of 4.
          auto vectorisable = [](int t) { return t == 1 || t == 2 || t % 4 == 0; };
          if (!vectorisable(tm) || !vectorisable(tn)) {
            b.reject(kVectorWidth, c.tile);
            continue;
          }
          if (rows > kConflictFreeRows || (b_rows_per_column && cols > kConflictFreeRows)) {
            b.reject(kSharedBanks, c.tile);
            continue;
          }
          const int used = tm * tn + tm + tn + gpu_overhead(isa);
          if (used > isa.registers_per_thread_max) {
            b.reject(kRegisterBudget, c.tile);
            continue;
          }
          if (exceeds_op_max(max, c.tile, {rows, cols, 1})) {
            b.reject(kOpMax, c.tile);
            continue;
          }
          c.thread_m = tm;
          c.thread_n = tn;
          c.warp_rows = rows;
          c.warp_cols = cols;
          c.registers = used;
          c.footprint_bytes = static_cast<int64_t>(used) * 4 * warp;
          b.keep(c, -1);
        }
  b.finish();
}

// ---- Levels above 0 ------------------------------------------------------------------------------------

int64_t tile_bytes(const Op& op, const Tile& t) {
  return t[kAxisM] * t[kAxisK] * op.a_bytes() + t[kAxisK] * t[kAxisN] * op.b_bytes() +
         t[kAxisM] * t[kAxisN] * op.c_bytes();
}

// Capacity of the memory a level is staged in, over all the instances its parallel units can use.
int64_t level_capacity(const Arch& arch, const LevelSpec& level) {
  const MemorySpec& m = arch.memory_of(level);
  const int64_t instances = std::max<int64_t>(1, level.parallel_units / m.shared_by);
  return m.capacity_bytes * instances;
}

// One pipeline stage of a GPU block tile in shared memory: the A and B k-slices, each stored row by row as the
// operand is laid out in global memory (so cp.async copies whole rows), every row padded by one 16-byte chunk.
// The padding keeps rows 16-byte aligned and shifts consecutive rows by four banks, so the eight rows one
// ldmatrix phase reads fall in different banks.
int64_t gpu_stage_bytes(const Op& op, const Tile& t) {
  constexpr int64_t kRowPadBytes = 16;
  const int64_t a_rows = op.a_layout == Layout::row_major ? t[kAxisM] : t[kAxisK];
  const int64_t b_rows = op.b_layout == Layout::row_major ? t[kAxisK] : t[kAxisN];
  return t[kAxisM] * t[kAxisK] * op.a_bytes() + t[kAxisK] * t[kAxisN] * op.b_bytes() +
         (a_rows + b_rows) * kRowPadBytes;
}

void upper_level(const Arch& arch, const Op& op, int index, const SieveLevel& below, SieveLevel& level) {
  const Tile max = axis_max(op);
  const LevelSpec& spec = arch.levels[static_cast<size_t>(index)];
  const bool gpu_block = arch.is_gpu() && index == 1;
  std::vector<std::string> order;
  if (gpu_block) order = {kWarpsPerBlock, kSharedMemory, kRegistersPerSm};
  order.push_back(kCapacity);
  order.push_back(kOpMax);
  LevelBuilder b(level, order, spec.pos);
  const int64_t capacity = level_capacity(arch, spec);
  const std::vector<int> stages = gpu_block ? arch.isa.pipeline_stages : std::vector<int>{1};
  const auto& f = spec.tile_multiples;
  const auto multiples = static_cast<int64_t>(f.size());
  const int64_t pairs = static_cast<int64_t>(below.candidates.size()) * multiples * multiples * multiples *
                        static_cast<int64_t>(stages.size());
  if (pairs > kMaxConsidered)
    throw Error(spec.pos,
                fmt::format("level '{}' would consider {} (tile, multiple) pairs ({} candidates below x {}^3 "
                            "tile_multiples x {} stages), {:.1f}x the most a level may (sieve.h, {}): give "
                            "it or the level below fewer tile_multiples",
                            spec.name, pairs, below.candidates.size(), multiples, stages.size(),
                            static_cast<double>(pairs) / kMaxConsidered, kMaxConsidered));
  for (int child = 0; child < static_cast<int>(below.candidates.size()); ++child) {
    const Candidate& sub = below.candidates[static_cast<size_t>(child)];
    for (int fm : f)
      for (int fn : f)
        for (int fk : f)
          for (int st : stages) {
            b.consider();
            Candidate c;
            c.tile = {sub.tile[0] * fm, sub.tile[1] * fn, sub.tile[2] * fk};
            c.stages = st;
            int64_t footprint = tile_bytes(op, c.tile);
            if (gpu_block) {
              const int64_t warps = static_cast<int64_t>(fm) * fn;
              if (warps > arch.isa.warps_per_block_max) {
                b.reject(kWarpsPerBlock, c.tile);
                continue;
              }
              // A multi-stage pipeline keeps `st` k-slices of A and B in shared memory; C stays in registers.
              footprint = st * gpu_stage_bytes(op, c.tile);
              if (footprint > arch.isa.shared_memory_per_block_bytes) {
                b.reject(kSharedMemory, c.tile);
                continue;
              }
              if (static_cast<int64_t>(sub.registers) * warps * arch.isa.warp_size > arch.isa.registers_per_sm) {
                b.reject(kRegistersPerSm, c.tile);
                continue;
              }
            }
            if (footprint > capacity) {
              b.reject(kCapacity, c.tile);
              continue;
            }
            if (exceeds_op_max(max, c.tile, sub.tile)) {
              b.reject(kOpMax, c.tile);
              continue;
            }
            c.footprint_bytes = footprint;
            c.registers = gpu_block ? sub.registers : 0;
            b.keep(c, child);
          }
  }
  b.finish();
}

void check_pairing(const Arch& arch, const Op& op, const RKernel*& rkernel) {
  rkernel = op.rkernel_for(arch.target);
  if (!rkernel)
    throw Error({op.file, 0, 0},
                fmt::format("operator '{}' has no rkernel.{} for target {} of architecture '{}'", op.name,
                            arch.is_gpu() ? "cuda" : "cpu", to_string(arch.target), arch.name));
  if (rkernel->levels.size() != arch.levels.size())
    throw Error(rkernel->pos, fmt::format("rkernel.{} has {} levels but architecture '{}' ({}) has {}",
                                          arch.is_gpu() ? "cuda" : "cpu", rkernel->levels.size(), arch.name,
                                          arch.file, arch.levels.size()));
}

}  // namespace

int64_t SieveResult::total_candidates() const {
  int64_t total = 0;
  for (const auto& l : levels) total += static_cast<int64_t>(l.candidates.size());
  return total;
}

double cpu_loads_per_fma(const Arch& arch, const Op& op, const Candidate& c) {
  const int64_t lanes = arch.isa.vector_bits / (8 * op.b_bytes());
  const int64_t mr = c.tile[0], b_vectors = c.tile[1] / lanes;
  const int64_t a_loads = arch.isa.fma_broadcast == Broadcast::memory ? mr : (mr + lanes - 1) / lanes;
  return static_cast<double>(b_vectors + a_loads) / static_cast<double>(mr * b_vectors);
}

std::string describe_constraint(const std::string& key) {
  static const std::map<std::string, std::string> text = {
      {kVectorWidth, "tile not a whole number of vector registers (ISA vector width)"},
      {kMmaShape, "warp tile not a multiple of the MMA instruction shape"},
      {kRegisterBudget, "accumulators + operands exceed the register budget"},
      {kFmaLatency, "too few independent accumulators to hide FMA latency (mr*nr/lanes < latency*pipes)"},
      {kOpMax, "larger than the operator's dimension facts allow (op max)"},
      {kSharedBanks, "a warp reads more than 8 rows of a shared-memory tile at one k (bank conflicts)"},
      {kWarpsPerBlock, "more warps than warps_per_block_max"},
      {kSharedMemory, "pipeline stages x (A + B) tiles, rows padded by 16 bytes, exceed shared memory per block"},
      {kRegistersPerSm, "registers per thread x threads exceed one SM's register file"},
      {kCapacity, "tile footprint exceeds the level's memory capacity (Eq. 1)"},
  };
  auto it = text.find(key);
  return it == text.end() ? key : it->second;
}

void require_candidates(const SieveResult& result, const Arch& arch) {
  for (size_t l = 0; l < result.levels.size(); ++l) {
    const SieveLevel& level = result.levels[l];
    if (!level.candidates.empty()) continue;
    std::string why =
        level.considered == 0 ? "the level below kept none" : fmt::format("of {} considered,", level.considered);
    for (const auto& key : level.constraint_order)
      if (level.pruned.at(key) > 0)
        why += fmt::format(" {} failed {} ({});", level.pruned.at(key), key, describe_constraint(key));
    if (why.back() == ';') why.pop_back();
    throw Error(arch.levels.at(l).pos,
                fmt::format("level '{}' keeps no candidate for the {} unit: {}; see strata sieve --explain",
                            level.name, to_string(result.unit), why));
  }
}

std::vector<SieveResult> run_sieve(const Arch& arch, const Op& op) {
  const RKernel* rkernel = nullptr;
  check_pairing(arch, op, rkernel);
  std::vector<SieveResult> results;
  for (const ComputeSpec& compute : arch.compute) {
    if (compute.input != op.a_type) continue;
    SieveResult r;
    r.unit = compute.unit;
    r.peak_gflops = compute.peak_gflops;
    r.levels.resize(arch.levels.size());
    for (size_t l = 0; l < arch.levels.size(); ++l) r.levels[l].name = arch.levels[l].name;
    switch (compute.unit) {
      case ComputeUnit::cpu_fma: cpu_level0(arch, op, r.levels[0]); break;
      case ComputeUnit::tensor_core: tensor_core_level0(arch, op, r.levels[0]); break;
      case ComputeUnit::cuda_core: cuda_core_level0(arch, op, r.levels[0]); break;
    }
    for (size_t l = 1; l < arch.levels.size(); ++l)
      upper_level(arch, op, static_cast<int>(l), r.levels[l - 1], r.levels[l]);
    results.push_back(std::move(r));
  }
  if (results.empty())
    throw Error({op.file, 0, 0}, fmt::format("architecture '{}' ({}) has no compute unit for {} inputs, which "
                                             "operator '{}' needs",
                                             arch.name, arch.file, to_string(op.a_type), op.name));
  return results;
}

}  // namespace strata
