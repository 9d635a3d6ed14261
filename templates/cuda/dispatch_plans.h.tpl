// Part of the dispatcher of {{PACKAGE}} (included by dispatch.cpp, inside its unnamed namespace): the cost model with
// the generator's parameters, the kernel table, and the planner that prices every kernel and split-K for a shape,
// with its plan cache.

// ---- The model ---------------------------------------------------------------------------------------------

strata_model::LevelParams level(double latency_s, double bandwidth_Bps, int64_t units, strata_model::LoopKind m,
                                strata_model::LoopKind n, strata_model::LoopKind k, bool serial_load) {
  strata_model::LevelParams p{};
  p.latency_s = latency_s;
  p.bandwidth_Bps = bandwidth_Bps;
  p.parallel_units = units;
  p.loop[0] = m;
  p.loop[1] = n;
  p.loop[2] = k;
  p.serial_load = serial_load;
  return p;
}

// One model per compute unit, with the parameters the generator derived from the descriptor (Eqs. 2-8 in
// cost_model.h); a kernel names the unit it runs on.
{{#MACHINE}}strata_model::Machine machine_{{UNIT}}() {
  strata_model::Machine m{};
  m.num_levels = {{NUM_LEVELS}};
{{#LEVEL}}  m.level[{{INDEX}}] = level({{LATENCY_S}}, {{BANDWIDTH_BPS}}, {{PARALLEL_UNITS}}, {{LOOP_M}}, {{LOOP_N}},
                    {{LOOP_K}}, {{SERIAL_LOAD}});  // {{LEVEL_NAME}}
{{/LEVEL}}  m.problem = level({{PROBLEM_LATENCY_S}}, {{PROBLEM_BANDWIDTH_BPS}}, 1, strata_model::kTemporal,
                    strata_model::kTemporal, strata_model::kReduction, false);
  m.unit_flops = {{UNIT_FLOPS}};
  m.fma_latency_s = 0.0;
  m.launch_s = {{LAUNCH_S}};
  m.a_bytes = {{A_BYTES}};
  m.b_bytes = {{B_BYTES}};
  m.c_bytes = 4;
  return m;
}

{{/MACHINE}}const strata_model::Machine kMachines[] = {
{{#MACHINE}}    machine_{{UNIT}}(),
{{/MACHINE}}};

// The SM as gpu_model.h's block and grid levels see it (occupancy, the block's k loop), one per kind of block (the
// cp.async blocks, then any wgmma blocks); all 0: Eqs. 5-7 alone.
constexpr strata_gpu::Sm kSmModels[] = {
{{#SM_MODEL}}    { {{SM_REGISTERS}}, {{SM_REGISTER_UNIT}}, {{SM_SHARED_BYTES}}, {{SM_SHARED_RESERVED}}, {{SM_THREADS}}, {{SM_BLOCKS}}, {{SM_WARP_SIZE}}, {{SM_STEP_K}},
     {{SM_SYNC_S}}, {{SM_STEP_LATENCY_S}}, {{SM_SHARED_BPS}}, {{SM_STEP_FLOOR_S}} },
{{/SM_MODEL}}};

struct KernelInfo {
  const char* name;
  bool tensor_cores;
  bool wgmma;  // a persistent wgmma kernel (sm_90a): needs 16-byte aligned rows and tensor maps
  int sm_model;  // index into kSmModels
  int warp[3];       // level 0 tile (m, n, k)
  int block[3];      // level 1 tile
  int grid_tile[3];  // level 2 tile: the region of C (and depth of k) the model stages in L2
  int stages, threads, shared_bytes, group_m;
  int machine;  // index into kMachines
  double l0_s;  // > 0: the modelled time of one warp tile (loads and issue slots, or mma.sync), else its flops
  int64_t blocks_per_sm;  // resident blocks per SM, by the generator's count of registers and shared memory
  cudaError_t (*launch)(const GemmParams&, int, bool, cudaStream_t);
};

const KernelInfo kKernels[] = {
{{#KERNEL}}    {"{{NAME}}", {{TC}}, {{WGMMA}}, {{SM_INDEX}}, { {{WM}}, {{WN}}, {{WK}} }, { {{BM}}, {{BN}}, {{BK}} }, { {{GM}}, {{GN}}, {{GK}} }, {{STAGES}},
     {{THREADS}}, {{SHARED_BYTES}}, {{GROUP_M}}, {{MACHINE_INDEX}}, {{L0_SECONDS}}, {{OCCUPANCY}},
     launch_{{NAME}}},
{{/KERNEL}}};
constexpr int32_t kKernelCount = static_cast<int32_t>(sizeof(kKernels) / sizeof(kKernels[0]));

// cost_model.h's estimate() shrinks every level's tile to the problem, which is right for CPU micro-kernels that
// run exact-size edge tiles but not for a thread block: a block whose tile hangs over the edge still runs every
// warp's full MMA or FMA tile on zero-filled rows, and only whole blocks are launched. So levels 0 and 1 keep their
// full tiles (Helix's padded reading) and level 2 is clamped to the problem rounded up to whole blocks. The block
// and grid levels are gpu_model.h's: blocks_per_sm blocks share an SM, and each k tile pays the block's barrier.
strata_model::Estimate estimate_blocks(const strata_model::Machine& m, const KernelInfo& k, const int64_t shape[3]) {
  if (strata_model::empty_problem(shape)) {
    strata_model::Estimate e{};
    e.total_s = m.launch_s;
    return e;
  }
  int64_t tiles[strata_model::kMaxLevels][3] = {};
  for (int a = 0; a < 3; ++a) {
    tiles[0][a] = k.warp[a];
    tiles[1][a] = k.block[a];
    const int64_t whole = strata_model::ceil_div(shape[a], k.block[a]) * k.block[a];
    tiles[2][a] = whole < k.grid_tile[a] ? whole : k.grid_tile[a];
  }
  return strata_gpu::estimate(m, kSmModels[k.sm_model], tiles, k.l0_s, k.blocks_per_sm, shape);
}

// The k range of each split: whole block k-tiles, as evenly as possible. Returns the number of splits that get
// work (at most `split`).
int splits_for(const KernelInfo& k, int64_t K, int split, int64_t* k_per_split) {
  if (K == 0 || split <= 1) {
    *k_per_split = K;
    return 1;
  }
  const int64_t k_tiles = strata_model::ceil_div(K, k.block[2]);
  *k_per_split = strata_model::ceil_div(k_tiles, split) * k.block[2];
  return static_cast<int>(strata_model::ceil_div(K, *k_per_split));
}

bool mul_overflows(int64_t a, int64_t b) { return a != 0 && b > std::numeric_limits<int64_t>::max() / a; }

// Bytes of split-K workspace for kernel k running `products` products of a batch at once, or -1 when they would
// overflow: each product's splits' partial sums, and for a wgmma kernel (single products) a counter per tile after
// them (its same-launch reduction).
int64_t workspace_bytes(const KernelInfo& k, int64_t M, int64_t N, int splits, int64_t products = 1) {
  if (splits <= 1) return 0;
  if (mul_overflows(M, N) || mul_overflows(M * N, static_cast<int64_t>(splits)) ||
      mul_overflows(M * N * splits, products * 4))
    return -1;
  const int64_t counters = k.wgmma ? strata_model::ceil_div(M, k.block[0]) * strata_model::ceil_div(N, k.block[1]) : 0;
  if (counters > std::numeric_limits<int64_t>::max() / 4 - M * N * splits * products) return -1;
  return (M * N * splits * products + counters) * 4;
}

// The products of a batch launched together: gridDim.y's limit. Larger batches run in launches of this many.
constexpr int64_t kMaxProducts = 65535;

// Split-K as the model sees it: `splits` groups of SMs, each computing M x N x k_per_split, then a reduction that
// reads every partial sum and C once and writes C (Eq. 2 at the problem level's DRAM bandwidth): a second kernel, or
// for a wgmma kernel the last split of each tile in the same launch. A batch of `batch` products is one grid of
// their block tiles: the model sees batch x M rounded up to whole block rows, so that it counts the blocks and the
// traffic of every product (it then lets B be shared in L2 across products, a small optimism where stride_b != 0).
double predicted_seconds(const KernelInfo& k, int64_t M, int64_t N, int64_t K, int splits, int64_t k_per_split,
                         int64_t batch = 1) {
  strata_model::Machine m = kMachines[k.machine];
  const int top = m.num_levels - 1;
  if (splits > 1) {
    const int64_t units = m.level[top].parallel_units / splits;
    m.level[top].parallel_units = units < 1 ? 1 : units;
  }
  const int64_t rows = batch > 1 ? batch * strata_model::ceil_div(M, k.block[0]) * k.block[0] : M;
  const int64_t shape[3] = {rows, N, splits > 1 ? k_per_split : K};
  double seconds = estimate_blocks(m, k, shape).total_s;
  if (splits > 1)
    seconds += strata_gpu::splitk_reduce_s(m, batch * M, N, splits, k.blocks_per_sm > 0 ? splits : 1, !k.wgmma);
  return seconds;
}

void fill_plan(int32_t id, int64_t M, int64_t N, int64_t K, int splits, int64_t k_per_split, int64_t batch,
               {{PACKAGE}}_plan_t* plan) {
  const KernelInfo& k = kKernels[id];
  plan->kernel_id = id;
  plan->tensor_cores = k.tensor_cores ? 1 : 0;
  plan->wgmma = k.wgmma ? 1 : 0;
  plan->warp_m = k.warp[0];
  plan->warp_n = k.warp[1];
  plan->warp_k = k.warp[2];
  plan->block_m = k.block[0];
  plan->block_n = k.block[1];
  plan->block_k = k.block[2];
  plan->stages = k.stages;
  plan->threads_per_block = k.threads;
  plan->shared_bytes = k.shared_bytes;
  plan->group_m = k.group_m;
  plan->split_k = splits;
  plan->k_per_split = k_per_split;
  plan->grid_blocks = strata_model::ceil_div(M, k.block[0]) * strata_model::ceil_div(N, k.block[1]);
  plan->waves = strata_model::ceil_div(plan->grid_blocks * splits * batch, kSms);
  const int64_t products = batch < kMaxProducts ? batch : kMaxProducts;  // launched together
  plan->workspace_bytes = static_cast<size_t>(workspace_bytes(k, M, N, splits, products));
  plan->predicted_seconds = predicted_seconds(k, M, N, K, splits, k_per_split, batch);
}

// The best split-K for kernel `id` (1 up to max_split) for `batch` products, by the model. Splits are only worth
// their reduction when the grid leaves SMs idle, and the model charges the reduction, so it decides.
void plan_kernel(int32_t id, int64_t M, int64_t N, int64_t K, int max_split, int64_t batch, {{PACKAGE}}_plan_t* plan) {
  int64_t k_per_split = 0;
  int best_splits = splits_for(kKernels[id], K, 1, &k_per_split);
  int64_t best_k = k_per_split;
  double best_s = predicted_seconds(kKernels[id], M, N, K, best_splits, best_k, batch);
  const int64_t grid = strata_model::ceil_div(M, kKernels[id].block[0]) * strata_model::ceil_div(N, kKernels[id].block[1]);
  const int64_t products = batch < kMaxProducts ? batch : kMaxProducts;
  for (int split = 2; split <= max_split && M > 0 && N > 0 && grid * batch < kSms; ++split) {
    const int splits = splits_for(kKernels[id], K, split, &k_per_split);
    // The same as a smaller split, or too large a workspace.
    if (splits != split || workspace_bytes(kKernels[id], M, N, splits, products) < 0) continue;
    const double s = predicted_seconds(kKernels[id], M, N, K, splits, k_per_split, batch);
    if (s < best_s) {
      best_s = s;
      best_splits = splits;
      best_k = k_per_split;
    }
  }
  fill_plan(id, M, N, K, best_splits, best_k, batch, plan);
}

// The fastest kernel by the model among those the call may run (wgmma kernels only where `wgmma`, and for single
// products); ties go to the lower id (the kernel the generator chose first). Kernel 0 is never a wgmma kernel, so
// there is always a plan.
void plan_best(int64_t M, int64_t N, int64_t K, int max_split, bool wgmma, {{PACKAGE}}_plan_t* plan,
               int64_t batch = 1) {
  plan_kernel(0, M, N, K, max_split, batch, plan);
  for (int32_t id = 1; id < kKernelCount; ++id) {
    if (kKernels[id].wgmma && (!wgmma || batch > 1)) continue;
    {{PACKAGE}}_plan_t candidate;
    plan_kernel(id, M, N, K, max_split, batch, &candidate);
    if (candidate.predicted_seconds < plan->predicted_seconds) *plan = candidate;
  }
}

// Plans of the plain and batched calls, by shape, batch and whether wgmma kernels may run: planning prices every
// kernel and split, which costs more than a small call's launch, and a caller repeats its shapes. Direct-mapped; a
// slot holds the last shape that hashed to it.
struct CachedPlan {
  int64_t M = -1, N = -1, K = -1, batch = 0;
  bool wgmma = false;
  {{PACKAGE}}_plan_t plan{};
};
constexpr size_t kPlanCacheSlots = 512;
std::mutex g_plan_mutex;
CachedPlan g_plan_cache[kPlanCacheSlots];

void cached_plan(int64_t M, int64_t N, int64_t K, bool wgmma, {{PACKAGE}}_plan_t* plan, int64_t batch = 1) {
  uint64_t h = static_cast<uint64_t>(M) * 0x9E3779B97F4A7C15ull;
  h = (h ^ static_cast<uint64_t>(N)) * 0x9E3779B97F4A7C15ull;
  h = (h ^ static_cast<uint64_t>(batch)) * 0x9E3779B97F4A7C15ull;
  h = (h ^ static_cast<uint64_t>(K) ^ (wgmma ? 1u : 0u)) * 0x9E3779B97F4A7C15ull;
  CachedPlan& slot = g_plan_cache[(h >> 32) % kPlanCacheSlots];
  {
    std::lock_guard<std::mutex> lock(g_plan_mutex);
    if (slot.M == M && slot.N == N && slot.K == K && slot.batch == batch && slot.wgmma == wgmma) {
      *plan = slot.plan;
      return;
    }
  }
  plan_best(M, N, K, kMaxSplit, wgmma, plan, batch);
  std::lock_guard<std::mutex> lock(g_plan_mutex);
  slot.M = M;
  slot.N = N;
  slot.K = K;
  slot.batch = batch;
  slot.wgmma = wgmma;
  slot.plan = *plan;
}
