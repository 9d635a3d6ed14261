#include "emit/cpu_package.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "emit/manifest.h"
#include "emit/package_writer.h"
#include "emit/render_values.h"
#include "render/ukernel_dict.h"
#include "strata_version.h"

namespace strata {
namespace {

// How the package README says the level-0 pool was ranked.
std::string level0_ranking(const Selection& sel, bool profiled) {
  std::string text = profiled ? "ranked by profiled throughput" : "ranked by the model";
  if (sel.level0_tolerance > 0)
    text += fmt::format(", those within {:g}% of the best by vector loads per FMA", sel.level0_tolerance * 100.0);
  return text;
}

constexpr const char* kAarch64Toolchain = "cmake/aarch64-linux-gnu-clang.cmake";

const char* layout_text(Layout l) { return l == Layout::row_major ? "row-major" : "column-major"; }

std::string kernel_name(size_t id, const UkernelSpec& u) { return fmt::format("k{}_{}", id, u.name()); }

void fill_common(const PackageInputs& in, ctemplate::TemplateDictionary* d, const UkernelSpec& isa_kernel) {
  d->SetValue("PACKAGE", in.name);
  d->SetValue("PACKAGE_UPPER", upper(in.name));
  fill_package_identity(in.provenance, d);
  d->SetValue("STRATA_VERSION", STRATA_VERSION);
  d->SetValue("ARCH_NAME", in.arch->name);
  d->SetValue("OP_DESCRIPTION", in.op->description);
  d->SetValue("ISA_NAME", isa_display_name(isa_kernel.isa));
  d->SetValue("A_LAYOUT", layout_text(in.op->a_layout));
  d->SetValue("B_LAYOUT", layout_text(in.op->b_layout));
  d->SetValue("C_LAYOUT", layout_text(in.op->c_layout));
  d->SetIntValue("MAX_THREADS", kCpuMaxThreads);
  const bool arm = in.arch->target == Target::aarch64;
  d->ShowSection(arm ? "TARGET_AARCH64" : "TARGET_X86_64");
  d->SetValue("TARGET_CPU", arm ? "AArch64" : "x86-64");
}

// The fused epilogue the op spec fixes (Op::epilogue), as config.h's constants, the self-test's copy and a sentence
// of the header.
void fill_epilogue(const Op& op, ctemplate::TemplateDictionary* d) {
  const EpilogueFacts facts = op.epilogue.value_or(EpilogueFacts{});
  const auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  d->SetValue("EPILOGUE_FIXED", flag(op.epilogue.has_value()));
  d->SetIntValue("FIXED_BIAS", facts.bias);
  d->SetValue("FIXED_RESIDUAL", flag(facts.residual));
  d->SetIntValue("FIXED_ACTIVATION", facts.activation);
  d->SetValue("FIXED_CLAMP", flag(facts.clamp));
  if (!op.epilogue) {
    d->SetValue("EPILOGUE_FACTS", "The op spec fixes no epilogue: a call gives any.");
    return;
  }
  static const char* const kBias[] = {"no bias", "a bias per column", "a bias per row"};
  static const char* const kActivation[] = {"no activation", "ReLU", "GELU (tanh)", "GELU (erf)", "SiLU"};
  d->SetValue(
      "EPILOGUE_FACTS",
      fmt::format("The op spec fixes the epilogue ({}, {} residual, {}, {} clamp): an epilogue call must give "
                  "exactly these parts, else INVALID_ARGUMENT.",
                  kBias[facts.bias], facts.residual ? "a" : "no", kActivation[facts.activation],
                  facts.clamp ? "a" : "no"));
}

void fill_machine(const PackageInputs& in, const CpuPlanConfig& config, ctemplate::TemplateDictionary* d) {
  fill_model_machine(*in.arch, config.machine, d);
  d->SetValue("A_BYTES", literal(config.machine.a_bytes));
  d->SetValue("B_BYTES", literal(config.machine.b_bytes));
  d->SetValue("C_BYTES", literal(config.machine.c_bytes));
  d->SetValue("DIRECT_CACHE", config.direct_cache);
  d->SetValue("DIRECT_BYTES", std::to_string(config.direct_bytes));
  d->SetValue("STREAM_A_BYTES", std::to_string(config.stream_a_bytes));
  d->SetValue("TILE_CACHE", config.tile_cache);
  d->SetValue("TILE_CACHE_BYTES", std::to_string(config.tile_cache_bytes));
  d->SetValue("TILE_CACHE_WAY_BYTES", std::to_string(config.tile_cache_way_bytes));
  d->SetValue("LINE_BYTES", std::to_string(config.line_bytes));
  d->SetIntValue("VECTOR_FLOATS", config.vector_floats);
  d->SetIntValue("DIRECT_ROWS", config.direct_rows);
  d->SetIntValue("FMA_CHAINS", config.fma_chains);              // see thin_sets in tile_args.h
  d->SetIntValue("VECTOR_REGISTERS", config.vector_registers);  // see b_held in tile_args.h
  d->SetIntValue("FMA_PIPES", config.fma_pipes);                // see kFmaPipes in config.h
  d->SetIntValue("HALF_FMA_PIPES", config.half_fma_pipes);      // see kHalfFmaPipes in config.h
  d->SetValue("OUTER_CACHE", config.outer_cache);
  d->SetValue("OUTER_BYTES", std::to_string(config.outer_bytes));
}

std::string cpu_check(VectorIsa isa) {
  // Advanced SIMD is mandatory in every AArch64 CPU that runs a standard (AAPCS64) system, which passes
  // floating-point values in its registers: there is nothing to ask at run time.
  if (isa == VectorIsa::neon) return "true /* Advanced SIMD (NEON) is part of every AArch64 CPU */";
  const char* feature = isa == VectorIsa::avx512 ? "avx512f" : "avx2";
  return fmt::format(
      "[] {{ __builtin_cpu_init(); return __builtin_cpu_supports(\"{}\") && __builtin_cpu_supports(\"fma\"); }}()",
      feature);
}

}  // namespace

void check_cpu_support(const Arch& arch, const Op& op) {
  const bool x86 =
      arch.target == Target::x86_64 && (arch.isa.vector == VectorIsa::avx2 || arch.isa.vector == VectorIsa::avx512);
  const bool arm = arch.target == Target::aarch64 && arch.isa.vector == VectorIsa::neon;
  if (!x86 && !arm)
    throw Error({arch.file, 0, 0},
                fmt::format("the CPU package backend emits AVX2 and AVX-512 kernels for x86_64 and "
                            "NEON kernels for aarch64; architecture '{}' is target {} with vector {}",
                            arch.name, to_string(arch.target), to_string(arch.isa.vector)));
  // x86 has no FMA that takes one operand from a lane of a register, so a descriptor asking for it is wrong.
  if (x86 && arch.isa.fma_broadcast != Broadcast::memory)
    throw Error({arch.file, 0, 0},
                fmt::format("architecture '{}': isa.fma_broadcast must be memory for {} (x86 has no "
                            "FMA by element); it is {}",
                            arch.name, to_string(arch.isa.vector), to_string(arch.isa.fma_broadcast)));
  if (op.a_type != DataType::f32 || op.c_type != DataType::f32)
    throw Error({op.file, 0, 0},
                fmt::format("the CPU package backend emits fp32 GEMM and convolution; operator '{}' is {} with {} "
                            "inputs and {} output",
                            op.name, to_string(op.kind), to_string(op.a_type), to_string(op.c_type)));
  if (op.kind == OpKind::conv2d) return;  // its layouts are the conv section's, all of which the backend emits
  if (op.a_layout != Layout::row_major || op.b_layout != Layout::row_major || op.c_layout != Layout::row_major)
    throw Error({op.file, 0, 0},
                fmt::format("the CPU package backend emits row-major A, B and C so far; operator "
                            "'{}' declares a: {}, b: {}, c: {}",
                            op.name, to_string(op.a_layout), to_string(op.b_layout), to_string(op.c_layout)));
}

UkernelSpec ukernel_for(const Arch& arch, const Op& op, const Candidate& level0) {
  UkernelSpec u;
  u.isa = arch.isa.vector;
  u.lanes = arch.isa.vector_bits / (8 * op.b_bytes());
  u.mr = static_cast<int>(level0.tile[0]);
  u.nr = static_cast<int>(level0.tile[1]);
  u.ku = static_cast<int>(level0.tile[2]);
  u.vector_registers = arch.isa.vector_registers;
  u.broadcast = arch.isa.fma_broadcast;
  return u;
}

std::vector<double> level0_seconds_from(const Arch& arch, const Op& op, const SieveResult& sieve,
                                        const ProfileRecords& records) {
  const auto& level0 = sieve.levels[0].candidates;
  std::vector<double> seconds(level0.size(), 0.0);
  for (size_t i = 0; i < level0.size(); ++i)
    if (const ProfileRecord* r = find(records, ukernel_for(arch, op, level0[i]).name()))
      seconds[i] = seconds_per_level0_tile(*r);
  return seconds;
}

bool level1_profiling_asked(const Arch& arch) {
  return !arch.is_gpu() && arch.levels.size() > 1 && arch.levels[1].analyzer == Analyzer::profile;
}

Level1Profile level1_profile_from(const Arch& arch, const Op& op, const SieveResult& sieve,
                                  const std::vector<int>& pool, const ProfileRecords& records,
                                  std::vector<KitBlock>* blocks) {
  blocks->clear();
  Level1Profile profile(sieve.levels.size() > 1 ? sieve.levels[1].candidates.size() : 0);
  const std::set<int> in_pool(pool.begin(), pool.end());
  bool complete = true;
  for (size_t i = 0; i < profile.size(); ++i) {
    const Candidate& c = sieve.levels[1].candidates[i];
    for (int child : c.children) {
      if (!in_pool.count(child)) continue;
      KitBlock b{ukernel_for(arch, op, sieve.levels[0].candidates[static_cast<size_t>(child)]).name(),
                 {c.tile[0], c.tile[1], c.tile[2]}};
      if (const Level1Record* r = find_level1(records, b.kernel, b.block))
        profile[i].emplace_back(child,
                                strata_model::Level1Measured{r->pack_a_seconds, r->pack_b_seconds, r->tiles_seconds});
      else
        complete = false;
      blocks->push_back(std::move(b));
    }
  }
  return complete ? profile : Level1Profile{};
}

CpuPlanConfig cpu_plan_config(const PackageInputs& in) {
  CpuPlanConfig config = cpu_plan_machine(*in.arch, in.machine);
  const auto& level0 = in.sieve->levels[0].candidates;
  for (size_t id = 0; id < in.selection->kernels.size(); ++id) {
    const SelectedKernel& k = in.selection->kernels[id];
    const UkernelSpec u = ukernel_for(*in.arch, *in.op, level0[static_cast<size_t>(k.chain[0])]);
    config.kernels.push_back(cpu_plan_kernel(kernel_name(id, u), k.tiling));
  }
  return config;
}

std::map<std::string, std::string> render_cpu_package(const PackageInputs& in, TemplateRenderer& renderer) {
  check_cpu_support(*in.arch, *in.op);
  const Selection& sel = *in.selection;
  const auto& level0 = in.sieve->levels[0].candidates;
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> all_templates;  // every template used, for the manifest

  auto header = [&](CommentStyle style, const std::vector<std::string>& templates,
                    const std::vector<std::string>& extra = {}) {
    std::map<std::string, std::string> used;
    for (const auto& t : templates) used[t] = renderer.used().at(t);
    all_templates.insert(used.begin(), used.end());
    return provenance_header(in.provenance, style, used, extra);
  };

  // Distinct micro-kernels, sorted by name, and the kernel table in selection order.
  std::map<std::string, UkernelSpec> ukernels;
  for (const auto& k : sel.kernels) {
    const UkernelSpec u = ukernel_for(*in.arch, *in.op, level0[static_cast<size_t>(k.chain[0])]);
    ukernels.emplace(u.name(), u);
  }
  const UkernelSpec& any = ukernels.begin()->second;

  const CpuPlanConfig plan_config = cpu_plan_config(in);
  ctemplate::TemplateDictionary dict("package");
  fill_common(in, &dict, any);
  fill_machine(in, plan_config, &dict);
  dict.SetValue("CPU_CHECK", cpu_check(any.isa));
  const bool conv = in.op->kind == OpKind::conv2d;
  ctemplate::TemplateDictionary* const conv_section = fill_conv(*in.op, &dict);
  fill_epilogue(*in.op, &dict);
  for (const auto& [name, u] : ukernels) {
    dict.AddSectionDictionary("UKERNEL")->SetValue("NAME", name);
    if (conv) conv_section->AddSectionDictionary("CONV_UKERNEL")->SetValue("NAME", name);
    auto* file = dict.AddSectionDictionary("KERNEL_FILE");
    file->SetValue("FILE", "src/kernels/" + name + ".cpp");
    std::string flags;
    for (const auto& f : u.compile_flags()) flags += (flags.empty() ? "" : ";") + f;
    if (!flags.empty()) file->AddSectionDictionary("HAS_FLAGS")->SetValue("FLAGS", flags);
  }
  for (size_t id = 0; id < sel.kernels.size(); ++id) {
    const SelectedKernel& k = sel.kernels[id];
    const UkernelSpec u = ukernel_for(*in.arch, *in.op, level0[static_cast<size_t>(k.chain[0])]);
    const CpuPlanKernel& entry = plan_config.kernels[id];
    auto* kd = dict.AddSectionDictionary("KERNEL");
    kd->SetIntValue("ID", static_cast<long>(id));
    kd->SetValue("NAME", entry.name);
    kd->SetValue("UKERNEL", u.name());
    kd->SetValue("GATHER_A", conv ? "&" + u.name() + "_gather_a" : std::string("nullptr"));
    kd->SetIntValue("MR", entry.mr);
    kd->SetIntValue("NR", entry.nr);
    kd->SetIntValue("KU", entry.ku);
    // Level-1 tile (what a thread packs and runs; BLIS's MC, NC, KC) and level-2 tile (what the threads share).
    kd->SetValue("M1", std::to_string(entry.m1));
    kd->SetValue("N1", std::to_string(entry.n1));
    kd->SetValue("K1", std::to_string(entry.k1));
    kd->SetValue("M2", std::to_string(entry.m2));
    kd->SetValue("N2", std::to_string(entry.n2));
    kd->SetValue("K2", std::to_string(entry.k2));
    kd->SetValue("L0_SECONDS", literal(entry.level0_seconds));
    const strata_model::Level1Measured& l1 = entry.level1;
    kd->SetValue("L1_SECONDS",
                 fmt::format("{}, {}, {}", literal(l1.pack_a_s), literal(l1.pack_b_s), literal(l1.tiles_s)));
    const ProfileRecord* record = in.records ? find(*in.records, u.name()) : nullptr;
    kd->SetValue("L0_SOURCE", record ? fmt::format("profiled {:.1f} GFLOP/s", record->gflops) : "modelled");
    kd->SetValue("REASON", fmt::format("model's best on {} of {} grid shapes, e.g. {}x{}x{}", k.shapes_won,
                                       sel.grid_shapes, k.example_shape[0], k.example_shape[1], k.example_shape[2]));
  }
  dict.SetValue("SELECTION_NOTE",
                fmt::format("The generator considered {} level-0 register tiles ({}), took the model's best tiling "
                            "for each of {} grid shapes (powers of two and 1.5 times powers of two, 1 to 8192 per "
                            "axis; no user shapes), and kept the {} kernels that cover that grid best: their best "
                            "time is within {:.1f}% of the best of all the grid's winners (geometric mean).",
                            sel.level0_pool.size(), level0_ranking(sel, in.records != nullptr), sel.grid_shapes,
                            sel.kernels.size(), (sel.geomean_vs_unrestricted - 1.0) * 100.0));

  // Render each file. Kernel files first fill their own dictionaries.
  for (const auto& [name, u] : ukernels) {
    ctemplate::TemplateDictionary kd("ukernel");
    fill_common(in, &kd, u);
    fill_ukernel_dictionary(u, &kd);
    kd.ShowSection("PACKAGE_ENTRY");
    kd.ShowSection("PACKING");
    if (conv) kd.ShowSection("CONV");
    const std::string body = renderer.render("cpu/ukernel.cpp.tpl", kd);
    const ProfileRecord* record = in.records ? find(*in.records, name) : nullptr;
    std::vector<std::string> extra = {
        "",
        fmt::format("Tile hierarchy: level 0 register tile {} x {} x {} (k unroll); the cache blocks that use it are "
                    "listed in manifest.yaml.",
                    u.mr, u.nr, u.ku),
        record ? fmt::format("Cost: profiled {:.2f} GFLOP/s ({:.3g} s per {}-deep call) with {}.", record->gflops,
                             record->seconds_per_call, record->depth, in.records->compiler)
               : "Cost: not profiled; level 0 is modelled (Eq. 3)."};
    files["src/kernels/" + name + ".cpp"] = header(CommentStyle::cpp, {"cpu/ukernel.cpp.tpl"}, extra) + body;
  }
  // The fixed sources, verbatim: the dispatcher in its parts, the kernels' loops and the ISA's vector layer.
  for (const std::string& fixed : {std::string("dispatch.cpp"),
                                   std::string("dispatch_kernel.h"),
                                   std::string("dispatch_rules.h"),
                                   std::string("dispatch_blocking.h"),
                                   std::string("dispatch_prices.h"),
                                   std::string("dispatch_layout_prices.h"),
                                   std::string("dispatch_offers.h"),
                                   std::string("dispatch_planner.h"),
                                   std::string("dispatch_threads.h"),
                                   std::string("dispatch_direct.h"),
                                   std::string("dispatch_packed.h"),
                                   std::string("dispatch_checks.h"),
                                   std::string("dispatch_packed_b.h"),
                                   std::string("dispatch_batches.h"),
                                   std::string("tile_args.h"),
                                   std::string("post_ops.h"),
                                   std::string("post_ops_apply.h"),
                                   std::string("kernel_tile.h"),
                                   std::string("kernel_paths.h"),
                                   std::string("kernel_rows.h"),
                                   std::string("conv_geometry.h"),
                                   std::string("conv_gather.h"),
                                   std::string("dispatch_conv.h"),
                                   std::string("dispatch_conv_direct.h"),
                                   "simd_" + std::string(to_string(any.isa)) + ".h"}) {
    if (!conv && (fixed.find("conv") != std::string::npos)) continue;  // convolution packages only
    const std::string relative = "cpu/runtime/" + fixed;
    const std::string body = renderer.verbatim(relative);
    files["src/" + fixed] = header(CommentStyle::cpp, {relative}) + body;
  }
  const std::string api = renderer.render("cpu/api.h.tpl", dict);
  files["include/" + in.name + ".h"] = header(CommentStyle::cpp, {"cpu/api.h.tpl"}) + api;
  const std::string config = renderer.render("cpu/config.h.tpl", dict);
  files["src/config.h"] = header(CommentStyle::cpp, {"cpu/config.h.tpl"}) + config;
  const std::string dispatch_config = renderer.render("cpu/dispatch_config.h.tpl", dict);
  files["src/dispatch_config.h"] = header(CommentStyle::cpp, {"cpu/dispatch_config.h.tpl"}) + dispatch_config;
  const std::string model = renderer.render("cost_model.h", dict);
  files["src/cost_model.h"] = header(CommentStyle::cpp, {"cost_model.h"}) + model;
  const std::string cmake = renderer.render("cpu/CMakeLists.txt.tpl", dict);
  files["CMakeLists.txt"] = header(CommentStyle::hash, {"cpu/CMakeLists.txt.tpl"}) + cmake;
  const std::string selftest = renderer.render("cpu/selftest.cpp.tpl", dict);
  files["test/selftest.cpp"] = header(CommentStyle::cpp, {"cpu/selftest.cpp.tpl"}) + selftest;
  const std::string selftest_support = renderer.render("cpu/selftest_support.h.tpl", dict);
  files["test/selftest_support.h"] = header(CommentStyle::cpp, {"cpu/selftest_support.h.tpl"}) + selftest_support;
  const std::string selftest_arguments = renderer.render("cpu/selftest_arguments.h.tpl", dict);
  files["test/selftest_arguments.h"] =
      header(CommentStyle::cpp, {"cpu/selftest_arguments.h.tpl"}) + selftest_arguments;
  const std::string selftest_layouts = renderer.render("cpu/selftest_layouts.h.tpl", dict);
  files["test/selftest_layouts.h"] = header(CommentStyle::cpp, {"cpu/selftest_layouts.h.tpl"}) + selftest_layouts;
  const std::string selftest_batches = renderer.render("cpu/selftest_batches.h.tpl", dict);
  files["test/selftest_batches.h"] = header(CommentStyle::cpp, {"cpu/selftest_batches.h.tpl"}) + selftest_batches;
  const std::string selftest_epilogue = renderer.render("cpu/selftest_epilogue.h.tpl", dict);
  files["test/selftest_epilogue.h"] = header(CommentStyle::cpp, {"cpu/selftest_epilogue.h.tpl"}) + selftest_epilogue;
  const std::string selftest_packed_b = renderer.render("cpu/selftest_packed_b.h.tpl", dict);
  files["test/selftest_packed_b.h"] = header(CommentStyle::cpp, {"cpu/selftest_packed_b.h.tpl"}) + selftest_packed_b;
  if (conv) {
    const std::string selftest_conv = renderer.render("cpu/selftest_conv.h.tpl", dict);
    files["test/selftest_conv.h"] = header(CommentStyle::cpp, {"cpu/selftest_conv.h.tpl"}) + selftest_conv;
  }
  const std::string bench = renderer.render("cpu/bench.cpp.tpl", dict);
  files["bench/bench.cpp"] = header(CommentStyle::cpp, {"cpu/bench.cpp.tpl"}) + bench;
  if (in.arch->target == Target::aarch64) {
    // A toolchain file for the ordinary cross build (clang + lld against the distribution's arm64 sysroot, tests
    // under qemu-aarch64): the package's CMakeLists.txt itself stays target-neutral.
    const std::string toolchain = renderer.render("cpu/aarch64-linux-gnu-clang.cmake.tpl", dict);
    files[kAarch64Toolchain] = header(CommentStyle::hash, {"cpu/aarch64-linux-gnu-clang.cmake.tpl"}) + toolchain;
    dict.SetValue("TOOLCHAIN_FILE", kAarch64Toolchain);
  }
  const std::string readme = renderer.render("cpu/README.md.tpl", dict);
  files["README.md"] = header(CommentStyle::markdown, {"cpu/README.md.tpl"}) + readme;
  if (in.records) files["profile_records.yaml"] = header(CommentStyle::hash, {}) + in.records_yaml;
  ManifestInputs mi{in.arch, in.op, in.sieve, in.selection, in.records, in.name, &all_templates, in.level1_profiled};
  files[kManifestFile] = header(CommentStyle::hash, {}) + render_manifest(mi, in.level0_seconds);
  return files;
}

}  // namespace strata
