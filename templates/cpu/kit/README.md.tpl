# Strata profile kit: {{ARCH_NAME}}, {{OP_NAME}}

This kit measures the {{KERNEL_COUNT}} level-0 micro-kernels ({{ISA_NAME}} register tiles) that Strata may put into a
package for `{{ARCH_NAME}}` on the machine it runs on, and writes the measurements to a profile records file
(`strata-profile/1`). `strata generate --profile FILE` then ranks the kernels by those times instead of modelling
level 0. Use it when the machine you generate on is not the machine the package will run on.

The kernel sources are rendered from the same template, with the same flags, as the kernels a package ships; only the
entry point differs (the profiler calls each kernel's full packed register tile, the instantiation a package runs on
interior tiles). The kit depends on nothing but a C++17 compiler and its standard library; CMake is optional.

## 1. Build it for the device

{{#TARGET_X86_64}}On the device itself, or on any x86-64 machine whose binaries the device runs:

```sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build
```
{{/TARGET_X86_64}}{{#TARGET_AARCH64}}On the device itself:

```sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build
```

Or cross-compiled on an x86-64 Debian or Ubuntu machine with clang and lld (packages clang, lld,
libc6-dev-arm64-cross, libstdc++-12-dev-arm64-cross, libgcc-12-dev-arm64-cross):

```sh
cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu-clang.cmake -DCMAKE_BUILD_TYPE=Release
cmake --build build-aarch64
```

Any other AArch64 toolchain file works as well (GCC's aarch64-linux-gnu-g++, a vendor SDK).
{{/TARGET_AARCH64}}
Without CMake, the same build is ({{UNIT_COUNT}} kernel files plus the main, any order, in parallel if you like):

```sh
{{#UNIT}}$CXX {{BUILD_FLAGS}}{{#HAS_FLAGS}} {{FLAGS_SPACED}}{{/HAS_FLAGS}} -c {{FILE}} -o {{OBJECT}}
{{/UNIT}}$CXX {{BUILD_FLAGS}} -c src/profiler.cpp -o profiler.o
$CXX -o strata_profile profiler.o{{#UNIT}} {{OBJECT}}{{/UNIT}}
```

## 2. Run it on the device

```sh
./strata_profile -o profile_records.yaml      # options: --depth N (default {{DEPTH}}), --rounds N (default {{ROUNDS}})
```

It checks every kernel against a reference first (exit status 1 names a kernel that computes a wrong result), then
times each on one thread; a run takes about {{SECONDS_ESTIMATE}} seconds with the default {{ROUNDS}} rounds. Keep the device
otherwise idle, and on a machine with different kinds of cores run it pinned to the kind the package will use
(for example `taskset -c 4 ./strata_profile`). The file names the CPU (read on the device) and the compiler (the one
that built the kit), and is written whole or not at all.

## 3. Generate the package with the records

Copy `profile_records.yaml` back and pass it to Strata with the same descriptors the kit was made from:

```sh
strata generate --arch {{ARCH_FILE}} --op {{OP_FILE}} --profile profile_records.yaml -o {{PACKAGE_DIR}}
```

Strata refuses records made for another version of the descriptor (its sha256 is `{{ARCH_SHA256}}`) or another
operator. The package's `manifest.yaml` then says `level0: "profiled on <cpu> with <compiler> (profile_records.yaml)"`
and ships the records; without records it says level 0 was modelled.

## What is measured

Each kernel's full register tile is timed on 64-byte aligned packed panels of depth {{DEPTH}} that stay in the L1 cache
(alpha = beta = 1), after a check against a reference: a kernel's time is the fastest of {{ROUNDS}} rounds over all kernels
of the median of 3 batches of about 2 ms after a warm-up batch, on one unpinned thread. The records file's `method:`
field says the same with the depth and rounds actually used. Timings mean something only on the real device, idle:
under an emulator such as qemu the file is well-formed but its times describe the emulator.
