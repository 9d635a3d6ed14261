#include "emit/manifest.h"

#include <fmt/format.h>

#include "common/inert_text.h"
#include "emit/cpu_package.h"
#include "emit/package_writer.h"
#include "emit/provenance.h"
#include "strata_version.h"

namespace strata {
namespace {

int64_t footprint(const Op& op, const std::array<int64_t, kNumAxes>& t) {
  return t[0] * t[2] * op.a_bytes() + t[2] * t[1] * op.b_bytes() + t[0] * t[1] * op.c_bytes();
}

// Which constraint stopped the tile from growing: for each axis, whether doubling it would break Eq. 1.
std::string binding(const Arch& arch, const Op& op, size_t level, const Candidate& c) {
  if (level == 0)
    return fmt::format("register budget: {} of {} vector registers (accumulators, B vectors, A broadcast)",
                       c.registers, arch.isa.vector_registers);
  const LevelSpec& spec = arch.levels[level];
  const MemorySpec& m = arch.memory_of(spec);
  const int64_t capacity = m.capacity_bytes * std::max<int64_t>(1, spec.parallel_units / m.shared_by);
  std::string bound;
  for (int a = 0; a < kNumAxes; ++a) {
    auto doubled = c.tile;
    doubled[static_cast<size_t>(a)] *= 2;
    if (footprint(op, doubled) > capacity) bound += std::string(bound.empty() ? "" : ", ") + axis_name(a);
  }
  return fmt::format("Eq. 1: {} of {} bytes of {} ({:.0f}%); {}", c.footprint_bytes, capacity, m.name,
                     100.0 * static_cast<double>(c.footprint_bytes) / static_cast<double>(capacity),
                     bound.empty() ? "capacity does not bind, the model chose the size"
                                   : "doubling " + bound + " would exceed the capacity");
}

}  // namespace

std::string manifest_preamble(const std::string& name, const Arch& arch, const Op& op) {
  std::string y;
  y += std::string(kManifestMarker) + "\n";
  y += fmt::format("name: {}\n", name);
  // The version with the content hash (see stamp_package_version), as the header's <NAME>_VERSION_STRING.
  y += fmt::format("version: {}\n", yaml_quoted(fmt::format("{}+{}", STRATA_VERSION, kPackageHashPlaceholder)));
  y += fmt::format("generator: {}\n", yaml_quoted(std::string("strata ") + STRATA_VERSION));
  y += fmt::format("arch: {{name: {}, sha256: {}}}\n", arch.name, arch.content_sha);
  y += fmt::format("op: {{name: {}, sha256: {}}}\n", op.name, op.content_sha);
  return y;
}

std::string render_manifest(const ManifestInputs& in, const std::vector<double>& level0_seconds) {
  const Arch& arch = *in.arch;
  const Op& op = *in.op;
  std::string y = manifest_preamble(in.name, arch, op);
  y += fmt::format("target: {{arch: {}, vector: {}, vector_bits: {}}}\n", to_string(arch.target),
                   to_string(arch.isa.vector), arch.isa.vector_bits);
  y += "templates:\n";
  for (const auto& [name, sha] : *in.templates) y += fmt::format("  {}: {}\n", name, sha);
  y += "analyzer:\n";
  if (in.records)
    y += fmt::format("  level0: {}\n", yaml_quoted(fmt::format("profiled on {} with {} (profile_records.yaml)",
                                                               in.records->cpu, in.records->compiler)));
  else
    y += "  level0: \"modelled (Eq. 3): no profile records were used\"\n";
  if (in.level1_profiled)
    y += fmt::format("  level1: {}\n",
                     yaml_quoted(fmt::format("profiled: {} blocks of the level-0 pool's tiles, packing included "
                                             "(profile_records.yaml, level1)",
                                             in.records->level1.size())));
  else if (level1_profiling_asked(arch))
    y += "  level1: \"modelled (Eqs. 2-7): the descriptor asks for profiling, but no level-1 records were made\"\n";
  y += "  levels:\n";
  for (size_t i = 0; i < arch.levels.size(); ++i) {
    const auto& l = arch.levels[i];
    // What was done, which is what the descriptor asks unless profiling was impossible (see analyzer above).
    const bool profiled = i == 0 ? in.records != nullptr : i == 1 ? in.level1_profiled : false;
    y +=
        fmt::format("    - {{name: {}, memory: {}, parallel_units: {}, analyzer: {}}}\n", l.name, l.memory,
                    l.parallel_units, l.analyzer == Analyzer::profile && !profiled ? "model" : to_string(l.analyzer));
  }
  const Selection& sel = *in.selection;
  y += "selection:\n";
  y += "  grid: \"per axis 1, 2, 3, 4, 6, ... 8192 (powers of two and 1.5x powers of two); no user shapes\"\n";
  y += fmt::format("  grid_shapes: {}\n", sel.grid_shapes);
  y += fmt::format("  geomean_vs_unrestricted: {:.4f}\n", sel.geomean_vs_unrestricted);
  y += "  level0_pool:\n";
  for (int i : sel.level0_pool) {
    const auto& t = in.sieve->levels[0].candidates[static_cast<size_t>(i)].tile;
    y += fmt::format("    - [{}, {}, {}]\n", t[0], t[1], t[2]);
  }
  y += "kernels:\n";
  for (size_t id = 0; id < sel.kernels.size(); ++id) {
    const SelectedKernel& k = sel.kernels[id];
    y += fmt::format("  - id: {}\n", id);
    y += fmt::format("    shapes_won: {}\n", k.shapes_won);
    y += fmt::format("    example_shape: [{}, {}, {}]\n", k.example_shape[0], k.example_shape[1], k.example_shape[2]);
    const size_t l0 = static_cast<size_t>(k.chain[0]);
    if (l0 < level0_seconds.size() && level0_seconds[l0] > 0)
      y += fmt::format("    level0_seconds_per_tile: {}\n", level0_seconds[l0]);
    else
      y += "    level0_seconds_per_tile: modelled\n";
    if (in.level1_profiled)
      y += fmt::format("    level1_seconds: {{pack_a: {}, pack_b: {}, tiles: {}}}\n", k.tiling.l1.pack_a_s,
                       k.tiling.l1.pack_b_s, k.tiling.l1.tiles_s);
    y += "    tiles:\n";
    for (size_t l = 0; l < k.chain.size(); ++l) {
      const Candidate& c = in.sieve->levels[l].candidates[static_cast<size_t>(k.chain[l])];
      y += fmt::format("      - level: {}\n", arch.levels[l].name);
      y += fmt::format("        tile: [{}, {}, {}]\n", c.tile[0], c.tile[1], c.tile[2]);
      y += fmt::format("        binding: {}\n", yaml_quoted(binding(arch, op, l, c)));
    }
  }
  return y;
}

}  // namespace strata
