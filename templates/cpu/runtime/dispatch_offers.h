// Part of the dispatcher (see dispatch_rules.h): every kernel's plans priced by the parts before (offer_kernel) and
// the cheapest kept (cheapest_plan), which the package's planner and the generator's selection both choose through.
#ifndef STRATA_DISPATCH_OFFERS_H_
#define STRATA_DISPATCH_OFFERS_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// Offers kernel `id`'s plans to the best so far: *best, on any of `counts` threads, and *alone, on one thread, each
// replaced where the kernel is faster (on a tie the earlier stays). skip_twins: a kernel that would run the call in
// place as an earlier one does (its twin or, where that applies, its loose twin; see DirectConstants) offers nothing,
// as it would only tie. A kernel whose lower bound cannot beat either (see cannot_beat) is not priced in full.
// best->row_shares is left as it is: the grid matters only for the plan that wins, and choose_plan_slow() works it
// out for that one alone. (The plans are written field by field rather than returned: a returned Plan, copied out in
// wide loads of the callee's narrow stores, stalls each offer on store forwarding.)
void offer_path(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout, const ThreadCounts& counts, bool packed,
                Plan* best, Plan::Alone* alone);  // below

void offer_kernel(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout, const ThreadCounts& counts,
                  bool skip_twins, Plan* best, Plan::Alone* alone) {
  // A call with a transposed operand that runs in place pays for copies of it or runs as dot products (see
  // runs_dots), so packing it instead, which absorbs the transpose, is offered too, and the cheaper wins. Transposed
  // operands larger than the direct cache are not copied (see copies_in_place): packing reads them once, where the
  // copy reads them, writes them beyond the direct cache and the call reads them again (measurements:
  // docs/perf/2026-11-27-layouts/, "copy-or-pack").
  // A convolution is offered gathered and packed, or in place (see dispatch_conv_direct.h). A B packed before the
  // call is read from its panels: with A in place where the rule of a plain call's (use_direct) says so and A is not
  // gathered, else by the packed path.
  if ((layout & kPackedB) != 0) {
    const bool in_place = (layout & kGatherA) == 0 && use_direct(M, N, K, kKernels[id]);
    offer_path(id, M, N, K, layout, counts, !in_place, best, alone);
    return;
  }
  if ((layout & kGatherA) != 0) {
    offer_path(id, M, N, K, layout, counts, true, best, alone);
    offer_path(id, M, N, K, layout, counts, false, best, alone);
    return;
  }
  const bool packed = layout == 0 ? !use_direct(M, N, K, kKernels[id])
                                  : !copies_in_place(kKernels[id], M, N, K, layout) && !dots_fit(M, K, layout);
  if (!packed && layout != 0) offer_path(id, M, N, K, layout, counts, true, best, alone);
  if (skip_twins && !packed) {
    const DirectConstants& d = kDirect.of[id];
    if (d.twin >= 0) return;  // it would tie its twin
    if (d.loose_twin >= 0 && matrix_bytes(K, N) <= kDirectBytes && use_direct(M, N, K, kKernels[d.loose_twin]))
      return;  // likewise
  }
  offer_path(id, M, N, K, layout, counts, packed, best, alone);
}

// offer_kernel's offer of one path: packed (blocks or a streamed B) or in place.
void offer_path(int32_t id, int64_t M, int64_t N, int64_t K, int32_t layout, const ThreadCounts& counts, bool packed,
                Plan* best, Plan::Alone* alone) {
  const Kernel& k = kKernels[id];
  const int64_t shape[3] = {M, N, K};
  double seconds[thread_count_slots()];
  const int64_t buffer_floats = packed ? thread_floats(k, b_slots(k, M, N, K)) : 0;
  const int64_t streamed =
      packed && (layout & (kTransB | kPackedB)) == 0 ? streamed_rows(k, M, N, K, buffer_floats) : 0;
  const WorkFloor& floor = kWorkFloors.of[id];
  const double m = static_cast<double>(M), n = static_cast<double>(N), depth = static_cast<double>(K);
  const bool blocks = packed && streamed == 0;
  bool dots = false;  // set below, once the floor has not ruled the path out
  // B's packing per block: none where it came packed; 0 too where level 1 is modelled, whose data movement holds it.
  const double pack_b_s = blocks && (layout & kPackedB) == 0 ? packed_b_block_s(k, M, N, K) : 0.0;
  const double pack_b_floor_s = pack_b_s / static_cast<double>(k.k1 * k.n1) * kFloorShave;  // per element
  const double work_s =
      blocks ? floor.packed_mac_s * m * n * depth + floor.pack_a_s * m * depth + pack_b_floor_s * depth * n
             : floor.mac_s * m * n * depth;
  if (cannot_beat(work_s, counts, best->seconds, alone->seconds)) return;
  if (streamed > 0) {
    const DirectWork work = streamed_work(id, M, N, K, streamed, buffer_floats);
    for (int i = 0; i < counts.size; ++i) seconds[i] = direct_seconds(work, counts.count[i], counts.share[i]);
  } else if (packed) {
    strata_model::Tiling tiling = tiling_of(id);
    tiling.l1.pack_b_s = pack_b_s;
    if ((layout & kGatherA) != 0) tiling.l1.pack_a_s += gather_runs_s(k, conv_channels(layout));
    strata_model::estimate_units(kMachine, tiling, shape, kTopLevel, counts.count, counts.size, seconds);
    // The model moves C once per call; blocks narrower than C's rows move each row once per column of blocks, each
    // part in whole lines, and a call costs at least that traffic at the bandwidth direct_seconds streams it at
    // (docs/perf/2026-12-02-zen5-memory-floor).
    const double bytes = packed_call_bytes(k, M, N, K);
    for (int i = 0; i < counts.size; ++i)
      seconds[i] = std::max(seconds[i], kMachine.launch_s + streaming_seconds(bytes, counts.share[i]));
  } else {
    const bool gathered = (layout & kGatherA) != 0;
    dots = !gathered && runs_dots(id, M, N, K, layout);
    const DirectWork work = gathered                   ? conv_direct_work(id, M, N, K, layout)
                            : (layout & kPackedB) != 0 ? packed_b_direct_work(id, M, N, K)
                            : dots                     ? dots_work(id, M, N, K)
                                                       : direct_work(id, M, N, K);
    const double copies_s = transposes_s(M, N, K, gathered ? layout & kTransB : dots ? layout & kTransA : layout);
    for (int i = 0; i < counts.size; ++i)
      seconds[i] = direct_seconds(work, counts.count[i], counts.share[i]) + copies_s;
  }
  for (int i = 0; i < counts.size; ++i) {
    const int32_t threads = static_cast<int32_t>(counts.count[i]);
    if (threads > 1) seconds[i] += kParallelRegionSeconds;  // each path runs one parallel region per call
    if (threads == 1 && seconds[i] < alone->seconds) {
      alone->kernel = id;
      alone->packed = packed;
      alone->dots = dots;
      alone->seconds = seconds[i];
    }
    if (seconds[i] < best->seconds) {
      best->kernel = id;
      best->threads = threads;
      best->packed = packed;
      best->dots = dots;
      best->seconds = seconds[i];
    }
  }
}

// The cheapest plan for a shape and layout on at most max_threads threads: every kernel offered in turn (kernel
// `forced` alone where it is not negative), the earlier winning ties, and for a packed plan on several threads the
// grid of their blocks of C. offer(id, M, N, K, layout, counts, skip_twins, best, alone) is offer_kernel, or a copy
// of it per kernel (see the planner). The package's planner and the generator's selection both choose through it (one
// model).
template <typename Offer>
Plan cheapest_plan(int64_t M, int64_t N, int64_t K, int32_t layout, int32_t max_threads, int32_t forced,
                   Offer offer) {
  const ThreadCounts counts = thread_counts(max_threads);
  const double none = std::numeric_limits<double>::infinity();
  const int32_t first = forced >= 0 ? forced : 0;
  // alone is made from the values, not copied from best.alone: the copy's wide load of best's narrow stores stalls on
  // store forwarding (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "plan-copies").
  Plan best{first, 1, false, false, none, 1, {first, false, false, none}};
  Plan::Alone alone{first, false, false, none};
  offer(first, M, N, K, layout, counts, false, &best, &alone);
  if (forced < 0)
    for (int32_t id = 1; id < kKernelCount; ++id) offer(id, M, N, K, layout, counts, true, &best, &alone);
  best.alone = alone;
  if (best.packed && best.threads > 1) best.row_shares = row_shares_for(kKernels[best.kernel], M, N, K, best.threads);
  return best;
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_OFFERS_H_
