// Which CPU and which compiler made a set of profile records: the identity strata-profile/1 records carry.
//
// This one file is used twice, like cost_model.h: the generator includes it to name the host it profiles on
// (and to decide whether records in an existing package were made here), and every profile kit carries a
// verbatim copy that its profiler uses to name the device it runs on. One text, so the same machine is always
// named the same way. Plain C++17, no dependencies beyond the C++ and C standard libraries and, on Linux, the
// auxiliary vector. Never put two opening braces next to each other here: the file passes through ctemplate.
#ifndef STRATA_KIT_DEVICE_INFO_H_
#define STRATA_KIT_DEVICE_INFO_H_

#include <cstdio>
#include <cstring>
#include <string>

#include "compiler_id.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace strata_kit {

// The compiler that built this translation unit, and for what.
inline std::string compiler_identity() { return STRATA_KIT_COMPILER_ID; }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

// "<brand string>, <vendor> family F model M stepping S" from CPUID.
inline std::string cpu_identity() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  char vendor[13] = {};
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return "unknown x86-64 CPU (no CPUID)";
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  __get_cpuid(1, &eax, &ebx, &ecx, &edx);
  int family = static_cast<int>((eax >> 8) & 0xf);
  int model = static_cast<int>((eax >> 4) & 0xf);
  const int stepping = static_cast<int>(eax & 0xf);
  // The extended fields count only for these families (Intel SDM, CPUID leaf 1).
  if (family == 0xf) family += static_cast<int>((eax >> 20) & 0xff);
  if (family == 0x6 || family >= 0xf) model += static_cast<int>(((eax >> 16) & 0xf) << 4);
  std::string brand;
  // GCC's __get_cpuid_max returns unsigned, Clang's int: compared as unsigned, it builds warning-free with both.
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000, nullptr)) >= 0x80000004u) {
    char text[49] = {};
    for (unsigned leaf = 0; leaf < 3; ++leaf) {
      __get_cpuid(0x80000002 + leaf, &eax, &ebx, &ecx, &edx);
      const unsigned regs[4] = {eax, ebx, ecx, edx};
      std::memcpy(text + 16 * leaf, regs, 16);
    }
    brand = text;
    brand.erase(0, brand.find_first_not_of(' '));
    brand.erase(brand.find_last_not_of(' ') + 1);
  }
  char tail[96];
  std::snprintf(tail, sizeof tail, "%s family %d model %d stepping %d", vendor, family, model, stepping);
  return brand.empty() ? std::string(tail) : brand + ", " + tail;
}

#elif defined(__aarch64__)

// A few implementers and parts, from the Arm Architecture Reference Manual (MIDR_EL1) and the vendors' technical
// reference manuals; anything else is named by its numbers.
inline const char* arm_implementer_name(unsigned implementer) {
  switch (implementer) {
    case 0x41: return "Arm";
    case 0x42: return "Broadcom";
    case 0x46: return "Fujitsu";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0xc0: return "Ampere";
    default: return nullptr;
  }
}

inline const char* arm_part_name(unsigned implementer, unsigned part) {
  if (implementer == 0x41) switch (part) {
      case 0xd03: return "Cortex-A53";
      case 0xd04: return "Cortex-A35";
      case 0xd05: return "Cortex-A55";
      case 0xd07: return "Cortex-A57";
      case 0xd08: return "Cortex-A72";
      case 0xd09: return "Cortex-A73";
      case 0xd0a: return "Cortex-A75";
      case 0xd0b: return "Cortex-A76";
      case 0xd0c: return "Neoverse N1";
      case 0xd0d: return "Cortex-A77";
      case 0xd40: return "Neoverse V1";
      case 0xd41: return "Cortex-A78";
      case 0xd44: return "Cortex-X1";
      case 0xd46: return "Cortex-A510";
      case 0xd47: return "Cortex-A710";
      case 0xd48: return "Cortex-X2";
      case 0xd49: return "Neoverse N2";
      case 0xd4f: return "Neoverse V2";
      default: return nullptr;
    }
  if (implementer == 0x46 && part == 0x001) return "A64FX";
  if (implementer == 0xc0 && part == 0xac3) return "AmpereOne";
  return nullptr;
}

// "Arm Neoverse N1 r3p1 (MIDR_EL1 0x413fd0c1)" from the main ID register.
inline std::string describe_midr(unsigned long midr) {
  const unsigned implementer = static_cast<unsigned>((midr >> 24) & 0xff);
  const unsigned variant = static_cast<unsigned>((midr >> 20) & 0xf);
  const unsigned part = static_cast<unsigned>((midr >> 4) & 0xfff);
  const unsigned revision = static_cast<unsigned>(midr & 0xf);
  const char* vendor = arm_implementer_name(implementer);
  const char* name = arm_part_name(implementer, part);
  char text[160];
  char who[64];
  if (vendor)
    std::snprintf(who, sizeof who, "%s", vendor);
  else
    std::snprintf(who, sizeof who, "implementer 0x%02x", implementer);
  if (name)
    std::snprintf(text, sizeof text, "%s %s r%up%u (MIDR_EL1 0x%08lx)", who, name, variant, revision, midr);
  else
    std::snprintf(text, sizeof text, "%s part 0x%03x r%up%u (MIDR_EL1 0x%08lx)", who, part, variant, revision, midr);
  return text;
}

// MIDR_EL1 of CPU 0 from sysfs, else of the CPU running this thread (Linux emulates the read from user space when
// it sets HWCAP_CPUID), else the fields of /proc/cpuinfo; or a note saying why the CPU is unknown.
inline std::string cpu_identity() {
  if (std::FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r")) {
    unsigned long midr = 0;
    const bool ok = std::fscanf(f, "%lx", &midr) == 1;
    std::fclose(f);
    if (ok) return describe_midr(midr);
  }
#if defined(__linux__)
  constexpr unsigned long kHwcapCpuid = 1ul << 11;  // HWCAP_CPUID (asm/hwcap.h)
  if (getauxval(AT_HWCAP) & kHwcapCpuid) {
    unsigned long midr = 0;
    __asm__ volatile("mrs %0, MIDR_EL1" : "=r"(midr));
    return describe_midr(midr);
  }
#endif
  if (std::FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    unsigned long implementer = 0, variant = 0, part = 0, revision = 0;
    int found = 0;
    char line[256];
    while (found != 15 && std::fgets(line, sizeof line, f)) {
      if (std::sscanf(line, "CPU implementer : %lx", &implementer) == 1) found |= 1;
      if (std::sscanf(line, "CPU variant : %lx", &variant) == 1) found |= 2;
      if (std::sscanf(line, "CPU part : %lx", &part) == 1) found |= 4;
      if (std::sscanf(line, "CPU revision : %lu", &revision) == 1) found |= 8;
    }
    std::fclose(f);
    if (found == 15) return describe_midr(implementer << 24 | variant << 20 | 0xful << 16 | part << 4 | revision);
  }
  return "unknown AArch64 CPU (no MIDR_EL1 in sysfs, no HWCAP_CPUID, no CPU part in /proc/cpuinfo)";
}

#else

inline std::string cpu_identity() {
  return "unknown CPU (strata's device_info.h reads x86-64 CPUID and AArch64 MIDR_EL1 only)";
}

#endif

}  // namespace strata_kit

#endif  // STRATA_KIT_DEVICE_INFO_H_
