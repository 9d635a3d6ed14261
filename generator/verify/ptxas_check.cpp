#include "verify/ptxas_check.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>

#include "common/error.h"
#include "spec/yaml_reader.h"

namespace strata {

std::vector<PtxasKernel> parse_ptxas_report(const std::string& output, const std::string& source) {
  static const std::regex kSource(R"(([A-Za-z0-9_]+)\.cu\b)");
  static const std::regex kEntry(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex kProperties(R"(Function properties for (\S+))");
  static const std::regex kFrame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(Used (\d+) registers)");
  static const std::regex kShared(R"((\d+) bytes smem)");
  std::vector<PtxasKernel> kernels;
  std::string current_source = source;
  bool properties_of_entry = false;  // the last "Function properties" line named the current entry
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.find("ptxas") == std::string::npos && line.find("bytes stack frame") == std::string::npos) {
      if (std::regex_search(line, m, kSource)) current_source = m[1];
      continue;
    }
    if (std::regex_search(line, m, kEntry)) {
      PtxasKernel k;
      k.source = current_source;
      k.name = m[1];
      k.arch = m[2];
      kernels.push_back(k);
      properties_of_entry = false;
    } else if (std::regex_search(line, m, kProperties)) {
      // Device functions that were not inlined get properties too; only the entry's count here.
      properties_of_entry = !kernels.empty() && m[1] == kernels.back().name;
    } else if (std::regex_search(line, m, kFrame)) {
      if (!properties_of_entry) continue;
      kernels.back().stack_bytes = std::stoll(m[1]);
      kernels.back().spill_store_bytes = std::stoll(m[2]);
      kernels.back().spill_load_bytes = std::stoll(m[3]);
    } else if (std::regex_search(line, m, kUsed)) {
      if (kernels.empty()) continue;
      kernels.back().registers = std::stoi(m[1]);
      if (std::regex_search(line, m, kShared)) kernels.back().static_shared_bytes = std::stoll(m[1]);
    }
  }
  return kernels;
}

CudaLimits read_cuda_limits(const std::string& manifest_path) {
  const YAML::Node root = load_yaml_file(manifest_path);
  auto need = [&](const YAML::Node& parent, const char* key, const std::string& where) {
    const YAML::Node n = parent[key];
    if (!n || !n.IsScalar())
      throw Error(parent ? pos_of(parent, manifest_path) : SourcePos{manifest_path, 0, 0},
                  fmt::format("expected '{}' in {} (a CUDA package manifest)", key, where));
    return n;
  };
  CudaLimits limits;
  const YAML::Node target = root["target"];
  if (!target || !target.IsMap())
    throw Error({manifest_path, 0, 0}, "expected 'target: {arch: cuda, ...}' (a CUDA package manifest)");
  limits.registers_per_thread_max = need(target, "registers_per_thread_max", "target").as<int>();
  limits.registers_per_sm = need(target, "registers_per_sm", "target").as<int>();
  limits.shared_memory_per_block_bytes = need(target, "shared_memory_per_block_bytes", "target").as<int64_t>();
  const YAML::Node kernels = root["kernels"];
  if (!kernels || !kernels.IsSequence())
    throw Error({manifest_path, 0, 0}, "expected a 'kernels:' list (a CUDA package manifest)");
  for (const YAML::Node& k : kernels) {
    CudaLimits::Kernel limit;
    limit.threads = need(k, "threads_per_block", "a kernel").as<int>();
    limit.dynamic_shared_bytes = need(k, "shared_memory_bytes", "a kernel").as<int64_t>();
    limits.kernels[need(k, "name", "a kernel").as<std::string>()] = limit;
  }
  return limits;
}

std::vector<std::string> check_ptxas_report(const std::vector<PtxasKernel>& kernels, const CudaLimits& limits) {
  std::vector<std::string> problems;
  if (kernels.empty()) problems.push_back("no ptxas report found (was the build run with -Xptxas -v?)");
  for (const PtxasKernel& k : kernels) {
    const std::string who = fmt::format("{} ({}, {})", k.source.empty() ? "?" : k.source, k.arch, k.name);
    if (k.registers < 0) problems.push_back(who + ": ptxas reported no register count");
    if (k.spill_store_bytes > 0 || k.spill_load_bytes > 0)
      problems.push_back(fmt::format("{}: spills registers ({} bytes stored, {} bytes loaded)", who,
                                     k.spill_store_bytes, k.spill_load_bytes));
    if (k.stack_bytes > 0)
      problems.push_back(fmt::format("{}: uses a {}-byte local-memory stack frame", who, k.stack_bytes));
    if (k.registers > limits.registers_per_thread_max)
      problems.push_back(fmt::format("{}: {} registers per thread, more than the descriptor's {}", who, k.registers,
                                     limits.registers_per_thread_max));
    int64_t dynamic_shared = 0;
    const auto it = limits.kernels.find(k.source);
    if (it != limits.kernels.end()) {
      dynamic_shared = it->second.dynamic_shared_bytes;
      if (static_cast<int64_t>(k.registers) * it->second.threads > limits.registers_per_sm)
        problems.push_back(fmt::format("{}: {} registers x {} threads exceed one SM's {} registers", who, k.registers,
                                       it->second.threads, limits.registers_per_sm));
    }
    if (k.static_shared_bytes + dynamic_shared > limits.shared_memory_per_block_bytes)
      problems.push_back(
          fmt::format("{}: {} B static + {} B dynamic shared memory exceed the descriptor's {} B "
                      "per block",
                      who, k.static_shared_bytes, dynamic_shared, limits.shared_memory_per_block_bytes));
  }
  return problems;
}

}  // namespace strata
