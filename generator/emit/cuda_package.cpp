#include "emit/cuda_package.h"

#include <fmt/format.h>

#include <algorithm>

#include "analyze/wgmma_family.h"
#include "common/inert_text.h"
#include "emit/manifest.h"
#include "emit/package_writer.h"
#include "emit/render_values.h"
#include "strata_version.h"

namespace strata {

const char* const kCudaModelledNote =
    "modelled (Eqs. 2-7): the generator profiles no GPU level; levels 0 (warp tile) and 1 (block tile) use the "
    "descriptor's numbers, and the package's bench measures the result against cuBLAS on a GPU";

namespace {

const char* unit_name(ComputeUnit u, bool wgmma = false) {
  return wgmma ? "wgmma" : u == ComputeUnit::tensor_core ? "tensor_core" : "cuda_core";
}

bool is_m16n8k16(const MmaShape& mma) { return mma.m == 16 && mma.n == 8 && mma.k == 16; }

// One compute unit's share of the package: its sieve, model and selected kernels.
struct UnitKernels {
  ComputeUnit unit = ComputeUnit::cuda_core;
  const SieveResult* sieve = nullptr;
  strata_model::Machine machine{};
  const Selection* selection = nullptr;
  int64_t grid_max_m = 8192;  // the selection grid's largest M
  bool wgmma = false;         // Hopper's warpgroup kernels (analyze/wgmma_family.h)
  int sm_index = 0;           // the dispatcher's SM model for the unit's kernels (kSmModels)
};

// A kernel of the package, with everything its templates and the manifest need. The formulas for threads and
// shared memory mirror TensorCoreTiles and CudaCoreTiles in templates/cuda/gemm_kernels.cuh.tpl; the kernel files
// static_assert that the two agree.
struct CudaKernel {
  std::string name;
  ComputeUnit unit = ComputeUnit::cuda_core;
  int machine_index = 0;
  const SelectedKernel* selected = nullptr;
  const SieveResult* sieve = nullptr;
  std::array<int64_t, kNumAxes> warp{}, block{}, grid{};
  int stages = 1, threads = 0, group_m = 1, registers_estimate = 0;
  int tm = 0, tn = 0, warp_rows = 0;    // CUDA cores
  bool wgmma = false, swapped = false;  // wgmma: consumer warpgroups of 64 x wgmma_n tiles, C^T when swapped
  int consumers = 0, wgmma_n = 0, sm_index = 0;
  int64_t shared_bytes = 0;
  int64_t sieve_shared_bytes = 0;  // what the sieve's shared-memory constraint counted
  int64_t occupancy = 1;           // blocks per SM by the model's count (templates/cuda/gpu_model.h)
};

CudaKernel describe_kernel(const Arch& arch, const Op& op, const UnitKernels& u, int machine_index,
                           const SelectedKernel& k, size_t id) {
  CudaKernel c;
  c.unit = u.unit;
  c.machine_index = machine_index;
  c.selected = &k;
  c.sieve = u.sieve;
  const Candidate& l0 = u.sieve->levels[0].candidates.at(static_cast<size_t>(k.chain[0]));
  const Candidate& l1 = u.sieve->levels[1].candidates.at(static_cast<size_t>(k.chain[1]));
  const Candidate& l2 = u.sieve->levels[2].candidates.at(static_cast<size_t>(k.chain[2]));
  c.warp = l0.tile;
  c.block = l1.tile;
  c.grid = l2.tile;
  c.stages = l1.stages;
  c.registers_estimate = l0.registers;
  c.sm_index = u.sm_index;
  // 0: the kernel's unit is ranked without gpu_model.h's block level (CUDA cores; see select_options_for).
  c.occupancy = u.unit == ComputeUnit::tensor_core && arch.isa.models_occupancy() ? k.occupancy : 0;
  c.group_m = static_cast<int>(c.grid[0] / c.block[0]);
  const int64_t warps = (c.block[0] / c.warp[0]) * (c.block[1] / c.warp[1]);
  c.threads = static_cast<int>(warps * 32);
  const int64_t a = op.a_bytes();
  c.sieve_shared_bytes = l1.footprint_bytes;
  if (u.wgmma) {
    c.wgmma = true;
    c.swapped = l0.swapped;
    c.wgmma_n = static_cast<int>(l0.swapped ? l0.tile[kAxisM] : l0.tile[kAxisN]);
    c.consumers = static_cast<int>(c.block[l0.swapped ? kAxisN : kAxisM] / kWgmmaRows);
    c.threads = 128 * (c.consumers + 1);
    c.occupancy = k.occupancy;
    c.shared_bytes = wgmma_shared_bytes(kWgmmaRows * c.consumers, c.wgmma_n, c.block[2], c.stages);
    c.name = fmt::format("k{}_wg_{}x{}x{}_c{}_s{}{}", id, c.block[0], c.block[1], c.block[2], c.consumers, c.stages,
                         c.swapped ? "_t" : "");
  } else if (c.unit == ComputeUnit::tensor_core) {
    c.shared_bytes = c.stages * (c.block[0] + c.block[1]) * (c.block[2] + 8) * 2;
    c.name = fmt::format("k{}_tc_{}x{}x{}_w{}x{}_s{}", id, c.block[0], c.block[1], c.block[2], c.warp[0], c.warp[1],
                         c.stages);
  } else {
    c.tm = l0.thread_m;
    c.tn = l0.thread_n;
    c.warp_rows = l0.warp_rows;
    const int64_t pad = 16 / a;
    const bool b_row_major = op.b_layout == Layout::row_major;
    const int64_t stage_a = c.block[0] * (c.block[2] + pad);
    const int64_t stage_b = b_row_major ? c.block[2] * (c.block[1] + pad) : c.block[1] * (c.block[2] + pad);
    c.shared_bytes = c.stages * (stage_a + stage_b) * a;
    c.name = fmt::format("k{}_fma_{}x{}x{}_t{}x{}_s{}", id, c.block[0], c.block[1], c.block[2], c.tm, c.tn, c.stages);
  }
  return c;
}

std::string kernel_description(const CudaKernel& k) {
  if (k.wgmma)
    return fmt::format(
        "Tensor Cores (wgmma m64n{}k16, f16 x f16 + f32{}): warpgroup tile {}x{}x{}; block tile {}x{}x{} ({} "
        "consumer warpgroup(s) and a producer, {} threads, {} TMA stages, {} B of shared memory), persistent; grid "
        "tile {}x{}x{} (groups of {} tile rows)",
        k.wgmma_n, k.swapped ? ", C^T computed from B's rows" : "", k.warp[0], k.warp[1], k.warp[2], k.block[0],
        k.block[1], k.block[2], k.consumers, k.threads, k.stages, k.shared_bytes, k.grid[0], k.grid[1], k.grid[2],
        k.group_m);
  const std::string level0 =
      k.unit == ComputeUnit::tensor_core
          ? fmt::format("Tensor Cores (mma.sync m16n8k16, f16 x f16 + f32): warp tile {}x{}x{} ({} x {} fragments)",
                        k.warp[0], k.warp[1], k.warp[2], k.warp[0] / 16, k.warp[1] / 8)
          : fmt::format("CUDA cores (fp32 FMA): warp tile {}x{}x{}, {}x{} accumulators per thread, threads {}x{}",
                        k.warp[0], k.warp[1], k.warp[2], k.tm, k.tn, k.warp_rows, 32 / k.warp_rows);
  return fmt::format(
      "{}; block tile {}x{}x{} ({} threads, {} cp.async stages, {} B of shared memory); grid "
      "tile {}x{}x{} (groups of {} block rows)",
      level0, k.block[0], k.block[1], k.block[2], k.threads, k.stages, k.shared_bytes, k.grid[0], k.grid[1],
      k.grid[2], k.group_m);
}

// Which descriptor limit each level's tile is closest to, in words, for the manifest.
std::string binding(const Arch& arch, const CudaKernel& k, int level) {
  const IsaInfo& isa = arch.isa;
  if (k.wgmma && level == 0)
    return fmt::format("wgmma m64n{}k16 from shared memory: {} accumulator registers per consumer thread", k.wgmma_n,
                       k.wgmma_n / 2);
  if (k.wgmma && level == 1)
    return fmt::format(
        "shared memory {} of {} B per block ({} stages of 128-byte swizzled k slices); one persistent "
        "block of {} threads per SM",
        k.shared_bytes, isa.shared_memory_per_block_bytes, k.stages, k.threads);
  if (level == 0)
    return fmt::format(
        "registers: about {} of {} per thread by the sieve's count (accumulators, one k-slice of "
        "operand fragments, {} for addressing); ptxas decides the real number",
        k.registers_estimate, isa.registers_per_thread_max, isa.register_overhead_per_thread);
  if (level == 1 && k.occupancy > 0) {
    const strata_gpu::BlockLimits limits =
        strata_gpu::block_limits(gpu_sm(arch), k.threads, k.registers_estimate, k.shared_bytes);
    return fmt::format(
        "shared memory {} of {} B per block ({} stages, rows padded by 16 B); {} of {} warps per "
        "block; registers {} x {} threads of {} per SM; {} block(s) per SM (shared memory allows {}, registers {}, "
        "threads {}, block slots {})",
        k.shared_bytes, isa.shared_memory_per_block_bytes, k.stages, k.threads / 32, isa.warps_per_block_max,
        k.registers_estimate, k.threads, isa.registers_per_sm, k.occupancy, limits.by_shared, limits.by_registers,
        limits.by_threads, limits.by_slots);
  }
  if (level == 1)
    return fmt::format(
        "shared memory {} of {} B per block ({} stages, rows padded by 16 B); {} of {} warps per "
        "block; registers {} x {} threads of {} per SM",
        k.shared_bytes, isa.shared_memory_per_block_bytes, k.stages, k.threads / 32, isa.warps_per_block_max,
        k.registers_estimate, k.threads, isa.registers_per_sm);
  const MemorySpec& l2 = arch.memory_of(arch.levels.at(2));
  const int64_t footprint = k.grid[0] * k.grid[2] + k.grid[2] * k.grid[1] + k.grid[0] * k.grid[1];
  return fmt::format(
      "Eq. 1 in {}: about {} elements of A, B and C staged at once against {} B; the model chose "
      "the size among multiples of the block tile",
      l2.name, footprint, l2.capacity_bytes);
}

void fill_common(const PackageInputs& in, ctemplate::TemplateDictionary* d) {
  const Arch& arch = *in.arch;
  const Op& op = *in.op;
  const bool f16 = op.a_type == DataType::f16;
  const bool b_row_major = op.b_layout == Layout::row_major;
  d->SetValue("PACKAGE", in.name);
  d->SetValue("PACKAGE_UPPER", upper(in.name));
  fill_package_identity(in.provenance, d);
  d->SetValue("STRATA_VERSION", STRATA_VERSION);
  d->SetValue("ARCH_NAME", arch.name);
  d->SetValue("ARCH_DESCRIPTION", arch.description);
  d->SetValue("OP_DESCRIPTION", op.description);
  d->SetIntValue("SM", arch.isa.sm);
  d->SetValue("SM_DOTTED", fmt::format("{}.{}", arch.isa.sm / 10, arch.isa.sm % 10));
  // wgmma kernels need the architecture-specific target (sm_90a) where the others take the plain one.
  const std::string architecture = fmt::format("{}{}", arch.isa.sm, wgmma_applies(arch, op) ? "a" : "");
  d->SetValue("CUDA_ARCHITECTURE", architecture);
  d->SetValue("BUILT_FOR", "sm_" + architecture);
  if (wgmma_applies(arch, op)) d->ShowSection("WGMMA_PACKAGE");
  d->SetIntValue("SMS", arch.levels.back().parallel_units);
  d->SetValue("A_TYPE", to_string(op.a_type));
  d->SetValue("B_TYPE", to_string(op.b_type));
  d->SetValue("A_TYPE_TEXT", f16 ? "fp16" : "float");
  d->SetValue("B_TYPE_TEXT", f16 ? "fp16" : "float");
  d->SetValue("A_CTYPE", f16 ? in.name + "_half" : "float");
  d->SetValue("B_CTYPE", f16 ? in.name + "_half" : "float");
  d->SetIntValue("A_BYTES", op.a_bytes());
  d->SetIntValue("B_BYTES", op.b_bytes());
  if (f16) d->ShowSection("F16");
  d->SetValue("A_LAYOUT", "row-major");
  d->SetValue("B_LAYOUT", b_row_major ? "row-major" : "column-major");
  d->SetValue("B_LAYOUT_NOTE", b_row_major ? "" : ", stored as N rows of K elements");
  d->SetValue("C_LAYOUT", "row-major");
  d->SetValue("B_ROW_MAJOR", b_row_major ? "true" : "false");
  d->SetValue("B_ROWS", b_row_major ? "K" : "N");
  d->SetValue("B_COLS", b_row_major ? "N" : "K");
  d->SetValue("B_ROWS_TEXT", b_row_major ? "K rows of N" : "N rows of K (column-major K x N)");
  fill_conv(op, d);
  d->SetIntValue("CHUNK_ELEMENTS", 16 / op.a_bytes());
  d->SetValue("CUDA_AB_TYPE", f16 ? "CUDA_R_16F" : "CUDA_R_32F");
  if (f16) {
    d->SetValue("CUBLAS_CALL", "cublasGemmEx");
    d->SetValue("CUBLAS_ARGS",
                "CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), &alpha, b, "
                "CUDA_R_16F, static_cast<int>(ldb), a, CUDA_R_16F, static_cast<int>(lda), &beta, c_ref, CUDA_R_32F, "
                "static_cast<int>(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT");
  } else {
    d->SetValue("CUBLAS_CALL", "cublasSgemm");
    d->SetValue("CUBLAS_ARGS", fmt::format("{}, CUBLAS_OP_N, static_cast<int>(N), static_cast<int>(M), "
                                           "static_cast<int>(K), &alpha, b, static_cast<int>(ldb), a, "
                                           "static_cast<int>(lda), &beta, c_ref, static_cast<int>(ldc)",
                                           b_row_major ? "CUBLAS_OP_N" : "CUBLAS_OP_T"));
  }
}

void fill_machine(const Arch& arch, const UnitKernels& u, ctemplate::TemplateDictionary* d) {
  d->SetValue("UNIT", unit_name(u.unit, u.wgmma));
  fill_model_machine(arch, u.machine, d);
}

void fill_kernel(const Op& op, const CudaKernel& k, ctemplate::TemplateDictionary* d) {
  d->SetValue("NAME", k.name);
  d->SetValue("DESCRIPTION", kernel_description(k));
  d->SetValue("TC", k.unit == ComputeUnit::tensor_core ? "true" : "false");
  d->SetValue("WM", std::to_string(k.warp[0]));
  d->SetValue("WN", std::to_string(k.warp[1]));
  d->SetValue("WK", std::to_string(k.warp[2]));
  d->SetValue("BM", std::to_string(k.block[0]));
  d->SetValue("BN", std::to_string(k.block[1]));
  d->SetValue("BK", std::to_string(k.block[2]));
  d->SetValue("GM", std::to_string(k.grid[0]));
  d->SetValue("GN", std::to_string(k.grid[1]));
  d->SetValue("GK", std::to_string(k.grid[2]));
  d->SetIntValue("STAGES", k.stages);
  d->SetIntValue("THREADS", k.threads);
  d->SetValue("SHARED_BYTES", std::to_string(k.shared_bytes));
  d->SetIntValue("GROUP_M", k.group_m);
  d->SetValue("L0_SECONDS", literal(k.selected->tiling.l0_measured_s));
  d->SetValue("OCCUPANCY", std::to_string(k.occupancy));
  d->SetIntValue("MACHINE_INDEX", k.machine_index);
  d->SetIntValue("SM_INDEX", k.sm_index);
  d->SetValue("WGMMA", k.wgmma ? "true" : "false");
  d->SetValue("KERNEL_HEADER", k.wgmma ? "wgmma_kernels.cuh" : "gemm_kernels.cuh");
  if (k.wgmma) {
    d->ShowSection("WGMMA");
    d->SetIntValue("CONSUMERS", k.consumers);
    d->SetIntValue("WGMMA_N", k.wgmma_n);
    d->SetValue("SWAPPED", k.swapped ? "true" : "false");
    return;
  }
  d->ShowSection("BLOCKS");
  if (k.unit == ComputeUnit::tensor_core) {
    d->ShowSection("TENSOR_CORES");
  } else {
    d->ShowSection("CUDA_CORES");
    d->SetValue("ELEMENT", op.a_type == DataType::f16 ? "uint16_t" : "float");
    d->SetIntValue("TM", k.tm);
    d->SetIntValue("TN", k.tn);
    d->SetIntValue("WARP_ROWS", k.warp_rows);
  }
}

std::string render_cuda_manifest(const PackageInputs& in, const std::vector<UnitKernels>& units,
                                 const std::vector<CudaKernel>& kernels,
                                 const std::map<std::string, std::string>& templates) {
  const Arch& arch = *in.arch;
  const Op& op = *in.op;
  std::string y = manifest_preamble(in.name, arch, op);
  y += fmt::format(
      "target: {{arch: cuda, sm: {}, sms: {}, registers_per_thread_max: {}, registers_per_sm: {}, "
      "shared_memory_per_block_bytes: {}}}\n",
      arch.isa.sm, arch.levels.back().parallel_units, arch.isa.registers_per_thread_max, arch.isa.registers_per_sm,
      arch.isa.shared_memory_per_block_bytes);
  y += "templates:\n";
  for (const auto& [name, sha] : templates) y += fmt::format("  {}: {}\n", name, sha);
  y += "analyzer:\n";
  y += fmt::format("  level0: {}\n", yaml_quoted(kCudaModelledNote));
  y += fmt::format("  level1: {}\n", yaml_quoted(kCudaModelledNote));
  y += "  levels:\n";
  for (const auto& l : arch.levels)
    y += fmt::format("    - {{name: {}, memory: {}, parallel_units: {}, descriptor_analyzer: {}, used: model}}\n",
                     l.name, l.memory, l.parallel_units, to_string(l.analyzer));
  y += "selection:\n";
  y += "  grid: \"per axis 1, 2, 3, 4, 6, ... 8192 (powers of two and 1.5x powers of two); no user shapes\"\n";
  y += "  units:\n";
  for (const UnitKernels& u : units) {
    y += fmt::format("    - unit: {}\n", unit_name(u.unit, u.wgmma));
    y += fmt::format("      grid_max_m: {}\n", u.grid_max_m);
    y += fmt::format("      grid_shapes: {}\n", u.selection->grid_shapes);
    y += fmt::format("      geomean_vs_unrestricted: {:.4f}\n", u.selection->geomean_vs_unrestricted);
    y += "      level0_pool:\n";
    for (int i : u.selection->level0_pool) {
      const auto& t = u.sieve->levels[0].candidates[static_cast<size_t>(i)].tile;
      y += fmt::format("        - [{}, {}, {}]\n", t[0], t[1], t[2]);
    }
  }
  y += "kernels:\n";
  for (size_t id = 0; id < kernels.size(); ++id) {
    const CudaKernel& k = kernels[id];
    y += fmt::format("  - id: {}\n", id);
    y += fmt::format("    name: {}\n", k.name);
    y += fmt::format("    unit: {}\n", unit_name(k.unit, k.wgmma));
    y += fmt::format("    shapes_won_within_unit: {}\n", k.selected->shapes_won);
    y += fmt::format("    example_shape: [{}, {}, {}]\n", k.selected->example_shape[0], k.selected->example_shape[1],
                     k.selected->example_shape[2]);
    y += fmt::format("    threads_per_block: {}\n", k.threads);
    y += fmt::format("    launch_bounds: [{}, 1]\n", k.threads);
    y += fmt::format("    shared_memory_bytes: {}\n", k.shared_bytes);
    y += fmt::format("    pipeline_stages: {}\n", k.stages);
    if (k.occupancy > 0) y += fmt::format("    blocks_per_sm: {}\n", k.occupancy);
    y += "    level0_seconds_per_tile: modelled\n";
    // The model's time of one warp tile (gpu_level0_seconds: CUDA cores from their loads and issue slots, Tensor
    // Cores from mma.sync and fragment loads), which the dispatcher uses in place of the flop count.
    if (k.selected->tiling.l0_measured_s > 0)
      y += fmt::format("    level0_modelled_seconds: {}\n", literal(k.selected->tiling.l0_measured_s));
    y += "    tiles:\n";
    const std::array<int64_t, kNumAxes>* tiles[] = {&k.warp, &k.block, &k.grid};
    for (int l = 0; l < 3; ++l) {
      y += fmt::format("      - level: {}\n", arch.levels[static_cast<size_t>(l)].name);
      y += fmt::format("        tile: [{}, {}, {}]\n", (*tiles[l])[0], (*tiles[l])[1], (*tiles[l])[2]);
      y += fmt::format("        binding: {}\n", yaml_quoted(binding(arch, k, l)));
    }
  }
  return y;
}

void fill_sm(const strata_gpu::Sm& sm, ctemplate::TemplateDictionary* d) {
  d->SetValue("SM_REGISTERS", std::to_string(sm.registers));
  d->SetValue("SM_REGISTER_UNIT", std::to_string(sm.register_unit));
  d->SetValue("SM_SHARED_BYTES", std::to_string(sm.shared_bytes));
  d->SetValue("SM_SHARED_RESERVED", std::to_string(sm.shared_reserved));
  d->SetValue("SM_THREADS", std::to_string(sm.threads));
  d->SetValue("SM_BLOCKS", std::to_string(sm.blocks_per_sm_max));
  d->SetValue("SM_WARP_SIZE", std::to_string(sm.warp_size));
  d->SetValue("SM_STEP_K", std::to_string(sm.step_k));
  d->SetValue("SM_SYNC_S", literal(sm.sync_s));
  d->SetValue("SM_STEP_LATENCY_S", literal(sm.step_latency_s));
  d->SetValue("SM_SHARED_BPS", literal(sm.shared_Bps));
  d->SetValue("SM_STEP_FLOOR_S", literal(sm.step_floor_s));
}

}  // namespace

void check_cuda_support(const Arch& arch, const Op& op) {
  if (arch.target != Target::cuda)
    throw Error({arch.file, 0, 0}, fmt::format("the CUDA package backend emits target cuda; architecture '{}' is {}",
                                               arch.name, to_string(arch.target)));
  if (arch.isa.sm < 80)
    throw Error({arch.file, 0, 0},
                fmt::format("the CUDA package backend needs sm 80 or later (cp.async, mma.sync m16n8k16 with f32 "
                            "accumulators); architecture '{}' has sm {}",
                            arch.name, arch.isa.sm));
  if (arch.levels.size() != 3)
    throw Error({arch.file, 0, 0},
                fmt::format("the CUDA package backend needs three levels (warp tile, block tile, grid); "
                            "architecture '{}' has {}",
                            arch.name, arch.levels.size()));
  if (op.c_type != DataType::f32 || op.accumulate != DataType::f32 || op.a_type != op.b_type ||
      (op.a_type != DataType::f32 && op.a_type != DataType::f16))
    throw Error({op.file, 0, 0}, fmt::format("the CUDA package backend emits GEMM and convolution with f32 or f16 "
                                             "inputs and f32 accumulation and output; operator '{}' is {} with {} x "
                                             "{} -> {}",
                                             op.name, to_string(op.kind), to_string(op.a_type), to_string(op.b_type),
                                             to_string(op.c_type)));
  const bool f16 = op.a_type == DataType::f16;
  if (op.kind == OpKind::conv2d) {
    // The filter is B: KRSC is B stored N x K, RSCK B stored K x N (op_loader sets b_layout so). The CUDA-core
    // kernels read either order; the Tensor Core kernels' B fragments want N x K.
    if (f16 && !op.conv.filter_krsc)
      throw Error({op.file, 0, 0}, fmt::format("the CUDA package backend's Tensor Core kernels read a filter KRSC "
                                               "(B stored N x K); operator '{}' declares filter_layout: rsck",
                                               op.name));
    return;
  }
  const Layout b_wanted = f16 ? Layout::col_major : Layout::row_major;
  if (op.a_layout != Layout::row_major || op.c_layout != Layout::row_major || op.b_layout != b_wanted)
    throw Error({op.file, 0, 0},
                fmt::format("the CUDA package backend emits row-major A and C with B {} for {} inputs; operator "
                            "'{}' declares a: {}, b: {}, c: {}",
                            to_string(b_wanted), to_string(op.a_type), op.name, to_string(op.a_layout),
                            to_string(op.b_layout), to_string(op.c_layout)));
}

std::vector<bool> cuda_emittable_level0(const Arch& arch, const Op& op, const SieveResult& sieve) {
  const auto& cands = sieve.levels[0].candidates;
  std::vector<bool> ok(cands.size(), false);
  const int64_t chunk = 16 / op.a_bytes();  // elements per 16-byte cp.async chunk
  for (size_t i = 0; i < cands.size(); ++i) {
    const Candidate& c = cands[i];
    if (c.mma_index >= 0) {
      // The kernel issues only m16n8k16 and loads B fragments for two n8 tiles per ldmatrix.x4.
      ok[i] = is_m16n8k16(arch.isa.mma.at(static_cast<size_t>(c.mma_index))) && c.tile[1] % 16 == 0;
    } else {
      // Block k tiles (multiples of this k) must be whole chunks for A's rows (and B's when B is column-major);
      // with B row-major its rows are block n tiles, multiples of this n.
      ok[i] = c.tile[2] % chunk == 0 && (op.b_layout == Layout::col_major || c.tile[1] % chunk == 0);
    }
  }
  return ok;
}

std::map<std::string, std::string> render_cuda_package(const PackageInputs& in, TemplateRenderer& renderer) {
  check_cuda_support(*in.arch, *in.op);
  const Arch& arch = *in.arch;
  const Op& op = *in.op;
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> all_templates;

  auto header = [&](CommentStyle style, const std::vector<std::string>& templates,
                    const std::vector<std::string>& extra = {}) {
    std::map<std::string, std::string> used;
    for (const auto& t : templates) used[t] = renderer.used().at(t);
    all_templates.insert(used.begin(), used.end());
    return provenance_header(in.provenance, style, used, extra);
  };

  // The units and their kernels: the selection made for in.sieve's unit, then the pipeline's other units (for f16
  // inputs CUDA-core partners, and on Hopper the wgmma kernels, which bring their own SM parameters).
  std::vector<UnitKernels> units;
  units.push_back(UnitKernels{in.sieve->unit, in.sieve, in.machine, in.selection});
  std::vector<strata_gpu::Sm> sms = {gpu_sm(arch)};
  for (const UnitSelection* u : in.extra_units) {
    units.push_back(UnitKernels{u->unit, &u->sieve, u->machine, &u->selection, u->grid_max_m, u->wgmma,
                                u->wgmma ? static_cast<int>(sms.size()) : 0});
    if (u->wgmma) sms.push_back(u->sm);
  }
  std::vector<CudaKernel> kernels;
  for (size_t u = 0; u < units.size(); ++u)
    for (const SelectedKernel& k : units[u].selection->kernels) {
      CudaKernel c = describe_kernel(arch, op, units[u], static_cast<int>(u), k, kernels.size());
      // The sieve bounded shared memory with the same padded layout; a mismatch is a bug in one of the two.
      if (c.shared_bytes != c.sieve_shared_bytes || c.shared_bytes > arch.isa.shared_memory_per_block_bytes)
        throw Error(
            {arch.file, 0, 0},
            fmt::format("kernel {} lays out {} B of shared memory where the sieve counted {} B (limit {} B)", c.name,
                        c.shared_bytes, c.sieve_shared_bytes, arch.isa.shared_memory_per_block_bytes));
      kernels.push_back(c);
    }
  if (kernels.empty()) throw Error({arch.file, 0, 0}, "selection kept no kernel for the CUDA package");

  ctemplate::TemplateDictionary dict("package");
  fill_common(in, &dict);
  for (const UnitKernels& u : units) fill_machine(arch, u, dict.AddSectionDictionary("MACHINE"));
  for (const strata_gpu::Sm& sm : sms) fill_sm(sm, dict.AddSectionDictionary("SM_MODEL"));
  for (const CudaKernel& k : kernels) fill_kernel(op, k, dict.AddSectionDictionary("KERNEL"));

  for (const CudaKernel& k : kernels) {
    ctemplate::TemplateDictionary kd("kernel");
    fill_common(in, &kd);
    fill_kernel(op, k, &kd);
    const std::string body = renderer.render("cuda/kernel.cu.tpl", kd);
    const std::vector<std::string> extra = {
        "", "Tile hierarchy: " + kernel_description(k) + ".",
        fmt::format("Cost: not profiled; levels 0 and 1 are modelled (Eqs. 2-7) with the descriptor's numbers.")};
    files["src/kernels/" + k.name + ".cu"] = header(CommentStyle::cpp, {"cuda/kernel.cu.tpl"}, extra) + body;
  }
  struct Rendered {
    const char* tpl;
    std::string path;
    CommentStyle style;
  };
  const Rendered rendered[] = {
      {"cuda/reduce.cu.tpl", "src/kernels/splitk_reduce.cu", CommentStyle::cpp},
      {"cuda/transpose.cu.tpl", "src/kernels/transpose.cu", CommentStyle::cpp},
      {"cuda/gemm_kernels.cuh.tpl", "src/gemm_kernels.cuh", CommentStyle::cpp},
      {"cuda/tile_loads.cuh.tpl", "src/tile_loads.cuh", CommentStyle::cpp},
      {"cuda/epilogue.cuh.tpl", "src/epilogue.cuh", CommentStyle::cpp},
      {"cuda/dispatch_plans.h.tpl", "src/dispatch_plans.h", CommentStyle::cpp},
      {"cuda/dispatch_calls.h.tpl", "src/dispatch_calls.h", CommentStyle::cpp},
      {"cuda/internal.h.tpl", "src/internal.h", CommentStyle::cpp},
      {"cuda/api.h.tpl", "include/" + in.name + ".h", CommentStyle::cpp},
      {"cuda/dispatch.cpp.tpl", "src/dispatch.cpp", CommentStyle::cpp},
      {"cost_model.h", "src/cost_model.h", CommentStyle::cpp},
      {"cuda/gpu_model.h", "src/gpu_model.h", CommentStyle::cpp},
      {"cuda/CMakeLists.txt.tpl", "CMakeLists.txt", CommentStyle::hash},
      {"cuda/selftest.cpp.tpl", "test/selftest.cpp", CommentStyle::cpp},
      {"cuda/selftest_calls.h.tpl", "test/selftest_calls.h", CommentStyle::cpp},
      {"cuda/bench.cpp.tpl", "bench/bench.cpp", CommentStyle::cpp},
  };
  for (const Rendered& r : rendered) {
    const std::string body = renderer.render(r.tpl, dict);
    files[r.path] = header(r.style, {r.tpl}) + body;
  }
  if (op.kind == OpKind::conv2d) {
    for (const auto& [tpl, path] :
         {std::pair<const char*, const char*>{"cuda/dispatch_conv.h.tpl", "src/dispatch_conv.h"},
          {"cuda/selftest_conv.h.tpl", "test/selftest_conv.h"}})
      files[path] = header(CommentStyle::cpp, {tpl}) + renderer.render(tpl, dict);
  }
  if (wgmma_applies(arch, op)) {
    const char* tpl = "cuda/wgmma_kernels.cuh.tpl";
    files["src/wgmma_kernels.cuh"] = header(CommentStyle::cpp, {tpl}) + renderer.render(tpl, dict);
  }
  // The README lists the kernels as the manifest does, so it is rendered with the descriptions filled in.
  for (const CudaKernel& k : kernels) {
    auto* row = dict.AddSectionDictionary("KERNEL_ROW");
    row->SetValue("NAME", k.name);
    row->SetValue("DESCRIPTION", kernel_description(k));
  }
  dict.SetValue("ANALYZER_NOTE", kCudaModelledNote);
  const std::string readme = renderer.render("cuda/README.md.tpl", dict);
  files["README.md"] = header(CommentStyle::markdown, {"cuda/README.md.tpl"}) + readme;
  files[kManifestFile] = header(CommentStyle::hash, {}) + render_cuda_manifest(in, units, kernels, all_templates);
  return files;
}

}  // namespace strata
