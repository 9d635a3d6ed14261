#include "render/template_renderer.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/error.h"
#include "common/inert_text.h"
#include "common/sha256.h"
#include "strata_version.h"

namespace strata {
namespace {

// A ctemplate modifier running one of common/inert_text.h's functions.
class InertTextModifier : public ctemplate::TemplateModifier {
 public:
  explicit InertTextModifier(std::string (*escape)(std::string_view)) : escape_(escape) {}
  void Modify(const char* in, size_t inlen, const ctemplate::PerExpandData*, ctemplate::ExpandEmitter* outbuf,
              const std::string&) const override {
    outbuf->Emit(escape_(std::string_view(in, inlen)));
  }

 private:
  std::string (*escape_)(std::string_view);
};

std::string yaml_scalar(std::string_view text) { return yaml_quoted(text); }

void register_modifiers() {
  static const bool registered = [] {
    static const InertTextModifier c_comment(&c_comment_text), hash_comment(&hash_comment_text),
        markdown(&markdown_text), yaml(&yaml_scalar);
    return ctemplate::AddModifier("x-c-comment", &c_comment) &&
           ctemplate::AddModifier("x-hash-comment", &hash_comment) &&
           ctemplate::AddModifier("x-markdown", &markdown) && ctemplate::AddModifier("x-yaml", &yaml);
  }();
  if (!registered) throw Error({}, "internal error: the free-text template modifiers could not be registered");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Refuses a template that writes a free-text variable without its syntax's modifier.
void check_free_text(const std::string& path, const std::string& relative, const std::string& text) {
  static const std::regex marker(R"(\{\{\s*([A-Za-z_][A-Za-z0-9_]*)((:[^}]*)?)\}\})");
  const std::string expected = ":" + free_text_modifier(relative);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), marker); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (!kFreeTextVariables.count(m[1].str()) || m[2].str() == expected) continue;
    const auto offset = static_cast<size_t>(m.position(0));
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
    const size_t line_start = text.rfind('\n', offset);
    const int column = static_cast<int>(offset - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
    throw Error(
        {path, line, column},
        fmt::format("free text {} is written without the {} modifier, which escapes it for this file's syntax",
                    m[1].str(), expected.substr(1)));
  }
}

}  // namespace

const std::set<std::string> kFreeTextVariables = {"ARCH_DESCRIPTION", "OP_DESCRIPTION"};

std::string free_text_modifier(const std::string& relative) {
  const std::string name = std::filesystem::path(relative).filename().string();
  if (ends_with(name, ".md.tpl")) return "x-markdown";
  if (ends_with(name, ".yaml.tpl")) return "x-yaml";
  if (name == "CMakeLists.txt.tpl" || ends_with(name, ".cmake.tpl")) return "x-hash-comment";
  return "x-c-comment";
}

TemplateRenderer::TemplateRenderer(std::string root) : root_(std::move(root)) { register_modifiers(); }

std::string TemplateRenderer::render(const std::string& relative, const ctemplate::TemplateDictionary& dict) {
  const std::string path = root_ + "/" + relative;
  auto cached = content_.find(relative);
  if (cached == content_.end()) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error({path, 0, 0}, "cannot open template");
    std::stringstream buffer;
    buffer << in.rdbuf();
    check_free_text(path, relative, buffer.str());
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

std::string TemplateRenderer::verbatim(const std::string& relative) {
  const std::string path = root_ + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error({path, 0, 0}, "cannot open template");
  std::stringstream buffer;
  buffer << in.rdbuf();
  used_[relative] = sha256_hex(buffer.str());
  return buffer.str();
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
