#include "shapes.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>

namespace strata_bench {

namespace {
// Larger dimensions are certainly typos, and keeping M * K well inside int64 keeps the allocation size exact.
constexpr int64_t kMaxDim = int64_t{1} << 31;
}  // namespace

std::string Shape::Label() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

std::string Trim(const std::string& s) {
  const char* space = " \t\r\n";
  const size_t begin = s.find_first_not_of(space);
  if (begin == std::string::npos) return std::string();
  return s.substr(begin, s.find_last_not_of(space) - begin + 1);
}

std::vector<std::string> Split(const std::string& s, char separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(separator, start);
    fields.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return fields;
}

bool ParseInt64(const std::string& text, int64_t min_value, int64_t max_value, int64_t* value) {
  const std::string t = Trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(t.c_str(), &end, 10);
  if (errno != 0 || end != t.c_str() + t.size() || parsed < min_value || parsed > max_value) return false;
  *value = parsed;
  return true;
}

bool ParseDouble(const std::string& text, double* value) {
  const std::string t = Trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(t.c_str(), &end);
  if (errno != 0 || end != t.c_str() + t.size()) return false;
  *value = parsed;
  return true;
}

bool ParseShape(const std::string& text, const std::string& category, Shape* shape) {
  std::vector<std::string> fields = Split(text, ',');
  if (fields.size() != 3) fields = Split(text, 'x');
  if (fields.size() != 3) return false;
  Shape parsed;
  parsed.category = category;
  if (!ParseInt64(fields[0], 1, kMaxDim, &parsed.m) || !ParseInt64(fields[1], 1, kMaxDim, &parsed.n) ||
      !ParseInt64(fields[2], 1, kMaxDim, &parsed.k)) {
    return false;
  }
  *shape = parsed;
  return true;
}

bool ReadShapesCsv(const std::string& path, std::vector<Shape>* shapes, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open " + path;
    return false;
  }
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    const std::vector<std::string> fields = Split(t, ',');
    if (fields.size() == 4 && Trim(fields[0]) == "category") continue;
    Shape shape;
    if (fields.size() != 4 || !ParseShape(fields[1] + "," + fields[2] + "," + fields[3], Trim(fields[0]), &shape) ||
        shape.category.empty()) {
      *error = path + ":" + std::to_string(line_number) + ": expected category,M,N,K with positive sizes, got \"" +
               t + "\"";
      return false;
    }
    shapes->push_back(shape);
  }
  return true;
}

}  // namespace strata_bench
