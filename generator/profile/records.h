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
#pragma once

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

struct ProfileRecords {
  std::string arch;         // Arch::name
  std::string arch_sha256;  // Arch::content_sha of the descriptor the kernels were derived from
  std::string op;           // Op::name
  std::string compiler;     // first line of `<compiler> --version`
  std::string cpu;          // brand string, family/model/stepping
  std::string method;
  std::vector<ProfileRecord> records;  // sorted by kernel name, names unique
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

// Time of one mr x nr x ku step of the register tile: the unit the cost model's level 0 takes.
double seconds_per_level0_tile(const ProfileRecord& record);

// Throws strata::Error({path, 0, 0}, ...) when `records` were made for another arch descriptor (sha256 of its
// bytes) or another operator: times measured for other kernels must never feed the model silently.
void check_records_match(const ProfileRecords& records, const Arch& arch, const std::string& op_name,
                         const std::string& path);

}  // namespace strata
