// strata verify: builds a generated package with every compiler its target allows (targets.h), warnings as
// errors, and runs its self-test, natively or under an emulator (DESIGN.md, pipeline stage 6).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "verify/targets.h"

namespace strata {

struct VerifyOptions {
  std::string build_dir;          // kept, one subdirectory per configuration; empty: a temporary one, removed
  std::vector<std::string> only;  // configuration labels to run; empty: all of the target's
  int jobs = 0;                   // parallel build jobs; 0: the host's hardware threads
  bool run_selftest = true;       // false: build only (the report says the self-test did not run)
  bool quick_selftest = false;    // pass --quick to the self-test (fewer shapes; for slow emulators)
};

struct ConfigResult {
  std::string label;
  std::string compiler;  // first line of its --version, or the command when that fails
  bool passed = false;
  std::string summary;  // one line: what passed, or where it failed
  std::string detail;   // failures: the failing command and the first lines of its error output
};

struct VerifyReport {
  PackageInfo package;
  std::vector<ConfigResult> results;  // in the target's order
  bool passed() const;
};

// Reads `dir`/manifest.yaml (throws strata::Error naming it when the directory is not a Strata package, names no
// target verify knows, or when `options.only` names a configuration the target lacks). Then configures, builds
// and self-tests each configuration in turn, calling `on_result` after each; failures are reported in the
// results, not thrown.
VerifyReport verify_package(const std::string& dir, const VerifyOptions& options,
                            const std::function<void(const PackageInfo&, const std::vector<BuildConfig>&)>& on_start,
                            const std::function<void(const ConfigResult&)>& on_result);

// The package facts verify reads from `dir`/manifest.yaml.
PackageInfo read_package_info(const std::string& dir);

}  // namespace strata
