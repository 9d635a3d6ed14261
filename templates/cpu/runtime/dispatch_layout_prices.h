// Part of the dispatcher (see dispatch_rules.h): the prices of what an operand's layout adds to a call: dot products
// over a transposed B, row-major copies of transposed operands, a convolution's gather and its in-place path, and
// which of them a kernel runs.
#ifndef STRATA_DISPATCH_LAYOUT_PRICES_H_
#define STRATA_DISPATCH_LAYOUT_PRICES_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// The depth of the k slices the dot products run over (see dots_work): all of K where A's rows fit the direct cache,
// else as deep as fits, in whole vectors; 0 where not even a vector's depth of M rows fits.
int64_t dots_depth(int64_t M, int64_t K) {
  const int64_t fits = M > 0 ? kDirectBytes / matrix_bytes(M, 1) : K;
  return fits >= K ? K : fits / kVectorFloats * kVectorFloats;
}

// Whether a call over a B stored transposed can run as dot products: a slice of at least a vector of k fits.
bool dots_fit(int64_t M, int64_t K, int32_t layout) { return (layout & kTransB) != 0 && dots_depth(M, K) > 0; }

// A call in place over a B stored transposed, as dot products (see dots in the kernels): each element of C is the dot
// product of a row of A and a row of the stored B, both contiguous, so B is read once, in order, and not copied.
// Per group of kDotColumns columns and dot_rows_at_once() rows (the rows left over one at a time), each vector of k
// takes the group's FMAs, its loads of A and B or one FMA latency, whichever is longest, and each element of C a
// horizontal sum. A is read again for each group, so the dot products run over k slices of A that stay in the direct
// cache (see dots_depth), each slice's sums added onto C. The threads share C's column groups.
DirectWork dots_work(int32_t id, int64_t M, int64_t N, int64_t K) {
  using strata_model::ceil_div;
  const DirectConstants& rates = kDirect.of[id];
  const int64_t depth = dots_depth(M, K), slices = ceil_div(K, depth);
  const double vectors =
      static_cast<double>((K / depth) * ceil_div(depth, kVectorFloats) + ceil_div(K % depth, kVectorFloats));
  const double vector_fma_s = static_cast<double>(kVectorFloats) * rates.fma_s;
  const auto group_s = [&](int64_t rows, int64_t cols) {
    const double step_s = std::max({static_cast<double>(rows * cols) * vector_fma_s,
                                    static_cast<double>(rows + cols) * rates.load_s, kMachine.fma_latency_s});
    const double sums_s = static_cast<double>(dot_sum_slots(kVectorFloats)) * vector_fma_s + kDirectCElementSeconds;
    return vectors * step_s + static_cast<double>(slices * rows * cols) * sums_s;
  };
  const auto columns_s = [&](int64_t cols) {
    const int64_t rows = dot_rows_at_once(static_cast<int>(cols));
    return static_cast<double>(M / rows) * group_s(rows, cols) + static_cast<double>(M % rows) * group_s(1, cols);
  };
  const int64_t groups = N / kDotColumns, edge = N % kDotColumns;
  const double compute_s = static_cast<double>(groups) * columns_s(kDotColumns) + (edge > 0 ? columns_s(edge) : 0.0);
  return direct_work_of(compute_s, kMachine.launch_s, groups + (edge > 0 ? 1 : 0), call_bytes(M, N, K));
}

// What a call in place pays for its transposed operands: a row-major copy of each (see kTransA), read from where the
// operand lives (the direct cache, the outer cache or memory) and written, on the calling thread.
double transposes_s(int64_t M, int64_t N, int64_t K, int32_t layout) {
  const strata_model::Machine& m = kMachine;
  const auto copy_s = [&](int64_t rows, int64_t cols) {
    const int64_t bytes = matrix_bytes(rows, cols);
    const double bandwidth = bytes <= kDirectBytes  ? m.level[1].bandwidth_Bps
                             : bytes <= kOuterBytes ? m.level[m.num_levels - 1].bandwidth_Bps
                                                    : m.problem.bandwidth_Bps;
    return 2.0 * static_cast<double>(bytes) / bandwidth;
  };
  return ((layout & kTransA) != 0 ? copy_s(M, K) : 0.0) + ((layout & kTransB) != 0 ? copy_s(K, N) : 0.0);
}

// What gathering a convolution's A block costs beyond packing a plain one (see conv_gather.h): each of its rows is
// copied as runs of `run` input channels, one per filter tap it meets, and each run starts from an address worked
// out from the row's pixel and the tap, whose first load waits a first-level cache latency (the descriptor's). Only
// where level 1 is profiled: a modelled level 1 prices no packing.
double gather_runs_s(const Kernel& k, int64_t run) {
  if (k.level1.pack_a_s <= 0) return 0.0;
  const int64_t runs_per_row = strata_model::ceil_div(k.k1, run) + 1;  // a block's k slice may start mid-run
  return static_cast<double>(k.m1 * runs_per_row) * kMachine.level[1].latency_s;
}

// A convolution in place runs its output rows together (see dispatch_conv_direct.h): as many as keep their column
// strips of C (out_w pixels by a register tile's NR channels each) within half the direct cache. Each strip's filter
// rows, all taps, are then read once per group of rows rather than once per row: a filter of megabytes, beyond the
// direct cache, is otherwise fetched again from the outer cache for every output row (measurements:
// docs/perf/2026-11-27-zen4-conv/, "paths").
int64_t conv_row_group(int64_t out_w, int64_t nr) {
  return std::max<int64_t>(1, kDirectBytes / 2 / std::max<int64_t>(1, matrix_bytes(out_w, nr)));
}

// A convolution in place (see dispatch_conv_direct.h): per output row and filter tap, the GEMM in place of the row's
// pixels (conv_row) with the tap's rows of the filter (conv_channels deep), each its own calls and tiles. The data
// is the call's, and the filter once more per group of output rows where it is larger than the direct cache. (The
// pixels of a row that meet the padding are priced as if they did not.)
DirectWork conv_direct_work(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout) {
  const int64_t channels = std::max<int64_t>(1, conv_channels(layout)), row = std::max<int64_t>(1, conv_row(layout));
  const double products = static_cast<double>(M / row) * static_cast<double>(K / channels);
  const DirectWork one = direct_work(id, row, N, channels);
  const int64_t filter = matrix_bytes(K, N);
  const int64_t groups = strata_model::ceil_div(M / row, conv_row_group(row, kKernels[id].nr));
  const double bytes =
      call_bytes(M, N, K) + (filter > kDirectBytes ? static_cast<double>((groups - 1) * filter) : 0.0);
  // Each tap's calls also read C's tiles and write them back (the first tap's after C was scaled), in the direct
  // cache: per tap, C's bytes twice at level 1's bandwidth.
  const double c_s = 2.0 * static_cast<double>(K / channels) * static_cast<double>(matrix_bytes(M, N)) /
                     kMachine.level[1].bandwidth_Bps;
  return direct_work_of(one.compute_s * products + c_s, one.calls_s * products,
                        static_cast<int64_t>(static_cast<double>(one.tiles) * products), bytes);
}

// Whether kernel k runs the call in place over row-major copies of its transposed operands (over the operands
// themselves for layout 0): where it runs the call in place at all (use_direct) and the transposed operands fit in
// the direct cache. Larger ones are packed, which absorbs the transpose, or read as dot products (see runs_dots).
bool copies_in_place(const Kernel& k, int64_t M, int64_t N, int64_t K, int32_t layout) {
  const int64_t transposed_bytes =
      ((layout & kTransA) != 0 ? matrix_bytes(M, K) : 0) + ((layout & kTransB) != 0 ? matrix_bytes(K, N) : 0);
  return use_direct(M, N, K, k) && transposed_bytes <= kDirectBytes;
}

// Whether kernel `id` runs a call in place over a transposed B as dot products: where they fit (dots_fit) and the
// copies cannot run it, or cost more on one thread. (A transposed A is copied either way.)
bool runs_dots(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout) {
  if (!dots_fit(M, K, layout)) return false;
  if (!copies_in_place(kKernels[id], M, N, K, layout)) return true;
  const double dots_s = direct_seconds(dots_work(id, M, N, K), 1, 1.0) + transposes_s(M, N, K, layout & kTransA);
  const double copies_s = direct_seconds(direct_work(id, M, N, K), 1, 1.0) + transposes_s(M, N, K, layout);
  return dots_s <= copies_s;
}

// A call on a packed B (kPackedB) with A in place: C's register tiles as direct strips over B's panels, one packed k
// slice at a time, in row blocks (see run_packed_b_in_place).
DirectWork packed_b_direct_work(int32_t id, int64_t M, int64_t N, int64_t K) {
  const Kernel& k = kKernels[id];
  const int64_t block_rows = direct_block_rows(k, M, N, std::min(k.k1, K));
  return tiles_work(id, M, N, K, k.k1, block_rows, call_bytes(M, N, K), false);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_LAYOUT_PRICES_H_
