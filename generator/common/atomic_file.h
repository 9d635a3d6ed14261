// Writing outputs so that a failed run leaves nothing half-written: content goes to a temporary file beside
// the target, which is then renamed over it (rename is atomic within a file system).
#pragma once

#include <string>

namespace strata {

// Throws strata::Error naming `path` if the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace strata
