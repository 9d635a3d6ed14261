#include "profile/host_profiler.h"

#include <fmt/format.h>
#include <stdio.h>  // popen, pclose
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

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
#include "render/template_renderer.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr char kWhere[] = "<profiler>";
constexpr char kPackage[] = "strata_profile";
constexpr char kPackageUpper[] = "STRATA_PROFILE";
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

std::string status_text(int status) {
  if (status == -1) return "could not be started";
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 127) return "exit status 127: command not found";
  // The shell reports a child killed by a signal as 128 + signal.
  if (code > 128 && code < 160) return fmt::format("exit status {}: killed by signal {}", code, code - 128);
  return fmt::format("exit status {}", code);
}

bool succeeded(int status) { return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0; }

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
void check_host_runs(VectorIsa isa) {
  if (!host_runs(isa))
    fail(fmt::format(
        "this host cannot run {} micro-kernels: profile on the target machine (strata profile-kit) and pass its "
        "records with --profile FILE, or generate with --no-profile",
        isa_display_name(isa)));
}

void check_kernels(const std::vector<UkernelSpec>& kernels) {
  std::set<std::string> names;
  for (const UkernelSpec& k : kernels) {
    const int lanes = k.isa == VectorIsa::avx512 ? 16 : k.isa == VectorIsa::avx2 ? 8 : 0;
    if (lanes == 0)
      fail(fmt::format("{}: host profiling covers AVX-512 and AVX2 micro-kernels only, not {}", k.name(),
                       to_string(k.isa)));
    if (k.lanes != lanes || k.mr < 1 || k.ku < 1 || k.nr < lanes || k.nr % lanes != 0)
      fail(
          fmt::format("{}: not a valid register tile (lanes {}, mr {}, nr {}, ku {}): nr must be a positive "
                      "multiple of the {} lanes of {}",
                      k.name(), k.lanes, k.mr, k.nr, k.ku, lanes, to_string(k.isa)));
    if (!names.insert(k.name()).second) fail(fmt::format("{} is listed twice", k.name()));
    check_host_runs(k.isa);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Sources.
// ---------------------------------------------------------------------------------------------------------------

std::string kernel_namespace(const UkernelSpec& k) { return "k_" + k.name(); }

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// Kernels are split into translation units of equal compile flags (an AVX2 kernel built with -mavx512f would use
// EVEX encodings and 32 registers: not what ships), each group over up to `jobs` units balanced by kernel size.
std::vector<std::vector<size_t>> split_units(const std::vector<UkernelSpec>& kernels, int jobs) {
  std::map<std::vector<std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < kernels.size(); ++i) groups[kernels[i].compile_flags()].push_back(i);
  std::vector<std::vector<size_t>> units;
  for (auto& [flags, members] : groups) {
    auto size = [&](size_t i) { return kernels[i].mr * kernels[i].vectors() * kernels[i].ku; };
    std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) { return size(a) > size(b); });
    const size_t count = std::min(members.size(), static_cast<size_t>(jobs));
    std::vector<std::vector<size_t>> group(count);
    std::vector<int64_t> load(count, 0);
    for (size_t i : members) {  // largest first into the lightest unit
      const size_t unit = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      group[unit].push_back(i);
      load[unit] += size(i);
    }
    for (auto& unit : group) units.push_back(std::move(unit));
  }
  return units;
}

std::string render_kernel(TemplateRenderer& renderer, const UkernelSpec& k) {
  ctemplate::TemplateDictionary dict("ukernel");
  fill_ukernel_dictionary(k, &dict);
  dict.SetValue("PACKAGE", kPackage);
  dict.SetValue("PACKAGE_UPPER", kPackageUpper);
  dict.ShowSection("PROFILE_ENTRY");
  return renderer.render("cpu/ukernel.cpp.tpl", dict);
}

// One translation unit holding several rendered kernels. Each kernel file defines its helpers in an anonymous
// namespace inside strata_profile_internal, so two of them in one unit would collide; wrapping each in a
// namespace of its own keeps them apart without touching the shipped text. The kernel files' #include lines are
// hoisted to the top so that no header is ever included inside a namespace.
std::string kernel_unit_source(TemplateRenderer& renderer, const std::vector<UkernelSpec>& kernels,
                               const std::vector<size_t>& members) {
  std::vector<std::string> includes;
  std::string bodies;
  for (size_t i : members) {
    const std::string ns = kernel_namespace(kernels[i]);
    bodies += fmt::format(
        "\nnamespace {0}::{1}_internal {{\nusing namespace ::{1}_internal;  // TileArgs\n}}\n"
        "namespace {0} {{\n",
        ns, kPackage);
    std::istringstream in(render_kernel(renderer, kernels[i]));
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("#include", 0) != 0) {
        bodies += line + "\n";
      } else if (std::find(includes.begin(), includes.end(), line) == includes.end()) {
        includes.push_back(line);
      }
    }
    bodies += fmt::format("}}  // namespace {}\n", ns);
  }
  return "// Micro-kernels for strata's host profiler, each in a namespace of its own (see profiler.cpp).\n" +
         join(includes, "\n") + "\n" + bodies;
}

std::string internal_header(TemplateRenderer& renderer) {
  ctemplate::TemplateDictionary dict("internal");
  dict.SetValue("PACKAGE", kPackage);
  dict.SetValue("PACKAGE_UPPER", kPackageUpper);
  return renderer.render("cpu/internal.h.tpl", dict);
}

std::string profiler_main(TemplateRenderer& renderer, const std::vector<UkernelSpec>& kernels) {
  ctemplate::TemplateDictionary dict("profiler");
  dict.SetValue("PACKAGE", kPackage);
  for (const UkernelSpec& k : kernels) {
    auto* entry = dict.AddSectionDictionary("KERNEL");
    entry->SetValue("NAME", k.name());
    entry->SetValue("NS", kernel_namespace(k));
    entry->SetIntValue("MR", k.mr);
    entry->SetIntValue("NR", k.nr);
    entry->SetIntValue("KU", k.ku);
  }
  return renderer.render("cpu/profiler.cpp.tpl", dict);
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

// Compiles the units and the main in parallel and links them; returns the binary's path.
std::string build_profiler(TemplateRenderer& renderer, const std::vector<UkernelSpec>& kernels,
                           const ProfileOptions& options, const TempDir& dir) {
  write_text(dir.file("internal.h"), internal_header(renderer));
  write_text(dir.file("profiler.cpp"), profiler_main(renderer, kernels));
  const std::string base = options.compiler + " -std=c++17 -O2";
  std::vector<CompileJob> jobs;
  std::vector<std::string> objects;
  auto add = [&](const std::string& name, const std::string& flags) {
    const std::string object = dir.file(name + ".o");
    jobs.push_back(
        {fmt::format("{}{} -c {} -o {}", base, flags, shell_quote(dir.file(name + ".cpp")), shell_quote(object)),
         dir.file(name + ".log")});
    objects.push_back(shell_quote(object));
  };
  const auto units = split_units(kernels, std::max(1, options.jobs));
  for (size_t u = 0; u < units.size(); ++u) {
    const std::string name = fmt::format("kernels{}", u);
    write_text(dir.file(name + ".cpp"), kernel_unit_source(renderer, kernels, units[u]));
    add(name, " " + join(kernels[units[u].front()].compile_flags(), " "));
  }
  add("profiler", "");  // last: the quick main should not delay the start of a long kernel unit
  run_parallel(jobs, std::max(1, options.jobs));
  for (const CompileJob& job : jobs)
    if (job.ran && !succeeded(job.status))
      fail(fmt::format("compiling micro-kernels failed ({}): {}\n{}", status_text(job.status), job.command,
                       first_lines(read_text(job.log), kErrorLines)));
  const std::string binary = dir.file("profiler");
  run_logged(fmt::format("{} -o {} {}", options.compiler, shell_quote(binary), join(objects, " ")),
             dir.file("link.log"), "linking the profiler");
  return binary;
}

// ---------------------------------------------------------------------------------------------------------------
// Running.
// ---------------------------------------------------------------------------------------------------------------

// A one-line progress display on stderr (a terminal: the caller enables it only for one), ended cleanly when the
// profile finishes or fails.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  ~Progress() { end(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void line(const std::string& text) {
    if (enabled_) fmt::print(stderr, "profiling: {}\n", text);
  }
  void status(const std::string& text) {
    if (!enabled_) return;
    fmt::print(stderr, "\rprofiling: {}\x1b[K", text);
    open_ = true;
  }
  void end() {
    if (open_) fmt::print(stderr, "\n");
    open_ = false;
  }

 private:
  bool enabled_;
  bool open_ = false;
};

// Runs the profiler binary, showing "START" lines as progress, and returns its stdout lines.
std::vector<std::string> run_profiler(const std::string& binary, const ProfileOptions& options, size_t kernels,
                                      const TempDir& dir, Progress& progress) {
  const std::string err = dir.file("run.log");
  const std::string command = fmt::format("{} {} {}", shell_quote(binary), options.depth, options.rounds);
  FILE* pipe = popen((command + " 2>" + shell_quote(err)).c_str(), "r");
  if (!pipe) fail(fmt::format("cannot start the profiler ({}): {}", std::strerror(errno), command));
  std::vector<std::string> lines;
  std::string current;
  size_t started = 0;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe)) {
    current += buffer;
    if (current.empty() || current.back() != '\n') continue;
    current.pop_back();
    if (current.rfind("START ", 0) == 0) {
      const std::string round =
          options.rounds == 1 ? "" : fmt::format(" (round {}/{})", started / kernels + 1, options.rounds);
      progress.status(fmt::format("timing {}/{} {}{}", started % kernels + 1, kernels, current.substr(6), round));
      ++started;
    }
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
  return lines;
}

// 4 significant digits: what a ~1% measurement supports, and what keeps the records file readable.
double round_significant(double x) { return std::stod(fmt::format("{:.4g}", x)); }

std::vector<ProfileRecord> parse_results(const std::vector<std::string>& lines,
                                         const std::vector<UkernelSpec>& kernels, int depth) {
  std::map<std::string, const UkernelSpec*> by_name;
  for (const UkernelSpec& k : kernels) by_name[k.name()] = &k;
  std::map<std::string, ProfileRecord> results;
  for (const std::string& line : lines) {
    if (line.rfind("START ", 0) == 0) continue;
    std::istringstream in(line);
    std::string tag, name, seconds_text, rest;
    in >> tag >> name >> seconds_text;
    char* end = nullptr;
    const double seconds = std::strtod(seconds_text.c_str(), &end);
    const auto kernel = by_name.find(name);
    if (tag != "RESULT" || kernel == by_name.end() || seconds_text.empty() || *end != '\0' ||
        !std::isfinite(seconds) || !(seconds > 0) || (in >> rest) || results.count(name))
      fail(
          fmt::format("cannot read the profiler's output line '{}' (expected 'RESULT <kernel> <seconds>' once per "
                      "kernel)",
                      line));
    const UkernelSpec& k = *kernel->second;
    const double flops = 2.0 * k.mr * k.nr * depth;
    results[name] = {name, k.mr, k.nr, k.ku, depth, seconds, round_significant(flops / seconds / 1e9)};
  }
  std::vector<ProfileRecord> out;
  for (const auto& [name, k] : by_name) {
    if (!results.count(name)) fail(fmt::format("the profiler printed no result for {}", name));
    out.push_back(results[name]);
  }
  return out;  // sorted by name: std::map order
}

std::string method_text(const ProfileOptions& options) {
  return fmt::format(
      "Wall time per call of each kernel's full MR x NR register tile on 64-byte aligned packed panels of depth {} "
      "kept in L1 (alpha = beta = 1), after a check against a reference: the fastest of {} rounds over all kernels "
      "of the median of 3 batches of about 2 ms after a warm-up batch, on one unpinned thread, compiled with "
      "-std=c++17 -O2 and the kernel's ISA flags.",
      options.depth, options.rounds);
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
  return compiler_version(compiler, dir);
}

std::string host_cpu_id() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  char vendor[13] = {};
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return "unknown x86-64 CPU (no CPUID)";
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  __get_cpuid(1, &eax, &ebx, &ecx, &edx);
  int family = static_cast<int>((eax >> 8) & 0xf);
  int model = static_cast<int>((eax >> 4) & 0xf);
  const int stepping = static_cast<int>(eax & 0xf);
  // The extended fields count only for these families (Intel SDM, CPUID leaf 1).
  if (family == 0xf) family += static_cast<int>((eax >> 20) & 0xff);
  if (family == 0x6 || family >= 0xf) model += static_cast<int>(((eax >> 16) & 0xf) << 4);
  std::string brand;
  if (__get_cpuid_max(0x80000000, nullptr) >= 0x80000004) {
    char text[49] = {};
    for (unsigned leaf = 0; leaf < 3; ++leaf) {
      __get_cpuid(0x80000002 + leaf, &eax, &ebx, &ecx, &edx);
      const unsigned regs[4] = {eax, ebx, ecx, edx};
      std::memcpy(text + 16 * leaf, regs, 16);
    }
    brand = text;
    brand.erase(0, brand.find_first_not_of(' '));
    brand.erase(brand.find_last_not_of(' ') + 1);
  }
  return fmt::format("{}{}{} family {} model {} stepping {}", brand, brand.empty() ? "" : ", ", vendor, family, model,
                     stepping);
#else
  return "unknown (not an x86-64 host)";
#endif
}

ProfileRecords profile_on_host(const Arch& arch, const std::string& op_name, const std::vector<UkernelSpec>& kernels,
                               const ProfileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.depth < 1) fail(fmt::format("the profiling depth must be >= 1, not {}", options.depth));
  if (options.rounds < 1) fail(fmt::format("the profiling rounds must be >= 1, not {}", options.rounds));
  check_kernels(kernels);
  TempDir dir;
  ProfileRecords out;
  out.arch = arch.name;
  out.arch_sha256 = arch.content_sha;
  out.op = op_name;
  out.compiler = compiler_version(options.compiler, dir);
  out.cpu = host_cpu_id();
  out.method = method_text(options);
  if (kernels.empty()) return out;

  Progress progress(options.progress);
  progress.line(fmt::format("compiling {} micro-kernels ({} jobs)...", kernels.size(), std::max(1, options.jobs)));
  TemplateRenderer renderer(options.templates_dir.empty() ? default_templates_dir() : options.templates_dir);
  const std::string binary = build_profiler(renderer, kernels, options, dir);
  const auto built = std::chrono::steady_clock::now();
  const auto lines = run_profiler(binary, options, kernels.size(), dir, progress);
  out.records = parse_results(lines, kernels, options.depth);
  const auto done = std::chrono::steady_clock::now();
  progress.line(fmt::format("{} micro-kernels in {:.1f} s (compile {:.1f} s, timing {:.1f} s)", kernels.size(),
                            std::chrono::duration<double>(done - start).count(),
                            std::chrono::duration<double>(built - start).count(),
                            std::chrono::duration<double>(done - built).count()));
  return out;
}

}  // namespace strata
