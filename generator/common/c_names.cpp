#include "common/c_names.h"

#include <algorithm>
#include <set>

namespace strata {
namespace {

bool is_identifier(const std::string& s) {
  const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  return !s.empty() && alpha(s[0]) &&
         std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

// C17 and C++20 keywords, C++'s alternative tokens, and the identifiers with special meaning to both
// (the keywords C23 adds are among C++'s).
const std::set<std::string>& keywords() {
  static const std::set<std::string> words = {"alignas",     "alignof",
                                              "and",         "and_eq",
                                              "asm",         "auto",
                                              "bitand",      "bitor",
                                              "bool",        "break",
                                              "case",        "catch",
                                              "char",        "char8_t",
                                              "char16_t",    "char32_t",
                                              "class",       "compl",
                                              "concept",     "const",
                                              "consteval",   "constexpr",
                                              "constinit",   "const_cast",
                                              "continue",    "co_await",
                                              "co_return",   "co_yield",
                                              "decltype",    "default",
                                              "delete",      "do",
                                              "double",      "dynamic_cast",
                                              "else",        "enum",
                                              "explicit",    "export",
                                              "extern",      "false",
                                              "final",       "float",
                                              "for",         "friend",
                                              "goto",        "if",
                                              "import",      "inline",
                                              "int",         "long",
                                              "main",        "module",
                                              "mutable",     "namespace",
                                              "new",         "noexcept",
                                              "not",         "not_eq",
                                              "nullptr",     "operator",
                                              "or",          "or_eq",
                                              "override",    "private",
                                              "protected",   "public",
                                              "register",    "reinterpret_cast",
                                              "requires",    "restrict",
                                              "return",      "short",
                                              "signed",      "sizeof",
                                              "static",      "static_assert",
                                              "static_cast", "struct",
                                              "switch",      "template",
                                              "this",        "thread_local",
                                              "throw",       "true",
                                              "try",         "typedef",
                                              "typeid",      "typename",
                                              "typeof",      "typeof_unqual",
                                              "union",       "unsigned",
                                              "using",       "virtual",
                                              "void",        "volatile",
                                              "wchar_t",     "while",
                                              "xor",         "xor_eq"};
  return words;
}

}  // namespace

std::string name_part_problem(const std::string& name) {
  if (!is_identifier(name)) return "is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (name.front() == '_') return "starts with an underscore, which C and C++ reserve at file scope";
  if (name.find("__") != std::string::npos) return "holds a double underscore, which C++ reserves";
  if (name.back() == '_')
    return "ends with an underscore, so the package's names (NAME_status) would hold a double "
           "underscore, which C++ reserves";
  return "";
}

std::string package_name_problem(const std::string& name) {
  if (std::string part = name_part_problem(name); !part.empty()) return part;
  if (keywords().count(name)) return "is a C or C++ keyword (or main), which cannot name the package's C function";
  return "";
}

}  // namespace strata
