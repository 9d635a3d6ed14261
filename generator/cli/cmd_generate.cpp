// strata generate --arch A --op O -o DIR [--name N] [--profile FILE | --no-profile] [--force] [--jobs N]: the whole
// pipeline (generate/pipeline.h), then the package rendered and written.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/spec_options.h"
#include "common/inert_text.h"
#include "emit/package.h"
#include "emit/package_writer.h"
#include "generate/pipeline.h"

namespace strata::cli {
namespace {

struct GenerateOptions {
  SpecPaths paths;
  std::string output;
  std::string name;
  std::string profile;
  bool no_profile = false;
  bool force = false;
  std::string compiler = "c++";
  size_t max_kernels = 12;
  int jobs = 0;  // profiling's parallel compile jobs; 0: the host's hardware threads
};

void note(const std::string& message) { std::fprintf(stderr, "strata: %s\n", printable_line(message).c_str()); }

int run_generate(const GenerateOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  GenerateRequest request;
  request.arch_path = o.paths.arch;
  request.op_path = o.paths.op;
  request.output = o.output;
  request.name = o.name;
  request.profile = o.profile;
  request.no_profile = o.no_profile;
  request.compiler = o.compiler;
  request.max_kernels = o.max_kernels;
  request.jobs = o.jobs;
  request.progress = isatty(2);
  request.note = note;
  const std::unique_ptr<PreparedPackage> prepared = prepare_package(request);
  TemplateRenderer renderer(default_templates_dir());
  const auto files = render_package(prepared->inputs, renderer);
  write_package(o.output, files, o.force);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  note(fmt::format("wrote {} ({} files, {} kernels) in {:.1f} s", o.output, files.size(), package_kernel_count(files),
                   seconds));
  return 0;
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Generate a kernel source package for an architecture and operator");
  auto o = std::make_shared<GenerateOptions>();
  add_spec_options(*cmd, o->paths);
  cmd->add_option("-o,--output", o->output, "package directory to write")->required();
  cmd->add_option("--name", o->name, "package and C API name (default strata_<op>_<arch>)");
  auto* profile = cmd->add_option("--profile", o->profile, "use level-0 profile records from FILE (made elsewhere)");
  cmd->add_flag("--no-profile", o->no_profile, "do not profile: model level 0 (Eq. 3)")->excludes(profile);
  cmd->add_flag("--force", o->force, "replace an existing directory even if it is not a Strata package");
  cmd->add_option("--compiler", o->compiler, "host compiler used for profiling (default c++)");
  cmd->add_option("--max-kernels", o->max_kernels, "most kernels the package may hold")->check(CLI::Range(1, 64));
  cmd->add_option("--jobs", o->jobs, "compile jobs while profiling (default: the host's hardware threads)")
      ->check(CLI::Range(1, 1024));
  return {cmd, [o]() { return run_generate(*o); }};
}

}  // namespace strata::cli
