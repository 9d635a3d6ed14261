#include "emit/package_writer.h"

#include <unistd.h>

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
      fs::rename(target, old);
      fs::rename(temp, target);
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
