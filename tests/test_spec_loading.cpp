// Every shipped spec loads; every kind of bad input gets a located, specific message.
#include <catch2/catch.hpp>

#include "spec/arch_loader.h"
#include "spec/arch_writer.h"
#include "spec/op_loader.h"
#include "spec_fixtures.h"
#include "test_util.h"

using namespace strata;
using namespace strata::test;

namespace strata::test {
std::string replaced(const std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("fixture lacks '" + from + "'");
  return text.substr(0, at) + to + text.substr(at + from.size());
}
}  // namespace strata::test

namespace {

// Loads `content` as an arch (or op) and returns the error message; fails the test if it loads.
template <typename Loader>
std::string error_of(Loader load, const std::string& content, const std::string& name = "spec.yaml") {
  ScratchDir dir;
  const std::string path = dir.write(name, content);
  try {
    load(path);
  } catch (const Error& e) {
    std::string message = e.what();
    // Report positions relative to the file name so assertions need not know the scratch path.
    const size_t at = message.find(name);
    return at == std::string::npos ? message : message.substr(at);
  }
  FAIL("expected an error for:\n" << content);
  return "";
}

std::string arch_error(const std::string& content) { return error_of(load_arch, content); }
std::string op_error(const std::string& content) { return error_of(load_op, content); }

}  // namespace

TEST_CASE("every shipped architecture descriptor loads", "[spec]") {
  const auto files = shipped_specs("archs");
  REQUIRE(files.size() >= 5);
  for (const auto& file : files) {
    INFO(file);
    const Arch a = load_arch(file);
    CHECK(a.levels.size() >= 2);
    CHECK(a.content_sha.size() == 64);
    for (const auto& m : a.memories) CHECK(!m.source.empty());
    for (const auto& c : a.compute) CHECK(!c.source.empty());
  }
}

TEST_CASE("every shipped operator spec loads", "[spec]") {
  const auto files = shipped_specs("ops");
  REQUIRE(files.size() >= 3);
  for (const auto& file : files) {
    INFO(file);
    const Op op = load_op(file);
    CHECK((op.rkernel_cpu || op.rkernel_cuda));
  }
}

TEST_CASE("the fixtures themselves are valid", "[spec]") {
  ScratchDir dir;
  CHECK_NOTHROW(load_arch(dir.write("a.yaml", kValidCpuArch)));
  CHECK_NOTHROW(load_op(dir.write("o.yaml", kValidGemmOp)));
}

TEST_CASE("conv2d facts multiply through the gemm view", "[spec]") {
  const Op runtime = load_op(source_path("ops/conv2d_nhwc.yaml"));
  CHECK_FALSE(runtime.conv.stride.has_value());  // every stride, padding and dilation given per call
  CHECK_FALSE(runtime.conv.padding.has_value());
  CHECK_FALSE(runtime.conv.dilation.has_value());
  CHECK(runtime.conv.filter_krsc);
  CHECK(runtime.axis_facts(kAxisK).max == INT64_MAX);
  std::string text = read_file(source_path("ops/conv2d_nhwc.yaml"));
  text = replaced(text, "  output_layout: nhwc\n", "  output_layout: nhwc\n  stride: [2, 1]\n  padding: [0, 3]\n");
  text = replaced(text, "  in_c: {}", "  in_c: {multiple_of: 4}");
  text =
      replaced(text, "  kernel_h: {}\n  kernel_w: {}", "  kernel_h: {min: 3, max: 3}\n  kernel_w: {min: 3, max: 3}");
  ScratchDir dir;
  const Op op = load_op(dir.write("conv.yaml", text));
  REQUIRE(op.conv.stride.has_value());
  CHECK(*op.conv.stride == std::array<int64_t, 2>{2, 1});
  CHECK(*op.conv.padding == std::array<int64_t, 2>{0, 3});
  CHECK_FALSE(op.conv.dilation.has_value());
  const DimFacts k = op.axis_facts(kAxisK);
  CHECK(k.min == 9 * 0);  // in_c has no min: k may be 0
  CHECK(k.max == INT64_MAX);
  CHECK(k.multiple_of == 4);
  CHECK(op.axis_facts(kAxisM).max == INT64_MAX);
  CHECK_THAT(op_error(replaced(text, "stride: [2, 1]", "stride: [0, 1]")), Catch::Contains("stride"));
}

TEST_CASE("missing file", "[spec][bad]") {
  try {
    load_arch("/nonexistent/strata.yaml");
    FAIL("loaded a missing file");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "/nonexistent/strata.yaml: cannot open file");
  }
}

TEST_CASE("not YAML at all", "[spec][bad]") {
  CHECK(arch_error(std::string("\x7f"
                               "ELF\x02\x01\x01\0\0\0",
                               10)) == "spec.yaml: not a YAML file (contains NUL bytes)");
  CHECK_THAT(arch_error("name: [unclosed\n  - x: {"),
             Catch::StartsWith("spec.yaml:") && Catch::Contains("YAML syntax error"));
  CHECK(arch_error("") == "spec.yaml: empty document: expected a YAML mapping");
  CHECK(arch_error("- a\n- b\n") == "spec.yaml:1:1: expected a YAML mapping at the top level, found a list");
  CHECK(arch_error("just a sentence\n") ==
        "spec.yaml:1:1: expected a YAML mapping at the top level, found 'just a sentence'");
}

TEST_CASE("unknown keys are errors", "[spec][bad]") {
  CHECK_THAT(arch_error(replaced(kValidCpuArch, "clock_ghz: 2.0", "clock_ghz: 2.0\nclock_mhz: 2000")),
             Catch::StartsWith("spec.yaml:6:1: architecture descriptor: unknown key 'clock_mhz' (expected one of:"));
  CHECK_THAT(arch_error(replaced(kValidCpuArch, "    associativity: 8\n", "    associativity: 8\n    ways: 8\n")),
             Catch::StartsWith("spec.yaml:38:5: memories[1]: unknown key 'ways'"));
  CHECK_THAT(op_error(replaced(kValidGemmOp, "  k: {}", "  k: {}\n  q: {}")),
             Catch::StartsWith("spec.yaml:11:3: dims: unknown key 'q'"));
}

TEST_CASE("keys of the other target say so", "[spec][bad]") {
  CHECK(arch_error(replaced(kValidCpuArch, "  fma_pipes: 2\n", "  fma_pipes: 2\n  warp_size: 32\n")) ==
        "spec.yaml:14:14: isa: 'warp_size' is only valid for cuda targets");
}

TEST_CASE("half_width_fma_pipes is optional and for AVX-512 only and written back", "[spec]") {
  std::string avx512 = replaced(kValidCpuArch, "vector: avx2", "vector: avx512");
  avx512 = replaced(avx512, "vector_bits: 256", "vector_bits: 512");
  const std::string with_half = replaced(avx512, "  fma_pipes: 2\n", "  fma_pipes: 1\n  half_width_fma_pipes: 2\n");
  ScratchDir dir;
  const Arch without = load_arch(dir.write("without.yaml", avx512));
  CHECK(without.isa.half_width_fma_pipes == 0);
  CHECK(without.isa.half_fma_pipes() == 2);  // absent: as many as at the full width
  CHECK(write_arch_yaml(without).find("half_width_fma_pipes") == std::string::npos);
  const Arch with = load_arch(dir.write("with.yaml", with_half));
  CHECK(with.isa.fma_pipes == 1);
  CHECK(with.isa.half_width_fma_pipes == 2);
  CHECK(with.isa.half_fma_pipes() == 2);
  const Arch reloaded = load_arch(dir.write("reloaded.yaml", write_arch_yaml(with)));
  CHECK(reloaded.isa.half_width_fma_pipes == 2);
  CHECK(arch_error(replaced(kValidCpuArch, "  fma_pipes: 2\n", "  fma_pipes: 2\n  half_width_fma_pipes: 4\n")) ==
        "spec.yaml:14:25: isa: 'half_width_fma_pipes' is only valid for avx512, whose 256-bit halves the kernels can "
        "use; this descriptor's vector is avx2");
  CHECK_THAT(arch_error(replaced(with_half, "half_width_fma_pipes: 2", "half_width_fma_pipes: 0")),
             Catch::Equals("spec.yaml:14:25: isa: 'half_width_fma_pipes' must be >= 1, found 0"));
}

TEST_CASE("wrong types", "[spec][bad]") {
  CHECK(arch_error(replaced(kValidCpuArch, "vector_registers: 16", "vector_registers: sixteen")) ==
        "spec.yaml:11:21: isa: 'vector_registers' expected an integer, found 'sixteen'");
  CHECK(arch_error(replaced(kValidCpuArch, "vector_registers: 16", "vector_registers: 16.5")) ==
        "spec.yaml:11:21: isa: 'vector_registers' expected an integer, found '16.5'");
  CHECK(arch_error(replaced(kValidCpuArch, "clock_ghz: 2.0", "clock_ghz: [2]")) ==
        "spec.yaml:5:12: architecture descriptor: 'clock_ghz' expected a number, found a list");
  CHECK(arch_error(replaced(kValidCpuArch, "isa:\n", "isa: 3\nx:\n")) ==
        "spec.yaml:8:6: isa: expected a mapping, found '3'");
  CHECK(arch_error(replaced(kValidCpuArch, "target: x86_64", "target: sparc")) ==
        "spec.yaml:4:9: architecture descriptor: 'target' must be one of x86_64, aarch64, cuda, found 'sparc'");
  CHECK(op_error(replaced(kValidGemmOp, "k: TRL}\n      load: [pack", "k: TNL}\n      load: [pack")) ==
        "spec.yaml:17:34: rkernel.cpu[1].loops: 'k' is the reduction axis: it can be TRL (temporal reduction) "
        "or PL (split-K), not TNL");
}

TEST_CASE("load_overlap is a boolean", "[spec][bad]") {
  CHECK(op_error(replaced(kValidGemmOp, "      load: pack_a_panel\n",
                          "      load: pack_a_panel\n      load_overlap: maybe\n")) ==
        "spec.yaml:23:21: rkernel.cpu[2]: 'load_overlap' must be one of true, false, found 'maybe'");
  ScratchDir dir;
  const Op op = load_op(dir.write("o.yaml", replaced(kValidGemmOp, "      load: pack_a_panel\n",
                                                     "      load: pack_a_panel\n      load_overlap: false\n")));
  CHECK(!op.rkernel_cpu->levels[2].load_overlaps_compute);
  CHECK(op.rkernel_cpu->levels[1].load_overlaps_compute);
}

TEST_CASE("fragment names are the templates' own, each slot's", "[spec][bad]") {
  CHECK(op_error(replaced(kValidGemmOp, "compute: cache_block", "compute: cache_blok")) ==
        "spec.yaml:23:16: rkernel.cpu[2]: 'compute': unknown cpu compute fragment 'cache_blok'; expected one of "
        "fma_broadcast, register_tile, cache_block");
  // A name of another slot is not this slot's.
  CHECK_THAT(
      op_error(replaced(kValidGemmOp, "store: masked_store", "store: pack_b_panel")),
      Catch::StartsWith("spec.yaml:20:14: rkernel.cpu[1]: 'store': unknown cpu store fragment 'pack_b_panel'"));
}

TEST_CASE("epilogue fragments after the outermost store fix the package's epilogue", "[spec]") {
  ScratchDir dir;
  const Op plain = load_op(dir.write("plain.yaml", kValidGemmOp));
  CHECK(!plain.epilogue);
  const Op fixed = load_op(dir.write(
      "fixed.yaml", replaced(kValidGemmOp, "store: write_c", "store: [write_c, bias_per_row, silu, clamp]")));
  REQUIRE(fixed.epilogue);
  CHECK(fixed.epilogue->bias == 2);
  CHECK(!fixed.epilogue->residual);
  CHECK(fixed.epilogue->activation == 4);
  CHECK(fixed.epilogue->clamp);
  CHECK(fixed.rkernel_cpu->levels[2].store == "write_c");
  CHECK(fixed.rkernel_cpu->levels[2].epilogue == std::vector<std::string>{"bias_per_row", "silu", "clamp"});
  // The gather is a convolution's load.
  CHECK_THAT(op_error(replaced(kValidGemmOp, "load: pack_a_panel", "load: [im2col_gather_a_panel, pack_b_panel]")),
             Catch::Contains("im2col_gather_a_panel is a convolution's load"));

  CHECK(op_error(replaced(kValidGemmOp, "store: masked_store", "store: [masked_store, relu]")) ==
        "spec.yaml:20:29: rkernel.cpu[1]: epilogue fragments belong to the outermost level's store, which writes C");
  CHECK(op_error(replaced(kValidGemmOp, "store: write_c", "store: [write_c, relu, gelu_erf]")) ==
        "spec.yaml:24:30: epilogue fragment 'gelu_erf' comes after a same part: give at most one bias, residual, "
        "activation and clamp, in that order");
  CHECK(op_error(replaced(kValidGemmOp, "store: write_c", "store: [write_c, relu, add_residual]")) ==
        "spec.yaml:24:30: epilogue fragment 'add_residual' comes after a later part: give at most one bias, "
        "residual, activation and clamp, in that order");
  CHECK_THAT(op_error(replaced(kValidGemmOp, "store: write_c", "store: [write_c, bias]")),
             Catch::StartsWith("spec.yaml:24:24: rkernel.cpu[2]: 'store': unknown cpu epilogue fragment 'bias'"));
  // A convolution's bias is per output channel, and CUDA packages take no fixed epilogue.
  std::string conv = read_file(source_path("ops/conv2d_nhwc.yaml"));
  const std::string store = "      store: write_c";
  conv.replace(conv.find(store), store.size(), "      store: [write_c, bias_per_row]");
  CHECK_THAT(op_error(conv), Catch::Contains("a convolution's bias is one per output channel"));
  std::string cuda = read_file(source_path("ops/sgemm.yaml"));
  cuda.replace(cuda.rfind(store), store.size(), "      store: [write_c, relu]");
  CHECK_THAT(op_error(cuda), Catch::Contains("unknown cuda epilogue fragment 'relu'; expected none"));
}

TEST_CASE("missing fields", "[spec][bad]") {
  CHECK(arch_error(replaced(kValidCpuArch, "clock_ghz: 2.0\n", "")) ==
        "spec.yaml:1:1: architecture descriptor: missing required key 'clock_ghz'");
  CHECK(arch_error(replaced(kValidCpuArch, "    source: \"test\"\n  - name: l2", "  - name: l2")) ==
        "spec.yaml:23:5: memories[0]: missing required key 'source'");
  CHECK(op_error(replaced(kValidGemmOp, "      compute: register_tile\n", "")) ==
        "spec.yaml:17:7: rkernel.cpu[1]: missing required key 'compute'");
}

TEST_CASE("zero and negative sizes", "[spec][bad]") {
  CHECK(arch_error(replaced(kValidCpuArch, "capacity_bytes: 262144", "capacity_bytes: 0")) ==
        "spec.yaml:32:21: memories[1]: 'capacity_bytes' must be >= 1, found 0");
  CHECK(arch_error(replaced(kValidCpuArch, "parallel_units: 2", "parallel_units: -2")) ==
        "spec.yaml:67:21: levels[2]: 'parallel_units' must be >= 1, found -2");
  CHECK(arch_error(replaced(kValidCpuArch, "peak_gflops: 128", "peak_gflops: 0")) ==
        "spec.yaml:20:18: compute[0]: 'peak_gflops' must be > 0, found 0");
  CHECK(arch_error(replaced(kValidCpuArch, "k_unroll: [1, 4]", "k_unroll: [1, 0]")) ==
        "spec.yaml:15:17: isa: 'k_unroll' item must be >= 1, found 0");
  CHECK(op_error(replaced(kValidGemmOp, "  m: {}", "  m: {max: -1}")) ==
        "spec.yaml:8:12: dims.m: 'max' must be >= 1, found -1");
}

TEST_CASE("impossible hierarchies", "[spec][bad]") {
  CHECK_THAT(arch_error(replaced(kValidCpuArch, "capacity_bytes: 4194304", "capacity_bytes: 131072")),
             Catch::Equals("spec.yaml:39:5: impossible hierarchy: memory 'l3' (131072 bytes) is smaller than 'l2' "
                           "(262144 bytes) inside it"));
  CHECK(arch_error(replaced(kValidCpuArch, "    memory: l3\n", "    memory: l4\n")) ==
        "spec.yaml:65:5: level 'cores' names memory 'l4', which is not declared in 'memories'");
  CHECK(arch_error(replaced(kValidCpuArch, "    memory: registers\n", "    memory: l2\n")) ==
        "spec.yaml:56:5: level 0 ('register_tile') must be staged in a memory of kind registers");
  CHECK(arch_error(replaced(kValidCpuArch, "    memory: l3\n", "    memory: registers\n")) ==
        "spec.yaml:65:5: impossible hierarchy: level 'cores' is staged in 'registers', inside the memory of the "
        "level below it");
  CHECK(arch_error(replaced(kValidCpuArch, "capacity_bytes: 262144", "capacity_bytes: 262000")) ==
        "spec.yaml:32:21: memories[1]: 'capacity_bytes' 262000 is not sets x associativity (8) x line_bytes (64) "
        "for an integer number of sets");
  CHECK(arch_error(replaced(replaced(kValidCpuArch, "analyzer: profile", "analyzer: model"),
                            "analyzer: model\n    tile_multiples: [1, 2, 4, 8]",
                            "analyzer: profile\n    tile_multiples: [1, 2, 4, 8]")) ==
        "spec.yaml:60:5: level 'cache_block' is profiled but a level below it is modelled; profiled levels must "
        "be the innermost ones");
  CHECK(arch_error(replaced(kValidCpuArch, "vector_bits: 256", "vector_bits: 512")) ==
        "spec.yaml:10:16: isa: 'vector_bits' must be 256 for avx2, found 512");
}

TEST_CASE("identifiers that are not C identifiers", "[spec][bad]") {
  CHECK(arch_error(replaced(kValidCpuArch, "name: tiny_avx2", "name: tiny-avx2")) ==
        "spec.yaml:2:7: architecture descriptor: 'name' must be a C identifier ([A-Za-z_][A-Za-z0-9_]*), found "
        "'tiny-avx2'");
  CHECK(op_error(replaced(kValidGemmOp, "compute: fma_broadcast", "compute: \"fma(); system(\\\"rm\\\")\"")) ==
        "spec.yaml:15:16: rkernel.cpu[0]: 'compute' must be a C identifier ([A-Za-z_][A-Za-z0-9_]*), found "
        "'fma(); system(\"rm\")'");
}

TEST_CASE("duplicate keys and wrong schema", "[spec][bad]") {
  CHECK(arch_error(replaced(kValidCpuArch, "clock_ghz: 2.0", "clock_ghz: 2.0\nclock_ghz: 3.0")) ==
        "spec.yaml:6:1: architecture descriptor: duplicate key 'clock_ghz'");
  CHECK(arch_error(replaced(kValidCpuArch, "strata-arch/1", "strata-arch/2")) ==
        "spec.yaml:1:9: architecture descriptor: 'schema' must be 'strata-arch/1' (this Strata reads that "
        "version), found 'strata-arch/2'");
}

TEST_CASE("the CUDA occupancy fields come all together, and mma_sync_gflops only for Tensor Cores", "[spec]") {
  const std::string h100 = read_file(source_path("archs/h100.yaml"));
  ScratchDir dir;
  const Arch arch = load_arch(dir.write("h100.yaml", h100));
  CHECK(arch.isa.models_occupancy());
  CHECK(arch.isa.shared_memory_per_sm_bytes == 233472);
  CHECK(arch.isa.shared_memory_reserved_per_block_bytes == 1024);
  CHECK(arch.isa.threads_per_sm_max == 2048);
  CHECK(arch.isa.blocks_per_sm_max == 32);
  CHECK(arch.isa.register_allocation_unit == 256);
  CHECK(arch.isa.block_sync_cycles == 800);
  CHECK(arch.isa.warp_step_latency_cycles == 150);
  const Arch reloaded = load_arch(dir.write("reloaded.yaml", write_arch_yaml(arch)));
  CHECK(reloaded.isa.shared_memory_per_sm_bytes == 233472);
  CHECK(reloaded.isa.block_sync_cycles == 800);
  bool mma_sync = false;
  for (const ComputeSpec& c : reloaded.compute) mma_sync = mma_sync || c.mma_sync_gflops == 494700;
  CHECK(mma_sync);
  CHECK_THAT(arch_error(replaced(h100, "  block_sync_cycles: 800\n", "")),
             Catch::Contains("isa: missing key 'block_sync_cycles': the occupancy fields"));
  CHECK_THAT(
      arch_error(replaced(h100, "  shared_memory_per_sm_bytes: 233472\n", "  shared_memory_per_sm_bytes: 200000\n")),
      Catch::Contains("'shared_memory_per_sm_bytes' must be >= 232448"));
  CHECK_THAT(arch_error(replaced(h100, "    mma_sync_gflops: 494700\n", "    mma_sync_gflops: 2000000\n")),
             Catch::Contains("'mma_sync_gflops' exceeds peak_gflops"));
  CHECK_THAT(
      arch_error(replaced(h100, "    peak_gflops: 67000\n", "    peak_gflops: 67000\n    mma_sync_gflops: 1\n")),
      Catch::Contains("'mma_sync_gflops' is only valid for unit tensor_core"));
  // Without the group the block level is Eqs. 5-7 alone (and there are no wgmma kernels, which it ranks).
  std::string bare = h100.substr(0, h100.find("  wgmma:\n")) + h100.substr(h100.find("\ncompute:") + 1);
  for (const char* key :
       {"  shared_memory_per_sm_bytes: 233472\n", "  shared_memory_reserved_per_block_bytes: 1024\n",
        "  threads_per_sm_max: 2048\n", "  blocks_per_sm_max: 32\n", "  register_allocation_unit: 256\n",
        "  block_sync_cycles: 800\n", "  warp_step_latency_cycles: 150\n"})
    bare = replaced(bare, key, "");
  const Arch without = load_arch(dir.write("bare.yaml", bare));
  CHECK(!without.isa.models_occupancy());
  CHECK(write_arch_yaml(without).find("blocks_per_sm_max") == std::string::npos);
}

TEST_CASE("the wgmma facts of a descriptor load, round-trip and are checked", "[spec][cuda]") {
  const std::string text = read_file(source_path("archs/h100.yaml"));
  const Arch arch = load_arch(source_path("archs/h100.yaml"));
  REQUIRE(arch.isa.wgmma.present());
  CHECK(arch.isa.wgmma.n == std::vector<int>{16, 32, 64, 128, 256});
  CHECK(arch.isa.wgmma.consumers == std::vector<int>{1, 2});
  CHECK(arch.isa.wgmma.slice_k == 64);
  ScratchDir dir;
  const Arch reloaded = load_arch(dir.write("reloaded.yaml", write_arch_yaml(arch)));
  CHECK(reloaded.isa.wgmma.n == arch.isa.wgmma.n);
  CHECK(reloaded.isa.wgmma.slice_floor_cycles == arch.isa.wgmma.slice_floor_cycles);
  CHECK(reloaded.isa.wgmma.efficiency == arch.isa.wgmma.efficiency);
  CHECK_THAT(arch_error(replaced(text, "n: [16, 32, 64, 128, 256]", "n: [16, 24]")),
             Catch::Contains("24 is not a multiple of 16"));
  CHECK_THAT(arch_error(replaced(text, "consumers: [1, 2]", "consumers: [1, 3]")), Catch::Contains("consumers"));
  CHECK_THAT(arch_error(replaced(text, "efficiency: 0.8\n", "efficiency: 1.5\n")),
             Catch::Contains("'efficiency' is a fraction of the peak"));
  CHECK_THAT(arch_error(replaced(text, "  sm: 90\n", "  sm: 80\n")), Catch::Contains("'wgmma' needs sm 90"));
  CHECK_THAT(arch_error(replaced(text, "  blocks_per_sm_max: 32\n", "")),
             Catch::Contains("missing key 'blocks_per_sm_max'"));
  CHECK_THAT(arch_error(replaced(text, "    slice_k: 64\n", "")), Catch::Contains("slice_k"));
}
