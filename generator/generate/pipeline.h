// The whole pipeline as a library: spec -> sieve -> analyze (level 0, and level 1 where the descriptor asks, from
// records given, reused or measured on this host, or the model) -> select -> the package's inputs. `strata generate`
// renders and writes what prepare_package() returns; `strata plan` asks its planner. The CLI only parses options.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "emit/package.h"
#include "profile/records.h"
#include "select/select.h"
#include "spec/arch.h"
#include "spec/op.h"

namespace strata {

struct GenerateRequest {
  std::string arch_path;
  std::string op_path;
  std::string output;   // where the package goes: records of an earlier package there may be reused (empty: none)
  std::string name;     // package name (empty: strata_<op>_<arch>)
  std::string profile;  // records to use (empty: profile here where the descriptor asks, or model)
  bool no_profile = false;
  bool may_profile = true;  // false: where the pipeline would measure on this host, it is an error instead
  std::string compiler = "c++";
  size_t max_kernels = 12;
  int jobs = 0;           // profiling's parallel compile jobs; 0: the host's hardware threads
  bool progress = false;  // profiling shows a progress line
  std::function<void(const std::string&)> note = [](const std::string&) {};  // one status line
};

// What the pipeline decided, owned: PackageInputs points into it.
struct PreparedPackage {
  Arch arch;
  Op op;
  SieveResult sieve;
  ProfileRecords records;
  bool have_records = false;
  Level1Profile level1;
  Selection selection;
  std::vector<UnitSelection> extra_units;  // a CUDA package's other units (generate/gpu_units.h)
  PackageInputs inputs;
};

// Runs the pipeline up to the package's inputs. Throws strata::Error on bad input (and, where request.may_profile is
// false, where it would profile).
std::unique_ptr<PreparedPackage> prepare_package(const GenerateRequest& request);

}  // namespace strata
