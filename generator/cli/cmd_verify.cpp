// strata verify DIR [--build-dir DIR] [--only LABEL]... [--jobs N] [--no-run] [--quick]: builds a generated
// package with every compiler its target allows, warnings as errors, and runs its self-test (generator/verify).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cli/commands.h"
#include "common/error.h"
#include "verify/verify.h"

namespace strata::cli {
namespace {

struct VerifyCommandOptions {
  std::string package;
  VerifyOptions verify;
};

int run_verify(const VerifyCommandOptions& o) {
  size_t width = 0;
  const VerifyReport report = verify_package(
      o.package, o.verify,
      [&](const PackageInfo& package, const std::vector<BuildConfig>& configs) {
        for (const auto& c : configs) width = std::max(width, c.label.size());
        std::printf("verify %s: %s (target %s%s%s), %zu configuration%s\n", o.package.c_str(), package.name.c_str(),
                    package.target.c_str(), package.vector.empty() ? "" : ", ", package.vector.c_str(),
                    configs.size(), configs.size() == 1 ? "" : "s");
        std::fflush(stdout);
      },
      [&](const ConfigResult& r) {
        std::printf("  %-*s %s  %s [%s]\n", static_cast<int>(width), r.label.c_str(), r.passed ? "ok  " : "FAIL",
                    r.summary.c_str(), r.compiler.empty() ? "-" : r.compiler.c_str());
        std::fflush(stdout);
      });
  size_t passed = 0;
  const ConfigResult* first_failure = nullptr;
  for (const auto& r : report.results) {
    if (r.passed) ++passed;
    if (!r.passed && !first_failure) first_failure = &r;
  }
  if (first_failure)
    throw Error({o.package, 0, 0},
                fmt::format("verification failed: {} of {} configurations passed; {} ({}): {}\n{}", passed,
                            report.results.size(), first_failure->label,
                            first_failure->compiler.empty() ? "compiler not run" : first_failure->compiler,
                            first_failure->summary, first_failure->detail));
  std::printf("verify: %zu of %zu configurations passed\n", passed, report.results.size());
  return 0;
}

}  // namespace

Command add_verify_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "verify", "Build a generated package with every compiler its target allows (-Werror) and run its self-test");
  auto o = std::make_shared<VerifyCommandOptions>();
  cmd->add_option("package", o->package, "package directory (written by strata generate)")->required();
  cmd->add_option("--build-dir", o->verify.build_dir,
                  "build here, one subdirectory per configuration, and keep it (default: a temporary directory)");
  cmd->add_option("--only", o->verify.only, "run only this configuration (gcc, clang, clang-aarch64); repeatable")
      ->allow_extra_args(false);  // one label per --only, so that `--only gcc DIR` still reads DIR as the package
  cmd->add_option("--jobs", o->verify.jobs, "parallel build jobs (default: the host's hardware threads)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag(
      "--no-run", [o](int64_t) { o->verify.run_selftest = false; }, "build only; do not run the self-test");
  cmd->add_flag("--quick", o->verify.quick_selftest, "run the self-test with --quick (fewer shapes)");
  return {cmd, [o]() { return run_verify(*o); }};
}

}  // namespace strata::cli
