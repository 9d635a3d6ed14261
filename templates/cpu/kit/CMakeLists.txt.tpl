# Strata profile kit: times the {{KERNEL_COUNT}} level-0 micro-kernels of {{ARCH_NAME}} for {{OP_NAME}} on the machine it runs on.
#
# Plain CMake and C++17 with no dependency beyond the standard library: build it with the target's compiler (natively,
# or cross with a toolchain file), run strata_profile on the device, and pass the records file it writes to
# `strata generate --profile FILE`. README.md says how.
cmake_minimum_required(VERSION 3.16)
project(strata_profile LANGUAGES CXX)

option(STRATA_PROFILE_WERROR "Treat compiler warnings as errors" OFF)

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)

# Every file is compiled with {{OPT_FLAGS}} whatever the build type (options come after the build type's flags, and the
# last -O wins): the records say how the timed code was compiled, and `strata generate` profiling on its own host
# compiles the same files with the same flags.
set(_options {{OPT_FLAGS}} -Wall -Wextra -Wpedantic)
if(STRATA_PROFILE_WERROR)
  list(APPEND _options -Werror)
endif()

# Each kernel file gets its instruction set's flags, exactly as the package's kernel files do; the profiler's main
# gets none, so it runs on any CPU of the target.
set(_kernel_sources)
{{#UNIT}}list(APPEND _kernel_sources {{FILE}})
{{#HAS_FLAGS}}set_source_files_properties({{FILE}} PROPERTIES COMPILE_OPTIONS "{{FLAGS}}")
{{/HAS_FLAGS}}{{/UNIT}}
# A kernel file here holds only each kernel's full packed tile (the profile entry), not the direct tiles a package
# also instantiates, so helpers that only direct tiles call are unneeded; clang says so, and that is expected.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set_property(SOURCE ${_kernel_sources} APPEND PROPERTY COMPILE_OPTIONS -Wno-unneeded-internal-declaration)
endif()

add_executable(strata_profile src/profiler.cpp ${_kernel_sources})
target_compile_options(strata_profile PRIVATE ${_options})
