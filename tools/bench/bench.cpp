// strata_bench: times a generated Strata package against the peer libraries on shape suites, at several thread
// counts, checking every result; measures the machine's fp32 peak, the dispatcher against every kernel forced by
// id (model accuracy), and the dispatcher's planning time (runtime overhead). See PrintUsage() for the options
// and report.h for the output files.
//
// Exit status: 0 on success, 1 if an output could not be written or the Strata dispatcher gave a wrong result,
// 2 on bad usage.
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "library.h"
#include "openblas_core.h"
#include "options.h"
#include "peak.h"
#include "reference.h"
#include "report.h"
#include "timing.h"

extern char** environ;

namespace strata_bench {
namespace {

const char* const kKnownPeers[] = {"openblas", "blis", "onednn", "eigen", "libxsmm"};

// Planning-time measurement.
constexpr int kPlanBatch = 200;  // cached plans timed together (one takes tens of nanoseconds)
constexpr int kPlanSamples = 15;
// Other shapes planned between two cold plans of the measured one. The package's plan cache is small (16 entries
// when this was written) but its size is not part of the API, so this errs well on the large side.
constexpr int kEvictingShapes = 64;

struct Libraries {
  std::unique_ptr<Library> strata;  // the dispatcher
  std::vector<std::unique_ptr<Library>> peers;
  std::vector<std::unique_ptr<Library>> kernels;  // the package's kernels, forced by id
};

std::string MachineDescription() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = Trim(line.substr(line.find(':') + 1));
      break;
    }
  }
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
}

void LoadLibraries(const Options& options, Libraries* libraries, RunInfo* info) {
  libraries->strata = MakeStrataLibrary(-1);
  for (int id = 0; id < StrataKernelCount(); ++id) libraries->kernels.push_back(MakeStrataLibrary(id));
  info->libraries.push_back({"strata", libraries->strata->Describe()});
  std::vector<std::string> wanted = options.peers;
  if (options.all_peers) wanted.assign(std::begin(kKnownPeers), std::end(kKnownPeers));
  for (const std::string& name : wanted) {
    const std::string path = options.peer_dir + "/libpeer_" + name + ".so";
    if (!std::filesystem::exists(path)) {
      info->notes.push_back("peer " + name + " skipped: " + path +
                            " was not built (its library was not found when the benchmark was configured)");
      continue;
    }
    if (name == "openblas") {
      const std::string note = ChooseOpenBlasCore(path);  // before loading: OpenBLAS picks its kernels as it loads
      if (!note.empty()) info->notes.push_back(note);
    }
    std::string error;
    std::unique_ptr<Library> peer = LoadPeer(path, &error);
    if (peer == nullptr) {
      info->notes.push_back("peer " + name + " skipped: " + error);
      continue;
    }
    info->libraries.push_back({peer->name(), peer->Describe()});
    libraries->peers.push_back(std::move(peer));
  }
  for (const std::string& note : info->notes) std::fprintf(stderr, "bench: %s\n", note.c_str());
}

// The outcome of checking and timing one library on one problem.
struct Measured {
  Contender contender;
  Reference::Outcome check;
  std::string status;  // as in ResultRow
};

GemmArgs ArgsFor(const Operands& o, float* c) {
  const Shape& s = o.shape;
  // Dense row-major operands as stored: each leading dimension is its matrix's row length.
  GemmArgs args{s.m,   s.n, s.k, o.alpha, o.trans_a ? o.a_stored.get() : o.a.get(), o.trans_a ? s.m : s.k,
                o.trans_b ? o.b_stored.get() : o.b.get(), o.trans_b ? s.k : s.n, o.beta, c, s.n};
  args.trans_a = o.trans_a;
  args.trans_b = o.trans_b;
  return args;
}

// One checked call per library (C reset first), then the interleaved timing of those that ran; `buffers`
// supplies one C per library, grown as needed. The library at keep_index is never pruned (see RepsPolicy).
std::vector<Measured> CheckAndMeasure(const Operands& operands, const Reference& reference,
                                      const std::vector<Library*>& libraries, const RepsPolicy& policy,
                                      std::vector<FloatBuffer>* buffers, size_t keep_index = 0) {
  const Shape& s = operands.shape;
  while (buffers->size() < libraries.size()) buffers->push_back(AllocateFloats(s.m * s.n));
  std::vector<Contender> contenders(libraries.size());
  std::vector<Measured> measured(libraries.size());
  for (size_t i = 0; i < libraries.size(); ++i) {
    Contender& c = contenders[i];
    c.library = libraries[i];
    c.prunable = i != keep_index;
    c.args = ArgsFor(operands, (*buffers)[i].get());
    if (c.args.c == nullptr) {  // out of memory for this library's C
      c.status = CallStatus::kError;
      measured[i].status = CallStatusName(c.status);
      continue;
    }
    ResetC(operands, c.args.c);
    const double start = NowSeconds();
    c.status = c.library->Gemm(c.args);
    c.first_call_s = NowSeconds() - start;
    if (c.status == CallStatus::kOk) {
      measured[i].check = reference.Check(c.args.c);
      measured[i].status = measured[i].check.pass ? "pass" : "fail";
    } else {
      measured[i].status = CallStatusName(c.status);
    }
  }
  MeasureInterleaved(policy, &contenders);
  for (size_t i = 0; i < libraries.size(); ++i) {
    measured[i].contender = contenders[i];
    // A library can still fail during the timed calls (e.g. out of memory for a workspace).
    if (contenders[i].status != CallStatus::kOk) measured[i].status = CallStatusName(contenders[i].status);
  }
  return measured;
}

ResultRow ToResultRow(const Shape& shape, int threads, const Measured& m) {
  ResultRow row;
  row.shape = shape;
  row.threads = threads;
  row.library = m.contender.library->name();
  row.status = m.status;
  row.median_s = m.contender.median_s;
  row.min_s = m.contender.min_s;
  row.samples = m.contender.samples;
  row.batch = m.contender.batch;
  row.checked = m.check.checked;
  row.worst_ratio = m.check.worst_ratio;
  return row;
}

// The dispatcher's plan for this shape and the kernels' times. Kernel ids whose plans run the same computation (see
// StrataPlan::SameWork: on the direct path the ids that share a micro-kernel) are timed once, as the lowest such id,
// and the others share its time: timed apart, the fastest of several noisy measurements of one computation would
// count as an oracle the dispatcher missed (in the fifth session's run, 0.6 points of the geometric mean). Likewise
// the dispatcher's time is its plan's kernel's; only when no forced plan matches is it timed as a contender of its own.
OracleRow MeasureOracle(const Operands& operands, const Reference& reference, int threads, Libraries* libraries,
                        const RepsPolicy& policy, std::vector<FloatBuffer>* buffers) {
  const Shape& s = operands.shape;
  OracleRow row;
  row.shape = s;
  row.threads = threads;
  StrataPlan plan;
  const bool planned = StrataPlanFor(s.m, s.n, s.k, &plan);
  if (planned) {
    row.plan_kernel = plan.kernel_id;
    row.plan_threads = plan.threads;
    row.plan_packed = plan.packed;
    row.predicted_s = plan.predicted_seconds;
  }
  const size_t kernels = libraries->kernels.size();
  std::vector<StrataPlan> forced(kernels);
  std::vector<bool> forced_planned(kernels);
  std::vector<size_t> timed_as(kernels);  // the id whose measurement stands for this one
  std::vector<size_t> contender_of(kernels);
  std::vector<Library*> contenders;
  for (size_t id = 0; id < kernels; ++id) {
    forced_planned[id] = StrataKernelPlanFor(static_cast<int>(id), s.m, s.n, s.k, &forced[id]);
    timed_as[id] = id;
    for (size_t other = 0; other < id && forced_planned[id]; ++other)
      if (timed_as[other] == other && forced_planned[other] && forced[other].SameWork(forced[id])) {
        timed_as[id] = other;
        break;
      }
    if (timed_as[id] == id) {
      contender_of[id] = contenders.size();
      contenders.push_back(libraries->kernels[id].get());
    }
  }
  size_t dispatch_index = contenders.size();
  for (size_t id = 0; planned && id < kernels && dispatch_index == contenders.size(); ++id)
    if (timed_as[id] == id && forced_planned[id] && forced[id].SameWork(plan)) dispatch_index = contender_of[id];
  if (dispatch_index == contenders.size()) contenders.push_back(libraries->strata.get());
  const std::vector<Measured> measured =
      CheckAndMeasure(operands, reference, contenders, policy, buffers, dispatch_index);
  const Measured& dispatch = measured[dispatch_index];
  row.dispatch_s = dispatch.status == "pass" ? dispatch.contender.median_s : NAN;
  for (size_t id = 0; id < kernels; ++id) {
    const Measured& m = measured[contender_of[timed_as[id]]];
    const bool ok = m.status == "pass";
    row.kernel_s.push_back(ok ? m.contender.median_s : NAN);
    if (!ok) row.failed_kernels.push_back(static_cast<int>(id));
    if (m.contender.pruned) row.pruned_kernels.push_back(static_cast<int>(id));
    if (timed_as[id] != id) row.shared_kernels.emplace_back(static_cast<int>(id), static_cast<int>(timed_as[id]));
    if (ok && (row.best_kernel < 0 || m.contender.median_s < row.best_s)) {
      row.best_kernel = static_cast<int>(id);
      row.best_s = m.contender.median_s;
    }
  }
  return row;
}

OverheadRow MeasureOverhead(const Shape& shape, int threads, double call_s) {
  OverheadRow row;
  row.shape = shape;
  row.threads = threads;
  row.call_s = call_s;
  StrataPlan plan;
  std::vector<double> cached, cold;
  const double clock_s = ClockReadSeconds();        // a cold plan is timed alone: the clock's reads are taken out
  StrataPlanFor(shape.m, shape.n, shape.k, &plan);  // now it is cached
  for (int sample = 0; sample < kPlanSamples; ++sample) {
    const double start = NowSeconds();
    for (int i = 0; i < kPlanBatch; ++i) StrataPlanFor(shape.m, shape.n, shape.k, &plan);
    cached.push_back((NowSeconds() - start) / kPlanBatch);
  }
  for (int sample = 0; sample < kPlanSamples; ++sample) {
    for (int i = 1; i <= kEvictingShapes; ++i) StrataPlanFor(shape.m, shape.n, shape.k + i, &plan);
    const double start = NowSeconds();
    StrataPlanFor(shape.m, shape.n, shape.k, &plan);
    cold.push_back(std::max(0.0, NowSeconds() - start - clock_s));
  }
  row.plan_cached_s = Median(cached);
  row.plan_cold_s = Median(cold);
  return row;
}

std::string SecondsText(double s) {
  char text[32];
  if (s < 1e-3) {
    std::snprintf(text, sizeof(text), "%.1f us", s * 1e6);
  } else {
    std::snprintf(text, sizeof(text), "%.2f ms", s * 1e3);
  }
  return text;
}

// One progress line per shape and thread count, on stderr.
void PrintProgress(size_t index, size_t total, const Shape& shape, int threads, const std::vector<Measured>& measured,
                   const OracleRow* oracle) {
  std::string line = "[" + std::to_string(index + 1) + "/" + std::to_string(total) + "] " + shape.category + " " +
                     shape.Label() + " T=" + std::to_string(threads) + ":";
  const double strata = measured[0].status == "pass" ? measured[0].contender.median_s : NAN;
  for (const Measured& m : measured) {
    line += " " + m.contender.library->name() + " ";
    if (m.status != "pass") {
      line += m.status;
    } else if (&m == &measured[0] || !std::isfinite(strata)) {
      line += SecondsText(m.contender.median_s);
    } else {
      char text[32];
      std::snprintf(text, sizeof(text), "%.2fx", m.contender.median_s / strata);
      line += text;
    }
  }
  if (oracle != nullptr && oracle->best_s > 0.0) {
    char text[48];
    std::snprintf(text, sizeof(text), " | oracle %.3f", oracle->best_s / oracle->dispatch_s);
    line += text;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

void RunShape(const Options& options, size_t index, const Shape& shape, Libraries* libraries, RunData* data) {
  Operands operands;
  if (!MakeOperands(shape, options.alpha, options.beta, options.layout[0] == 'T', options.layout[1] == 'T',
                    &operands)) {
    data->info.notes.push_back("shape " + shape.Label() + " skipped: out of memory for its operands");
    std::fprintf(stderr, "bench: %s\n", data->info.notes.back().c_str());
    return;
  }
  const Reference reference(operands);
  std::vector<FloatBuffer> buffers;
  std::vector<Library*> compared{libraries->strata.get()};
  for (const auto& p : libraries->peers) compared.push_back(p.get());
  for (int threads : options.threads) {
    // A library that cannot run at this thread count is reported as unsupported rather than timed at another.
    std::vector<Library*> runnable;
    for (Library* library : compared) {
      if (library->SetThreads(threads) == CallStatus::kOk) {
        runnable.push_back(library);
      } else {
        ResultRow row;
        row.shape = shape;
        row.threads = threads;
        row.library = library->name();
        row.status = "unsupported";
        data->results.push_back(row);
      }
    }
    if (runnable.empty() || runnable[0] != libraries->strata.get()) continue;
    const std::vector<Measured> measured = CheckAndMeasure(operands, reference, runnable, options.reps, &buffers);
    for (const Measured& m : measured) data->results.push_back(ToResultRow(shape, threads, m));

    const OracleRow* oracle = nullptr;
    if (options.oracle && !shape.extra) {
      data->oracle.push_back(MeasureOracle(operands, reference, threads, libraries, options.oracle_reps, &buffers));
      oracle = &data->oracle.back();
    }
    if (options.overhead && !shape.extra && measured[0].status == "pass") {
      data->overhead.push_back(MeasureOverhead(shape, threads, measured[0].contender.median_s));
    }
    PrintProgress(index, options.shapes.size(), shape, threads, measured, oracle);
  }
}

// Draws speedup.png with the plot script; a missing Python or matplotlib costs the PNG, not the run.
void RunPlot(const std::string& python, const std::string& script, const std::string& out_dir, RunInfo* info) {
  if (script.empty()) return;
  const std::string csv = out_dir + "/results.csv", png = out_dir + "/speedup.png";
  std::vector<char*> argv{const_cast<char*>(python.c_str()), const_cast<char*>(script.c_str()),
                          const_cast<char*>(csv.c_str()), const_cast<char*>(png.c_str()), nullptr};
  pid_t pid = 0;
  int status = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0 ||
      waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    info->notes.push_back("speedup.png not drawn: `" + python + " " + script +
                          "` failed (is matplotlib installed for it?)");
    std::fprintf(stderr, "bench: %s\n", info->notes.back().c_str());
  }
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

// The libraries run interleaved in one process. OpenMP (oneDNN, Eigen, LIBXSMM) and OpenBLAS keep their idle
// threads spinning for a while after each call (OpenBLAS for about 0.1 s), so on a machine with few cores the
// spinning threads of one library take cores from the next one's call: measured on 2 cores, that made Strata's
// 2-thread times vary by 2-4x from run to run. With idle threads sleeping in every library, as they do in
// Strata's pool, repeated runs agree. The runtimes read these variables when they load, so this must run before
// the plugins are opened; values already in the environment win.
void SetPassiveWaiting() {
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", /*overwrite=*/0);  // OpenBLAS's minimum: 2^4 cycles of spinning
}

// Variables that change how idle threads of OpenMP and OpenBLAS wait (spin or sleep), which matters when several
// threaded libraries share a few cores; the run uses each library's defaults unless these are set.
std::string ThreadingEnvironment() {
  const char* const names[] = {"OMP_WAIT_POLICY",         "GOMP_SPINCOUNT", "OMP_PROC_BIND", "OMP_PLACES",
                               "OPENBLAS_THREAD_TIMEOUT", "BLIS_JC_NT",     "BLIS_IC_NT"};
  std::string text;
  for (const char* name : names) {
    if (const char* value = std::getenv(name)) text += (text.empty() ? "" : ", ") + std::string(name) + "=" + value;
  }
  return text.empty() ? "none set (each library's default)" : text;
}

std::string CommandLine(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i > 0 ? " " : "") + std::string(argv[i]);
  return text;
}

std::string RepsPolicyText(const Options& options) {
  if (options.reps.fixed > 0) return std::to_string(options.reps.fixed) + " samples per library";
  char text[160];
  std::snprintf(text, sizeof(text),
                "about %.2g s of samples per library and shape, %d to %d samples, at least %d within %.2g s",
                options.reps.target_seconds, options.reps.min_reps, options.reps.max_reps, options.reps.floor_reps,
                options.reps.max_seconds);
  return text;
}

int Run(int argc, char** argv) {
  Options options;
  switch (ParseOptions(argc, argv, &options)) {
    case ParseResult::kHelp: PrintUsage(); return 0;
    case ParseResult::kBadUsage: return 2;
    case ParseResult::kRun: break;
  }
  // Kernels are forced by id for plain calls only, so the model-accuracy runs need NN.
  if (options.layout != "NN") options.oracle = false;
  const double start = NowSeconds();
  RunData data;
  RunInfo& info = data.info;
  info.machine = MachineDescription();
  info.load_start = LoadAverage();
  info.package = StrataPackageName();
  info.kernel_count = StrataKernelCount();
  info.command_line = CommandLine(argc, argv);
  info.threads = options.threads;
  info.alpha = options.alpha;
  info.beta = options.beta;
  info.layout = options.layout;
  info.reps_policy = RepsPolicyText(options);
  info.oracle_prune_factor = options.oracle_reps.prune_factor;
  if (options.passive_wait) SetPassiveWaiting();
  info.threading_environment = ThreadingEnvironment();

  std::error_code fs_error;
  std::filesystem::create_directories(options.out_dir, fs_error);
  if (fs_error) {
    std::fprintf(stderr, "bench: cannot create %s: %s\n", options.out_dir.c_str(), fs_error.message().c_str());
    return 1;
  }

  Libraries libraries;
  LoadLibraries(options, &libraries, &info);
  for (int threads : options.threads) {
    info.peaks.push_back(MeasurePeak(threads));
    std::fprintf(stderr, "bench: fp32 peak (%s FMA loop) on %d thread(s): %.1f GFLOP/s\n",
                 info.peaks.back().isa.c_str(), threads, info.peaks.back().flops_per_second / 1e9);
  }

  std::vector<Shape> shapes = options.shapes;
  const bool has_square = std::any_of(shapes.begin(), shapes.end(), [&](const Shape& s) {
    return s.m == options.square && s.n == options.square && s.k == options.square;
  });
  if (options.square > 0 && !has_square) {
    Shape square;
    square.category = "square";
    square.m = square.n = square.k = options.square;
    square.extra = true;
    shapes.push_back(square);
  }
  options.shapes = shapes;
  for (size_t i = 0; i < shapes.size(); ++i) RunShape(options, i, shapes[i], &libraries, &data);

  info.elapsed_s = NowSeconds() - start;
  info.load_end = LoadAverage();
  std::string error;
  const std::string& dir = options.out_dir;
  if (!WriteResultsCsv(data, dir + "/results.csv", &error) || !WriteOracleCsv(data, dir + "/oracle.csv", &error) ||
      !WriteOverheadCsv(data, dir + "/overhead.csv", &error)) {
    std::fprintf(stderr, "bench: %s\n", error.c_str());
    return 1;
  }
  RunPlot(options.python, options.plot_script, dir, &info);
  if (!WriteSummary(data, dir + "/summary.md", &error)) {
    std::fprintf(stderr, "bench: %s\n", error.c_str());
    return 1;
  }
  std::fprintf(stderr, "bench: wrote %s/{results.csv,oracle.csv,overhead.csv,summary.md,speedup.png} in %.0f s\n",
               dir.c_str(), info.elapsed_s);
  const bool strata_failed = std::any_of(data.results.begin(), data.results.end(), [](const ResultRow& r) {
    return r.library == "strata" && r.status != "pass" && r.status != "unsupported";
  });
  if (strata_failed) std::fprintf(stderr, "bench: the Strata dispatcher failed on some shapes (see summary.md)\n");
  return strata_failed ? 1 : 0;
}

}  // namespace
}  // namespace strata_bench

int main(int argc, char** argv) { return strata_bench::Run(argc, argv); }
