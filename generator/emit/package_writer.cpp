#include "emit/package_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace strata {
namespace fs = std::filesystem;

bool is_strata_package(const std::string& dir) {
  std::ifstream in(fs::path(dir) / kManifestFile);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line))
    if (line == kManifestMarker) return true;
  return false;
}

namespace {

// Temporaries of runs that were killed before they could remove them: ".<name>.strata-tmp-<pid>[-old]" beside the
// package, whose process no longer exists. Every run removes them, so a kill leaves nothing behind for long.
void remove_stale_temporaries(const fs::path& parent, const std::string& name) {
  const std::string prefix = "." + name + ".strata-tmp-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = file.substr(prefix.size(), file.find('-', prefix.size()) - prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

// Puts `temp` in place of an existing `target` in one step where the file system can (renameat2 exchanges the two
// names atomically: a kill at any moment leaves the old package or the new one at `target`), else in two renames.
// `old` receives the previous package either way, for the caller to remove.
void replace_directory(const fs::path& temp, const fs::path& target, const fs::path& old) {
  if (renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    fs::rename(temp, old);
    return;
  }
  fs::rename(target, old);
  fs::rename(temp, target);
}

}  // namespace

void write_package(const std::string& out_dir, const std::map<std::string, std::string>& files, bool force) {
  // Absolute, so that an output directory named from inside itself ("-o .." run in a package's inputs/, as its
  // provenance header says) still has its temporary directory beside it, not within it.
  std::error_code ec;
  fs::path target = fs::absolute(out_dir, ec).lexically_normal();
  if (ec) throw Error({out_dir, 0, 0}, "cannot resolve the output directory: " + ec.message());
  if (!target.has_filename()) target = target.parent_path();
  const bool exists = fs::exists(target, ec);
  if (exists && !fs::is_directory(target, ec))
    throw Error({out_dir, 0, 0}, "exists and is not a directory; refusing to replace it");
  if (exists && !force && !fs::is_empty(target, ec) && !is_strata_package(target.string()))
    throw Error({out_dir, 0, 0},
                "exists and is not a Strata package (no manifest.yaml from Strata); use --force to "
                "replace it");
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) throw Error({out_dir, 0, 0}, "cannot create parent directory: " + ec.message());
  const std::string stem = "." + target.filename().string() + ".strata-tmp-" + std::to_string(getpid());
  const fs::path temp = parent / stem;
  const fs::path old = parent / (stem + "-old");
  remove_stale_temporaries(parent, target.filename().string());
  fs::remove_all(temp, ec);
  try {
    for (const auto& [relative, content] : files) {
      const fs::path path = temp / relative;
      fs::create_directories(path.parent_path());
      std::ofstream out(path, std::ios::binary);
      out << content;
      out.close();
      if (!out) throw Error({out_dir, 0, 0}, "cannot write " + relative);
    }
    if (exists) {
      replace_directory(temp, target, old);
      fs::remove_all(old);
    } else {
      fs::rename(temp, target);
    }
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(temp, ec);
    if (exists && !fs::exists(target, ec) && fs::exists(old, ec)) fs::rename(old, target, ec);
    throw Error({out_dir, 0, 0}, std::string("cannot write package: ") + e.code().message());
  } catch (...) {
    fs::remove_all(temp, ec);
    throw;
  }
}

}  // namespace strata
