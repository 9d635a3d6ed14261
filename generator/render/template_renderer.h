// Renders templates/ files with ctemplate and remembers the sha256 of every template it used, for the provenance
// headers of the emitted files.
//
// Free text (the variables in kFreeTextVariables) is written through a modifier of the template's syntax, which
// common/inert_text.h implements: {{X:x-c-comment}} in C, C++ and CUDA files, {{X:x-hash-comment}} in CMake files,
// {{X:x-markdown}} in Markdown, {{X:x-yaml}} in YAML. A template that writes free text any other way is refused
// when it is loaded, so no template can paste a spec's words into a package unescaped.
#pragma once

#include <ctemplate/template.h>

#include <map>
#include <set>
#include <string>

namespace strata {

class TemplateRenderer {
 public:
  // `root` is the templates/ directory (see default_templates_dir()).
  explicit TemplateRenderer(std::string root);

  // Renders root/relative with `dict`. Throws strata::Error naming the template if it is missing or malformed.
  std::string render(const std::string& relative, const ctemplate::TemplateDictionary& dict);

  // The text of root/relative, unexpanded: a fixed source copied into packages as it is (ctemplate would take any
  // pair of opening braces in it for a marker). Recorded in used() like a rendered template.
  std::string verbatim(const std::string& relative);

  // sha256 of every template rendered so far, keyed by path relative to the root (sorted).
  const std::map<std::string, std::string>& used() const { return used_; }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
  std::map<std::string, std::string> used_;
  std::map<std::string, std::string> content_;
};

// The dictionary variables whose values come from free text: a spec's description, a records file's names.
extern const std::set<std::string> kFreeTextVariables;

// The modifier free text must carry in the template at `relative` (by its file name), e.g. "x-c-comment".
std::string free_text_modifier(const std::string& relative);

// templates/ next to the installed binary (../share/strata/templates) if present, else the source tree's.
std::string default_templates_dir();

}  // namespace strata
