#include "profile/records.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <regex>

#include "common/inert_text.h"
#include "spec/yaml_reader.h"

namespace strata {
namespace {

bool is_sha256_hex(const std::string& s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A plain (unquoted) YAML scalar is kept only for text no YAML reader could take for anything but a string:
// names, paths and hex digests that are not one of the YAML 1.1 booleans or nulls, nor read as a number or a
// date. Everything else is double-quoted, so the file reads the same in any tool.
bool can_be_plain(const std::string& s) {
  static const std::regex safe("[A-Za-z0-9_][A-Za-z0-9_./-]*");
  static const std::regex special("y|n|yes|no|true|false|on|off|null", std::regex::icase);
  static const std::regex number_or_date(
      "[0-9][0-9_]*(\\.[0-9_]*)?([eE][-+]?[0-9]+)?|0[xX][0-9a-fA-F_]+|0o[0-7]+|0b[01_]+"
      "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*");
  return std::regex_match(s, safe) && !std::regex_match(s, special) && !std::regex_match(s, number_or_date);
}

std::string yaml_string(const std::string& s, bool always_quote) {
  return !always_quote && can_be_plain(s) ? s : yaml_quoted(s);
}

// fmt's "{}" is the shortest text that reads back to the same double, so write -> load -> write is stable.
std::string yaml_number(const std::string& what, double value) {
  if (!std::isfinite(value) || !(value > 0))
    throw Error({},
                fmt::format("cannot write {} = {} into profile records: it must be a positive number", what, value));
  return fmt::format("{}", value);
}

ProfileRecord read_record(const YAML::Node& node, const std::string& file, size_t index) {
  MapReader r(node, file, fmt::format("records[{}]", index));
  ProfileRecord rec;
  rec.kernel = r.identifier("kernel");
  rec.mr = static_cast<int>(r.integer("mr", 1, INT_MAX));
  rec.nr = static_cast<int>(r.integer("nr", 1, INT_MAX));
  rec.ku = static_cast<int>(r.integer("ku", 1, INT_MAX));
  rec.depth = static_cast<int>(r.integer("depth", 1, INT_MAX));
  rec.seconds_per_call = r.number("seconds_per_call", 0, true);
  rec.gflops = r.number("gflops", 0, true);
  r.finish();
  return rec;
}

std::vector<ProfileRecord> read_record_list(MapReader& top) {
  const YAML::Node list = top.node("records");
  if (!list.IsSequence())
    throw Error(pos_of(list, top.file()), "the top level: 'records' expected a list of kernel records");
  std::vector<ProfileRecord> out;
  std::map<std::string, SourcePos> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    out.push_back(read_record(list[i], top.file(), i));
    const SourcePos pos = pos_of(list[i], top.file());
    auto [it, fresh] = seen.emplace(out.back().kernel, pos);
    if (!fresh)
      throw Error(pos, fmt::format("records[{}]: kernel '{}' is already recorded at line {}", i, out.back().kernel,
                                   it->second.line));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.kernel < b.kernel; });
  return out;
}

bool level1_before(const Level1Record& a, const Level1Record& b) {
  return a.kernel != b.kernel ? a.kernel < b.kernel : a.block < b.block;
}

Level1Record read_level1_record(const YAML::Node& node, const std::string& file, size_t index) {
  MapReader r(node, file, fmt::format("level1[{}]", index));
  Level1Record rec;
  rec.kernel = r.identifier("kernel");
  const std::vector<int64_t> block = r.integer_tuple("block", 3, "[m, n, k]", 1, INT_MAX);
  std::copy(block.begin(), block.end(), rec.block.begin());
  rec.pack_a_seconds = r.number("pack_a_seconds", 0, true);
  rec.pack_b_seconds = r.number("pack_b_seconds", 0, true);
  rec.tiles_seconds = r.number("tiles_seconds", 0, true);
  r.finish();
  return rec;
}

std::string block_text(const std::array<int64_t, 3>& b) { return fmt::format("{}x{}x{}", b[0], b[1], b[2]); }

// The optional level-1 list: absent or empty when only level 0 was profiled.
std::vector<Level1Record> read_level1_list(MapReader& top) {
  std::vector<Level1Record> out;
  if (!top.has("level1")) return out;
  const YAML::Node list = top.node("level1");
  if (!list.IsSequence())
    throw Error(pos_of(list, top.file()), "the top level: 'level1' expected a list of level-1 records");
  std::map<std::pair<std::string, std::array<int64_t, 3>>, SourcePos> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    out.push_back(read_level1_record(list[i], top.file(), i));
    const SourcePos pos = pos_of(list[i], top.file());
    auto [it, fresh] = seen.emplace(std::make_pair(out.back().kernel, out.back().block), pos);
    if (!fresh)
      throw Error(pos, fmt::format("level1[{}]: block {} of kernel '{}' is already recorded at line {}", i,
                                   block_text(out.back().block), out.back().kernel, it->second.line));
  }
  std::sort(out.begin(), out.end(), level1_before);
  return out;
}

}  // namespace

ProfileRecords load_records(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  MapReader top(root, path, "the top level");
  const std::string schema = top.string("schema");
  if (schema != kProfileSchema)
    top.fail("schema", fmt::format("must be '{}' (a profile records file), found '{}'", kProfileSchema, schema));
  ProfileRecords out;
  out.arch = top.string("arch");
  out.arch_sha256 = top.string("arch_sha256");
  if (!is_sha256_hex(out.arch_sha256))
    top.fail("arch_sha256", "must be 64 lower-case hex digits (the sha256 of the arch descriptor file)");
  out.op = top.string("op");
  out.compiler = top.string("compiler");
  out.cpu = top.string("cpu");
  out.method = top.string("method");
  out.records = read_record_list(top);
  out.level1 = read_level1_list(top);
  top.finish();
  return out;
}

std::string write_records_yaml(const ProfileRecords& records) {
  std::vector<ProfileRecord> sorted = records.records;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.kernel < b.kernel; });
  std::string out;
  out += fmt::format("schema: {}\n", kProfileSchema);
  out += fmt::format("arch: {}\n", yaml_string(records.arch, false));
  out += fmt::format("arch_sha256: {}\n", yaml_string(records.arch_sha256, false));
  out += fmt::format("op: {}\n", yaml_string(records.op, false));
  out += fmt::format("compiler: {}\n", yaml_string(records.compiler, true));
  out += fmt::format("cpu: {}\n", yaml_string(records.cpu, true));
  out += fmt::format("method: {}\n", yaml_string(records.method, true));
  out += sorted.empty() ? "records: []\n" : "records:\n";
  for (size_t i = 0; i < sorted.size(); ++i) {
    const ProfileRecord& r = sorted[i];
    if (i > 0 && sorted[i - 1].kernel == r.kernel)
      throw Error({}, fmt::format("cannot write profile records: kernel '{}' appears twice", r.kernel));
    if (!is_c_identifier(r.kernel) || r.mr < 1 || r.nr < 1 || r.ku < 1 || r.depth < 1)
      throw Error({}, fmt::format("cannot write profile record '{}' ({}x{}, ku {}, depth {}): the kernel must be a "
                                  "C identifier and the sizes positive",
                                  r.kernel, r.mr, r.nr, r.ku, r.depth));
    out += fmt::format("  - kernel: {}\n", r.kernel);
    out += fmt::format("    mr: {}\n    nr: {}\n    ku: {}\n    depth: {}\n", r.mr, r.nr, r.ku, r.depth);
    out += fmt::format("    seconds_per_call: {}\n", yaml_number(r.kernel + " seconds_per_call", r.seconds_per_call));
    out += fmt::format("    gflops: {}\n", yaml_number(r.kernel + " gflops", r.gflops));
  }
  std::vector<Level1Record> level1 = records.level1;
  std::sort(level1.begin(), level1.end(), level1_before);
  if (!level1.empty()) out += "level1:\n";  // absent when level 1 was not profiled, as in files made before it was
  for (size_t i = 0; i < level1.size(); ++i) {
    const Level1Record& r = level1[i];
    const std::string what = r.kernel + " " + block_text(r.block);
    if (i > 0 && !level1_before(level1[i - 1], r))
      throw Error({}, fmt::format("cannot write profile records: level-1 block {} appears twice", what));
    if (!is_c_identifier(r.kernel) || r.block[0] < 1 || r.block[1] < 1 || r.block[2] < 1)
      throw Error({},
                  fmt::format("cannot write level-1 record '{}': the kernel must be a C identifier and the block's "
                              "extents positive",
                              what));
    out += fmt::format("  - kernel: {}\n", r.kernel);
    out += fmt::format("    block: [{}, {}, {}]\n", r.block[0], r.block[1], r.block[2]);
    out += fmt::format("    pack_a_seconds: {}\n", yaml_number(what + " pack_a_seconds", r.pack_a_seconds));
    out += fmt::format("    pack_b_seconds: {}\n", yaml_number(what + " pack_b_seconds", r.pack_b_seconds));
    out += fmt::format("    tiles_seconds: {}\n", yaml_number(what + " tiles_seconds", r.tiles_seconds));
  }
  return out;
}

const ProfileRecord* find(const ProfileRecords& records, const std::string& kernel) {
  auto it = std::find_if(records.records.begin(), records.records.end(),
                         [&](const ProfileRecord& r) { return r.kernel == kernel; });
  return it == records.records.end() ? nullptr : &*it;
}

const Level1Record* find_level1(const ProfileRecords& records, const std::string& kernel,
                                const std::array<int64_t, 3>& block) {
  Level1Record key;
  key.kernel = kernel;
  key.block = block;
  auto it = std::lower_bound(records.level1.begin(), records.level1.end(), key, level1_before);
  return it != records.level1.end() && it->kernel == kernel && it->block == block ? &*it : nullptr;
}

double seconds_per_level0_tile(const ProfileRecord& record) {
  return record.seconds_per_call * record.ku / record.depth;
}

void check_records_match(const ProfileRecords& records, const Arch& arch, const std::string& op_name,
                         const std::string& path) {
  if (records.arch_sha256 != arch.content_sha)
    throw Error({path, 0, 0},
                fmt::format("records were made for arch descriptor {} ('{}') but {} has {}: the descriptor changed "
                            "since profiling, so the kernels may differ; profile again",
                            records.arch_sha256, records.arch, arch.file, arch.content_sha));
  // The CPU backend's micro-kernels are the same fp32 kernels for every op it emits (a convolution runs GEMM's), so
  // the records of one CPU op serve another; a GPU's kernels depend on the op's types.
  if (records.op != op_name && arch.is_gpu())
    throw Error({path, 0, 0}, fmt::format("records were made for op '{}' but the op is '{}'; profile again for it",
                                          records.op, op_name));
}

}  // namespace strata
