#include "generate/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "common/c_names.h"
#include "common/error.h"
#include "common/sha256.h"
#include "emit/package_writer.h"
#include "generate/gpu_units.h"
#include "profile/host_profiler.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"

namespace strata {
namespace {

ProfileOptions profile_options(const GenerateRequest& r) {
  ProfileOptions po;
  po.compiler = r.compiler;
  po.jobs = r.jobs > 0 ? r.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  po.progress = r.progress;
  return po;
}

// Where the pipeline would measure on this host but the request does not allow it.
void require_profiling_allowed(const GenerateRequest& r, const Arch& arch) {
  if (!r.may_profile)
    throw Error({r.arch_path, 0, 0},
                fmt::format("'{}' asks for profiling on this host; give its records with --profile FILE, or "
                            "--no-profile",
                            arch.name));
}

// The records file a generation reads, if any: the one given with --profile, else an existing package's at the output
// path (reused when it fits, see reusable_records). It is loaded on another thread while the sieve runs: the two
// are independent, and each is a good part of a regeneration's time.
class RecordsLoad {
 public:
  explicit RecordsLoad(const GenerateRequest& r) {
    if (!r.profile.empty())
      path_ = r.profile;
    else if (!r.output.empty() && !r.no_profile && is_strata_package(r.output) &&
             std::filesystem::exists(r.output + "/profile_records.yaml"))
      path_ = r.output + "/profile_records.yaml";
    if (!path_.empty()) loaded_ = std::async(std::launch::async, [path = path_] { return load_records(path); });
  }
  // The records at `path`; throws what load_records throws.
  ProfileRecords get(const std::string& path) {
    if (path != path_ || !loaded_.valid()) return load_records(path);
    return loaded_.get();
  }

 private:
  std::string path_;
  std::future<ProfileRecords> loaded_;
};

// Records found in an existing package at the output path, if they were made for the same inputs on this host
// with this compiler: a second generation reuses them instead of profiling again.
bool reusable_records(RecordsLoad& load, const std::string& output, const Arch& arch, const Op& op,
                      const std::string& compiler, ProfileRecords* out) {
  if (output.empty()) return false;
  const std::string path = output + "/profile_records.yaml";
  if (!std::filesystem::exists(path) || !is_strata_package(output)) return false;
  try {
    ProfileRecords r = load.get(path);
    if (r.arch_sha256 != arch.content_sha || (r.op != op.name && arch.is_gpu()) || r.cpu != host_cpu_id() ||
        r.compiler != compiler)
      return false;
    *out = std::move(r);
    return true;
  } catch (const Error&) {
    return false;  // unreadable old records are simply not reused
  }
}

// The command that regenerates the package from the copies of its inputs it carries, run in its inputs/ directory.
// It names only what decides the output (not --force, --jobs or --compiler, which profiling alone uses, nor the
// paths the first run was given), so the package regenerates itself byte for byte wherever it was made and however
// its directory is named now. Measured records are in the package, so a profiled package names them.
std::string package_command(const GenerateRequest& r, const std::string& name, bool have_records) {
  return fmt::format("strata generate --arch {} --op {} {} --name {} --max-kernels {} -o ..", kInputArch, kInputOp,
                     have_records ? "--profile ../profile_records.yaml" : "--no-profile", name, r.max_kernels);
}

// An input file's bytes, for the package's copy; they must be what the loader hashed.
std::string read_input(const std::string& path, const std::string& sha) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in || sha256_hex(bytes.str()) != sha)
    throw Error({path, 0, 0}, "changed or became unreadable while generating");
  return bytes.str();
}

// Level 0: profile records (given, reused, or measured now) or the model. Returns whether there are records.
bool level0_records(const GenerateRequest& r, RecordsLoad& load, PreparedPackage& p) {
  const Arch& arch = p.arch;
  if (!r.profile.empty() && arch.is_gpu())
    throw Error({r.profile, 0, 0}, fmt::format("--profile: profile records for CUDA architecture '{}' cannot be used "
                                               "yet (there is no GPU profiler); generate with --no-profile",
                                               arch.name));
  if (!r.profile.empty()) {
    p.records = load.get(r.profile);
    check_records_match(p.records, arch, p.op.name, r.profile);
    r.note(fmt::format("using profile records from {}", r.profile));
    return true;
  }
  if (arch.is_gpu()) {
    // No GPU profiler exists yet: every level of a CUDA package is modelled, whatever the descriptor asks.
    r.note(fmt::format("{}: levels 0 and 1 are modelled (Eqs. 2-7), not profiled on a GPU, and the manifest says so",
                       arch.name));
    return false;
  }
  if (r.no_profile) {
    r.note("--no-profile: level 0 is modelled (Eq. 3); the manifest says so");
    return false;
  }
  if (arch.levels[0].analyzer != Analyzer::profile) return false;
  if (!host_runs(arch.isa.vector)) {
    r.note(fmt::format(
        "this host cannot run {} micro-kernels, so level 0 is modelled (Eq. 3) and the manifest says so; to profile, "
        "build `strata profile-kit` for the target, run it there and pass its records with --profile FILE",
        isa_display_name(arch.isa.vector)));
    return false;
  }
  if (reusable_records(load, r.output, arch, p.op, compiler_id(r.compiler), &p.records)) {
    r.note(fmt::format("reusing profile records from {}/profile_records.yaml", r.output));
    return true;
  }
  require_profiling_allowed(r, arch);
  std::vector<UkernelSpec> kernels;
  for (const auto& c : p.sieve.levels[0].candidates) kernels.push_back(ukernel_for(arch, p.op, c));
  p.records = profile_on_host(arch, p.op.name, kernels, profile_options(r));
  return true;
}

// Level 1: profiled where the descriptor asks for it and level 0 is profiled (the measured blocks are of the
// selection's level-0 pool, which only measured level-0 times rank fairly), else modelled.
void level1_records(const GenerateRequest& r, PreparedPackage& p, const std::vector<double>& level0_seconds,
                    const SelectOptions& so) {
  const Arch& arch = p.arch;
  if (!level1_profiling_asked(arch)) return;
  if (!p.have_records) {
    r.note("level 1 is modelled as well (Eqs. 2-7): it is profiled only on top of a profiled level 0");
    return;
  }
  const std::vector<int> pool = level0_pool(p.sieve, p.inputs.machine, level0_seconds, so);
  std::vector<KitBlock> blocks;
  p.level1 = level1_profile_from(arch, p.op, p.sieve, pool, p.records, &blocks);
  if (!p.level1.empty()) return;  // records given or reused hold every block
  if (!r.profile.empty() && p.records.cpu != host_cpu_id()) {
    // Level-1 times measured here would not describe the machine the level-0 times came from.
    r.note(
        fmt::format("level 1 is modelled (Eqs. 2-7): {} holds no level-1 blocks for this selection, and was made "
                    "on another CPU ({})",
                    r.profile, p.records.cpu));
    return;
  }
  if (!host_runs(arch.isa.vector)) {
    r.note(fmt::format("level 1 is modelled (Eqs. 2-7): this host cannot run {} micro-kernels",
                       isa_display_name(arch.isa.vector)));
    return;
  }
  require_profiling_allowed(r, arch);
  std::vector<UkernelSpec> kernels;
  for (int i : pool) kernels.push_back(ukernel_for(arch, p.op, p.sieve.levels[0].candidates[static_cast<size_t>(i)]));
  r.note(fmt::format("profiling level 1: {} blocks of the {} level-0 tiles selection draws on", blocks.size(),
                     pool.size()));
  const ProfileRecords measured = profile_on_host(arch, p.op.name, kernels, profile_options(r), blocks);
  p.records.level1 = measured.level1;  // every block this selection needs; the host profiler checked that
  p.records.method = measured.method;
  p.level1 = level1_profile_from(arch, p.op, p.sieve, pool, p.records, &blocks);
}

}  // namespace

std::unique_ptr<PreparedPackage> prepare_package(const GenerateRequest& r) {
  auto p = std::make_unique<PreparedPackage>();
  p->arch = load_arch(r.arch_path);
  p->op = load_op(r.op_path);
  const Arch& arch = p->arch;
  const Op& op = p->op;
  check_package_support(arch, op);
  const std::string name = r.name.empty() ? fmt::format("strata_{}_{}", op.name, arch.name) : r.name;
  if (const std::string problem = package_name_problem(name); !problem.empty())
    throw Error({"--name", 0, 0}, fmt::format("'{}' cannot name a package: it {}", name, problem));
  RecordsLoad records_load(r);
  p->sieve = run_sieve(arch, op).at(0);
  require_candidates(p->sieve, arch);
  PackageInputs& in = p->inputs;
  in.machine = make_machine(arch, op, p->sieve);

  p->have_records = level0_records(r, records_load, *p);
  // Without records: GPU CUDA-core tiles are modelled from their loads and issue slots, the rest from flops.
  in.level0_seconds =
      p->have_records ? level0_seconds_from(arch, op, p->sieve, p->records) : gpu_level0_seconds(arch, op, p->sieve);
  SelectOptions so = select_options_for(arch, op, p->sieve, in.machine);
  so.max_kernels = r.max_kernels;
  level1_records(r, *p, in.level0_seconds, so);
  if (!p->level1.empty()) so.level1 = &p->level1;
  p->selection = select_kernels(p->sieve, in.machine, in.level0_seconds, so);
  p->extra_units = gpu_extra_units(arch, op, p->sieve.unit);
  for (const UnitSelection& u : p->extra_units) in.extra_units.push_back(&u);

  in.arch = &p->arch;
  in.op = &p->op;
  in.sieve = &p->sieve;
  in.selection = &p->selection;
  in.level1_profiled = !p->level1.empty();
  in.name = name;
  if (p->have_records) {
    in.records = &p->records;
    in.records_yaml = write_records_yaml(p->records);
  }
  in.provenance.command = package_command(r, name, p->have_records);
  in.provenance.command_dir = kInputsDir;
  in.input_files[std::string(kInputsDir) + kInputArch] = read_input(r.arch_path, arch.content_sha);
  in.input_files[std::string(kInputsDir) + kInputOp] = read_input(r.op_path, op.content_sha);
  in.provenance.inputs["arch " + arch.name] = arch.content_sha;
  in.provenance.inputs["op " + op.name] = op.content_sha;
  if (p->have_records) in.provenance.inputs["profile records"] = sha256_hex(in.records_yaml);
  return p;
}

}  // namespace strata
