// Writes an emitted package atomically: every file goes into a temporary directory beside the target, which then
// replaces the target in one rename (an exchange where a package is already there). A failed or killed run leaves
// the old package or the new one, never half of one; the temporaries of a killed run are removed by the next run
// beside it. An existing directory that is not a Strata package is never overwritten without --force.
#pragma once

#include <map>
#include <string>

namespace strata {

// The file a Strata package always has; its first lines identify it.
inline constexpr char kManifestFile[] = "manifest.yaml";
inline constexpr char kManifestMarker[] = "strata_package: 1";

bool is_strata_package(const std::string& dir);

// files: relative path -> content. Throws strata::Error naming out_dir on any failure.
void write_package(const std::string& out_dir, const std::map<std::string, std::string>& files, bool force);

}  // namespace strata
