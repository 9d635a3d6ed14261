// Describes the machine the generator runs on as an architecture descriptor, for `strata detect`.
#pragma once

#include "spec/arch.h"

namespace strata {

// Identifies the CPU (its vector ISA from CPUID and XGETBV on x86-64, HWCAP on aarch64; its name as profile
// records give it, strata_kit::cpu_identity() of templates/cpu/kit/device_info.h), reads the cache hierarchy from
// /sys/devices/system/cpu (CPUID leaf 4 / 0x8000001D when sysfs lacks it), and measures what neither can tell:
// the clock, the per-core FMA throughput, and the read bandwidth and latency of every cache level and of DRAM.
// Takes a few hundred milliseconds and runs the measurements on up to one thread per usable CPU, so call it on
// an otherwise idle machine. Every measured block's `source` says what was run. The result passes the loader's
// checks (e.g. capacity = sets x ways x line for caches); Arch::file, content_sha and the SourcePos fields are
// left empty.
// Throws strata::Error on a host Strata cannot target: not Linux on x86-64 or aarch64, an x86-64 CPU (or OS)
// without AVX2+FMA or AVX-512, an aarch64 CPU without NEON, or no readable cache hierarchy.
Arch detect_host_arch();

}  // namespace strata
