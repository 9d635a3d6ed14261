// strata generate --arch A --op O -o DIR [--name N] [--profile FILE | --no-profile] [--force] [--jobs N]: the whole
// pipeline, spec -> sieve -> analyze (profile level 0 on this host, or reuse records) -> select -> emit.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/spec_options.h"
#include "common/c_names.h"
#include "common/inert_text.h"
#include "common/sha256.h"
#include "emit/package.h"
#include "emit/package_writer.h"
#include "profile/host_profiler.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "spec/yaml_reader.h"

namespace strata::cli {
namespace {

struct GenerateOptions {
  SpecPaths paths;
  std::string output;
  std::string name;
  std::string profile;
  bool no_profile = false;
  bool force = false;
  std::string compiler = "c++";
  size_t max_kernels = 12;
  int jobs = 0;  // profiling's parallel compile jobs; 0: the host's hardware threads
};

int profile_jobs(const GenerateOptions& o) {
  return o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void note(const std::string& message) { std::fprintf(stderr, "strata: %s\n", printable_line(message).c_str()); }

// Records found in an existing package at the output path, if they were made for the same inputs on this host
// with this compiler: a second generation reuses them instead of profiling again.
bool reusable_records(const std::string& output, const Arch& arch, const Op& op, const std::string& compiler,
                      ProfileRecords* out) {
  const std::string path = output + "/profile_records.yaml";
  if (!std::filesystem::exists(path) || !is_strata_package(output)) return false;
  try {
    ProfileRecords r = load_records(path);
    if (r.arch_sha256 != arch.content_sha || r.op != op.name || r.cpu != host_cpu_id() || r.compiler != compiler)
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
std::string package_command(const GenerateOptions& o, const std::string& name, bool have_records) {
  return fmt::format("strata generate --arch {} --op {} {} --name {} --max-kernels {} -o ..", kInputArch, kInputOp,
                     have_records ? "--profile ../profile_records.yaml" : "--no-profile", name, o.max_kernels);
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

int run_generate(const GenerateOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const Arch arch = load_arch(o.paths.arch);
  const Op op = load_op(o.paths.op);
  check_package_support(arch, op);
  const std::string name = o.name.empty() ? fmt::format("strata_{}_{}", op.name, arch.name) : o.name;
  if (const std::string problem = package_name_problem(name); !problem.empty())
    throw Error({"--name", 0, 0}, fmt::format("'{}' cannot name a package: it {}", name, problem));
  const SieveResult sieve = run_sieve(arch, op).at(0);
  require_candidates(sieve, arch);
  const strata_model::Machine machine = make_machine(arch, op, sieve);

  // Level 0: profile records (given, reused, or measured now) or the model.
  ProfileRecords records;
  bool have_records = false;
  const auto& level0 = sieve.levels[0].candidates;
  if (!o.profile.empty() && arch.is_gpu()) {
    throw Error({o.profile, 0, 0}, fmt::format("--profile: profile records for CUDA architecture '{}' cannot be used "
                                               "yet (there is no GPU profiler); generate with --no-profile",
                                               arch.name));
  } else if (!o.profile.empty()) {
    records = load_records(o.profile);
    check_records_match(records, arch, op.name, o.profile);
    have_records = true;
    note(fmt::format("using profile records from {}", o.profile));
  } else if (arch.is_gpu()) {
    // No GPU profiler exists yet: every level of a CUDA package is modelled, whatever the descriptor asks.
    note(fmt::format("{}: levels 0 and 1 are modelled (Eqs. 2-7), not profiled on a GPU, and the manifest says so",
                     arch.name));
  } else if (o.no_profile) {
    note("--no-profile: level 0 is modelled (Eq. 3); the manifest says so");
  } else if (arch.levels[0].analyzer == Analyzer::profile && !host_runs(arch.isa.vector)) {
    note(fmt::format(
        "this host cannot run {} micro-kernels, so level 0 is modelled (Eq. 3) and the manifest says so; to profile, "
        "build `strata profile-kit` for the target, run it there and pass its records with --profile FILE",
        isa_display_name(arch.isa.vector)));
  } else if (arch.levels[0].analyzer == Analyzer::profile) {
    if (reusable_records(o.output, arch, op, compiler_id(o.compiler), &records)) {
      note(fmt::format("reusing profile records from {}/profile_records.yaml", o.output));
    } else {
      std::vector<UkernelSpec> kernels;
      for (const auto& c : level0) kernels.push_back(ukernel_for(arch, op, c));
      ProfileOptions po;
      po.compiler = o.compiler;
      po.jobs = profile_jobs(o);
      po.progress = isatty(2);
      records = profile_on_host(arch, op.name, kernels, po);
    }
    have_records = true;
  }
  // Without records: GPU CUDA-core tiles are modelled from their loads and issue slots, the rest from flops.
  const std::vector<double> level0_seconds =
      have_records ? level0_seconds_from(arch, op, sieve, records) : gpu_level0_seconds(arch, op, sieve);

  SelectOptions so = select_options_for(arch, op, sieve);
  so.max_kernels = o.max_kernels;

  // Level 1: profiled where the descriptor asks for it and level 0 is profiled (the measured blocks are of the
  // selection's level-0 pool, which only measured level-0 times rank fairly), else modelled.
  Level1Profile level1;
  if (level1_profiling_asked(arch) && !have_records) {
    note("level 1 is modelled as well (Eqs. 2-7): it is profiled only on top of a profiled level 0");
  } else if (level1_profiling_asked(arch)) {
    const std::vector<int> pool = level0_pool(sieve, machine, level0_seconds, so);
    std::vector<KitBlock> blocks;
    level1 = level1_profile_from(arch, op, sieve, pool, records, &blocks);
    const bool recorded = !level1.empty();  // records given or reused hold every block
    if (!recorded && !o.profile.empty() && records.cpu != host_cpu_id()) {
      // Level-1 times measured here would not describe the machine the level-0 times came from.
      note(
          fmt::format("level 1 is modelled (Eqs. 2-7): {} holds no level-1 blocks for this selection, and was made "
                      "on another CPU ({})",
                      o.profile, records.cpu));
    } else if (!recorded && !host_runs(arch.isa.vector)) {
      note(fmt::format("level 1 is modelled (Eqs. 2-7): this host cannot run {} micro-kernels",
                       isa_display_name(arch.isa.vector)));
    } else if (!recorded) {
      std::vector<UkernelSpec> kernels;
      for (int i : pool) kernels.push_back(ukernel_for(arch, op, level0[static_cast<size_t>(i)]));
      ProfileOptions po;
      po.compiler = o.compiler;
      po.jobs = profile_jobs(o);
      po.progress = isatty(2);
      note(fmt::format("profiling level 1: {} blocks of the {} level-0 tiles selection draws on", blocks.size(),
                       pool.size()));
      const ProfileRecords measured = profile_on_host(arch, op.name, kernels, po, blocks);
      records.level1 = measured.level1;  // every block this selection needs; the host profiler checked that
      records.method = measured.method;
      level1 = level1_profile_from(arch, op, sieve, pool, records, &blocks);
    }
  }
  if (!level1.empty()) so.level1 = &level1;
  const Selection selection = select_kernels(sieve, machine, level0_seconds, so);

  PackageInputs in;
  in.arch = &arch;
  in.op = &op;
  in.sieve = &sieve;
  in.machine = machine;
  in.selection = &selection;
  in.level0_seconds = level0_seconds;
  in.level1_profiled = !level1.empty();
  in.name = name;
  if (have_records) {
    in.records = &records;
    in.records_yaml = write_records_yaml(records);
  }
  in.provenance.command = package_command(o, name, have_records);
  in.provenance.command_dir = kInputsDir;
  in.input_files[std::string(kInputsDir) + kInputArch] = read_input(o.paths.arch, arch.content_sha);
  in.input_files[std::string(kInputsDir) + kInputOp] = read_input(o.paths.op, op.content_sha);
  in.provenance.inputs["arch " + arch.name] = arch.content_sha;
  in.provenance.inputs["op " + op.name] = op.content_sha;
  if (have_records) in.provenance.inputs["profile records"] = sha256_hex(in.records_yaml);
  TemplateRenderer renderer(default_templates_dir());
  const auto files = render_package(in, renderer);
  write_package(o.output, files, o.force);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  note(fmt::format("wrote {} ({} files, {} kernels) in {:.1f} s", o.output, files.size(), package_kernel_count(files),
                   seconds));
  return 0;
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("generate", "Generate a kernel source package for an architecture and operator");
  auto o = std::make_shared<GenerateOptions>();
  add_spec_options(*cmd, o->paths);
  cmd->add_option("-o,--output", o->output, "package directory to write")->required();
  cmd->add_option("--name", o->name, "package and C API name (default strata_<op>_<arch>)");
  auto* profile = cmd->add_option("--profile", o->profile, "use level-0 profile records from FILE (made elsewhere)");
  cmd->add_flag("--no-profile", o->no_profile, "do not profile: model level 0 (Eq. 3)")->excludes(profile);
  cmd->add_flag("--force", o->force, "replace an existing directory even if it is not a Strata package");
  cmd->add_option("--compiler", o->compiler, "host compiler used for profiling (default c++)");
  cmd->add_option("--max-kernels", o->max_kernels, "most kernels the package may hold")->check(CLI::Range(1, 64));
  cmd->add_option("--jobs", o->jobs, "compile jobs while profiling (default: the host's hardware threads)")
      ->check(CLI::Range(1, 1024));
  return {cmd, [o]() { return run_generate(*o); }};
}

}  // namespace strata::cli
