#include "profile/profile_kit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/error.h"
#include "profile/records.h"
#include "strata_version.h"

namespace strata {
namespace {

constexpr char kWhere[] = "<profile-kit>";
constexpr char kPackage[] = "strata_profile";
constexpr char kPackageUpper[] = "STRATA_PROFILE";
// Kernel files per ISA: enough for a parallel build on a device or a build machine to keep its cores busy, and
// fixed, so that the kit's files do not depend on the machine that generated it.
constexpr size_t kUnitsPerIsa = 8;
constexpr char kToolchainTemplate[] = "cpu/aarch64-linux-gnu-clang.cmake.tpl";
constexpr char kToolchainFile[] = "cmake/aarch64-linux-gnu-clang.cmake";

[[noreturn]] void fail(const std::string& message) { throw Error({kWhere, 0, 0}, message); }

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

int lanes_of(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::avx512: return 16;
    case VectorIsa::avx2: return 8;
    case VectorIsa::neon: return 4;
    case VectorIsa::none: break;
  }
  return 0;
}

void check_kernels(const std::vector<UkernelSpec>& kernels) {
  std::set<std::string> names;
  for (const UkernelSpec& k : kernels) {
    const int lanes = lanes_of(k.isa);
    if (lanes == 0)
      fail(fmt::format("{}: the profile kit covers AVX-512, AVX2 and NEON micro-kernels, not {}", k.name(),
                       to_string(k.isa)));
    if (k.lanes != lanes || k.mr < 1 || k.ku < 1 || k.nr < lanes || k.nr % lanes != 0)
      fail(
          fmt::format("{}: not a valid register tile (lanes {}, mr {}, nr {}, ku {}): nr must be a positive "
                      "multiple of the {} lanes of {}",
                      k.name(), k.lanes, k.mr, k.nr, k.ku, lanes, to_string(k.isa)));
    if (!names.insert(k.name()).second) fail(fmt::format("{} is listed twice", k.name()));
    if (k.isa != kernels.front().isa)
      fail(fmt::format("{} and {} are of different ISAs; a kit profiles one target", kernels.front().name(),
                       k.name()));
  }
}

std::string kernel_namespace(const UkernelSpec& k) { return "k_" + k.name(); }

// Each block's kernel index in `kernels` (sorted by name); fails for a block that is not whole register tiles of
// one of them, or that is listed twice.
std::vector<size_t> block_kernels(const std::vector<UkernelSpec>& kernels, const std::vector<KitBlock>& blocks) {
  std::vector<size_t> out;
  std::set<std::pair<std::string, std::array<int64_t, 3>>> seen;
  for (const KitBlock& b : blocks) {
    const std::string text = fmt::format("{} {}x{}x{}", b.kernel, b.block[0], b.block[1], b.block[2]);
    auto it =
        std::find_if(kernels.begin(), kernels.end(), [&](const UkernelSpec& k) { return k.name() == b.kernel; });
    if (it == kernels.end()) fail(fmt::format("level-1 block {}: the kit holds no kernel of that name", text));
    if (b.block[0] < 1 || b.block[1] < 1 || b.block[2] < 1 || b.block[0] % it->mr != 0 || b.block[1] % it->nr != 0 ||
        b.block[2] % it->ku != 0)
      fail(fmt::format("level-1 block {}: the extents must be positive multiples of the register tile {}x{}x{}", text,
                       it->mr, it->nr, it->ku));
    if (!seen.emplace(b.kernel, b.block).second) fail(fmt::format("level-1 block {} is listed twice", text));
    out.push_back(static_cast<size_t>(it - kernels.begin()));
  }
  return out;
}

// The bytes of each pool the kit takes level-1 sources and C blocks from: at least four times the capacity of the
// cache the panels are packed for (level 1's memory), so that a region has left it when it comes round again, and
// otherwise a quarter of the outermost level's cache, which the two pools and everything else then share.
int64_t level1_pool_bytes(const Arch& arch) {
  const int64_t pack_cache = arch.levels.size() > 1 ? arch.memory_of(arch.levels[1]).capacity_bytes : 0;
  const int64_t source_cache = arch.memory_of(arch.levels.back()).capacity_bytes;
  return std::max<int64_t>(std::max<int64_t>(4 * pack_cache, source_cache / 4), int64_t{1} << 20);
}

// Kernels split into translation units of equal compile flags (an AVX2 kernel built with -mavx512f would use EVEX
// encodings and 32 registers: not what ships), up to kUnitsPerIsa per flag set, balanced by kernel size.
std::vector<std::vector<size_t>> split_units(const std::vector<UkernelSpec>& kernels) {
  std::map<std::vector<std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < kernels.size(); ++i) groups[kernels[i].compile_flags()].push_back(i);
  std::vector<std::vector<size_t>> units;
  for (auto& [flags, members] : groups) {
    auto size = [&](size_t i) { return kernels[i].mr * kernels[i].vectors() * kernels[i].ku; };
    std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) { return size(a) > size(b); });
    const size_t count = std::min(members.size(), kUnitsPerIsa);
    std::vector<std::vector<size_t>> group(count);
    std::vector<int64_t> load(count, 0);
    for (size_t i : members) {  // largest first into the lightest unit
      const size_t unit = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      group[unit].push_back(i);
      load[unit] += size(i);
    }
    for (auto& unit : group) {
      std::sort(unit.begin(), unit.end());  // by name within a file: easy to find a kernel
      units.push_back(std::move(unit));
    }
  }
  return units;
}

// `packing`: with the packing routines, which only level-1 blocks time (a fifth of a kernel's compile time).
std::string render_kernel(TemplateRenderer& renderer, const UkernelSpec& k, bool packing) {
  ctemplate::TemplateDictionary dict("ukernel");
  fill_ukernel_dictionary(k, &dict);
  dict.SetValue("PACKAGE", kPackage);
  dict.SetValue("PACKAGE_UPPER", kPackageUpper);
  dict.ShowSection("PROFILE_ENTRY");
  if (packing) dict.ShowSection("PACKING");
  return renderer.render("cpu/ukernel.cpp.tpl", dict);
}

// One translation unit holding several rendered kernels. Each kernel file defines its helpers in an anonymous
// namespace inside strata_profile_internal, so two of them in one unit would collide; wrapping each in a
// namespace of its own keeps them apart without touching the shipped text. The kernel files' #include lines are
// hoisted to the top so that no header is ever included inside a namespace.
std::string kernel_unit_source(TemplateRenderer& renderer, const std::vector<UkernelSpec>& kernels,
                               const std::vector<size_t>& members, bool packing) {
  std::vector<std::string> includes;
  std::string bodies;
  for (size_t i : members) {
    const std::string ns = kernel_namespace(kernels[i]);
    bodies += fmt::format(
        "\nnamespace {0}::{1}_internal {{\nusing namespace ::{1}_internal;  // TileArgs\n}}\n"
        "namespace {0} {{\n",
        ns, kPackage);
    std::istringstream in(render_kernel(renderer, kernels[i], packing));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("#include", 0) != 0) {
        bodies += line + "\n";
      } else if (std::find(includes.begin(), includes.end(), line) == includes.end()) {
        includes.push_back(line);
      }
    }
    bodies += fmt::format("}}  // namespace {}\n", ns);
  }
  return "// Micro-kernels rendered from templates/cpu/ukernel.cpp.tpl (PROFILE_ENTRY), each in a namespace of its "
         "own\n// so that several share this file (see profiler.cpp).\n" +
         join(includes, "\n") + "\n" + bodies;
}

// How the README names a descriptor: as given when that is a relative path inside the working directory (so the
// command reads as the user typed it), else by its file name alone (never an absolute path: the kit is the same
// bytes wherever it is generated).
std::string display_path(const std::string& path) {
  const std::filesystem::path p(path);
  bool inside = p.is_relative();
  for (const auto& part : p) inside = inside && part != "..";
  if (inside) return p.lexically_normal().generic_string();
  const std::string name = p.filename().string();
  return name.empty() ? path : name;
}

std::string kit_manifest(const KitInputs& in, const std::vector<UkernelSpec>& kernels,
                         const std::vector<KitUnit>& units, const std::vector<std::vector<size_t>>& members) {
  std::map<std::string, std::string> file_of;
  for (size_t u = 0; u < members.size(); ++u)
    for (size_t i : members[u]) file_of[kernels[i].name()] = units[u].source;
  std::string y;
  y += std::string(kKitManifestMarker) + "\n";
  y += fmt::format("generator: \"strata {}\"\n", STRATA_VERSION);
  y += fmt::format("arch: {{name: {}, sha256: {}}}\n", in.arch->name, in.arch->content_sha);
  y += fmt::format("op: {{name: {}}}\n", in.op_name);
  y += fmt::format("target: {{arch: {}, vector: {}, vector_bits: {}}}\n", to_string(in.arch->target),
                   to_string(in.arch->isa.vector), in.arch->isa.vector_bits);
  y += fmt::format("binary: {}\n", kKitBinary);
  y += fmt::format("records: {}\n", kKitRecordsFile);
  y += fmt::format("build_flags: \"{}\"\n", join(kit_build_flags(), " "));
  y += fmt::format("defaults: {{depth: {}, rounds: {}}}\n", kKitDefaultDepth, kKitDefaultRounds);
  if (!in.blocks.empty()) y += fmt::format("level1_blocks: {}\n", in.blocks.size());
  y += kernels.empty() ? "kernels: []\n" : "kernels:\n";
  for (const UkernelSpec& k : kernels)
    y += fmt::format("  - {{name: {}, mr: {}, nr: {}, ku: {}, file: {}, flags: \"{}\"}}\n", k.name(), k.mr, k.nr,
                     k.ku, file_of.at(k.name()), join(k.compile_flags(), " "));
  return y;
}

}  // namespace

const std::vector<std::string>& kit_build_flags() {
  static const std::vector<std::string> flags = {"-std=c++17", "-O2"};
  return flags;
}

ProfileKit render_profile_kit(const KitInputs& in, TemplateRenderer& renderer) {
  if (!in.arch) fail("no architecture given");
  std::vector<UkernelSpec> kernels = in.kernels;
  std::sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) { return a.name() < b.name(); });
  check_kernels(kernels);
  const Arch& arch = *in.arch;

  ProfileKit kit;
  auto header = [&](KitComment style, const std::vector<std::string>& templates) {
    if (!in.header) return std::string();
    std::map<std::string, std::string> used;
    for (const auto& t : templates) used[t] = renderer.used().at(t);
    return in.header(style, used);
  };

  // Kernel files.
  const auto members = split_units(kernels);
  for (size_t u = 0; u < members.size(); ++u) {
    const UkernelSpec& first = kernels[members[u].front()];
    const size_t index = static_cast<size_t>(std::count_if(
        kit.units.begin(), kit.units.end(), [&](const KitUnit& k) { return k.flags == first.compile_flags(); }));
    KitUnit unit{fmt::format("src/kernels_{}_{}.cpp", to_string(first.isa), index), first.compile_flags()};
    const std::string body = kernel_unit_source(renderer, kernels, members[u], !in.blocks.empty());
    kit.files[unit.source] = header(KitComment::cpp, {"cpu/ukernel.cpp.tpl"}) + body;
    kit.units.push_back(std::move(unit));
  }

  // The profiler's main and its headers.
  {
    ctemplate::TemplateDictionary dict("internal");
    dict.SetValue("PACKAGE", kPackage);
    dict.SetValue("PACKAGE_UPPER", kPackageUpper);
    dict.SetIntValue("FMA_CHAINS", arch.isa.fma_chains());
    dict.SetIntValue("VECTOR_REGISTERS", arch.isa.vector_registers);
    dict.SetIntValue("FMA_PIPES", arch.isa.fma_pipes);
    dict.SetIntValue("HALF_FMA_PIPES", arch.isa.half_fma_pipes());
    dict.SetIntValue("DIRECT_ROWS", direct_tile_rows(arch.isa.vector));
    dict.SetValue("ARCH_NAME", arch.name);
    // The kit times tiles without an epilogue: none is fixed.
    dict.SetValue("EPILOGUE_FIXED", "false");
    dict.SetIntValue("FIXED_BIAS", 0);
    dict.SetValue("FIXED_RESIDUAL", "false");
    dict.SetIntValue("FIXED_ACTIVATION", 0);
    dict.SetValue("FIXED_CLAMP", "false");
    const std::string body = renderer.render("cpu/config.h.tpl", dict);
    kit.files["src/config.h"] = header(KitComment::cpp, {"cpu/config.h.tpl"}) + body;
  }
  // The fixed kernel code the kernel files instantiate, verbatim: the tile and packing, and the ISA's vector layer.
  for (const std::string& fixed : {std::string("tile_args.h"), std::string("kernel_tile.h"),
                                   "simd_" + std::string(to_string(arch.isa.vector)) + ".h"}) {
    const std::string relative = "cpu/runtime/" + fixed;
    const std::string body = renderer.verbatim(relative);
    kit.files["src/" + fixed] = header(KitComment::cpp, {relative}) + body;
  }
  for (const char* shared : {"device_info.h", "compiler_id.h"}) {
    // Copied verbatim (no markers): the same text Strata itself compiles.
    ctemplate::TemplateDictionary dict("shared");
    const std::string name = std::string("cpu/kit/") + shared;
    const std::string body = renderer.render(name, dict);
    kit.files[std::string("src/") + shared] = header(KitComment::cpp, {name}) + body;
  }
  const std::string build_flags = join(kit_build_flags(), " ");
  {
    ctemplate::TemplateDictionary dict("profiler");
    dict.SetValue("PACKAGE", kPackage);
    dict.SetValue("ARCH_NAME", arch.name);
    dict.SetValue("ARCH_SHA256", arch.content_sha);
    dict.SetValue("OP_NAME", in.op_name);
    dict.SetValue("BUILD_FLAGS", build_flags);
    dict.SetIntValue("DEPTH", kKitDefaultDepth);
    dict.SetIntValue("ROUNDS", kKitDefaultRounds);
    const std::vector<size_t> block_kernel = block_kernels(kernels, in.blocks);
    for (size_t i = 0; i < in.blocks.size(); ++i) {
      auto* entry = dict.AddSectionDictionary("BLOCK");
      entry->SetIntValue("KERNEL_INDEX", static_cast<long>(block_kernel[i]));
      entry->SetValue("M", std::to_string(in.blocks[i].block[0]));
      entry->SetValue("N", std::to_string(in.blocks[i].block[1]));
      entry->SetValue("K", std::to_string(in.blocks[i].block[2]));
    }
    dict.SetValue("PACK_CACHE", arch.levels.size() > 1 ? arch.memory_of(arch.levels[1]).name : "none");
    dict.SetValue("SOURCE_CACHE", arch.memory_of(arch.levels.back()).name);
    dict.SetValue("POOL_BYTES", std::to_string(level1_pool_bytes(arch)));
    for (const UkernelSpec& k : kernels) {
      auto* entry = dict.AddSectionDictionary("KERNEL");
      entry->SetValue("NAME", k.name());
      entry->SetValue("NS", kernel_namespace(k));
      entry->SetIntValue("MR", k.mr);
      entry->SetIntValue("NR", k.nr);
      entry->SetIntValue("KU", k.ku);
      entry->ShowSection(in.blocks.empty() ? "NO_PACKING" : "PACKING");
    }
    const std::string body = renderer.render("cpu/kit/profiler.cpp.tpl", dict);
    kit.files["src/profiler.cpp"] = header(KitComment::cpp, {"cpu/kit/profiler.cpp.tpl"}) + body;
  }
  kit.units.push_back({"src/profiler.cpp", {}});

  // Build files and documentation.
  ctemplate::TemplateDictionary dict("kit");
  dict.SetValue("ARCH_NAME", arch.name);
  dict.SetValue("ARCH_SHA256", arch.content_sha);
  dict.SetValue("OP_NAME", in.op_name);
  dict.SetValue("ARCH_FILE", display_path(in.arch_file.empty() ? arch.file : in.arch_file));
  dict.SetValue("OP_FILE", display_path(in.op_file.empty() ? in.op_name + ".yaml" : in.op_file));
  dict.SetValue("PACKAGE_DIR", fmt::format("strata_{}_{}", in.op_name, arch.name));
  dict.SetValue("ISA_NAME", isa_display_name(arch.isa.vector));
  dict.SetIntValue("KERNEL_COUNT", static_cast<long>(kernels.size()));
  dict.SetIntValue("UNIT_COUNT", static_cast<long>(kit.units.size() - 1));
  dict.SetIntValue("DEPTH", kKitDefaultDepth);
  dict.SetIntValue("ROUNDS", kKitDefaultRounds);
  // About 9 ms per kernel and round: a warm-up and three batches of 2 ms, plus calibration.
  dict.SetIntValue("SECONDS_ESTIMATE",
                   static_cast<long>(std::ceil(0.009 * static_cast<double>(kernels.size()) * kKitDefaultRounds)) + 1);
  dict.SetValue("BUILD_FLAGS", build_flags);
  std::vector<std::string> optimisation;
  for (const auto& f : kit_build_flags())
    if (f.rfind("-std=", 0) != 0) optimisation.push_back(f);  // CMake sets the standard itself
  dict.SetValue("OPT_FLAGS", join(optimisation, " "));
  dict.ShowSection(arch.target == Target::aarch64 ? "TARGET_AARCH64" : "TARGET_X86_64");
  for (size_t u = 0; u + 1 < kit.units.size(); ++u) {
    const KitUnit& unit = kit.units[u];
    auto* d = dict.AddSectionDictionary("UNIT");
    d->SetValue("FILE", unit.source);
    d->SetValue("OBJECT", std::filesystem::path(unit.source).stem().string() + ".o");
    d->SetValue("FLAGS", join(unit.flags, ";"));
    d->SetValue("FLAGS_SPACED", join(unit.flags, " "));
    if (!unit.flags.empty()) d->ShowSection("HAS_FLAGS");
  }
  const std::string cmake = renderer.render("cpu/kit/CMakeLists.txt.tpl", dict);
  kit.files["CMakeLists.txt"] = header(KitComment::hash, {"cpu/kit/CMakeLists.txt.tpl"}) + cmake;
  const std::string readme = renderer.render("cpu/kit/README.md.tpl", dict);
  kit.files["README.md"] = header(KitComment::markdown, {"cpu/kit/README.md.tpl"}) + readme;
  if (arch.target == Target::aarch64) {
    // The toolchain file packages ship for AArch64, so that a kit cross-builds exactly as its package does.
    ctemplate::TemplateDictionary tc("toolchain");
    tc.SetValue("PACKAGE", kPackage);
    const std::string body = renderer.render(kToolchainTemplate, tc);
    kit.files[kToolchainFile] = header(KitComment::hash, {kToolchainTemplate}) + body;
  }
  kit.files["manifest.yaml"] = header(KitComment::hash, {}) + kit_manifest(in, kernels, kit.units, members);
  return kit;
}

bool is_profile_kit(const std::string& dir) {
  std::ifstream in(std::filesystem::path(dir) / "manifest.yaml");
  std::string line;
  while (std::getline(in, line))
    if (line == kKitManifestMarker) return true;
  return false;
}

}  // namespace strata
