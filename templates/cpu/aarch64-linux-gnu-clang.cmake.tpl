# CMake toolchain file: cross-compiles {{PACKAGE}} for 64-bit Arm Linux (aarch64-linux-gnu) with clang and lld
# against the distribution's arm64 cross libraries, and has CMake run the target's programs under qemu-aarch64.
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu-clang.cmake
#   cmake --build build-aarch64
#   ctest --test-dir build-aarch64        # tests run through qemu-aarch64
#
# What it needs, on Debian 12 (Ubuntu names the same packages): clang, lld, qemu-user, libc6-dev-arm64-cross,
# libstdc++-12-dev-arm64-cross and libgcc-12-dev-arm64-cross. Clang finds those libraries by itself once it is told
# the target: it looks for the GCC cross installation of aarch64-linux-gnu (/usr/lib/gcc-cross/aarch64-linux-gnu)
# and the libc beside it (AARCH64_SYSROOT). The package's own CMakeLists.txt names no compiler, so any other
# aarch64 toolchain file (GCC's aarch64-linux-gnu-g++, a vendor SDK) works as well.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

# Where the aarch64 libc lives: the root for find_*() and the prefix qemu-aarch64 loads the dynamic linker from.
set(AARCH64_SYSROOT "/usr/aarch64-linux-gnu" CACHE PATH "aarch64-linux-gnu headers and libraries")
# try_compile() projects (CMake's compiler and Threads checks) read this file again and need the same value.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES AARCH64_SYSROOT)

set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
# The host's default linker (GNU ld for x86-64) cannot link aarch64 objects; lld links every target.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")

# Libraries and headers come from the target's root; programs (the build tools) from the host.
set(CMAKE_FIND_ROOT_PATH "${AARCH64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest runs the cross-built selftest through qemu's user-mode emulator; -L points it at the target's libc.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L "${AARCH64_SYSROOT}")
