// The host's cache hierarchy for host detection: capacity, geometry and sharing of every data and unified cache
// level, from /sys/devices/system/cpu (CPUID leaf 4 / 0x8000001D on x86-64 when sysfs lacks it), made
// consistent with the descriptor loader's rules.
#pragma once

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#include <cstdint>
#include <string>
#include <vector>

#include "detect/cpu_identity.h"

namespace strata::detect {

struct CacheFacts {
  int level = 0;
  bool unified = false;
  int64_t size = 0;
  int line = 0;
  int ways = 0;
  int64_t sets = 0;
  int shared_by = 1;
  std::string origin;   // where the facts came from
  std::string sharing;  // how shared_by was found
  std::string note;     // adjustments made to keep the descriptor consistent
};

// Data and unified caches, innermost first, one per level, each no smaller than the one inside it, seen from
// the first of the `usable` CPUs. Fails when there is none.
std::vector<CacheFacts> read_caches(const CpuIdentity& cpu, const std::vector<int>& usable);

// The descriptor's memory name: "l1d" for a level-1 data cache, else "l<level>".
std::string cache_name(const CacheFacts& c);

}  // namespace strata::detect

#endif
