// The provenance header every emitted file starts with (DESIGN.md): the licence of the generated text, the generator
// version, the command line (paths relative to the directory it runs in), and the sha256 of every input. No dates,
// host names or absolute paths.
#pragma once

#include <ctemplate/template.h>

#include <map>
#include <string>
#include <vector>

namespace strata {

enum class CommentStyle { cpp, hash, markdown };

// What every generated file is licensed under (templates/LICENSE.generated, README "Licence"): MIT No Attribution,
// so that a closed codebase can vendor a package without carrying a notice.
inline constexpr char kGeneratedLicense[] = "MIT-0";

struct Provenance {
  std::string command;                        // e.g. "strata generate --arch archs/x.yaml ..."
  std::string command_dir;                    // where the command runs, e.g. "inputs/"; empty: anywhere
  std::map<std::string, std::string> inputs;  // label (e.g. "arch archs/x.yaml") -> sha256
};

// The line that names the command: "Command: ..." or "Command (run in inputs/): ...".
std::string command_line_text(const Provenance& p);

// The header as comment lines in `style`, followed by any extra lines (already without comment markers) and a
// blank line; each line's text is made inert for the style (common/inert_text.h). Templates used are listed only if
// `templates` is non-empty (per-file: the templates it came from).
std::string provenance_header(const Provenance& p, CommentStyle style,
                              const std::map<std::string, std::string>& templates,
                              const std::vector<std::string>& extra_lines = {});

// The package's identity. Its version is the generator's with a hash of the package's own files as build metadata
// ("0.1.0+1a2b3c4d5e6f"): the templates write kPackageHashPlaceholder where the hash goes, and stamp_package_version
// replaces it once every file is rendered, hashing the files as rendered (placeholder included), so that the hash
// covers the kernel set, the templates and the inputs without depending on itself.
inline constexpr char kPackageHashPlaceholder[] = "@STRATA_PACKAGE_HASH@";
inline constexpr size_t kPackageHashDigits = 12;

// Sets PACKAGE_VERSION (numeric, the generator's), PACKAGE_VERSION_MAJOR/MINOR/PATCH, PACKAGE_VERSION_STRING (with
// the hash), PACKAGE_HASH, and PROVENANCE_STRING (the provenance as C string literals, for the run-time call).
void fill_package_identity(const Provenance& p, ctemplate::TemplateDictionary* d);

// Replaces kPackageHashPlaceholder in every file with the package's hash.
void stamp_package_version(std::map<std::string, std::string>* files);

// Makes the command line reproducible: each argument that names an existing path is rewritten relative to the
// current directory.
std::string portable_command_line(const std::vector<std::string>& args);

}  // namespace strata
