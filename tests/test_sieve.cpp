// Sieve invariants over every shipped architecture and every operator it can run.
#include <catch2/catch.hpp>

#include "sieve/sieve.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "test_util.h"

using namespace strata;
using namespace strata::test;

namespace {

struct Pairing {
  Arch arch;
  Op op;
};

// Every (arch, op) pair of the shipped specs whose op has an rKernel for the arch's target and whose input type
// some compute unit of the arch takes.
std::vector<Pairing> runnable_pairs() {
  std::vector<Pairing> out;
  for (const auto& a : shipped_specs("archs"))
    for (const auto& o : shipped_specs("ops")) {
      Arch arch = load_arch(a);
      Op op = load_op(o);
      if (!op.rkernel_for(arch.target)) continue;
      bool unit = false;
      for (const auto& c : arch.compute) unit = unit || c.input == op.a_type;
      if (unit) out.push_back({std::move(arch), std::move(op)});
    }
  return out;
}

int64_t footprint(const Op& op, const std::array<int64_t, kNumAxes>& t) {
  return t[0] * t[2] * op.a_bytes() + t[2] * t[1] * op.b_bytes() + t[0] * t[1] * op.c_bytes();
}

void check_level0(const Arch& arch, const Op& op, const SieveResult& r) {
  const IsaInfo& isa = arch.isa;
  for (const auto& c : r.levels[0].candidates) {
    INFO("L0 tile " << c.tile[0] << "x" << c.tile[1] << "x" << c.tile[2]);
    CHECK(c.children.empty());
    if (r.unit == ComputeUnit::cpu_fma) {
      const int lanes = isa.vector_bits / (8 * op.b_bytes());
      REQUIRE(c.tile[1] % lanes == 0);
      const int64_t accumulators = c.tile[0] * c.tile[1] / lanes;
      const int64_t a_regs = isa.fma_broadcast == Broadcast::memory ? 1 : (c.tile[0] + lanes - 1) / lanes;
      CHECK(accumulators + c.tile[1] / lanes + a_regs <= isa.vector_registers);
      CHECK(accumulators >= isa.fma_latency_cycles * isa.fma_pipes);
      CHECK(std::count(isa.k_unroll.begin(), isa.k_unroll.end(), c.tile[2]) == 1);
    } else if (r.unit == ComputeUnit::tensor_core) {
      REQUIRE(c.mma_index >= 0);
      const MmaShape& mma = isa.mma[static_cast<size_t>(c.mma_index)];
      CHECK(c.tile[0] % mma.m == 0);
      CHECK(c.tile[1] % mma.n == 0);
      CHECK(c.tile[2] % mma.k == 0);
      CHECK(mma.a == op.a_type);
      CHECK(c.registers <= isa.registers_per_thread_max);
    } else {
      CHECK(c.thread_m * c.warp_rows == c.tile[0]);
      CHECK(c.thread_n * c.warp_cols == c.tile[1]);
      CHECK(c.warp_rows * c.warp_cols == isa.warp_size);
      CHECK(c.registers <= isa.registers_per_thread_max);
    }
  }
}

}  // namespace

TEST_CASE("sieve invariants hold for every shipped arch and op", "[sieve]") {
  const auto pairs = runnable_pairs();
  REQUIRE(pairs.size() >= 8);
  for (const auto& [arch, op] : pairs) {
    INFO(arch.name << " x " << op.name);
    const auto results = run_sieve(arch, op);
    REQUIRE(!results.empty());
    for (const auto& r : results) {
      INFO("unit " << to_string(r.unit));
      REQUIRE(r.levels.size() == arch.levels.size());
      for (const auto& level : r.levels) REQUIRE(!level.candidates.empty());
      check_level0(arch, op, r);
      for (size_t l = 1; l < r.levels.size(); ++l) {
        const LevelSpec& spec = arch.levels[l];
        const MemorySpec& memory = arch.memory_of(spec);
        const int64_t capacity = memory.capacity_bytes * std::max<int64_t>(1, spec.parallel_units / memory.shared_by);
        for (const auto& c : r.levels[l].candidates) {
          INFO("L" << l << " tile " << c.tile[0] << "x" << c.tile[1] << "x" << c.tile[2]);
          REQUIRE(!c.children.empty());
          CHECK(c.footprint_bytes <= capacity);
          if (!(arch.is_gpu() && l == 1)) CHECK(c.footprint_bytes == footprint(op, c.tile));
          for (int child : c.children) {
            const auto& sub = r.levels[l - 1].candidates.at(static_cast<size_t>(child)).tile;
            for (int a = 0; a < kNumAxes; ++a) {
              REQUIRE(c.tile[a] % sub[a] == 0);
              CHECK(std::count(spec.tile_multiples.begin(), spec.tile_multiples.end(), c.tile[a] / sub[a]) == 1);
            }
          }
          if (arch.is_gpu() && l == 1) {
            CHECK(c.footprint_bytes <= arch.isa.shared_memory_per_block_bytes);
            // Every shared-memory row (A: m rows of k; B: k rows of n, or n rows of k when column-major) is
            // padded by 16 bytes.
            const int64_t rows = (op.a_layout == Layout::row_major ? c.tile[0] : c.tile[2]) +
                                 (op.b_layout == Layout::row_major ? c.tile[2] : c.tile[1]);
            CHECK(c.footprint_bytes == c.stages * (c.tile[0] * c.tile[2] * op.a_bytes() +
                                                   c.tile[2] * c.tile[1] * op.b_bytes() + 16 * rows));
          }
        }
      }
    }
  }
}

TEST_CASE("the sieve is deterministic", "[sieve]") {
  const Arch arch = load_arch(source_path("archs/x86-avx2.yaml"));
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  const auto a = run_sieve(arch, op), b = run_sieve(arch, op);
  REQUIRE(a.size() == b.size());
  for (size_t l = 0; l < a[0].levels.size(); ++l) {
    REQUIRE(a[0].levels[l].candidates.size() == b[0].levels[l].candidates.size());
    for (size_t i = 0; i < a[0].levels[l].candidates.size(); ++i) {
      CHECK(a[0].levels[l].candidates[i].tile == b[0].levels[l].candidates[i].tile);
      CHECK(a[0].levels[l].candidates[i].children == b[0].levels[l].candidates[i].children);
    }
  }
}

TEST_CASE("pruned counts add up", "[sieve]") {
  const Arch arch = load_arch(source_path("archs/zen4-avx512.yaml"));
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  const auto r = run_sieve(arch, op).at(0);
  for (size_t l = 0; l < r.levels.size(); ++l) {
    const auto& level = r.levels[l];
    int64_t pruned = 0;
    for (const auto& [key, n] : level.pruned) pruned += n;
    // Level 0 keeps one candidate per surviving initial tile; above, kept pairs are the map edges.
    const int64_t kept = l == 0 ? static_cast<int64_t>(level.candidates.size()) : level.map_edges;
    CHECK(pruned + kept == level.considered);
  }
  // AVX-512 f32: 16 lanes; 32 registers; FMA latency 4 x 1 pipe.
  for (const auto& c : r.levels[0].candidates) CHECK(c.tile[1] % 16 == 0);
  CHECK(r.levels[0].pruned.at("isa.vector_width") > 0);
  CHECK(r.levels[0].pruned.at("isa.register_budget") > 0);
}

TEST_CASE("op facts prune tiles larger than the largest size", "[sieve]") {
  ScratchDir dir;
  const Arch arch = load_arch(source_path("archs/x86-avx2.yaml"));
  std::string spec = read_file(source_path("ops/sgemm.yaml"));
  spec.replace(spec.find("  m: {}"), 7, "  m: {max: 4}");
  const Op op = load_op(dir.write("small_m.yaml", spec));
  const auto r = run_sieve(arch, op).at(0);
  for (const auto& c : r.levels[0].candidates) CHECK(c.tile[0] <= 4);
  CHECK(r.levels[0].pruned.at("op.dim_max") > 0);
  // Above level 0 a tile is kept only if one sub-tile less would not cover m = 4.
  for (size_t l = 1; l < r.levels.size(); ++l)
    for (const auto& c : r.levels[l].candidates) {
      bool needed = false;
      for (int child : c.children)
        needed = needed || c.tile[0] - r.levels[l - 1].candidates[static_cast<size_t>(child)].tile[0] < 4;
      CHECK(needed);
    }
}

TEST_CASE("pairings that cannot work are errors naming the specs", "[sieve][bad]") {
  const Arch cpu = load_arch(source_path("archs/x86-avx2.yaml"));
  const Op hgemm = load_op(source_path("ops/hgemm_tc.yaml"));
  CHECK_THROWS_WITH(run_sieve(cpu, hgemm), Catch::Contains("has no rkernel.cpu for target x86_64"));
  CHECK_THROWS_WITH(run_sieve(cpu, load_op(source_path("ops/conv2d_nhwc_tc.yaml"))),
                    Catch::Contains("has no rkernel.cpu for target x86_64"));
  const Arch gpu = load_arch(source_path("archs/a100.yaml"));
  Op conv = load_op(source_path("ops/conv2d_nhwc.yaml"));
  CHECK_NOTHROW(run_sieve(gpu, conv));
  conv.rkernel_cuda.reset();
  CHECK_THROWS_WITH(run_sieve(gpu, conv), Catch::Contains("has no rkernel.cuda for target cuda"));
}
