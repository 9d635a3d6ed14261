#include "detect/cache_facts.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#include <fmt/format.h>

#include <algorithm>

#include "detect/host_system.h"

namespace strata::detect {

namespace {

void add_note(CacheFacts& c, const std::string& note) { c.note += (c.note.empty() ? "" : "; ") + note; }

std::vector<CacheFacts> sysfs_caches(int cpu, const std::vector<int>& usable) {
  std::vector<CacheFacts> caches;
  for (int index = 0;; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index{}/", cpu, index);
    std::string type, size, shared;
    CacheFacts c;
    c.level = static_cast<int>(read_int(dir + "level", 0));
    if (c.level <= 0 || !read_line(dir + "type", &type)) break;
    if (type != "Data" && type != "Unified") continue;
    c.unified = type == "Unified";
    c.size = read_line(dir + "size", &size) ? parse_size(size) : 0;
    c.line = static_cast<int>(read_int(dir + "coherency_line_size", 0));
    c.ways = static_cast<int>(read_int(dir + "ways_of_associativity", 0));
    c.sets = read_int(dir + "number_of_sets", 0);
    c.origin = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index{}", cpu, index);
    if (read_line(dir + "shared_cpu_list", &shared)) {
      const std::vector<int> sharers = parse_cpu_list(shared);
      const auto n = std::count_if(sharers.begin(), sharers.end(),
                                   [&](int s) { return std::find(usable.begin(), usable.end(), s) != usable.end(); });
      c.shared_by = std::max(1, static_cast<int>(n));
      c.sharing = static_cast<size_t>(n) == sharers.size()
                      ? fmt::format("shared_cpu_list {}", shared)
                      : fmt::format("shared_cpu_list {}, of which {} usable by this process", shared, n);
    } else {
      c.sharing = "no shared_cpu_list; assumed private";
    }
    caches.push_back(c);
  }
  return caches;
}

#if defined(__x86_64__)
// Deterministic cache parameters: Intel leaf 4, AMD leaf 0x8000001D (same layout). Used when sysfs has no cache
// directory, as in some containers.
std::vector<CacheFacts> cpuid_caches(bool amd, int cores) {
  std::vector<CacheFacts> caches;
  CpuidRegs ext;
  if (amd && !(cpuid(0x80000001, 0, &ext) && (ext.c & (1u << 22)))) return caches;  // no TOPOEXT
  const unsigned leaf = amd ? 0x8000001D : 4;
  for (unsigned sub = 0; sub < 32; ++sub) {
    CpuidRegs r;
    if (!cpuid(leaf, sub, &r) || (r.a & 0x1f) == 0) break;
    const unsigned type = r.a & 0x1f;  // 1 data, 2 instruction, 3 unified
    if (type == 2) continue;
    CacheFacts c;
    c.level = static_cast<int>((r.a >> 5) & 0x7);
    c.unified = type == 3;
    c.line = static_cast<int>((r.b & 0xfff) + 1);
    const int64_t partitions = ((r.b >> 12) & 0x3ff) + 1;
    c.ways = static_cast<int>(((r.b >> 22) & 0x3ff) + 1);
    c.sets = (static_cast<int64_t>(r.c) + 1) * partitions;  // partitions fold into sets: same capacity
    c.size = c.sets * c.ways * c.line;
    const int sharing = static_cast<int>(((r.a >> 14) & 0xfff) + 1);
    c.shared_by = std::min(sharing, cores);
    c.origin = fmt::format("CPUID leaf {:#x} subleaf {}", leaf, sub);
    c.sharing = sharing <= cores ? fmt::format("CPUID: shared by up to {} logical CPUs", sharing)
                                 : fmt::format("CPUID: shared by up to {} logical CPUs, {} usable by this process",
                                               sharing, cores);
    caches.push_back(c);
  }
  return caches;
}
#endif

// The loader requires capacity = sets x ways x line for an integer number of sets. sysfs normally satisfies it;
// some hypervisors report ways or sets that do not. The capacity is what matters to the model, so it is kept and
// the geometry adjusted, with a note in the source.
void make_consistent(CacheFacts& c) {
  if (c.line <= 0) {
    c.line = 64;
    add_note(c, "no line size reported; 64 bytes assumed");
  }
  if (c.size % c.line != 0) {
    add_note(c, fmt::format("reported size {} is not a whole number of lines; rounded down", c.size));
    c.size -= c.size % c.line;
  }
  const int64_t lines = c.size / c.line;
  if (c.ways > 0 && lines % c.ways == 0) {
    if (c.sets > 0 && c.sets * c.ways != lines)
      add_note(c, fmt::format("reported number_of_sets {} disagrees with the size; {} sets", c.sets, lines / c.ways));
  } else if (c.sets > 0 && lines % c.sets == 0 && lines / c.sets <= 65536) {
    add_note(c, fmt::format("reported {} ways do not divide the size; ways = size / (sets x line)", c.ways));
    c.ways = static_cast<int>(lines / c.sets);
  } else {
    int ways = static_cast<int>(std::min<int64_t>(std::max(c.ways, 1), lines));
    while (lines % ways != 0) --ways;
    add_note(
        c, fmt::format("reported {} ways and {} sets do not fit the size; written as {} ways", c.ways, c.sets, ways));
    c.ways = ways;
  }
  c.sets = lines / c.ways;
}

}  // namespace

// Data and unified caches, innermost first, one per level, each no smaller than the one inside it.
std::vector<CacheFacts> read_caches(const CpuIdentity& cpu, const std::vector<int>& usable) {
  std::vector<CacheFacts> found = sysfs_caches(usable.front(), usable);
#if defined(__x86_64__)
  if (found.empty()) found = cpuid_caches(cpu.amd, static_cast<int>(usable.size()));
#else
  (void)cpu;
#endif
  std::stable_sort(found.begin(), found.end(),
                   [](const CacheFacts& a, const CacheFacts& b) { return a.level < b.level; });
  std::vector<CacheFacts> caches;
  std::string dropped;
  for (CacheFacts& c : found) {
    if (c.size <= 0 || (!caches.empty() && caches.back().level == c.level)) continue;
    make_consistent(c);
    if (!caches.empty() && c.size < caches.back().size) {
      dropped += fmt::format("level {} cache ({}) omitted: smaller than the level inside it; ", c.level,
                             format_bytes(c.size));
      continue;
    }
    if (!dropped.empty()) {
      add_note(c, dropped.substr(0, dropped.size() - 2));
      dropped.clear();
    }
    caches.push_back(c);
  }
  if (caches.empty())
    fail(fmt::format(
        "cannot read the host's cache hierarchy: no data or unified cache in "
        "/sys/devices/system/cpu/cpu{}/cache{}",
        usable.front(),
#if defined(__x86_64__)
        " nor in CPUID"
#else
        ""
#endif
        ));
  return caches;
}

std::string cache_name(const CacheFacts& c) {
  return c.level == 1 && !c.unified ? std::string("l1d") : fmt::format("l{}", c.level);
}

}  // namespace strata::detect

#endif
