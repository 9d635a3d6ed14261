#include "detect/cpu_identity.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#if defined(__x86_64__)
#include <cpuid.h>
#else
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <set>

#include "cpu/kit/device_info.h"  // templates/: the CPU name profile records and kits carry
#include "detect/host_system.h"

namespace strata::detect {

#if defined(__x86_64__)

bool cpuid(unsigned leaf, unsigned subleaf, CpuidRegs* r) {
  return __get_cpuid_count(leaf, subleaf, &r->a, &r->b, &r->c, &r->d) != 0;
}

namespace {

uint64_t read_xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// The vendor string of CPUID leaf 0: EBX, EDX, ECX.
std::string vendor_text(const CpuidRegs& r) {
  char text[13] = {};
  const unsigned words[3] = {r.b, r.d, r.c};
  std::memcpy(text, words, sizeof words);
  return text;
}

// Intel and AMD optimization guides: VFMADD*PS takes 5 cycles on Haswell/Broadwell and on AMD before Zen 4
// (Excavator, Zen 1-3, Hygon Dhyana), 4 on Skylake and later and on Zen 4/5. Zen 3 and Zen 4 share family 19h;
// of the two only Zen 4 has AVX-512.
void set_x86_fma_latency(CpuIdentity& id, const std::string& vendor, unsigned family, unsigned model, bool avx512f) {
  static const std::set<unsigned> kHaswellBroadwell = {0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56};
  const bool intel5 = vendor == "GenuineIntel" && family == 6 && kHaswellBroadwell.count(model) != 0;
  const bool amd5 = id.amd && (family == 0x15 || family == 0x17 || family == 0x18 || (family == 0x19 && !avx512f));
  id.fma_latency_cycles = intel5 || amd5 ? 5 : 4;
  id.fma_latency_basis = fmt::format(
      "the published VFMADD*PS latency for this core in the Intel and AMD optimization guides ({} family {:#x} "
      "model {:#x}: 5 cycles on Haswell/Broadwell and AMD before Zen 4, else 4), not measured",
      vendor, family, model);
}

}  // namespace

CpuIdentity identify_cpu() {
  CpuidRegs r;
  cpuid(0, 0, &r);
  const std::string vendor = vendor_text(r);
  CpuidRegs l1, l7;
  cpuid(1, 0, &l1);
  const bool has_leaf7 = cpuid(7, 0, &l7);
  unsigned family = (l1.a >> 8) & 0xf, model = (l1.a >> 4) & 0xf;
  if (family == 0xf) family += (l1.a >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf) model += ((l1.a >> 16) & 0xf) << 4;

  CpuIdentity id;
  id.amd = vendor == "AuthenticAMD" || vendor == "HygonGenuine";
  // The name profile records give this CPU (templates/cpu/kit/device_info.h), so that a descriptor and the records
  // made on the same machine name it alike; CPUID above only decides the ISA, the cache leaf and the FMA latency.
  id.model = strata_kit::cpu_identity();

  const bool osxsave = l1.c & (1u << 27), avx = l1.c & (1u << 28), fma = l1.c & (1u << 12);
  const bool avx2 = has_leaf7 && (l7.b & (1u << 5)), avx512f = has_leaf7 && (l7.b & (1u << 16));
  // The CPU may support a vector width whose register state the OS does not save on context switch; XCR0 says
  // which states are enabled: bits 1-2 (SSE, AVX) and 5-7 (opmask, upper ZMM halves, ZMM16-31).
  const uint64_t xcr0 = osxsave ? read_xcr0() : 0;
  const bool os_avx = (xcr0 & 0x6) == 0x6, os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
  if (avx512f && os_avx512) {
    id.kernels = avx512_kernels();
    id.isa_evidence = "CPUID reports AVX-512F and XGETBV shows the OS enables ZMM state";
  } else if (avx2 && fma && avx && os_avx) {
    id.kernels = avx2_kernels();
    id.isa_evidence = avx512f ? "CPUID reports AVX-512F but XGETBV shows the OS does not enable ZMM state, so "
                                "AVX2: CPUID reports AVX2 and FMA, XGETBV shows YMM state enabled"
                              : "CPUID reports AVX2 and FMA and XGETBV shows the OS enables YMM state";
  } else {
    fail("host has neither AVX2+FMA nor AVX-512; Strata's x86 backend needs one");
  }
  set_x86_fma_latency(id, vendor, family, model, avx512f);
  return id;
}

#else  // __aarch64__

CpuIdentity identify_cpu() {
  const unsigned long hwcap = getauxval(AT_HWCAP);
  if (!(hwcap & HWCAP_ASIMD)) fail("host has no Advanced SIMD (NEON); Strata's aarch64 backend needs it");
  CpuIdentity id;
  id.kernels = neon_kernels();
  id.isa_evidence = "HWCAP reports ASIMD (NEON)";
  id.fma_latency_basis =
      "the published FMLA (vector) latency of Cortex-A76 and later and of Neoverse N1/N2/V1/V2 (Arm software "
      "optimization guides), not measured; older cores such as Cortex-A72 are slower";
  // The name profile records give this CPU (templates/cpu/kit/device_info.h): MIDR_EL1 from sysfs, the CPU or
  // /proc/cpuinfo.
  id.model = strata_kit::cpu_identity();
  return id;
}

#endif

}  // namespace strata::detect

#endif
