// Problem shapes and the shape-suite CSV format (header category,M,N,K; see ../shared/shapes/README.md).
#ifndef STRATA_TOOLS_BENCH_SHAPES_H_
#define STRATA_TOOLS_BENCH_SHAPES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace strata_bench {

struct Shape {
  std::string category;
  int64_t m = 0, n = 0, k = 0;
  // Added by the driver (the square shape for the %-of-peak line), not from a suite: kept out of the per-category
  // tables so that a suite's numbers do not depend on it.
  bool extra = false;

  double Flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
  std::string Label() const;  // "MxNxK"
};

// Appends the shapes of a category,M,N,K file; a header line, blank lines and '#' comments are skipped.
bool ReadShapesCsv(const std::string& path, std::vector<Shape>* shapes, std::string* error);

// Parses "M,N,K" (or "MxNxK").
bool ParseShape(const std::string& text, const std::string& category, Shape* shape);

// Small string helpers shared by the option parser and the CSV reader.
std::string Trim(const std::string& s);
std::vector<std::string> Split(const std::string& s, char separator);
bool ParseInt64(const std::string& text, int64_t min_value, int64_t max_value, int64_t* value);
bool ParseDouble(const std::string& text, double* value);

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_SHAPES_H_
