// strata profile-kit --arch A --op O -o DIR [--force]: writes the standalone profiler package (profile/profile_kit.h)
// for the level-0 micro-kernels of an arch and operator, to be built with the target's toolchain and run on the
// device; its records file goes back into `strata generate --profile FILE`.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/spec_options.h"
#include "common/inert_text.h"
#include "emit/package.h"
#include "emit/package_writer.h"
#include "emit/provenance.h"
#include "profile/profile_kit.h"
#include "sieve/sieve.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"

namespace strata::cli {
namespace {

struct ProfileKitOptions {
  SpecPaths paths;
  std::string output;
  bool force = false;
};

CommentStyle comment_style(KitComment c) {
  switch (c) {
    case KitComment::cpp: return CommentStyle::cpp;
    case KitComment::hash: return CommentStyle::hash;
    case KitComment::markdown: return CommentStyle::markdown;
  }
  return CommentStyle::hash;
}

int run_profile_kit(const ProfileKitOptions& o, const std::vector<std::string>& argv) {
  const Arch arch = load_arch(o.paths.arch);
  const Op op = load_op(o.paths.op);
  // A kit measures the kernels a package would ship, so it exists only where a package backend does.
  check_package_support(arch, op);
  if (arch.levels[0].analyzer != Analyzer::profile)
    throw Error({arch.file, 0, 0},
                fmt::format("level 0 ('{}') of '{}' is modelled (analyzer: {}), so there is nothing to profile",
                            arch.levels[0].name, arch.name, to_string(arch.levels[0].analyzer)));
  if (is_strata_package(o.output) && !o.force)
    throw Error({o.output, 0, 0}, "is a Strata package, not a profile kit; write the kit elsewhere or use --force");
  const SieveResult sieve = run_sieve(arch, op).at(0);
  require_candidates(sieve, arch);

  KitInputs in;
  in.arch = &arch;
  in.op_name = op.name;
  in.arch_file = o.paths.arch;
  in.op_file = o.paths.op;
  for (const auto& c : sieve.levels[0].candidates) in.kernels.push_back(ukernel_for(arch, op, c));
  Provenance provenance;
  provenance.command = portable_command_line(argv);
  provenance.inputs["arch " + arch.name] = arch.content_sha;
  provenance.inputs["op " + op.name] = op.content_sha;
  in.header = [&](KitComment style, const std::map<std::string, std::string>& templates) {
    return provenance_header(provenance, comment_style(style), templates);
  };
  TemplateRenderer renderer(default_templates_dir());
  const ProfileKit kit = render_profile_kit(in, renderer);
  write_package(o.output, kit.files, o.force || is_profile_kit(o.output));
  std::fprintf(stderr,
               "strata: wrote %s: a profile kit for %zu %s micro-kernels of %s (%s); build it for the device, run "
               "%s there and pass its %s to strata generate --profile (see %s/README.md)\n",
               printable_line(o.output).c_str(), in.kernels.size(), isa_display_name(arch.isa.vector),
               arch.name.c_str(), op.name.c_str(), kKitBinary, kKitRecordsFile, printable_line(o.output).c_str());
  return 0;
}

}  // namespace

Command add_profile_kit_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "profile-kit", "Write a standalone profiler package that measures the level-0 kernels on a target device");
  auto o = std::make_shared<ProfileKitOptions>();
  add_spec_options(*cmd, o->paths);
  cmd->add_option("-o,--output", o->output, "kit directory to write")->required();
  cmd->add_flag("--force", o->force, "replace an existing directory even if it is not a profile kit");
  return {cmd, [o]() { return run_profile_kit(*o, command_args()); }};
}

}  // namespace strata::cli
