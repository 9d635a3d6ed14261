#include "render/template_renderer.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/sha256.h"
#include "strata_version.h"

namespace strata {

TemplateRenderer::TemplateRenderer(std::string root) : root_(std::move(root)) {}

std::string TemplateRenderer::render(const std::string& relative, const ctemplate::TemplateDictionary& dict) {
  const std::string path = root_ + "/" + relative;
  auto cached = content_.find(relative);
  if (cached == content_.end()) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error({path, 0, 0}, "cannot open template");
    std::stringstream buffer;
    buffer << in.rdbuf();
    cached = content_.emplace(relative, buffer.str()).first;
    used_[relative] = sha256_hex(cached->second);
    // The cache key is the relative path: one renderer per generation, so keys never collide across roots.
    ctemplate::StringToTemplateCache(relative, cached->second, ctemplate::DO_NOT_STRIP);
  }
  std::string out;
  if (!ctemplate::ExpandTemplate(relative, ctemplate::DO_NOT_STRIP, &dict, &out))
    throw Error({path, 0, 0}, "template failed to parse or expand (ctemplate syntax error)");
  return out;
}

std::string default_templates_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "strata" / "templates";
    if (fs::exists(installed / "cost_model.h")) return installed.string();
  }
  return std::string(STRATA_SOURCE_DIR) + "/templates";
}

}  // namespace strata
