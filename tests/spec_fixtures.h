// Small valid specs that the bad-input tests break one way at a time.
#pragma once

#include <string>

namespace strata::test {

inline const std::string kValidCpuArch = R"(schema: strata-arch/1
name: tiny_avx2
description: "test machine"
target: x86_64
clock_ghz: 2.0
launch_overhead_ns: 50
launch_source: "test"
isa:
  vector: avx2
  vector_bits: 256
  vector_registers: 16
  fma_latency_cycles: 4
  fma_pipes: 2
  fma_broadcast: memory
  k_unroll: [1, 4]
  source: "test"
compute:
  - unit: cpu_fma
    input: f32
    peak_gflops: 128
    source: "test"
memories:
  - name: registers
    kind: registers
    capacity_bytes: 512
    shared_by: 1
    bandwidth_gbps: 256
    latency_ns: 0
    source: "test"
  - name: l2
    kind: cache
    capacity_bytes: 262144
    shared_by: 1
    bandwidth_gbps: 64
    latency_ns: 6
    line_bytes: 64
    associativity: 8
    source: "test"
  - name: l3
    kind: cache
    capacity_bytes: 4194304
    shared_by: 2
    bandwidth_gbps: 32
    latency_ns: 20
    line_bytes: 64
    associativity: 16
    source: "test"
  - name: dram
    kind: dram
    capacity_bytes: 8589934592
    shared_by: 2
    bandwidth_gbps: 20
    latency_ns: 80
    source: "test"
levels:
  - name: register_tile
    memory: registers
    parallel_units: 1
    analyzer: profile
  - name: cache_block
    memory: l2
    parallel_units: 1
    analyzer: model
    tile_multiples: [1, 2, 4, 8]
  - name: cores
    memory: l3
    parallel_units: 2
    analyzer: model
    tile_multiples: [1, 2, 4]
)";

inline const std::string kValidGemmOp = R"(schema: strata-op/1
name: test_gemm
description: "test"
kind: gemm
types: {a: f32, b: f32, c: f32, accumulate: f32}
layout: {a: row_major, b: row_major, c: row_major}
dims:
  m: {}
  n: {}
  k: {}
rkernel:
  cpu:
    - loops: {m: TNL, n: TNL, k: TRL}
      load: [broadcast_a, load_b_vectors]
      compute: fma_broadcast
      store: accumulate_c_tile
    - loops: {m: TNL, n: TNL, k: TRL}
      load: [pack_a_panel, pack_b_panel]
      compute: register_tile
      store: masked_store
    - loops: {m: PL, n: PL, k: TRL}
      load: pack_a_panel
      compute: cache_block
      store: write_c
)";

// `text` with the first occurrence of `from` replaced by `to` (the fixture must contain `from`).
std::string replaced(const std::string& text, const std::string& from, const std::string& to);

}  // namespace strata::test
