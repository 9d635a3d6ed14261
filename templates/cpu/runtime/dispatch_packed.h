// Part of the dispatcher (see dispatch_rules.h): the packed path, level-2 and level-1 blocks over packed panels,
// and the streamed path, which packs A alone.
#ifndef STRATA_DISPATCH_PACKED_H_
#define STRATA_DISPATCH_PACKED_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// What one of a thread's B or A slots holds, so that a later level-1 tile can reuse it instead of packing it again:
// the block's origin (row or column, then k) and extent.
// No initialisers: a thread's buffers hold up to kMaxASlots + kMaxBSlots of them, and packed_task empties only the
// slots the call uses (constructing all 512 would write 16 KiB per thread and call).
struct PackedBlock {
  int64_t origin, p1, extent, k1;
  bool holds(int64_t o, int64_t p, int64_t e, int64_t k) const {
    return origin == o && p1 == p && extent == e && k1 == k;
  }
};

// One thread's packing buffers and what they hold.
struct ThreadBuffers {
  float* a;  // a_slots() blocks of a_block_floats()
  float* b;  // b_slots blocks of b_block_floats()
  int64_t slots, b_slots;
  PackedBlock held_a[kMaxASlots];
  PackedBlock held_b[kMaxBSlots];
};

// Packed path, one level-2 tile of a thread's block.
struct BlockJob {
  int64_t i2, j2, p2;        // origin of the level-2 tile
  int64_t m2, n2, k2;        // its extent, clamped to the block
  int64_t tiles_m, tiles_n;  // level-1 tiles in it
  // The B block the thread packs after this level-2 tile's, which the tiles of its last B block ask into L2 (see
  // TileArgs::next_b and run_block); none (next_b null) unless B comes from beyond the direct cache.
  const float* next_b = nullptr;
  int64_t next_rows = 0, next_cols = 0;
};

// The register tiles down a level-1 block of `rows` rows: as few as the kernel's mr allows, their heights within a
// row of each other, so that no tile is left with a sliver (24 rows on an 11-row tile: 8, 8 and 8, not 11, 11 and 2).
// A short tile reads as much of B per k step as a full one for fewer FMAs (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "row-tiles"). Tile t is A's micro-panel t of the packed block.
struct RowTiles {
  int64_t count, base, taller;  // the first `taller` tiles have base + 1 rows, the others base
  int64_t start(int64_t t) const { return t * base + std::min(t, taller); }
  int64_t height(int64_t t) const { return t < taller ? base + 1 : base; }
};
RowTiles row_tiles(int64_t rows, int64_t mr) {
  const int64_t count = (rows + mr - 1) / mr;
  return RowTiles{count, rows / count, rows % count};
}

// Runs one level-2 tile. Its level-1 tiles are walked column by column (m innermost), so that each B block is packed
// once per k slice and reused by every A block of the column. A block is packed whole, before its tiles: where few
// rows of tiles use it, the copy (bound by how fast B comes from the outer cache) is a large share of the call, and
// packing it a panel at a time, each panel's first tile prefetching the next one's rows in its k loop, does not
// shrink that share: the prefetches and the copy's misses share the core's few miss buffers; only the hardware
// streamer, following the copy's long rows, reaches the cache's bandwidth (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "b-block-whole"). Blocks of few rows of tiles do not pack B at all
// (see streamed_rows and run_streamed).
void run_block(const Gemm& g, const Kernel& k, const BlockJob& job, ThreadBuffers& buffers) {
  const int64_t k_slices = strata_model::ceil_div(job.k2, k.k1);
  // Where the level-2 tile asks for B ahead (job.next_b set), each B block's tiles ask for the block packed after it:
  // the next k slice of their column, the next column's first, or after the last, the next level-2 tile's first
  // (job.next_b); its rows spread evenly over the block's tile calls. (Asked for once per level-2 tile, by all of its
  // tiles, only the next tile's first block would come from L2, and the others would be packed from memory.)
  const int64_t block_calls = job.tiles_m * row_tiles(std::min(k.m1, job.m2), k.mr).count *
                              strata_model::ceil_div(std::min(k.n1, job.n2), k.nr);
  TileArgs args = tile_args_of(g);  // (see tile_args_of)
  for (int64_t tile_j = 0; tile_j < job.tiles_n; ++tile_j) {
    const int64_t j1 = job.j2 + tile_j * k.n1, n1 = std::min<int64_t>(k.n1, job.j2 + job.n2 - j1);
    for (int64_t slice = 0; slice < k_slices; ++slice) {
      const int64_t p1 = job.p2 + slice * k.k1, k1 = std::min<int64_t>(k.k1, job.p2 + job.k2 - p1);
      const float* next_b = job.next_b;
      int64_t next_rows = job.next_rows, next_cols = job.next_cols, next_row = 0;
      if (next_b != nullptr && slice + 1 < k_slices) {
        next_b = g.B + (p1 + k.k1) * g.ldb + j1;
        next_rows = std::min<int64_t>(k.k1, job.p2 + job.k2 - p1 - k.k1);
        next_cols = n1;
      } else if (next_b != nullptr && tile_j + 1 < job.tiles_n) {
        next_b = g.B + job.p2 * g.ldb + j1 + k.n1;
        next_rows = std::min<int64_t>(k.k1, job.k2);
        next_cols = std::min<int64_t>(k.n1, job.j2 + job.n2 - j1 - k.n1);
      }
      const int64_t rows_per_call = next_b == nullptr ? 0 : strata_model::ceil_div(next_rows, block_calls);
      const float* b_block = nullptr;
      if (g.b_packed()) {
        b_block = g.packed_b_panels(p1, j1, k1);
      } else {
        const int64_t b_slot = (j1 / k.n1 * k_slices + slice) % buffers.b_slots;
        float* const slot = buffers.b + b_slot * b_block_floats(k);
        if (!buffers.held_b[b_slot].holds(j1, p1, n1, k1)) {
          g.pack_b(k, p1, j1, n1, k1, slot);
          buffers.held_b[b_slot] = PackedBlock{j1, p1, n1, k1};
        }
        b_block = slot;
      }
      const float beta = p1 == 0 ? g.beta : 1.0f;  // later k slices accumulate onto the first one's result
      for (int64_t tile_i = 0; tile_i < job.tiles_m; ++tile_i) {
        const int64_t i1 = job.i2 + tile_i * k.m1, m1 = std::min<int64_t>(k.m1, job.i2 + job.m2 - i1);
        const int64_t slot = (tile_i * k_slices + slice) % buffers.slots;
        float* a_block = buffers.a + slot * a_block_floats(k);
        const RowTiles tiles = row_tiles(m1, k.mr);
        if (!buffers.held_a[slot].holds(i1, p1, m1, k1)) {
          for (int64_t t = 0; t < tiles.count; ++t)
            g.pack_a(k, i1 + tiles.start(t), p1, tiles.height(t), k1, a_block + t * k.mr * k1);
          buffers.held_a[slot] = PackedBlock{i1, p1, m1, k1};
        }
        for (int64_t jr = 0; jr < n1; jr += k.nr) {
          const float* b = b_block + (jr / k.nr) * k.nr * k1;
          const int32_t cols = static_cast<int32_t>(std::min<int64_t>(k.nr, n1 - jr));
          for (int64_t t = 0; t < tiles.count; ++t) {
            args.k = k1;
            args.a = a_block + t * k.mr * k1;
            args.b = b;
            args.c = g.C + (i1 + tiles.start(t)) * g.ldc + j1 + jr;
            args.beta = beta;
            args.rows = tiles.height(t);
            args.cols = cols;
            args.next_rows = 0;
            if (next_row < next_rows && rows_per_call > 0) {
              args.next_b = next_b + next_row * g.ldb;
              args.next_ldb = g.ldb;
              args.next_rows = static_cast<int32_t>(std::min(rows_per_call, next_rows - next_row));
              args.next_cols = static_cast<int32_t>(next_cols);
              next_row += rows_per_call;
            }
            k.packed(args);
            if (p1 + k1 == g.K) finish(g, k, args.c, args.rows, args.cols);
          }
        }
      }
    }
  }
}

// A thread's block of C over a streamed B: each k slice packs A's rows for it once, then walks C's column strips,
// each strip's tiles one below the other over the slice of B in place, the first fetching B's rows ahead (see the
// kernels' fetch_b_ahead). The slices are as deep as streamed_depth allows, at most kStreamedK1s times K1, not K1 as
// the level-1 tiles': each is a pass over C (read back, accumulated, written) and restarts the first tile's fetches,
// whose first rows then wait (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "streamed-slices").
void run_streamed(const Gemm& g, const Kernel& k, float* a, int64_t a_floats) {
  const RowTiles tiles = row_tiles(g.M, k.mr);
  const int64_t depth = streamed_depth(k, g.M, g.K, a_floats);
  TileArgs args = tile_args_of(g);  // (see tile_args_of)
  args.ldb = g.ldb;
  for (int64_t p = 0; p < g.K; p += depth) {
    const int64_t d = std::min(depth, g.K - p);
    for (int64_t t = 0; t < tiles.count; ++t) g.pack_a(k, tiles.start(t), p, tiles.height(t), d, a + t * k.mr * d);
    const float beta = p == 0 ? g.beta : 1.0f;  // later slices accumulate onto the first one's result
    for (int64_t j = 0; j < g.N; j += k.nr) {
      const int32_t cols = static_cast<int32_t>(std::min<int64_t>(k.nr, g.N - j));
      for (int64_t t = 0; t < tiles.count; ++t) {
        args.k = d;
        args.a = a + t * k.mr * d;
        args.b = g.B + p * g.ldb + j;
        args.c = g.C + tiles.start(t) * g.ldc + j;
        args.beta = beta;
        args.rows = tiles.height(t);
        args.cols = cols;
        args.fetch_b_ahead = t == 0;
        k.streamed(args);
        if (p + d == g.K) finish(g, k, args.c, args.rows, args.cols);
      }
    }
  }
}

struct PackedJob {
  const Gemm* g;
  const Kernel* k;
  int64_t row_shares, col_shares;
  int64_t b_slots;  // per thread (see plan_b_slots)
  float* buffers;   // per thread: thread_floats() floats
};

// Points `block`, the level-2 tile at (p2, j2) of a thread's block of C (`g`), at the B block the thread packs next
// (BlockJob::next_b): the next j2's first k slice or, after the last j2, the next p2's first block; none after the
// last.
void point_at_next_b(const Gemm& g, const Kernel& k, int64_t p2, int64_t j2, BlockJob* block) {
  if (g.b_transposed()) return;  // the next block's rows are not rows of a transposed B
  int64_t p = p2, j = j2 + k.n2;
  if (j >= g.N) {
    p = p2 + k.k2;
    j = 0;
  }
  if (p >= g.K) return;
  block->next_b = g.B + p * g.ldb + j;
  block->next_rows = std::min<int64_t>(k.k1, g.K - p);
  block->next_cols = std::min<int64_t>(k.n1, g.N - j);
}

// One thread's part of the whole packed call: its block of C (see "Thread shares"), as a GEMM of its own, its
// level-2 tiles walked n innermost so that consecutive tiles need the A blocks the thread keeps. Each element of C
// is accumulated by one thread, in k order: the call needs one parallel region, with no barrier in it.
void packed_task(void* context, int64_t index) {
  const PackedJob& job = *static_cast<const PackedJob*>(context);
  const Kernel& k = *job.k;
  const int64_t row_share = index / job.col_shares, col_share = index % job.col_shares;
  const int64_t i0 = share_start(job.g->M, k.mr, row_share, job.row_shares);
  const int64_t j0 = share_start(job.g->N, k.nr, col_share, job.col_shares);
  Gemm g = *job.g;
  g.M = share_start(g.M, k.mr, row_share + 1, job.row_shares) - i0;
  g.N = share_start(g.N, k.nr, col_share + 1, job.col_shares) - j0;
  if (g.M == 0 || g.N == 0) return;
  g.move_a_to_row(i0);
  if (g.b_packed())
    g.packed_b_column += j0;
  else
    g.B = g.b_from_column(j0);
  g.C += i0 * g.ldc + j0;
  const int64_t buffer_floats = thread_floats(k, job.b_slots);
  float* const a_buffers = job.buffers + index * buffer_floats;
  const bool b_in_place = !g.b_transposed() && !g.b_packed();
  const int64_t streamed = b_in_place ? streamed_rows(k, g.M, job.g->N, job.g->K, buffer_floats) : 0;
  if (streamed > 0) {
    for (int64_t i = 0; i < g.M; i += streamed) {
      Gemm block = g;
      block.M = std::min(streamed, g.M - i);
      block.move_a_to_row(i);
      block.C += i * g.ldc;
      run_streamed(block, k, a_buffers, buffer_floats);
    }
    return;
  }
  ThreadBuffers buffers;
  buffers.a = a_buffers;
  buffers.slots = a_slots(k);
  buffers.b = buffers.a + buffers.slots * a_block_floats(k);
  buffers.b_slots = job.b_slots;
  const PackedBlock empty{-1, -1, 0, 0};
  std::fill_n(buffers.held_a, buffers.slots, empty);
  std::fill_n(buffers.held_b, buffers.b_slots, empty);
  const bool fetches_next_b = !g.b_packed() && asks_b_ahead(k, g.M, job.g->N, job.g->K);
  for (int64_t p2 = 0; p2 < g.K; p2 += k.k2)
    for (int64_t i2 = 0; i2 < g.M; i2 += k.m2)
      for (int64_t j2 = 0; j2 < g.N; j2 += k.n2) {
        BlockJob block{i2,
                       j2,
                       p2,
                       std::min<int64_t>(k.m2, g.M - i2),
                       std::min<int64_t>(k.n2, g.N - j2),
                       std::min<int64_t>(k.k2, g.K - p2),
                       0,
                       0};
        block.tiles_m = strata_model::ceil_div(block.m2, k.m1);
        block.tiles_n = strata_model::ceil_div(block.n2, k.n1);
        if (fetches_next_b) point_at_next_b(g, k, p2, j2, &block);
        run_block(g, k, block, buffers);
      }
}

void run_packed(const Gemm& g, const Plan& plan, void* workspace) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(workspace);
  float* const buffers = reinterpret_cast<float*>((base + kAlign - 1) / kAlign * kAlign);
  PackedJob job{&g,
                &kKernels[plan.kernel],
                plan.row_shares,
                plan.threads / plan.row_shares,
                plan_b_slots(plan, g.M, g.N, g.K),
                buffers};
  parallel_for(plan.threads, packed_task, &job);
}

void run_direct(const Gemm& g, const Plan& plan) {
  const Kernel& k = kKernels[plan.kernel];
  if (plan.threads == 1) {
    direct_all(g, k, true);
    return;
  }
  if (row_streams_pay(k, g.M, g.N, g.K, false)) {
    RowStreamsJob job{&g, &k, std::min<int64_t>(plan.threads, strata_model::ceil_div(g.N, kVectorFloats))};
    parallel_for(job.shares, row_streams_task, &job);
    return;
  }
  const int64_t tiles_m = (g.M + k.mr - 1) / k.mr, tiles = tiles_m * ((g.N + k.nr - 1) / k.nr);
  const int64_t threads = std::min<int64_t>(plan.threads, tiles);
  DirectJob job{&g, &k, tiles, tiles_m, std::max<int64_t>(1, tiles / (threads * kChunksPerThread))};
  parallel_for(threads, direct_task, &job);
}

// A call on a packed B (kPackedB) with A in place: each panel of a packed k slice is a row-major B of NR columns
// (ldb = NR), which the kernels' direct strips read as they read a B in place. Row blocks of direct_block_rows rows
// walk the panels innermost, so that a block's rows of A stay in the direct cache across them; each k slice is a pass
// over the block's C, whose epilogue follows the last.
void packed_b_in_place(const Gemm& g, const Kernel& k, int64_t i0, int64_t rows, int64_t j0, int64_t cols) {
  TileArgs args = tile_args_of(g);
  args.lda = g.lda;
  args.ldb = k.nr;
  const bool a_beyond = a_from_beyond(g), c_beyond = c_from_beyond(g);
  for (int64_t p2 = 0; p2 < g.K; p2 += k.k2)
    for (int64_t p1 = p2; p1 < std::min(g.K, p2 + k.k2); p1 += k.k1) {
      const int64_t depth = std::min({k.k1, g.K - p1, p2 + k.k2 - p1});
      const int64_t block_rows = direct_block_rows(k, rows, cols, depth);
      for (int64_t i = i0; i < i0 + rows; i += block_rows)
        for (int64_t j = j0; j < j0 + cols; j += k.nr) {
          args.k = depth;
          args.a = g.A + i * g.lda + p1;
          args.b = g.packed_b_panels(p1, j, depth);
          args.c = g.C + i * g.ldc + j;
          args.beta = p1 == 0 ? g.beta : 1.0f;
          args.rows = std::min(block_rows, i0 + rows - i);
          args.cols = static_cast<int32_t>(std::min<int64_t>(k.nr, j0 + cols - j));
          args.fetch_a_ahead = a_beyond && j == j0;
          args.c_from_beyond = c_beyond;
          k.direct(args);
          if (p1 + depth == g.K) finish(g, k, args.c, args.rows, args.cols);
        }
    }
}

struct PackedBInPlaceJob {
  const Gemm* g;
  const Kernel* k;
  int64_t row_shares, col_shares;
};

void packed_b_in_place_task(void* context, int64_t index) {
  const PackedBInPlaceJob& job = *static_cast<const PackedBInPlaceJob*>(context);
  const Gemm& g = *job.g;
  const int64_t row_share = index / job.col_shares, col_share = index % job.col_shares;
  const int64_t i0 = share_start(g.M, job.k->mr, row_share, job.row_shares);
  const int64_t j0 = share_start(g.N, job.k->nr, col_share, job.col_shares);
  const int64_t rows = share_start(g.M, job.k->mr, row_share + 1, job.row_shares) - i0;
  const int64_t cols = share_start(g.N, job.k->nr, col_share + 1, job.col_shares) - j0;
  if (rows > 0 && cols > 0) packed_b_in_place(g, *job.k, i0, rows, j0, cols);
}

// Threads share C's rows in whole register tiles, or also its panels where it has fewer rows of tiles than threads.
void run_packed_b_in_place(const Gemm& g, const Plan& plan) {
  const Kernel& k = kKernels[plan.kernel];
  using strata_model::ceil_div;
  const int64_t row_shares = std::min<int64_t>(plan.threads, ceil_div(g.M, k.mr));
  const int64_t col_shares = std::max<int64_t>(1, std::min(plan.threads / row_shares, ceil_div(g.N, k.nr)));
  PackedBInPlaceJob job{&g, &k, row_shares, col_shares};
  if (row_shares * col_shares == 1)
    packed_b_in_place(g, k, 0, g.M, 0, g.N);
  else
    parallel_for(row_shares * col_shares, packed_b_in_place_task, &job);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_PACKED_H_
