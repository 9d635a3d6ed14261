// strata plan --arch A --op O (--profile FILE | --no-profile) [--max-kernels N] [--threads T,...]
// [--layouts NN,NT,TN,TT] [--shapes FILE] [M,N,K ...]: the plan a CPU package generated from the same inputs chooses
// for each shape (kernel, path, thread blocks, threads and the model's estimate), from the generator's copy of the
// package's planner. A package's _plan() answers the same (tests/test_plan_agreement.cpp).
#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/spec_options.h"
#include "common/error.h"
#include "common/inert_text.h"
#include "emit/cpu_package.h"
#include "generate/pipeline.h"
#include "plan/cpu_planner.h"

namespace strata::cli {
namespace {

struct PlanOptions {
  SpecPaths paths;
  std::string profile;
  bool no_profile = false;
  size_t max_kernels = 12;
  std::vector<int32_t> threads{1};
  std::vector<std::string> layouts{"NN"};
  std::string shapes_file;
  std::vector<std::string> shapes;
};

// The shapes named on the command line, then those of the file, one "M,N,K" per line ('#' starts a comment).
std::vector<std::array<int64_t, kNumAxes>> read_shapes(const PlanOptions& o) {
  std::vector<std::array<int64_t, kNumAxes>> shapes;
  for (const std::string& text : o.shapes) shapes.push_back(parse_shape(text));
  if (o.shapes_file.empty()) return shapes;
  std::ifstream in(o.shapes_file);
  if (!in) throw Error({o.shapes_file, 0, 0}, "cannot read the shapes file");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = line.substr(0, line.find('#'));
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      shapes.push_back(parse_shape(text.substr(text.find_first_not_of(" \t"))));
    } catch (const Error&) {
      throw Error({o.shapes_file, number, 1},
                  fmt::format("expected M,N,K (non-negative integers), found '{}'", printable_line(text)));
    }
  }
  return shapes;
}

int run_plan(const PlanOptions& o) {
  GenerateRequest request;
  request.arch_path = o.paths.arch;
  request.op_path = o.paths.op;
  request.profile = o.profile;
  request.no_profile = o.no_profile;
  request.max_kernels = o.max_kernels;
  request.may_profile = false;
  const std::unique_ptr<PreparedPackage> prepared = prepare_package(request);
  if (prepared->arch.is_gpu())
    throw Error({o.paths.arch, 0, 0}, "strata plan answers for CPU packages; this architecture is a GPU");
  const std::vector<std::array<int64_t, kNumAxes>> shapes = read_shapes(o);
  const CpuPlanner planner(cpu_plan_config(prepared->inputs));
  fmt::print("M,N,K,layout,max_threads,kernel,name,packed,row_shares,threads,seconds\n");
  for (const std::string& layout : o.layouts)
    for (int32_t threads : o.threads)
      for (const auto& s : shapes) {
        const int32_t bits = (layout[0] == 'T' ? kCpuTransA : 0) | (layout[1] == 'T' ? kCpuTransB : 0);
        const CpuPlan p = planner.plan(s[0], s[1], s[2], threads, -1, bits);
        fmt::print("{},{},{},{},{},{},{},{},{},{},{}\n", s[0], s[1], s[2], layout, threads, p.kernel,
                   planner.config().kernels[static_cast<size_t>(p.kernel)].name, p.packed ? 1 : 0, p.row_shares,
                   p.threads, p.seconds);
      }
  return 0;
}

}  // namespace

Command add_plan_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plan", "Show the plans a CPU package from these inputs chooses per shape");
  auto o = std::make_shared<PlanOptions>();
  add_spec_options(*cmd, o->paths);
  auto* profile = cmd->add_option("--profile", o->profile, "the profile records the package was generated with");
  cmd->add_flag("--no-profile", o->no_profile, "the package was generated with --no-profile")->excludes(profile);
  cmd->add_option("--max-kernels", o->max_kernels, "as the package was generated with")->check(CLI::Range(1, 64));
  cmd->add_option("--threads", o->threads, "most threads per call, one or more (default 1)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Range(1, 256));
  cmd->add_option("--layouts", o->layouts, "A's and B's transposes, one or more of NN, NT, TN, TT (default NN)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember({"NN", "NT", "TN", "TT"}));
  cmd->add_option("--shapes", o->shapes_file, "a file of shapes, one M,N,K per line");
  cmd->add_option("shapes", o->shapes, "shapes M,N,K");
  return {cmd, [o]() { return run_plan(*o); }};
}

}  // namespace strata::cli
