// libFuzzer targets for the spec loaders and the sieve: whatever the bytes, loading an architecture descriptor or an
// operator spec, and (in fuzz_sieve, built with STRATA_FUZZ_SIEVE) sieving what loads against a spec of the other
// kind, either succeeds or throws strata::Error. fuzz_specs loads only, thousands of inputs a second; the sieve
// costs fuzz_sieve a hundredfold. Any other exception, a crash, a sanitizer report, a run past libFuzzer's -timeout
// or memory past its -rss_limit_mb is a finding. tools/fuzz.sh builds and runs it (clang, ASan + UBSan), seeded with
// archs/, ops/ and tests/fuzz/regressions/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "sieve/sieve.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"

namespace {

// The partners a fuzzed spec is sieved with, loaded once: shipped specs cut down (fewer tile multiples, small size
// facts) so that a run takes milliseconds; the full-size sieve of every shipped spec is in the unit tests.
const strata::Arch& cpu_arch() {
  static const strata::Arch arch = strata::load_arch(STRATA_SOURCE_DIR "/tests/fuzz/partners/arch_cpu.yaml");
  return arch;
}
const strata::Arch& gpu_arch() {
  static const strata::Arch arch = strata::load_arch(STRATA_SOURCE_DIR "/tests/fuzz/partners/arch_gpu.yaml");
  return arch;
}
const strata::Op& gemm_op() {
  static const strata::Op op = strata::load_op(STRATA_SOURCE_DIR "/tests/fuzz/partners/op_gemm.yaml");
  return op;
}
const strata::Op& tensor_core_op() {
  static const strata::Op op = strata::load_op(STRATA_SOURCE_DIR "/tests/fuzz/partners/op_tensor_core.yaml");
  return op;
}

void sieve([[maybe_unused]] const strata::Arch& arch, [[maybe_unused]] const strata::Op& op) {
#ifdef STRATA_FUZZ_SIEVE
  try {
    for (const strata::SieveResult& result : strata::run_sieve(arch, op)) strata::require_candidates(result, arch);
  } catch (const strata::Error&) {
  }
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const strata::Arch arch = strata::load_arch_text("fuzz.yaml", text);
    sieve(arch, arch.is_gpu() ? tensor_core_op() : gemm_op());
  } catch (const strata::Error&) {
  }
  try {
    const strata::Op op = strata::load_op_text("fuzz.yaml", text);
    sieve(cpu_arch(), op);
    sieve(gpu_arch(), op);
  } catch (const strata::Error&) {
  }
  return 0;
}
