// manifest.yaml: every kernel of a package with its tile hierarchy, what bound each tile, the profile data used,
// the input hashes and the generator version. The first line after the provenance header, "strata_package: 1",
// marks a directory as a Strata package (see package_writer.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "profile/records.h"
#include "select/select.h"

namespace strata {

struct ManifestInputs {
  const Arch* arch;
  const Op* op;
  const SieveResult* sieve;
  const Selection* selection;
  const ProfileRecords* records;  // null when level 0 is modelled
  std::string name;
  const std::map<std::string, std::string>* templates;  // template -> sha256
  bool level1_profiled = false;                         // level 1 measured (records->level1), not modelled
};

std::string render_manifest(const ManifestInputs& in, const std::vector<double>& level0_seconds);

// The lines every manifest starts with: the package marker, the name, the generator version and the input hashes.
std::string manifest_preamble(const std::string& name, const Arch& arch, const Op& op);

}  // namespace strata
