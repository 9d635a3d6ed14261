// Renders templates/ files with ctemplate and remembers the sha256 of every template it used, for the provenance
// headers of the emitted files.
#pragma once

#include <ctemplate/template.h>

#include <map>
#include <string>

namespace strata {

class TemplateRenderer {
 public:
  // `root` is the templates/ directory (see default_templates_dir()).
  explicit TemplateRenderer(std::string root);

  // Renders root/relative with `dict`. Throws strata::Error naming the template if it is missing or malformed.
  std::string render(const std::string& relative, const ctemplate::TemplateDictionary& dict);

  // sha256 of every template rendered so far, keyed by path relative to the root (sorted).
  const std::map<std::string, std::string>& used() const { return used_; }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
  std::map<std::string, std::string> used_;
  std::map<std::string, std::string> content_;
};

// templates/ next to the installed binary (../share/strata/templates) if present, else the source tree's.
std::string default_templates_dir();

}  // namespace strata
