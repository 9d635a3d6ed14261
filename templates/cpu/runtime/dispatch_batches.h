// Part of the dispatcher, after the calls it runs (see dispatch.cpp): strided batches, each product a call of its
// own, one after another on all threads or side by side on one each, with an optional epilogue.
#ifndef STRATA_DISPATCH_BATCHES_H_
#define STRATA_DISPATCH_BATCHES_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// A strided batch: product i reads A + i * stride_a and B + i * stride_b and writes C + i * stride_c; with an
// epilogue, its bias and residual are stride_bias and stride_residual further on for each product (0: shared).
struct BatchJob {
  Gemm first{};
  int64_t stride_a = 0, stride_b = 0, stride_c = 0, count = 0;
  int64_t stride_bias = 0, stride_residual = 0;
  PostOps post{};  // the first product's epilogue; used where has_post
  bool has_post = false;
  int64_t per_task = 0;            // products per task, side by side
  std::atomic<int32_t> status{0};  // the first failure's status (OK is 0)
};

Gemm product(const BatchJob& job, int64_t i) {
  Gemm g = job.first;
  g.A += i * job.stride_a;
  g.B += i * job.stride_b;
  g.C += i * job.stride_c;
  return g;
}

// Runs products [begin, end) each on at most max_threads threads (0: current_threads()), keeping the first failure.
// A product the calling thread's last plan runs at once takes that way, as a call of its own would (see
// ran_at_once): the products of a batch are one shape.
void run_products(BatchJob& job, int64_t begin, int64_t end, int32_t max_threads) {
  for (int64_t i = begin; i < end; ++i) {
    Gemm g = product(job, i);
    PostOps post;
    if (job.has_post) {  // (ran_at_once applies no epilogue)
      post = job.post;
      post.c = g.C;
      if (post.bias != nullptr) post.bias += i * job.stride_bias;
      if (post.residual != nullptr) post.residual += i * job.stride_residual;
      g.post = &post;
    } else if (g.layout == 0 && ran_at_once(g.M, g.N, g.K, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C, g.ldc, -1)) {
      continue;
    }
    const STRATA_X(status) status = execute(g, -1, nullptr, 0, false, max_threads);
    int32_t none = 0;
    if (status != STRATA_C(OK)) job.status.compare_exchange_strong(none, static_cast<int32_t>(status));
  }
}

void batch_task(void* context, int64_t index) {
  BatchJob& job = *static_cast<BatchJob*>(context);
  run_products(job, index * job.per_task, std::min(job.count, (index + 1) * job.per_task), 1);
}

// The model prices the batch both ways: its products one after another, each on `threads` threads as its plan
// shares it, or side by side, each alone on one thread, `threads` at a time (one parallel region for all). Products
// too small to share well among threads run side by side.
bool side_by_side(const Gemm& g, int64_t count, int32_t threads) {
  if (threads <= 1 || count <= 1) return false;
  const Plan& plan = choose_plan(g.M, g.N, g.K, threads, -1, g.layout);
  const double after_another_s = static_cast<double>(count) * plan.seconds;
  const double side_by_side_s =
      static_cast<double>(strata_model::ceil_div(count, threads)) * plan.alone.seconds + kParallelRegionSeconds;
  return side_by_side_s < after_another_s;
}

// A batch's epilogue: the first product's (post_ops_of), then the bias's and the residual's strides (not negative),
// and the spans they cover over the whole batch, which must not overlap the span of the products' C and must be
// within reach of 64-bit byte offsets.
STRATA_X(status) batch_post_ops(const STRATA_X(epilogue_t) * epilogue, BatchJob* job) {
  const Gemm& g = job->first;
  if (const STRATA_X(status) s = post_ops_of(epilogue, g, &job->post); s != STRATA_C(OK)) return s;
  job->has_post = true;
  if (job->stride_bias < 0 || job->stride_residual < 0) return STRATA_C(INVALID_ARGUMENT);
  if (g.M == 0 || g.N == 0) return STRATA_C(OK);
  // The floats from a product's first to the last product's end, or -1 where that overflows.
  const auto span = [&](int64_t stride, int64_t one) {
    int64_t last = 0, bytes = 0;
    if (__builtin_mul_overflow(job->count - 1, stride, &last) || __builtin_add_overflow(last, one, &last) ||
        __builtin_mul_overflow(last, static_cast<int64_t>(sizeof(float)), &bytes))
      return int64_t{-1};
    return last;
  };
  const PostOps& post = job->post;
  const int64_t c_span = span(job->stride_c, extent(g.M, g.N, g.ldc) + 1);
  const int64_t bias_span = post.bias == nullptr ? 0 : span(job->stride_bias, post.bias_per_row ? g.M : g.N);
  const int64_t residual_span =
      post.residual == nullptr ? 0 : span(job->stride_residual, extent(g.M, g.N, post.ldr) + 1);
  if (c_span < 0 || bias_span < 0 || residual_span < 0) return STRATA_C(SIZE_OVERFLOW);
  if ((post.bias != nullptr && overlap(post.bias, bias_span, g.C, c_span)) ||
      (post.residual != nullptr && overlap(post.residual, residual_span, g.C, c_span)))
    return STRATA_C(INVALID_ARGUMENT);
  return STRATA_C(OK);
}

// A batch's call: its checks (the epilogue's where there is one, see batch_post_ops), then its products.
STRATA_X(status) run_batch(BatchJob& job, const STRATA_X(epilogue_t) * epilogue) noexcept {
  const int64_t strides[3] = {job.stride_a, job.stride_b, job.stride_c};
  const STRATA_X(status) checked = check_batch(job.first, job.count, strides);
  if (checked != STRATA_C(OK) || job.count == 0) return checked;
  if (epilogue != nullptr)
    if (const STRATA_X(status) s = batch_post_ops(epilogue, &job); s != STRATA_C(OK)) return s;
  try {
    const int32_t threads = current_threads();
    if (side_by_side(job.first, job.count, threads)) {
      job.per_task = strata_model::ceil_div(job.count, std::min<int64_t>(threads, job.count));
      parallel_for(strata_model::ceil_div(job.count, job.per_task), batch_task, &job);
    } else {
      run_products(job, 0, job.count, 0);
    }
  } catch (...) {  // planning allocates; the pool throws only before any task has run
    return STRATA_C(SYSTEM_ERROR);
  }
  return static_cast<STRATA_X(status)>(job.status.load());
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_BATCHES_H_
