#include "detect/host_system.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <utility>

#include "common/error.h"

namespace strata::detect {

namespace {

bool parse_int(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 0);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

}  // namespace

[[noreturn]] void fail(const std::string& message) { throw Error(SourcePos{"<host>", 0, 0}, message); }

// First line of a (sysfs) text file without trailing whitespace; false when unreadable.
bool read_line(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in || !std::getline(in, *out)) return false;
  while (!out->empty() && std::isspace(static_cast<unsigned char>(out->back()))) out->pop_back();
  return true;
}

int64_t read_int(const std::string& path, int64_t fallback) {
  std::string text;
  int64_t v = 0;
  return read_line(path, &text) && parse_int(text, &v) ? v : fallback;
}

// sysfs cache sizes: "32K", "1024K", "36608K", "8M".
int64_t parse_size(const std::string& text) {
  if (text.empty()) return 0;
  int64_t scale = 1;
  std::string digits = text;
  switch (text.back()) {
    case 'K': scale = int64_t{1} << 10; break;
    case 'M': scale = int64_t{1} << 20; break;
    case 'G': scale = int64_t{1} << 30; break;
    default: break;
  }
  if (scale != 1) digits.pop_back();
  int64_t v = 0;
  return parse_int(digits, &v) && v > 0 ? v * scale : 0;
}

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}.
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    int64_t lo = 0, hi = 0;
    if (parse_int(item.substr(0, dash), &lo)) {
      if (dash == std::string::npos || !parse_int(item.substr(dash + 1), &hi)) hi = lo;
      for (int64_t c = lo; c <= hi; ++c) cpus.push_back(static_cast<int>(c));
    }
    pos = comma + 1;
  }
  return cpus;
}

std::string format_bytes(int64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (u < 3 && v >= 1024 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++u;
  }
  if (u == 0 && bytes >= 1024 * 1024) return fmt::format("{:.1f} MiB", v / (1024 * 1024));
  return fmt::format("{} {}", v, units[u]);
}

// Measured figures keep 3 significant digits: more would be noise, and the descriptor stays readable.
double round_sig(double x, int digits) {
  if (!(x > 0)) return x;
  const int exponent = digits - 1 - static_cast<int>(std::floor(std::log10(x)));
  // Dividing by an exact power of ten (rather than multiplying by an inexact 10^-k) keeps e.g. 12300 exact.
  if (exponent >= 0) {
    const double scale = std::pow(10.0, exponent);
    return std::round(x * scale) / scale;
  }
  const double scale = std::pow(10.0, -exponent);
  return std::round(x / scale) * scale;
}

// CPUs this process may run on (its affinity mask), which is what the generated kernels can use.
std::vector<int> usable_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < std::max(1L, online); ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

// Distinct (package, core) pairs among `cpus`: SMT siblings share one core's FMA units.
int physical_cores(const std::vector<int>& cpus) {
  std::set<std::pair<int64_t, int64_t>> cores;
  for (int c : cpus) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/topology/", c);
    const int64_t package = read_int(dir + "physical_package_id", -1);
    const int64_t core = read_int(dir + "core_id", -1);
    if (package < 0 || core < 0) return static_cast<int>(cpus.size());
    cores.insert({package, core});
  }
  return static_cast<int>(cores.size());
}

int64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) fail("cannot read the host's physical memory size (sysconf _SC_PHYS_PAGES)");
  return static_cast<int64_t>(pages) * page;
}

}  // namespace strata::detect

#endif
