#include "options.h"

#include <cstdio>

namespace strata_bench {

namespace {

// Set by CMakeLists.txt; empty when built some other way.
#ifndef STRATA_BENCH_SHAPES_DIR
#define STRATA_BENCH_SHAPES_DIR ""
#endif
#ifndef STRATA_BENCH_PEER_DIR
#define STRATA_BENCH_PEER_DIR ""
#endif
#ifndef STRATA_BENCH_PLOT_SCRIPT
#define STRATA_BENCH_PLOT_SCRIPT ""
#endif

const char* const kDefaultSuites[] = {"transformer.csv", "cnn.csv", "gnn.csv", "small.csv"};
const char* const kValueOptions[] = {"--suite",  "--shapes-dir",  "--shape",          "--threads",
                                     "--reps",   "--oracle-reps", "--target-seconds", "--oracle-prune",
                                     "--out",    "--peer-dir",    "--peers",          "--plot-script",
                                     "--python", "--square",      "--alpha",          "--beta",
                                     "--layout"};

bool TakesValue(const std::string& option) {
  for (const char* known : kValueOptions) {
    if (option == known) return true;
  }
  return false;
}

bool ParseList(const std::string& text, std::vector<int>* values) {
  values->clear();
  for (const std::string& field : Split(text, ',')) {
    int64_t value = 0;
    if (!ParseInt64(field, 1, 1024, &value)) return false;
    values->push_back(static_cast<int>(value));
  }
  return !values->empty();
}

bool Fail(const std::string& message) {
  std::fprintf(stderr, "bench: %s (see --help)\n", message.c_str());
  return false;
}

// Handles one option that takes a value; false on a bad value (message printed).
bool ApplyValue(const std::string& option, const std::string& value, std::string* shapes_dir,
                std::vector<std::string>* suites, Options* options) {
  int64_t number = 0;
  double real = 0.0;
  if (option == "--suite") {
    suites->push_back(value);
  } else if (option == "--shapes-dir") {
    *shapes_dir = value;
  } else if (option == "--shape") {
    Shape shape;
    if (!ParseShape(value, "cli", &shape)) return Fail("--shape wants M,N,K with positive sizes, got " + value);
    options->shapes.push_back(shape);
  } else if (option == "--threads") {
    if (!ParseList(value, &options->threads)) return Fail("--threads wants a list like 1,2, got " + value);
  } else if (option == "--reps" || option == "--oracle-reps") {
    if (!ParseInt64(value, 1, 100000, &number)) return Fail(option + " wants a positive integer, got " + value);
    (option == "--reps" ? options->reps : options->oracle_reps).fixed = static_cast<int>(number);
  } else if (option == "--target-seconds") {
    if (!ParseDouble(value, &real) || !(real > 0.0)) return Fail("--target-seconds wants a positive number");
    options->reps.target_seconds = real;
    options->oracle_reps.target_seconds = real / 2;
  } else if (option == "--oracle-prune") {
    if (!ParseDouble(value, &real) || (real != 0.0 && !(real >= 1.0))) {
      return Fail("--oracle-prune wants 0 or a factor of at least 1, got " + value);
    }
    options->oracle_reps.prune_factor = real;
  } else if (option == "--out") {
    options->out_dir = value;
  } else if (option == "--peer-dir") {
    options->peer_dir = value;
  } else if (option == "--peers") {
    options->all_peers = false;
    options->peers.clear();
    if (value != "none") {
      for (const std::string& peer : Split(value, ',')) {
        if (!Trim(peer).empty()) options->peers.push_back(Trim(peer));
      }
    }
  } else if (option == "--plot-script") {
    options->plot_script = value;
  } else if (option == "--python") {
    options->python = value;
  } else if (option == "--square") {
    if (!ParseInt64(value, 0, 65536, &number)) return Fail("--square wants a size (0: none), got " + value);
    options->square = number;
  } else if (option == "--layout") {
    if (value.size() != 2 || (value[0] != 'N' && value[0] != 'T') || (value[1] != 'N' && value[1] != 'T'))
      return Fail("--layout wants NN, NT, TN or TT, got " + value);
    options->layout = value;
  } else if (option == "--alpha" || option == "--beta") {
    if (!ParseDouble(value, &real)) return Fail(option + " wants a number, got " + value);
    (option == "--alpha" ? options->alpha : options->beta) = static_cast<float>(real);
  }
  return true;
}

}  // namespace

void PrintUsage() {
  std::printf(
      "usage: strata_bench [options]\n"
      "Times the Strata package against the peer libraries on shape suites, checks every result, and writes\n"
      "results.csv, oracle.csv, overhead.csv, summary.md and speedup.png to the output directory.\n"
      "  --suite FILE         a category,M,N,K file (repeatable; default: the four suites in --shapes-dir)\n"
      "  --shapes-dir DIR     where the default suites are (default %s)\n"
      "  --shape M,N,K        one more shape, category \"cli\" (repeatable; alone, no default suites)\n"
      "  --threads LIST       thread counts, e.g. 1,2 (default 1,2)\n"
      "  --reps N             timed samples per library and shape (default: about --target-seconds of work,\n"
      "                       5 to 50 samples)\n"
      "  --target-seconds S   timed work per library and shape when --reps is not given (default 0.1)\n"
      "  --oracle-reps N      samples per forced kernel (default: half the target time, 3 to 20)\n"
      "  --oracle-prune F     time a forced kernel no further when its warm-up is over F times the fastest one's\n"
      "                       (default 2; 0: time every kernel fully)\n"
      "  --peers LIST         peers to load, e.g. openblas,blis (default: every plugin in --peer-dir; none: none)\n"
      "  --peer-dir DIR       where the peer plugins are (default %s)\n"
      "  --square N           also time N^3 for the %%-of-peak line (default 2048; 0: no)\n"
      "  --no-oracle          skip the model-accuracy runs (every kernel forced by id)\n"
      "  --no-overhead        skip the plan-time measurement\n"
      "  --spin-wait          leave OMP_WAIT_POLICY and OPENBLAS_THREAD_TIMEOUT at the libraries' defaults (idle\n"
      "                       threads spin) instead of making idle threads sleep\n"
      "  --alpha A, --beta B  the GEMM's alpha and beta (default 1 and 0)\n"
      "  --layout XY          op(A) op(B), N or T each (default NN; NT: B stored N x K, a linear layer's weights);\n"
      "                       every library gets the same stored operands, and the oracle runs for NN only\n"
      "  --out DIR            output directory (default bench_out)\n"
      "  --plot-script FILE   the script that draws speedup.png (default %s; \"\": no PNG)\n"
      "  --python PROGRAM     the Python that runs it, with matplotlib (default python3)\n",
      STRATA_BENCH_SHAPES_DIR, STRATA_BENCH_PEER_DIR, STRATA_BENCH_PLOT_SCRIPT);
}

ParseResult ParseOptions(int argc, char** argv, Options* options) {
  options->peer_dir = STRATA_BENCH_PEER_DIR;
  options->plot_script = STRATA_BENCH_PLOT_SCRIPT;
  options->oracle_reps.target_seconds = options->reps.target_seconds / 2;
  options->oracle_reps.min_reps = 3;
  options->oracle_reps.max_reps = 20;
  options->oracle_reps.max_seconds = 0.5;
  options->oracle_reps.prune_factor = 2.0;
  std::string shapes_dir = STRATA_BENCH_SHAPES_DIR;
  std::vector<std::string> suites;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return ParseResult::kHelp;
    if (arg == "--no-oracle") {
      options->oracle = false;
    } else if (arg == "--spin-wait") {
      options->passive_wait = false;
    } else if (arg == "--no-overhead") {
      options->overhead = false;
    } else if (!TakesValue(arg)) {
      Fail(arg.rfind("-", 0) == 0 ? "unknown option " + arg : "unexpected argument " + arg);
      return ParseResult::kBadUsage;
    } else if (i + 1 >= argc) {
      Fail(arg + " needs a value");
      return ParseResult::kBadUsage;
    } else if (!ApplyValue(arg, argv[++i], &shapes_dir, &suites, options)) {
      return ParseResult::kBadUsage;
    }
  }
  if (suites.empty() && options->shapes.empty()) {
    if (shapes_dir.empty()) {
      Fail("no --suite or --shape given and no default --shapes-dir");
      return ParseResult::kBadUsage;
    }
    for (const char* suite : kDefaultSuites) suites.push_back(shapes_dir + "/" + suite);
  }
  std::vector<Shape> from_files;
  for (const std::string& suite : suites) {
    std::string error;
    if (!ReadShapesCsv(suite, &from_files, &error)) {
      Fail(error);
      return ParseResult::kBadUsage;
    }
  }
  options->shapes.insert(options->shapes.begin(), from_files.begin(), from_files.end());
  if (options->shapes.empty()) {
    Fail("the suites hold no shapes");
    return ParseResult::kBadUsage;
  }
  return ParseResult::kRun;
}

}  // namespace strata_bench
