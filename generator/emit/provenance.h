// The provenance header every emitted file starts with (DESIGN.md): generator version, the command line (paths
// relative to the working directory), and the sha256 of every input. No dates, host names or absolute paths.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace strata {

enum class CommentStyle { cpp, hash, markdown };

struct Provenance {
  std::string command;                        // e.g. "strata generate --arch archs/x.yaml ..."
  std::map<std::string, std::string> inputs;  // label (e.g. "arch archs/x.yaml") -> sha256
};

// The header as comment lines in `style`, followed by any extra lines (already without comment markers) and a
// blank line; each line's text is made inert for the style (common/inert_text.h). Templates used are listed only if
// `templates` is non-empty (per-file: the templates it came from).
std::string provenance_header(const Provenance& p, CommentStyle style,
                              const std::map<std::string, std::string>& templates,
                              const std::vector<std::string>& extra_lines = {});

// Makes the command line reproducible: each argument that names an existing path is rewritten relative to the
// current directory.
std::string portable_command_line(const std::vector<std::string>& args);

}  // namespace strata
