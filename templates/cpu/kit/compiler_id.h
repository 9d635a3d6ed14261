// STRATA_KIT_COMPILER_ID: the compiler that builds this translation unit, and for which target, as one string
// literal ("GCC 12.2.0 for x86-64", "Debian Clang 14.0.6 for aarch64"). Profile records name their compiler
// with it. Macros only, no includes: the generator preprocesses this file with a compiler to learn the name
// that compiler's records carry, without building anything.
#ifndef STRATA_KIT_COMPILER_ID_H_
#define STRATA_KIT_COMPILER_ID_H_

#if defined(__clang__)
// Clang's __VERSION__ names the compiler itself ("Debian Clang 14.0.6", "Apple LLVM 15.0.0 (clang-...)").
#define STRATA_KIT_COMPILER_NAME __VERSION__
#elif defined(__GNUC__)
#define STRATA_KIT_COMPILER_NAME "GCC " __VERSION__
#else
#define STRATA_KIT_COMPILER_NAME "unknown C++ compiler"
#endif

#if defined(__x86_64__)
#define STRATA_KIT_COMPILER_TARGET "x86-64"
#elif defined(__aarch64__)
#define STRATA_KIT_COMPILER_TARGET "aarch64"
#else
#define STRATA_KIT_COMPILER_TARGET "an unknown target"
#endif

#define STRATA_KIT_COMPILER_ID STRATA_KIT_COMPILER_NAME " for " STRATA_KIT_COMPILER_TARGET

#endif  // STRATA_KIT_COMPILER_ID_H_
