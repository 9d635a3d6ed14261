// Writes an emitted package atomically: every file goes into a temporary directory beside the target, which then
// replaces the target in one rename. A failed run leaves no half package behind, and an existing directory that
// is not a Strata package is never overwritten without --force.
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
