// The configuration the fixed kernel sources (templates/cpu/runtime/) are unit-tested under in Strata's own build:
// what a package's generated config.h provides, for a core like the shipped x86 descriptors'. The test compiles
// kernel_runtime_check.cpp once per ISA, each under its own namespace (STRATA_TEST_NAMESPACE).
#ifndef STRATA_TEST_RUNTIME_CONFIG_H_
#define STRATA_TEST_RUNTIME_CONFIG_H_

#include <cstdint>

#define STRATA_PACKAGE_INTERNAL STRATA_TEST_NAMESPACE
#define STRATA_CONFIG_CONSTEXPR constexpr

namespace STRATA_PACKAGE_INTERNAL {

constexpr int kChains = 8;
constexpr int kFmaPipes = 1;
constexpr int kHalfFmaPipes = 2;
#if defined(__AVX512F__)
constexpr int kVectorRegisters = 32;
#else
constexpr int kVectorRegisters = 16;
#endif
constexpr int kDirectRows = 12;

}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_TEST_RUNTIME_CONFIG_H_
