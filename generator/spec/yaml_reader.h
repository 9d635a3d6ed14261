// Strict, position-aware reading of YAML spec files. Every accessor either returns a validated value or throws
// strata::Error naming file:line:col and what was expected. A MapReader remembers which keys were read so that
// finish() can reject unknown keys: a typo in a spec must never be silently ignored.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace strata {

// Reads and parses a whole YAML file; the root must be a mapping. Errors (missing file, syntax, empty file)
// are reported with their position.
YAML::Node load_yaml_file(const std::string& path);
// The whole file at `path`, or a strata::Error naming it.
std::string read_spec_file(const std::string& path);
// Parses `content` as the file `path` would be: the root must be a mapping; errors name `path`.
YAML::Node parse_yaml_text(const std::string& path, const std::string& content);

SourcePos pos_of(const YAML::Node& node, const std::string& file);

// True when s matches [A-Za-z_][A-Za-z0-9_]*: the only text from a spec allowed into emitted identifiers.
bool is_c_identifier(const std::string& s);

class MapReader {
 public:
  // `what` names the mapping in messages, e.g. "memory 'l2'" or "the top level".
  MapReader(const YAML::Node& node, std::string file, std::string what);

  bool has(const std::string& key) const;
  YAML::Node node(const std::string& key);           // required, any type
  YAML::Node optional_node(const std::string& key);  // undefined node when absent

  std::string string(const std::string& key);
  std::string optional_string(const std::string& key, const std::string& fallback);
  std::string identifier(const std::string& key);
  int64_t integer(const std::string& key, int64_t min_value, int64_t max_value = INT64_MAX);
  int64_t optional_integer(const std::string& key, int64_t fallback, int64_t min_value,
                           int64_t max_value = INT64_MAX);
  double number(const std::string& key, double min_value, bool min_exclusive);
  // A non-empty list of at most kMaxListItems distinct integers: a set of choices, such as k_unroll.
  static constexpr size_t kMaxListItems = 64;
  std::vector<int64_t> integer_list(const std::string& key, int64_t min_value, int64_t max_value = INT64_MAX);
  // Exactly `count` integers, which may repeat: a tuple, such as a block's extents [m, n, k].
  std::vector<int64_t> integer_tuple(const std::string& key, size_t count, const std::string& names,
                                     int64_t min_value, int64_t max_value = INT64_MAX);
  // The value must be one of `choices`; returns its index.
  size_t choice(const std::string& key, const std::vector<std::string>& choices);

  // Throws for keys present in the mapping that were never read; the message lists the keys this mapping
  // accepts (every key the caller asked about, present or not).
  void finish();

  const std::string& file() const { return file_; }
  const std::string& what() const { return what_; }
  SourcePos pos() const { return pos_of(node_, file_); }
  SourcePos key_pos(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string what_;
  const YAML::Node* find(const std::string& key) const;

  std::vector<std::pair<std::string, YAML::Node>> entries_;  // key and value, in file order
  std::set<std::string> used_;
  mutable std::set<std::string> known_;
};

// Scalar helpers usable on list items.
int64_t scalar_integer(const YAML::Node& node, const std::string& file, const std::string& what, int64_t min_value,
                       int64_t max_value = INT64_MAX);
std::string scalar_string(const YAML::Node& node, const std::string& file, const std::string& what);

}  // namespace strata
