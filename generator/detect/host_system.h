// What the operating system says about the host, for host detection: sysfs and procfs text files and their
// number formats, the CPUs this process may use, its physical cores and memory; and the failure and number
// formatting helpers with which every detection file reports what it found.
#pragma once

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#include <cstdint>
#include <string>
#include <vector>

namespace strata::detect {

// Throws strata::Error at position "<host>".
[[noreturn]] void fail(const std::string& message);

// First line of a (sysfs) text file without trailing whitespace; false when unreadable.
bool read_line(const std::string& path, std::string* out);

// A text file's first line as an integer (decimal, 0x hex or 0 octal); `fallback` when unreadable or not one.
int64_t read_int(const std::string& path, int64_t fallback);

// sysfs cache sizes: "32K", "1024K", "36608K", "8M"; 0 when unparsable.
int64_t parse_size(const std::string& text);

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}.
std::vector<int> parse_cpu_list(const std::string& text);

// In the largest unit that divides the size exactly ("32 KiB", "16 MiB", "1536 bytes"); a size of 1 MiB or more
// that no unit divides as "x.y MiB".
std::string format_bytes(int64_t bytes);

// Measured figures keep 3 significant digits: more would be noise, and the descriptor stays readable.
double round_sig(double x, int digits = 3);

// CPUs this process may run on (its affinity mask), which is what the generated kernels can use.
std::vector<int> usable_cpus();

// Distinct (package, core) pairs among `cpus`: SMT siblings share one core's FMA units. Without topology in
// sysfs, every CPU counts as a core.
int physical_cores(const std::vector<int>& cpus);

// sysconf(_SC_PHYS_PAGES) x sysconf(_SC_PAGESIZE); fails when either is unavailable.
int64_t physical_memory_bytes();

}  // namespace strata::detect

#endif
