// Part of the dispatcher (see dispatch_rules.h): a call's operands, its workspace, and the paths that run A and B
// in place (direct tiles, row streams, wide rows, split K).
#ifndef STRATA_DISPATCH_DIRECT_H_
#define STRATA_DISPATCH_DIRECT_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// ---- The call ----------------------------------------------------------------------------------------------------

struct Gemm {
  int64_t M, N, K;
  float alpha, beta;
  const float* A;
  int64_t lda;
  const float* B;
  int64_t ldb;
  float* C;
  int64_t ldc;
  int32_t layout = 0;  // kTransA, kTransB: A stored K x M, B stored N x K; kGatherA: A gathered from `conv`
  const ConvGeometry* conv = nullptr;  // kGatherA: the convolution whose implicit A this is
  int64_t first_row = 0;               // kGatherA: A's row 0 is the convolution's row first_row
  const PostOps* post = nullptr;       // the fused epilogue, applied by finish(); none where null
  // kPackedB: B is the panels pack_b laid out (see dispatch_packed_b.h), ldb their padded width, and this call's B
  // starts at their column packed_b_column (a thread's share starts further on).
  int64_t packed_b_column = 0;

  bool a_transposed() const { return (layout & kTransA) != 0; }
  bool b_transposed() const { return (layout & kTransB) != 0; }
  bool a_gathered() const { return (layout & kGatherA) != 0; }
  bool b_packed() const { return (layout & kPackedB) != 0; }
  // A from its row i on, B from its column j on, in either storage.
  void move_a_to_row(int64_t i) {
    if (a_gathered())
      first_row += i;
    else
      A = a_transposed() ? A + i : A + i * lda;
  }
  const float* b_from_column(int64_t j) const { return b_transposed() ? B + j * ldb : B + j; }
  // Packs rows [i, i + rows) of A over k [p, p + depth) into kernel k's micro-panels, from either storage.
  void pack_a(const Kernel& k, int64_t i, int64_t p, int64_t rows, int64_t depth, float* out) const {
    if (a_gathered())
      k.gather_a(*conv, first_row + i, p, rows, depth, out);
    else if (a_transposed())
      k.pack_a_transposed(A + p * lda + i, lda, rows, depth, out);
    else
      k.pack_a(A + i * lda + p, lda, rows, depth, out);
  }
  // The panels of columns [j, ...) of a B packed before the call (kPackedB), over its k slice [p, p + depth): the
  // slices lie one after another, ldb floats per row of them, and each holds its rows' NR-wide panels in column
  // order, depth * NR floats apart (j is a multiple of NR).
  const float* packed_b_panels(int64_t p, int64_t j, int64_t depth) const {
    return B + p * ldb + (packed_b_column + j) * depth;
  }
  // Packs columns [j, j + cols) of B over k [p, p + depth) into kernel k's micro-panels, from either storage.
  void pack_b(const Kernel& k, int64_t p, int64_t j, int64_t cols, int64_t depth, float* out) const {
    if (b_transposed())
      k.pack_b_transposed(B + j * ldb + p, ldb, cols, depth, out);
    else
      k.pack_b(B + p * ldb + j, ldb, cols, depth, out);
  }
};

// The post-ops on rows x cols of C from c on, which the call has finished: a tile or strip right after the k slice
// that completes it, while it is in the cache, so that the epilogue costs no pass over C in memory. The post-ops
// compile with the kernel's ISA (post_ops_apply.h).
inline void finish(const Gemm& g, const Kernel& k, float* c, int64_t rows, int64_t cols) {
  if (g.post != nullptr) k.post(*g.post, c, rows, cols);
}

// A single row of tiles over a streamed B (M <= MR, B not cached) is split along K instead of N when C is small: each
// thread then streams whole rows of B, a contiguous run of memory, into a private copy of C, and the copies are
// summed at the end. Split along N, each thread reads a narrow band of every row of B, a page or more apart, and two
// threads are slower than one (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "split-k"). Up to
// kSplitKBytes per copy, so that the copies stay in the second-level cache.
constexpr int64_t kSplitKBytes = int64_t{256} << 10;

bool split_k(int64_t M, int64_t N, int64_t K, const Kernel& k, int32_t threads) {
  return threads > 1 && M <= k.mr && matrix_bytes(K, N) > kDirectBytes && matrix_bytes(M, N) <= kSplitKBytes &&
         K >= 2 * k.k1;
}

// The private copies of C, M x N each (rows N apart), one per task, 64-byte aligned.
int64_t split_k_floats(int64_t M, int64_t N) { return round_up(M * N, kAlign / static_cast<int64_t>(sizeof(float))); }

// The B slots of every thread of a packed plan: enough for its largest block of C.
int64_t plan_b_slots(const Plan& plan, int64_t M, int64_t N, int64_t K) {
  const Kernel& k = kKernels[plan.kernel];
  const int64_t rows = largest_share(M, k.mr, plan.row_shares);
  return b_slots(k, rows, largest_share(N, k.nr, plan.threads / plan.row_shares), K);
}

size_t workspace_bytes(const Plan& plan, int64_t M, int64_t N, int64_t K) {
  const Kernel& k = kKernels[plan.kernel];
  int64_t floats = 0;
  if (plan.packed)
    floats = plan.threads * thread_floats(k, plan_b_slots(plan, M, N, K));
  else if (split_k(M, N, K, k, plan.threads))
    floats = plan.threads * split_k_floats(M, N);
  return floats == 0 ? 0 : static_cast<size_t>(floats) * sizeof(float) + kAlign;
}

// A plan's best one-thread alternative (see ready_plan).
Plan alone_plan(const Plan& plan) {
  return Plan{plan.alone.kernel, 1, plan.alone.packed, plan.alone.dots, plan.alone.seconds, 1, plan.alone};
}

// What a call of this plan may need: either the plan itself or, when it finds the pool asleep, its alternative.
size_t call_workspace_bytes(const Plan& plan, int64_t M, int64_t N, int64_t K) {
  return std::max(workspace_bytes(plan, M, N, K), workspace_bytes(alone_plan(plan), M, N, K));
}

// C = beta * C, used for K = 0 and alpha = 0; beta = 0 writes zeros without reading C.
void scale_c(const Gemm& g) {
  for (int64_t i = 0; i < g.M; ++i) {
    float* row = g.C + i * g.ldc;
    if (g.beta == 0.0f)
      std::fill(row, row + g.N, 0.0f);
    else if (g.beta != 1.0f)
      for (int64_t j = 0; j < g.N; ++j) row[j] *= g.beta;
  }
}

// Direct path: micro-tiles over the whole of C, taken by the threads in chunks of consecutive tiles.
struct DirectJob {
  const Gemm* g;
  const Kernel* k;
  int64_t tiles, tiles_m;        // C's register tiles, and how many make a column of them
  int64_t chunk;                 // tiles taken at a time
  std::atomic<int64_t> next{0};  // the first tile no thread has taken yet
};

// Each thread of a direct call takes chunks of tiles as it goes, about this many per thread, rather than a fixed
// share: a worker woken from sleep may start late and, in a virtual machine, run slowly for a while, and with fixed
// shares the caller waits for it, slower than alone (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
// "direct-chunks"). A chunk is a run of whole tiles, so that each tile still runs every k slice itself.
constexpr int64_t kChunksPerThread = 8;

// Whether a direct call's A comes from beyond the direct cache: then the first strip of each row block, which reads
// its rows of A from there (the block's later strips find them in the tile cache), has its tiles fetch A ahead
// (TileArgs::fetch_a_ahead, see the kernels' prefetch_a_rows). Where A is cached the fetches only cost time.
bool a_from_beyond(const Gemm& g) { return matrix_bytes(g.M, g.K) > kStreamABytes; }

// Whether a direct call's C is larger than the direct cache: then its tiles, however shallow, ask for their rows of C
// before their k loops (TileArgs::c_from_beyond; see the kernels' tile_body).
bool c_from_beyond(const Gemm& g) { return matrix_bytes(g.M, g.N) > kStreamABytes; }

// A tile's arguments for a loop over a call's tiles, made once before it: C's stride and alpha, the rest zero for the
// loop to fill in. Made afresh for each tile, GCC clears each with a `rep stos` before writing its fields, and the
// kernel's loads of them, which cannot be forwarded from a string store, wait for it to reach the cache
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "tile-args-once").
TileArgs tile_args_of(const Gemm& g) {
  return TileArgs{0, nullptr, 0, nullptr, 0, nullptr, g.ldc, g.alpha, 1.0f, 0, 0};
}

// What a direct call's strips are told about where A, B and C come from (TileArgs' fetch flags), worked out once per
// call (see a_from_beyond, direct_b_ahead and c_from_beyond).
struct DirectFetches {
  bool a_beyond, b_ahead, c_beyond;
  DirectFetches(const Gemm& g, const Kernel& k)
      : a_beyond(a_from_beyond(g)), b_ahead(direct_b_ahead(k, g.M, g.N, g.K, g.ldb)), c_beyond(c_from_beyond(g)) {}
  // The flags of the strip at row i and column j of C, whose other arguments are filled in.
  void mark(const Gemm& g, int64_t i, int64_t j, TileArgs* args) const {
    args->fetch_a_ahead = a_beyond && j == 0;
    args->a_continues = i + args->rows < g.M;
    args->c_from_beyond = c_beyond;
    args->fetch_b_ahead = b_ahead;
  }
};

// The micro-tiles [begin, end) of C, in k slices of direct_depth(). C's rows of tiles are cut into blocks of
// direct_block_rows(); the tiles are numbered block by block, and column-major (a column strip of the block after
// another) within one. The tiles of a range that lie in one strip of a block are one call of the kernel.
void direct_tiles(const Gemm& g, const Kernel& k, int64_t begin, int64_t end, int64_t tiles_m) {
  const int64_t slice = direct_depth(k, g.M, g.N, g.K, g.ldb), strips = (g.N + k.nr - 1) / k.nr;
  const DirectFetches fetches(g, k);
  TileArgs args = tile_args_of(g);
  args.lda = g.lda;
  args.ldb = g.ldb;
  for (int64_t p = 0; p < g.K; p += slice) {
    const int64_t depth = std::min<int64_t>(slice, g.K - p);
    const float beta = p == 0 ? g.beta : 1.0f;
    // All of M may end in a short tile.
    const int64_t block_tiles = (direct_block_rows(k, g.M, g.N, depth) + k.mr - 1) / k.mr;
    const int64_t per_block = block_tiles * strips;  // tiles in every block but the last
    for (int64_t t = begin; t < end;) {
      const int64_t block = t / per_block, in_block = t - block * per_block;
      const int64_t block_height = std::min(block_tiles, tiles_m - block * block_tiles);  // rows of tiles
      const int64_t j = in_block / block_height * k.nr, row = block * block_tiles + in_block % block_height;
      const int64_t count = std::min(end - t, block * block_tiles + block_height - row);  // tiles in this strip
      const int64_t i = row * k.mr;
      args.k = depth;
      args.a = g.A + i * g.lda + p;
      args.b = g.B + p * g.ldb + j;
      args.c = g.C + i * g.ldc + j;
      args.beta = beta;
      args.rows = std::min(count * k.mr, g.M - i);
      args.cols = static_cast<int32_t>(std::min<int64_t>(k.nr, g.N - j));
      fetches.mark(g, i, j, &args);
      k.direct(args);
      if (p + depth == g.K) finish(g, k, args.c, args.rows, args.cols);
      t += count;
    }
  }
}

// Whether a direct call whose B is too wide for the registers runs in held strips (see held_strips in the kernels):
// where a column strip of B fits in them at this depth (held_width), with rows enough for the FMA chains, and A and C
// stay in the direct cache: each strip reads all of A again and writes a strip's width of every row of C (the kernels
// see those two as TileArgs::fetch_a_ahead and c_from_beyond).
bool held_strips_pay(int64_t M, int64_t N, int64_t K) {
  return held_strips_have_rows(M, K) && matrix_bytes(M, K) <= kStreamABytes && matrix_bytes(M, N) <= kStreamABytes;
}

// Whether a direct call runs each row of C across its whole width at once (see the kernels' rows_whole): C at most
// kWideVectors vectors wide, k at most kChains steps per vector (each of a row's accumulators is a chain of k FMAs,
// and a row of few vectors over a deeper k waits on them), and at most kWideFmas vector FMAs in all, where the
// strips' and tiles' calls around them are the larger part of the call; with more FMAs the tiles' shared loads of B
// win. Only on one thread (direct_all), and direct_work prices such a call as strips of tiles: every kernel runs it
// alike, and such calls are too small for a second thread. So does a C larger than the outer cache, however many
// FMAs: it is then written to memory row after row, each row's lines whole, where strips of tiles write every row of
// a row block a strip's width at a time; with C in the outer cache the tiles win. Ahead of all that: where all of B
// fits in the vector registers (b_held), the kernels hold it there (see rows_held) and a row costs its FMAs and its
// stores, whatever M: no tiles' loads of B to share, and no edge strip; where only a column strip of B fits, they
// hold one strip at a time (see held_strips_pay). Not for a single column, which the kernels' direct path runs along
// k (see dot_rows), a row in a few FMAs and one horizontal sum, where here it takes K FMAs, nor for the few columns
// it runs along m, see along_m_pays (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "wide-rows").
constexpr int64_t kWideFmas = 320;
bool wide_rows_pay(int64_t M, int64_t N, int64_t K) {
  const int64_t vectors = strata_model::ceil_div(N, kVectorFloats);
  if (N > 1 && !goes_along_m(M, N, K, kVectorFloats) && (b_held(vectors, K) || held_strips_pay(M, N, K))) return true;
  const bool c_from_memory = matrix_bytes(M, N) > kOuterBytes;
  return vectors <= kWideVectors && K <= kChains * vectors && (M * vectors * K <= kWideFmas || c_from_memory);
}

// Columns [j, j + cols) of a row-streams call.
void row_streams_of(const Gemm& g, const Kernel& k, int64_t j, int64_t cols) {
  TileArgs args{g.K, g.A, g.lda, g.B + j, g.ldb, g.C + j, g.ldc, g.alpha, g.beta, g.M, static_cast<int32_t>(cols)};
  args.b_rows_collide = rows_share_a_set(g.ldb) && matrix_bytes(g.K, g.N) <= kOuterBytes;
  k.row_streams(args);
  finish(g, k, args.c, g.M, cols);
}

// A row-streams call on several threads: each takes an even share of C's columns, in whole vectors.
struct RowStreamsJob {
  const Gemm* g;
  const Kernel* k;
  int64_t shares;
};

void row_streams_task(void* context, int64_t index) {
  const RowStreamsJob& job = *static_cast<const RowStreamsJob*>(context);
  const int64_t j = share_start(job.g->N, kVectorFloats, index, job.shares);
  const int64_t end = share_start(job.g->N, kVectorFloats, index + 1, job.shares);
  if (end > j) row_streams_of(*job.g, *job.k, j, end - j);
}

void run_streamed(const Gemm& g, const Kernel& k, float* a, int64_t a_floats);  // see the packed path

// All of C, on the calling thread, alone or as one of a split-K call's tasks: in row streams or whole rows where
// those pay (see row_streams_pay and wide_rows_pay), over a streamed B where that pays (see direct_streams_b), else
// each column of tiles of a row block is one strip. No tile counts, and no divisions to get them: on the small
// problems this path serves, a division is a visible share.
void direct_all(const Gemm& g, const Kernel& k, bool alone) {
  if (row_streams_pay(k, g.M, g.N, g.K, alone)) {
    row_streams_of(g, k, 0, g.N);
    return;
  }
  if (wide_rows_pay(g.M, g.N, g.K)) {
    TileArgs args{g.K, g.A, g.lda, g.B, g.ldb, g.C, g.ldc, g.alpha, g.beta, g.M, static_cast<int32_t>(g.N)};
    args.fetch_a_ahead = a_from_beyond(g);
    args.c_from_beyond = c_from_beyond(g);
    k.wide_rows(args);
    finish(g, k, g.C, g.M, g.N);
    return;
  }
  if (direct_streams_b(k, g.M, g.N, g.K, g.ldb)) {
    alignas(kAlign) float a[kStreamedAFloats];
    run_streamed(g, k, a, kStreamedAFloats);
    return;
  }
  const int64_t slice = direct_depth(k, g.M, g.N, g.K, g.ldb);
  const DirectFetches fetches(g, k);
  TileArgs args = tile_args_of(g);
  args.lda = g.lda;
  args.ldb = g.ldb;
  for (int64_t p = 0; p < g.K; p += slice) {
    const int64_t depth = std::min<int64_t>(slice, g.K - p);
    const float beta = p == 0 ? g.beta : 1.0f;
    const int64_t block_rows = direct_block_rows(k, g.M, g.N, depth);
    for (int64_t i = 0; i < g.M; i += block_rows)
      for (int64_t j = 0; j < g.N; j += k.nr) {
        args.k = depth;
        args.a = g.A + i * g.lda + p;
        args.b = g.B + p * g.ldb + j;
        args.c = g.C + i * g.ldc + j;
        args.beta = beta;
        args.rows = std::min(block_rows, g.M - i);
        args.cols = static_cast<int32_t>(std::min<int64_t>(k.nr, g.N - j));
        fetches.mark(g, i, j, &args);
        k.direct(args);
        if (p + depth == g.K) finish(g, k, args.c, args.rows, args.cols);
      }
  }
}

// direct_all's one strip for a single-tile call (see one_tile).
void direct_single_tile(const Gemm& g, const Kernel& k) {
  TileArgs args{g.K, g.A, g.lda, g.B, g.ldb, g.C, g.ldc, g.alpha, g.beta, g.M, static_cast<int32_t>(g.N)};
  args.fetch_a_ahead = a_from_beyond(g);
  k.direct(args);
  finish(g, k, g.C, g.M, g.N);
}

void direct_task(void* context, int64_t) {
  DirectJob& job = *static_cast<DirectJob*>(context);
  for (;;) {
    const int64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.tiles) return;
    direct_tiles(*job.g, *job.k, begin, std::min(job.tiles, begin + job.chunk), job.tiles_m);
  }
}

struct SplitKJob {
  const Gemm* g;
  const Kernel* k;
  float* copies;                   // split_k_floats() per task
  int64_t chunk;                   // rows of K taken at a time
  std::atomic<int64_t> next{0};    // the first row of K no task has taken yet
  bool written[kMaxThreads] = {};  // the task's copy holds a sum (a task may find no rows left)
};

void split_k_task(void* context, int64_t index) {
  SplitKJob& job = *static_cast<SplitKJob*>(context);
  const Gemm& g = *job.g;
  Gemm part = g;
  part.C = job.copies + index * split_k_floats(g.M, g.N);
  part.ldc = g.N;
  part.post = nullptr;  // applied to the sum (run_split_k)
  for (;;) {
    const int64_t p = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (p >= g.K) return;
    part.K = std::min(job.chunk, g.K - p);
    part.A = g.A + p;
    part.B = g.B + p * g.ldb;
    part.beta = job.written[index] ? 1.0f : 0.0f;
    direct_all(part, *job.k, false);
    job.written[index] = true;
  }
}

void run_split_k(const Gemm& g, const Kernel& k, int32_t threads, void* workspace) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(workspace);
  SplitKJob job{&g, &k, reinterpret_cast<float*>((base + kAlign - 1) / kAlign * kAlign),
                std::max(k.k1, g.K / (threads * kChunksPerThread))};
  parallel_for(threads, split_k_task, &job);
  const int64_t copy_floats = split_k_floats(g.M, g.N);
  for (int64_t i = 0; i < g.M; ++i) {
    float* c = g.C + i * g.ldc;
    if (g.beta == 0.0f)
      std::fill(c, c + g.N, 0.0f);
    else if (g.beta != 1.0f)
      for (int64_t j = 0; j < g.N; ++j) c[j] *= g.beta;
    for (int32_t t = 0; t < threads; ++t) {
      if (!job.written[t]) continue;
      const float* copy = job.copies + t * copy_floats + i * g.N;
      for (int64_t j = 0; j < g.N; ++j) c[j] += copy[j];
    }
  }
  finish(g, k, g.C, g.M, g.N);
}

// ---- Dot rows ----------------------------------------------------------------------------------------------------

struct DotRowsJob {
  const Gemm* g;
  const Kernel* kernel;
  int64_t chunk;       // columns of C per task
  int64_t depth;       // the k slices (see dots_depth)
  bool b_from_memory;  // B is larger than the outer cache (see fetch_b_ahead)
};

// Columns [index * chunk, ...) of C, each a row of the stored B against every row of A, in the kernel's dot products
// (see dots_work), at most kDotsColumns columns a call.
constexpr int64_t kDotsColumns = int64_t{1} << 20;
void dot_rows_task(void* context, int64_t index) {
  const DotRowsJob& job = *static_cast<const DotRowsJob*>(context);
  const Gemm& g = *job.g;
  const int64_t end = std::min(g.N, (index + 1) * job.chunk);
  for (int64_t p = 0; p < g.K; p += job.depth) {
    const int64_t depth = std::min(g.K - p, job.depth);
    const float beta = p == 0 ? g.beta : 1.0f;  // each slice after the first adds onto C
    for (int64_t j = index * job.chunk; j < end; j += kDotsColumns) {
      const int64_t cols = std::min(end - j, kDotsColumns);
      TileArgs args{depth,   g.A + p, g.lda, g.B + j * g.ldb + p,       g.ldb, g.C + j, g.ldc,
                    g.alpha, beta,    g.M,   static_cast<int32_t>(cols)};
      args.fetch_b_ahead = job.b_from_memory;
      job.kernel->dots(args);
    }
  }
  if (end > index * job.chunk) finish(g, *job.kernel, g.C + index * job.chunk, g.M, end - index * job.chunk);
}

// A call over a transposed B as dot products (see runs_dots), its columns shared among `threads`.
void dot_rows(const Gemm& g, const Kernel& kernel, int32_t threads) {
  DotRowsJob job{&g, &kernel, strata_model::ceil_div(g.N, threads), dots_depth(g.M, g.K),
                 matrix_bytes(g.N, g.K) > kOuterBytes};
  parallel_for(strata_model::ceil_div(g.N, job.chunk), dot_rows_task, &job);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_DIRECT_H_
