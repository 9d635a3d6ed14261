#include "verify/verify.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "common/process_status.h"
#include "emit/package_writer.h"
#include "spec/yaml_reader.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr int kErrorLines = 12;  // lines of a failing step's output quoted in its detail

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string join_quoted(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : " ") + shell_quote(a);
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool diagnostic(const std::string& line) {
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // "file:line:col: error: ...", "fatal error:", "ld.lld: error:", "CMake Error at ...": not "-Werror" in a command.
  return lower.find("error:") != std::string::npos || line.find("CMake Error") != std::string::npos;
}

// The lines that say what went wrong: from the first diagnostic, else the last lines of the output.
std::vector<std::string> first_error_lines(const std::string& output) {
  const auto lines = lines_of(output);
  auto first = std::find_if(lines.begin(), lines.end(), diagnostic);
  if (first == lines.end()) first = lines.size() > kErrorLines ? lines.end() - kErrorLines : lines.begin();
  std::vector<std::string> out;
  for (auto it = first; it != lines.end() && out.size() < static_cast<size_t>(kErrorLines); ++it) out.push_back(*it);
  return out;
}

std::string indented(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "  " + l + "\n";
  return out.empty() ? "  (no output)\n" : out;
}

// A step of a configuration: runs `command` with its output into `log`.
struct Step {
  int status = 0;
  double seconds = 0;
};

Step run_step(const std::string& command, const std::string& log) {
  const auto start = std::chrono::steady_clock::now();
  Step s;
  // LC_ALL=C: compilers then quote with plain ASCII, and the messages read the same everywhere.
  s.status = std::system(("LC_ALL=C " + command + " >" + shell_quote(log) + " 2>&1 </dev/null").c_str());
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

std::string first_line_of(const std::string& command) {
  FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
  if (!pipe) return "";
  char buffer[512] = {};
  const bool got = fgets(buffer, sizeof buffer, pipe) != nullptr;
  pclose(pipe);
  std::string line = got ? buffer : "";
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// A directory for the builds: the one asked for (kept), or a fresh temporary one removed at the end.
class BuildRoot {
 public:
  explicit BuildRoot(const std::string& requested) {
    if (!requested.empty()) {
      std::error_code ec;
      fs::create_directories(requested, ec);
      if (ec) throw Error({requested, 0, 0}, "cannot create the build directory: " + ec.message());
      path_ = fs::absolute(requested).lexically_normal().string();
      return;
    }
    std::string templ = (fs::temp_directory_path() / "strata-verify-XXXXXX").string();
    if (!mkdtemp(templ.data()))
      throw Error({"<verify>", 0, 0},
                  fmt::format("cannot create a temporary directory {}: {}", templ, std::strerror(errno)));
    path_ = templ;
    temporary_ = true;
  }
  ~BuildRoot() {
    std::error_code ignored;
    if (temporary_) fs::remove_all(path_, ignored);
  }
  BuildRoot(const BuildRoot&) = delete;
  BuildRoot& operator=(const BuildRoot&) = delete;
  const std::string& path() const { return path_; }
  bool temporary() const { return temporary_; }

 private:
  std::string path_;
  bool temporary_ = false;
};

ConfigResult run_config(const PackageInfo& package, const BuildConfig& config, const VerifyOptions& options,
                        const BuildRoot& root) {
  ConfigResult r;
  r.label = config.label;
  auto failed = [&](const std::string& summary, const std::string& detail) {
    r.passed = false;
    r.summary = summary;
    r.detail = detail;
    return r;
  };
  for (const auto& req : config.requirements) {
    const bool present = req.what.find('/') == std::string::npos ? program_exists(req.what) : fs::exists(req.what);
    if (!present) return failed(fmt::format("{} is missing", req.what), fmt::format("{}: {}\n", req.what, req.hint));
  }
  const std::string version = first_line_of(config.compiler + " --version");
  r.compiler = version.empty() ? config.compiler : version;

  const std::string build = root.path() + "/" + config.label;
  std::error_code ec;
  fs::remove_all(build, ec);  // a fresh configure: a cache made with another compiler would be reused otherwise
  fs::create_directories(build, ec);
  if (ec) return failed("cannot create " + build, ec.message() + "\n");
  const std::string log = build + "/verify.log";
  const std::string prefix = upper(package.name);
  const int jobs = options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());

  std::vector<std::string> configure = {"cmake", "-S", package.dir, "-B", build};
  if (program_exists("ninja")) configure.insert(configure.end(), {"-G", "Ninja"});
  configure.insert(configure.end(), {"-DCMAKE_BUILD_TYPE=Release", "-D" + prefix + "_WERROR=ON",
                                     "-D" + prefix + "_BUILD_TESTS=ON", "-D" + prefix + "_BUILD_BENCH=ON"});
  configure.insert(configure.end(), config.cmake_args.begin(), config.cmake_args.end());
  const std::string configure_command = join_quoted(configure);
  Step step = run_step(configure_command, log);
  if (!succeeded(step.status)) {
    const auto lines = first_error_lines(read_text(log));
    return failed(
        fmt::format("configure failed: {}", lines.empty() ? status_text(step.status) : lines.front()),
        fmt::format("configuring failed ({}): {}\n{}", status_text(step.status), configure_command, indented(lines)));
  }
  const std::string build_command = join_quoted({"cmake", "--build", build, "--parallel", std::to_string(jobs)});
  step = run_step(build_command, log);
  if (!succeeded(step.status)) {
    const auto lines = first_error_lines(read_text(log));
    return failed(fmt::format("build failed: {}", lines.empty() ? status_text(step.status) : lines.front()),
                  fmt::format("the build failed with warnings as errors ({}): {}\n{}", status_text(step.status),
                              build_command, indented(lines)));
  }
  const double build_seconds = step.seconds;
  if (config.after_build) {
    const std::string problem = config.after_build(package, build);
    if (!problem.empty()) {
      const auto lines = lines_of(problem);
      return failed("check failed: " + lines.front(), problem + (problem.back() == '\n' ? "" : "\n"));
    }
  }
  if (!options.run_selftest) {
    r.passed = true;
    r.summary = fmt::format("built with -Werror in {:.1f} s; self-test not run (--no-run)", build_seconds);
    return r;
  }
  std::vector<std::string> run = config.run_prefix;
  run.push_back(build + "/" + package.name + "_selftest");
  if (options.quick_selftest) run.push_back("--quick");
  const std::string run_command = join_quoted(run);
  const std::string run_log = build + "/selftest.log";
  step = run_step(run_command, run_log);
  const std::string output = read_text(run_log);
  const auto lines = lines_of(output);
  std::string verdict;
  for (const auto& l : lines)
    if (l.rfind("selftest: ", 0) == 0) verdict = l;
  if (!succeeded(step.status)) {
    std::vector<std::string> shown;
    for (const auto& l : lines)
      if (l.rfind("FAIL ", 0) == 0 && shown.size() < static_cast<size_t>(kErrorLines)) shown.push_back(l);
    if (shown.empty()) shown = first_error_lines(output);
    if (!verdict.empty()) shown.push_back(verdict);
    return failed(
        fmt::format("self-test failed ({}): {}", status_text(step.status),
                    verdict.empty() ? (shown.empty() ? "no output" : shown.front()) : verdict),
        fmt::format("the self-test failed ({}): {}\n{}", status_text(step.status), run_command, indented(shown)));
  }
  // A self-test that could not run its kernels (a CPU without the package's ISA) verified nothing.
  if (verdict.rfind("selftest: skipped", 0) == 0 || verdict.find(" passed, 0 failed") == std::string::npos)
    return failed(fmt::format("self-test did not run its checks: {}", verdict.empty() ? "no verdict" : verdict),
                  fmt::format("the self-test did not report '<N> passed, 0 failed': {}\n{}", run_command,
                              indented(lines.size() > kErrorLines
                                           ? std::vector<std::string>(lines.end() - kErrorLines, lines.end())
                                           : lines)));
  r.passed = true;
  r.summary = fmt::format("built with -Werror in {:.1f} s; {} {} ({:.1f} s)", build_seconds,
                          verdict.substr(std::strlen("selftest: ")), config.runs_on, step.seconds);
  return r;
}

}  // namespace

bool VerifyReport::passed() const {
  return !results.empty() && std::all_of(results.begin(), results.end(), [](const auto& r) { return r.passed; });
}

PackageInfo read_package_info(const std::string& dir) {
  const std::string manifest = (fs::path(dir) / kManifestFile).string();
  if (!fs::is_directory(dir)) throw Error({dir, 0, 0}, "is not a directory (expected a Strata package)");
  if (!is_strata_package(dir))
    throw Error({manifest, 0, 0},
                fmt::format("expected a Strata package's manifest (a line '{}'): {} is not a package generated by "
                            "strata generate",
                            kManifestMarker, dir));
  const YAML::Node root = load_yaml_file(manifest);
  PackageInfo info;
  info.dir = fs::absolute(dir).lexically_normal().string();
  if (!info.dir.empty() && info.dir.back() == '/') info.dir.pop_back();
  info.manifest = manifest;
  const YAML::Node name = root["name"];
  const YAML::Node target = root["target"];
  const YAML::Node arch = root["arch"];
  if (!name || !name.IsScalar() || !is_c_identifier(name.as<std::string>()))
    throw Error(name ? pos_of(name, manifest) : SourcePos{manifest, 0, 0},
                "expected 'name: <C identifier>' (the package name)");
  info.name = name.as<std::string>();
  if (!target || !target.IsMap() || !target["arch"] || !target["arch"].IsScalar())
    throw Error(target ? pos_of(target, manifest) : SourcePos{manifest, 0, 0},
                "expected 'target: {arch: <target>, ...}'");
  info.target = target["arch"].as<std::string>();
  if (target["vector"] && target["vector"].IsScalar()) info.vector = target["vector"].as<std::string>();
  if (arch && arch.IsMap() && arch["name"] && arch["name"].IsScalar()) info.arch = arch["name"].as<std::string>();
  return info;
}

VerifyReport verify_package(const std::string& dir, const VerifyOptions& options,
                            const std::function<void(const PackageInfo&, const std::vector<BuildConfig>&)>& on_start,
                            const std::function<void(const ConfigResult&)>& on_result) {
  VerifyReport report;
  report.package = read_package_info(dir);
  const PackageInfo& package = report.package;
  const auto& table = verify_targets();
  const auto entry =
      std::find_if(table.begin(), table.end(), [&](const TargetEntry& e) { return package.target == e.target; });
  if (entry == table.end()) {
    std::string known;
    for (const auto& e : table) known += std::string(known.empty() ? "" : ", ") + e.target;
    throw Error({package.manifest, 0, 0},
                fmt::format("target '{}' has no verification builds (verify knows {})", package.target, known));
  }
  std::vector<BuildConfig> configs = entry->configs(package);
  if (configs.empty())
    throw Error({package.manifest, 0, 0},
                fmt::format("this host cannot build or run {} packages: verify them on a {} machine", package.target,
                            package.target));
  for (const auto& label : options.only)
    if (std::none_of(configs.begin(), configs.end(), [&](const BuildConfig& c) { return c.label == label; })) {
      std::string known;
      for (const auto& c : configs) known += std::string(known.empty() ? "" : ", ") + c.label;
      throw Error({"--only", 0, 0},
                  fmt::format("'{}' is not a configuration of target {} (it has {})", label, package.target, known));
    }
  if (!options.only.empty())
    configs.erase(std::remove_if(configs.begin(), configs.end(),
                                 [&](const BuildConfig& c) {
                                   return std::find(options.only.begin(), options.only.end(), c.label) ==
                                          options.only.end();
                                 }),
                  configs.end());
  if (on_start) on_start(package, configs);
  BuildRoot root(options.build_dir);
  for (const BuildConfig& config : configs) {
    report.results.push_back(run_config(package, config, options, root));
    if (!report.results.back().passed && root.temporary())
      report.results.back().detail += "  (rerun with --build-dir DIR to keep the build and its logs)\n";
    else if (!report.results.back().passed)
      report.results.back().detail +=
          fmt::format("  (logs: {}/{}/verify.log, selftest.log)\n", root.path(), config.label);
    if (on_result) on_result(report.results.back());
  }
  return report;
}

}  // namespace strata
