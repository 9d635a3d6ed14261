// Names that become identifiers in emitted C and C++ code: a package's name is its C API's function name and the
// prefix of every other symbol, type and macro it declares, so it must be an identifier no C or C++ compiler
// reserves or reads as a keyword, and stay one when suffixes and its upper-case form are added.
#pragma once

#include <string>

namespace strata {

// Why `name` cannot name a package ("" when it can): not an identifier; a C or C++ keyword or alternative token,
// or main; reserved by C and C++ (a leading underscore, a double underscore) or made so by the package's
// suffixes (a trailing underscore gives "name__status").
std::string package_name_problem(const std::string& name);

// Why `name` cannot be a part of a default package name, strata_<op>_<arch> ("" when it can): the rules above
// that survive the prefix and suffixes, i.e. a leading or trailing underscore or a double underscore.
std::string name_part_problem(const std::string& name);

}  // namespace strata
