#include "spec/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace strata {
namespace {

const char* type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null: return "nothing (null)";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    default: return "nothing";
  }
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Parses a whole scalar as a base-10 integer; rejects "1.5", "1e3", "0x10", "", trailing text.
bool parse_integer(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (i == text.size()) return false;
  for (size_t j = i; j < text.size(); ++j)
    if (text[j] < '0' || text[j] > '9') return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return false;
  *out = static_cast<int64_t>(v);
  return true;
}

bool parse_number(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno == ERANGE || *end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::string show(const YAML::Node& node) {
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  return type_name(node);
}

}  // namespace

SourcePos pos_of(const YAML::Node& node, const std::string& file) {
  SourcePos pos{file, 0, 0};
  if (node.IsDefined()) {
    YAML::Mark mark = node.Mark();
    if (!mark.is_null()) {
      pos.line = mark.line + 1;
      pos.column = mark.column + 1;
    }
  }
  return pos;
}

bool is_c_identifier(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

std::string read_spec_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error({path, 0, 0}, "cannot open file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error({path, 0, 0}, "cannot read file");
  return buffer.str();
}

YAML::Node load_yaml_file(const std::string& path) { return parse_yaml_text(path, read_spec_file(path)); }

YAML::Node parse_yaml_text(const std::string& path, const std::string& content) {
  if (content.find('\0') != std::string::npos) throw Error({path, 0, 0}, "not a YAML file (contains NUL bytes)");
  YAML::Node root;
  try {
    root = YAML::Load(content);
  } catch (const YAML::Exception& e) {
    SourcePos pos{path, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1};
    throw Error(pos, "YAML syntax error: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull()) throw Error({path, 0, 0}, "empty document: expected a YAML mapping");
  if (!root.IsMap())
    throw Error(pos_of(root, path), std::string("expected a YAML mapping at the top level, found ") + show(root));
  return root;
}

MapReader::MapReader(const YAML::Node& node, std::string file, std::string what)
    : node_(node), file_(std::move(file)), what_(std::move(what)) {
  if (!node_.IsMap())
    throw Error(pos_of(node_, file_), fmt::format("{}: expected a mapping, found {}", what_, show(node_)));
  for (const auto& item : node_) {
    if (!item.first.IsScalar())
      throw Error(pos_of(item.first, file_), fmt::format("{}: keys must be plain strings", what_));
    const std::string& key = item.first.Scalar();
    if (find(key) != nullptr)
      throw Error(pos_of(item.first, file_), fmt::format("{}: duplicate key '{}'", what_, key));
    entries_.emplace_back(key, item.second);
  }
}

const YAML::Node* MapReader::find(const std::string& key) const {
  for (const auto& [k, value] : entries_)
    if (k == key) return &value;
  return nullptr;
}

bool MapReader::has(const std::string& key) const {
  known_.insert(key);
  return find(key) != nullptr;
}

SourcePos MapReader::key_pos(const std::string& key) const {
  for (const auto& item : node_)
    if (item.first.Scalar() == key) return pos_of(item.second.IsNull() ? item.first : item.second, file_);
  return pos();
}

void MapReader::fail(const std::string& key, const std::string& message) const {
  throw Error(key_pos(key), fmt::format("{}: '{}' {}", what_, key, message));
}

YAML::Node MapReader::node(const std::string& key) {
  if (!has(key)) throw Error(pos(), fmt::format("{}: missing required key '{}'", what_, key));
  used_.insert(key);
  return *find(key);
}

YAML::Node MapReader::optional_node(const std::string& key) {
  if (!has(key)) return YAML::Node(YAML::NodeType::Undefined);
  used_.insert(key);
  return *find(key);
}

std::string MapReader::string(const std::string& key) {
  YAML::Node value = node(key);
  return scalar_string(value, file_, fmt::format("{}: '{}'", what_, key));
}

std::string MapReader::optional_string(const std::string& key, const std::string& fallback) {
  return has(key) ? string(key) : fallback;
}

std::string MapReader::identifier(const std::string& key) {
  std::string value = string(key);
  if (!is_c_identifier(value))
    fail(key, fmt::format("must be a C identifier ([A-Za-z_][A-Za-z0-9_]*), found '{}'", value));
  return value;
}

int64_t MapReader::integer(const std::string& key, int64_t min_value, int64_t max_value) {
  return scalar_integer(node(key), file_, fmt::format("{}: '{}'", what_, key), min_value, max_value);
}

int64_t MapReader::optional_integer(const std::string& key, int64_t fallback, int64_t min_value, int64_t max_value) {
  return has(key) ? integer(key, min_value, max_value) : fallback;
}

double MapReader::number(const std::string& key, double min_value, bool min_exclusive) {
  YAML::Node value = node(key);
  double v = 0;
  if (!value.IsScalar() || !parse_number(value.Scalar(), &v))
    throw Error(pos_of(value, file_), fmt::format("{}: '{}' expected a number, found {}", what_, key, show(value)));
  if (min_exclusive ? !(v > min_value) : !(v >= min_value))
    throw Error(pos_of(value, file_), fmt::format("{}: '{}' must be {} {}, found {}", what_, key,
                                                  min_exclusive ? ">" : ">=", min_value, value.Scalar()));
  return v;
}

std::vector<int64_t> MapReader::integer_list(const std::string& key, int64_t min_value, int64_t max_value) {
  YAML::Node value = node(key);
  if (!value.IsSequence() || value.size() == 0)
    throw Error(pos_of(value, file_),
                fmt::format("{}: '{}' expected a non-empty list of integers, found {}", what_, key, show(value)));
  if (value.size() > kMaxListItems)
    throw Error(pos_of(value, file_), fmt::format("{}: '{}' lists {} values, more than the {} a list may hold", what_,
                                                  key, value.size(), kMaxListItems));
  std::vector<int64_t> out;
  for (const auto& item : value) {
    const int64_t v = scalar_integer(item, file_, fmt::format("{}: '{}' item", what_, key), min_value, max_value);
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw Error(pos_of(item, file_), fmt::format("{}: '{}' lists {} twice", what_, key, v));
    out.push_back(v);
  }
  return out;
}

std::vector<int64_t> MapReader::integer_tuple(const std::string& key, size_t count, const std::string& names,
                                              int64_t min_value, int64_t max_value) {
  YAML::Node value = node(key);
  if (!value.IsSequence())
    throw Error(pos_of(value, file_), fmt::format("{}: '{}' expected {}, found {}", what_, key, names, show(value)));
  if (value.size() != count)
    throw Error(pos_of(value, file_),
                fmt::format("{}: '{}' expected {}, {} integers, found {}", what_, key, names, count, value.size()));
  std::vector<int64_t> out;
  for (const auto& item : value)
    out.push_back(scalar_integer(item, file_, fmt::format("{}: '{}' item", what_, key), min_value, max_value));
  return out;
}

size_t MapReader::choice(const std::string& key, const std::vector<std::string>& choices) {
  std::string value = string(key);
  auto it = std::find(choices.begin(), choices.end(), value);
  if (it == choices.end()) fail(key, fmt::format("must be one of {}, found '{}'", join(choices), value));
  return static_cast<size_t>(it - choices.begin());
}

void MapReader::finish() {
  for (const auto& [key, value] : entries_) {
    if (used_.count(key)) continue;
    std::vector<std::string> known(known_.begin(), known_.end());
    for (const auto& item : node_)
      if (item.first.Scalar() == key)
        throw Error(pos_of(item.first, file_),
                    fmt::format("{}: unknown key '{}'{}", what_, key,
                                known.empty() ? "" : " (expected one of: " + join(known) + ")"));
  }
}

int64_t scalar_integer(const YAML::Node& node, const std::string& file, const std::string& what, int64_t min_value,
                       int64_t max_value) {
  int64_t v = 0;
  if (!node.IsScalar() || !parse_integer(node.Scalar(), &v))
    throw Error(pos_of(node, file), fmt::format("{} expected an integer, found {}", what, show(node)));
  if (v < min_value) throw Error(pos_of(node, file), fmt::format("{} must be >= {}, found {}", what, min_value, v));
  if (v > max_value) throw Error(pos_of(node, file), fmt::format("{} must be <= {}, found {}", what, max_value, v));
  return v;
}

std::string scalar_string(const YAML::Node& node, const std::string& file, const std::string& what) {
  if (!node.IsScalar())
    throw Error(pos_of(node, file), fmt::format("{} expected a string, found {}", what, show(node)));
  return node.Scalar();
}

}  // namespace strata
