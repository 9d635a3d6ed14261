// The profile kit: a standalone, dependency-free C++17 package that times level-0 micro-kernels (and, when given
// level-1 blocks, those blocks with their packing) on whatever machine runs it and writes a strata-profile/1
// records file itself (DESIGN.md, analyze: "for a target that is
// not the host, the generator emits a small standalone profiler package").
//
// It is the only way Strata measures kernels. `strata profile-kit` writes it for the user to build with the
// target's toolchain and run on the device; profile_on_host (host_profiler.h) renders the very same files into
// a temporary directory, compiles them with the host compiler and the same flags, runs the profiler and loads the
// records it wrote. The kernel files come from templates/cpu/ukernel.cpp.tpl with its PROFILE_ENTRY section, so
// what is profiled is what a package ships, on the host and on a device alike.
//
// Layout:
//   manifest.yaml                 "strata_profile_kit: 1", what the kit profiles (arch, op, kernels)
//   README.md                     build (native, cross), run, feed back
//   CMakeLists.txt                builds strata_profile; the kernel files get their ISA flags
//   src/profiler.cpp              checks, times, writes the records (templates/cpu/kit/profiler.cpp.tpl)
//   src/kernels_<isa>_<n>.cpp     the micro-kernels, several per file, each in a namespace of its own
//   src/config.h, src/tile_args.h  TileArgs and the core, as in a package (templates/cpu/)
//   src/device_info.h, src/compiler_id.h   CPU and compiler identity (templates/cpu/kit/, shared with Strata)
//   cmake/aarch64-linux-gnu-clang.cmake    AArch64 targets: the cross toolchain file packages ship too
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "render/template_renderer.h"
#include "render/ukernel_dict.h"
#include "spec/arch.h"

namespace strata {

inline constexpr char kKitManifestMarker[] = "strata_profile_kit: 1";
inline constexpr char kKitBinary[] = "strata_profile";
inline constexpr char kKitRecordsFile[] = "profile_records.yaml";
inline constexpr int kKitDefaultDepth = 256;
inline constexpr int kKitDefaultRounds = 3;

enum class KitComment { cpp, hash, markdown };

// A level-1 tile to time: a cache block of one of the kit's kernels, in whole register tiles.
struct KitBlock {
  std::string kernel;  // UkernelSpec::name() of a kernel in KitInputs::kernels
  std::array<int64_t, 3> block{};
};

struct KitInputs {
  const Arch* arch = nullptr;
  std::string op_name;
  std::string arch_file;  // the descriptors as the user named them; the README shows relative paths, else file names
  std::string op_file;
  std::vector<UkernelSpec> kernels;  // unique names, one ISA family the target runs
  std::vector<KitBlock> blocks;      // level-1 tiles to time as well; empty: level 0 only
  // The header each file starts with, given its comment style and the templates it came from (path -> sha256);
  // null for none. `strata profile-kit` passes the provenance header packages carry.
  std::function<std::string(KitComment, const std::map<std::string, std::string>&)> header;
};

// One translation unit of the kit and the flags it needs beyond kKitBuildFlags.
struct KitUnit {
  std::string source;              // relative path
  std::vector<std::string> flags;  // the kernels' ISA flags; empty for the main
};

struct ProfileKit {
  std::map<std::string, std::string> files;  // relative path -> content
  std::vector<KitUnit> units;                // kernel files first, src/profiler.cpp last
};

// The flags every unit is compiled with (gcc/clang spelling), by the kit's CMakeLists.txt and by profile_on_host.
const std::vector<std::string>& kit_build_flags();

// Renders the kit. Throws strata::Error({"<profile-kit>", 0, 0}, ...) for kernels it cannot profile (duplicate
// names, tiles that are not whole vectors, ISAs other than AVX-512, AVX2 and NEON), for blocks that are not whole
// register tiles of a listed kernel, and when a template fails.
ProfileKit render_profile_kit(const KitInputs& in, TemplateRenderer& renderer);

// Whether `dir` holds a kit (its manifest.yaml has the marker line): `strata profile-kit` replaces only those.
bool is_profile_kit(const std::string& dir);

}  // namespace strata
