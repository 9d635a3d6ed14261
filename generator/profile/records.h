// Profile records: the measured time of each level-0 micro-kernel on one machine, which the hybrid analyzer's
// level 0 uses instead of a model (Helix: "profile" analyzer). They live in a YAML file so that profiling (slow,
// needs the target machine) and generation (fast, anywhere) can be separate steps:
//
//   schema: strata-profile/1
//   arch: zen4_avx512
//   arch_sha256: <sha256 of the arch descriptor file the records were made for>
//   op: sgemm
//   compiler: "c++ (Debian 12.2.0-14+deb12u1) 12.2.0"
//   cpu: "AMD Ryzen 9 7950X 16-Core Processor, family 25 model 97 stepping 2"
//   method: "<one sentence: what was timed and how>"
//   records:
//     - kernel: ukernel_avx512_14x32_k4
//       mr: 14
//       nr: 32
//       ku: 4
//       depth: 256
//       seconds_per_call: 1.23e-08
//       gflops: 135.2
//   level1:                            # only when level 1 was profiled too
//     - kernel: ukernel_avx512_14x32_k4
//       block: [112, 256, 128]         # the level-1 tile, M1 x N1 x K1, whole register tiles
//       pack_a_seconds: 1.1e-06        # packing its A block from the outermost cache
//       pack_b_seconds: 2.2e-06        # packing its B block from there
//       tiles_seconds: 2.6e-05         # its register tiles over the packed panels, C read and written there
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "spec/arch.h"

namespace strata {

inline constexpr char kProfileSchema[] = "strata-profile/1";

struct ProfileRecord {
  std::string kernel;  // UkernelSpec::name()
  int mr = 0;
  int nr = 0;
  int ku = 0;
  int depth = 0;                // k of each timed call
  double seconds_per_call = 0;  // median over the timed batches
  double gflops = 0;            // 2 * mr * nr * depth / seconds_per_call / 1e9
};

// One profiled level-1 tile: a cache block of a level-0 kernel, timed in the three parts the cost model's level 1
// takes (strata_model::Level1Measured).
struct Level1Record {
  std::string kernel;              // the level-0 kernel, UkernelSpec::name()
  std::array<int64_t, 3> block{};  // m, n, k: integer multiples of the kernel's mr, nr and ku
  double pack_a_seconds = 0;
  double pack_b_seconds = 0;
  double tiles_seconds = 0;
};

struct ProfileRecords {
  std::string arch;         // Arch::name
  std::string arch_sha256;  // Arch::content_sha of the descriptor the kernels were derived from
  std::string op;           // Op::name
  std::string compiler;     // first line of `<compiler> --version`
  std::string cpu;          // brand string, family/model/stepping
  std::string method;
  std::vector<ProfileRecord> records;  // sorted by kernel name, names unique
  std::vector<Level1Record> level1;    // sorted by (kernel, block), unique; empty: level 1 not profiled
};

// Reads a records file strictly: unknown keys, missing fields, wrong types, non-positive numbers, duplicate
// kernels and a different schema are strata::Errors with file:line:col. Records come back sorted by kernel.
ProfileRecords load_records(const std::string& path);

// The YAML text of `records` (sorted by kernel whatever the input order; numbers in their shortest round-trip
// form), such that load_records of it writes back to the same bytes. Throws strata::Error for values that
// cannot be written faithfully (non-finite numbers, duplicate kernel names).
std::string write_records_yaml(const ProfileRecords& records);

// The record of `kernel`, or nullptr.
const ProfileRecord* find(const ProfileRecords& records, const std::string& kernel);

// The level-1 record of `kernel`'s block, or nullptr.
const Level1Record* find_level1(const ProfileRecords& records, const std::string& kernel,
                                const std::array<int64_t, 3>& block);

// Time of one mr x nr x ku step of the register tile: the unit the cost model's level 0 takes.
double seconds_per_level0_tile(const ProfileRecord& record);

// Throws strata::Error({path, 0, 0}, ...) when `records` were made for another arch descriptor (sha256 of its
// bytes) or another operator: times measured for other kernels must never feed the model silently.
void check_records_match(const ProfileRecords& records, const Arch& arch, const std::string& op_name,
                         const std::string& path);

}  // namespace strata
