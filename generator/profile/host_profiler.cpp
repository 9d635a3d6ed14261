#include "profile/host_profiler.h"

#include <fmt/format.h>
#include <stdio.h>  // popen, pclose
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "common/error.h"
#include "common/process_status.h"
#include "cpu/kit/device_info.h"  // templates/: the text every profile kit carries
#include "profile/profile_kit.h"
#include "profile/progress.h"
#include "render/template_renderer.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr char kWhere[] = "<profiler>";
constexpr int kErrorLines = 20;  // lines of a failing command's output quoted in the error

[[noreturn]] void fail(const std::string& message) { throw Error({kWhere, 0, 0}, message); }

// ---------------------------------------------------------------------------------------------------------------
// Commands and files.
// ---------------------------------------------------------------------------------------------------------------

// A fresh directory under the system temp directory, removed with everything in it when the object goes away,
// on errors included.
class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "strata-profile-XXXXXX").string();
    if (!mkdtemp(templ.data()))
      fail(fmt::format("cannot create a temporary directory {}: {}", templ, std::strerror(errno)));
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) fail(fmt::format("cannot write {}", path));
}

// The first `count` lines of `text`, indented, for quoting a command's output in an error message.
std::string first_lines(const std::string& text, int count) {
  std::istringstream in(text);
  std::string line, out;
  int n = 0;
  while (std::getline(in, line)) {
    if (n++ == count) return out + "  ...\n";
    out += "  " + line + "\n";
  }
  return out.empty() ? "  (no output)\n" : out;
}

// Runs `command` (a shell command line) with stdout and stderr into `log`; throws with both when it fails.
void run_logged(const std::string& command, const std::string& log, const std::string& what) {
  const std::string line = command + " >" + shell_quote(log) + " 2>&1";
  const int status = std::system(line.c_str());
  if (!succeeded(status))
    fail(fmt::format("{} failed ({}): {}\n{}", what, status_text(status), command,
                     first_lines(read_text(log), kErrorLines)));
}

// ---------------------------------------------------------------------------------------------------------------
// Host facts.
// ---------------------------------------------------------------------------------------------------------------

std::string compiler_version(const std::string& compiler, const TempDir& dir) {
  const std::string log = dir.file("compiler-version.txt");
  run_logged(compiler + " --version", log, "running the compiler");
  std::istringstream in(read_text(log));
  std::string first;
  std::getline(in, first);
  if (first.empty()) fail(fmt::format("'{} --version' printed nothing: is it a C++ compiler?", compiler));
  return first;
}

// Kernels must run on this CPU: an AVX-512 kernel on an AVX2 host dies of SIGILL, which would read as a crash.
void check_host_runs(const std::vector<UkernelSpec>& kernels) {
  for (const UkernelSpec& k : kernels)
    if (!host_runs(k.isa))
      fail(fmt::format(
          "this host cannot run {} micro-kernels: profile on the target machine (strata profile-kit) and pass its "
          "records with --profile FILE, or generate with --no-profile",
          isa_display_name(k.isa)));
}

// The text of the C string literals in `text` ("GCC " "12.2.0" ...), concatenated as the compiler would.
std::string string_literals(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ' ' || text[i] == '\t') continue;
    if (text[i] != '"') return "";
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
      out += text[i];
    }
    if (i == text.size()) return "";
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Building.
// ---------------------------------------------------------------------------------------------------------------

struct CompileJob {
  std::string command;  // without output redirection
  std::string log;
  int status = 0;
  bool ran = false;
};

// Runs the jobs on `workers` threads (the calling one included); after the first failure the remaining jobs are
// skipped, since the profile is lost anyway.
void run_parallel(std::vector<CompileJob>& jobs, int workers) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (size_t i; !failed && (i = next++) < jobs.size();) {
      const std::string line = jobs[i].command + " >" + shell_quote(jobs[i].log) + " 2>&1";
      jobs[i].status = std::system(line.c_str());
      jobs[i].ran = true;
      if (!succeeded(jobs[i].status)) failed = true;
    }
  };
  std::vector<std::thread> threads;
  try {
    for (int w = 1; w < workers && static_cast<size_t>(w) < jobs.size(); ++w) threads.emplace_back(work);
  } catch (const std::system_error&) {
    // Fewer threads than asked for only makes the build slower.
  }
  work();
  for (auto& t : threads) t.join();
}

// Writes the kit into `dir`, compiles its units in parallel with the kit's flags and links them, as the kit's
// CMakeLists.txt would; returns the profiler binary's path.
std::string build_kit(const ProfileKit& kit, const ProfileOptions& options, const TempDir& dir) {
  for (const auto& [relative, content] : kit.files) write_text(dir.file("kit/" + relative), content);
  std::string base = options.compiler;
  for (const auto& flag : kit_build_flags()) base += " " + flag;
  std::vector<CompileJob> jobs;
  std::vector<std::string> objects;
  for (size_t u = 0; u < kit.units.size(); ++u) {
    const KitUnit& unit = kit.units[u];
    std::string flags;
    for (const auto& flag : unit.flags) flags += " " + flag;
    const std::string object = dir.file(fmt::format("unit{}.o", u));
    jobs.push_back({fmt::format("{}{} -c {} -o {}", base, flags, shell_quote(dir.file("kit/" + unit.source)),
                                shell_quote(object)),
                    dir.file(fmt::format("unit{}.log", u))});
    objects.push_back(shell_quote(object));
  }
  // The main comes last in the kit's list: the quick main should not delay the start of a long kernel unit.
  run_parallel(jobs, std::max(1, options.jobs));
  for (const CompileJob& job : jobs)
    if (job.ran && !succeeded(job.status))
      fail(fmt::format("compiling micro-kernels failed ({}): {}\n{}", status_text(job.status), job.command,
                       first_lines(read_text(job.log), kErrorLines)));
  std::string object_list;
  for (const auto& o : objects) object_list += " " + o;
  const std::string binary = dir.file(kKitBinary);
  run_logged(fmt::format("{} -o {}{}", options.compiler, shell_quote(binary), object_list), dir.file("link.log"),
             "linking the profiler");
  return binary;
}

// ---------------------------------------------------------------------------------------------------------------
// Running.
// ---------------------------------------------------------------------------------------------------------------

// Runs the kit's profiler, showing its "kernel I/N round R/RS: NAME" and "block I/N: NAME MxNxK" lines as progress,
// and loads the records file it writes.
ProfileRecords run_profiler(const std::string& binary, const ProfileOptions& options, const TempDir& dir,
                            Progress& progress) {
  const std::string err = dir.file("run.log");
  const std::string records = dir.file(kKitRecordsFile);
  const std::string command = fmt::format("{} -o {} --depth {} --rounds {}", shell_quote(binary),
                                          shell_quote(records), options.depth, options.rounds);
  FILE* pipe = popen((command + " 2>" + shell_quote(err)).c_str(), "r");
  if (!pipe) fail(fmt::format("cannot start the profiler ({}): {}", std::strerror(errno), command));
  std::vector<std::string> lines;
  std::string current;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe)) {
    current += buffer;
    if (current.empty() || current.back() != '\n') continue;
    current.pop_back();
    std::string stage;
    int64_t done = 0, total = 0;
    if (parse_progress(current, &stage, &done, &total)) progress.status(stage, done, total);
    lines.push_back(std::move(current));
    current.clear();
  }
  if (!current.empty()) lines.push_back(current);
  const int status = pclose(pipe);
  progress.end();
  if (!succeeded(status)) {
    std::string out;
    for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i) out += "  " + lines[i] + "\n";
    fail(fmt::format("the profiler failed ({}): {}\n{}{}", status_text(status), command,
                     first_lines(read_text(err), kErrorLines), out.empty() ? "" : "its last output lines:\n" + out));
  }
  try {
    return load_records(records);
  } catch (const Error& e) {
    fail(fmt::format("the profiler's records file does not load: {}", e.what()));
  }
}

// The records must describe exactly the kernels asked for, made for this arch and op: the kit and the generator
// agree by construction, and this says so loudly if they ever stop agreeing.
void check_profiled(const ProfileRecords& records, const Arch& arch, const std::string& op_name,
                    const std::vector<UkernelSpec>& kernels, const std::vector<KitBlock>& blocks, int depth) {
  check_records_match(records, arch, op_name, "<profiler>");
  std::set<std::string> expected;
  for (const UkernelSpec& k : kernels) expected.insert(k.name());
  std::set<std::string> got;
  for (const ProfileRecord& r : records.records) {
    if (!expected.count(r.kernel))
      fail(fmt::format("the profiler recorded {}, which it was not asked for", r.kernel));
    if (r.depth != depth) fail(fmt::format("the profiler recorded {} at depth {}, not {}", r.kernel, r.depth, depth));
    got.insert(r.kernel);
  }
  for (const auto& name : expected)
    if (!got.count(name)) fail(fmt::format("the profiler recorded no result for {}", name));
  if (records.level1.size() != blocks.size())
    fail(fmt::format("the profiler recorded {} level-1 blocks, not the {} asked for", records.level1.size(),
                     blocks.size()));
  for (const KitBlock& b : blocks)
    if (!find_level1(records, b.kernel, b.block))
      fail(fmt::format("the profiler recorded no result for level-1 block {} {}x{}x{}", b.kernel, b.block[0],
                       b.block[1], b.block[2]));
}

}  // namespace

bool host_runs(VectorIsa isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (isa == VectorIsa::avx512) return __builtin_cpu_supports("avx512f");
  if (isa == VectorIsa::avx2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return false;
#elif defined(__aarch64__)
  return isa == VectorIsa::neon;  // Advanced SIMD is part of the AArch64 base architecture
#else
  (void)isa;
  return false;
#endif
}

std::string compiler_id(const std::string& compiler) {
  TempDir dir;
  compiler_version(compiler, dir);  // a clear error when the compiler does not run at all
  // The name its records would carry: the kit's own macro, expanded by the compiler's preprocessor.
  TemplateRenderer renderer(default_templates_dir());
  ctemplate::TemplateDictionary dict("compiler_id");
  write_text(dir.file("compiler_id.h"), renderer.render("cpu/kit/compiler_id.h", dict));
  write_text(dir.file("probe.cpp"), "#include \"compiler_id.h\"\nstrata_compiler_id: STRATA_KIT_COMPILER_ID\n");
  std::string command = compiler;
  for (const auto& flag : kit_build_flags()) command += " " + flag;
  command += " -E -P " + shell_quote(dir.file("probe.cpp"));
  const std::string log = dir.file("probe.log");
  run_logged(command, log, "preprocessing the compiler identity probe");
  std::istringstream in(read_text(log));
  constexpr char kTag[] = "strata_compiler_id:";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(kTag, 0) == 0) {
      const std::string id = string_literals(line.substr(sizeof kTag - 1));
      if (!id.empty()) return id;
      fail(fmt::format("cannot read the compiler identity from '{}' (output of: {})", line, command));
    }
  fail(fmt::format("the compiler identity probe printed no 'strata_compiler_id:' line: {}", command));
}

std::string host_cpu_id() { return strata_kit::cpu_identity(); }

ProfileRecords profile_on_host(const Arch& arch, const std::string& op_name, const std::vector<UkernelSpec>& kernels,
                               const ProfileOptions& options, const std::vector<KitBlock>& blocks) {
  const auto start = std::chrono::steady_clock::now();
  if (options.depth < 1) fail(fmt::format("the profiling depth must be >= 1, not {}", options.depth));
  if (options.rounds < 1) fail(fmt::format("the profiling rounds must be >= 1, not {}", options.rounds));
  TempDir dir;
  compiler_version(options.compiler, dir);  // a clear error when the compiler does not run at all
  TemplateRenderer renderer(options.templates_dir.empty() ? default_templates_dir() : options.templates_dir);
  KitInputs in;
  in.arch = &arch;
  in.op_name = op_name;
  in.kernels = kernels;
  in.blocks = blocks;
  ProfileKit kit;
  try {
    kit = render_profile_kit(in, renderer);
  } catch (const Error& e) {
    fail(e.message());  // the kit's checks of the kernel list, reported as the profiler's
  }
  check_host_runs(kernels);

  Progress progress(options.progress);
  progress.line(fmt::format("compiling {} micro-kernels ({} jobs)...", kernels.size(), std::max(1, options.jobs)));
  const std::string binary = build_kit(kit, options, dir);
  const auto built = std::chrono::steady_clock::now();
  ProfileRecords out = run_profiler(binary, options, dir, progress);
  check_profiled(out, arch, op_name, kernels, blocks, options.depth);
  const auto done = std::chrono::steady_clock::now();
  progress.line(fmt::format("{} micro-kernels{} in {:.1f} s (compile {:.1f} s, timing {:.1f} s)", kernels.size(),
                            blocks.empty() ? "" : fmt::format(" and {} level-1 blocks", blocks.size()),
                            std::chrono::duration<double>(done - start).count(),
                            std::chrono::duration<double>(built - start).count(),
                            std::chrono::duration<double>(done - built).count()));
  return out;
}

}  // namespace strata
