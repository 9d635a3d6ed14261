// The operator spec as plain data: what ops/*.yaml says, validated. Field reference: ops/REFERENCE.md.
//
// Every operator is iterated as an implicit GEMM over the axes m, n, k (C[m,n] += A[m,k] * B[k,n]); `gemm_view`
// says how the operator's own dimensions map onto those axes. The sieve and the model only see m, n, k.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "spec/arch.h"

namespace strata {

enum class OpKind { gemm, conv2d };
enum class LoopType { PL, TNL, TRL };  // parallel, temporal non-reduction, temporal reduction
enum class Layout { row_major, col_major };

constexpr int kNumAxes = 3;
enum Axis { kAxisM = 0, kAxisN = 1, kAxisK = 2 };
const char* axis_name(int axis);

// Optional facts about one runtime dimension; the generator may prune or specialise with them.
struct DimFacts {
  std::string name;
  int64_t min = 0;
  int64_t max = INT64_MAX;  // INT64_MAX: unbounded
  int64_t multiple_of = 1;
  SourcePos pos;
};

// One level of the rKernel (Helix Listing 1): loop type per axis and the fragments (template names) used.
struct RKernelLevel {
  std::array<LoopType, kNumAxes> loops{};
  std::vector<std::string> load;
  std::string compute;
  std::string store;
  std::vector<std::string> epilogue;  // the epilogue fragments after the store fragment (CPU, outermost level)
  bool load_overlaps_compute = true;  // false: the computing unit performs the loads (software packing)
  SourcePos pos;
};

struct RKernel {
  std::vector<RKernelLevel> levels;
  SourcePos pos;
};

// A convolution's stride, padding and dilation, [h, w]: facts where the spec fixes them, else given per call.
struct ConvParams {
  std::optional<std::array<int64_t, 2>> stride, padding, dilation;
  bool filter_krsc = true;  // KRSC (out_c outermost), else RSCK
};

// The fused epilogue an op spec fixes with epilogue fragments after the store fragment of its outermost CPU level
// (spec/fragments.h): the package's epilogue calls must give exactly these parts, and its kernels carry only this
// activation. Numbered as the packages' C API numbers them.
struct EpilogueFacts {
  int bias = 0;  // 0 none, 1 per column, 2 per row
  bool residual = false;
  int activation = 0;  // 0 none, 1 ReLU, 2 GELU (tanh), 3 GELU (erf), 4 SiLU
  bool clamp = false;
  SourcePos pos;
};

struct Op {
  std::string file;
  std::string content_sha;
  std::string name;
  std::string description;
  OpKind kind = OpKind::gemm;
  DataType a_type = DataType::f32, b_type = DataType::f32, c_type = DataType::f32, accumulate = DataType::f32;
  // GEMM operand storage: A is M x K, B is K x N, C is M x N; col_major stores the transpose.
  Layout a_layout = Layout::row_major, b_layout = Layout::row_major, c_layout = Layout::row_major;
  ConvParams conv;                                           // conv2d only
  std::vector<DimFacts> dims;                                // the operator's runtime dimensions, in spec order
  std::array<std::vector<std::string>, kNumAxes> gemm_view;  // dims (or derived dims) whose product is m, n, k
  std::optional<RKernel> rkernel_cpu;
  std::optional<RKernel> rkernel_cuda;
  std::optional<EpilogueFacts> epilogue;  // fixed by the CPU rkernel's epilogue fragments; else a runtime option

  // Facts about m, n or k implied by the facts of the dims in its gemm_view.
  DimFacts axis_facts(int axis) const;
  const RKernel* rkernel_for(Target target) const;
  // Bytes per element of the A, B, C operands (inputs A, B; output C).
  int a_bytes() const { return size_of(a_type); }
  int b_bytes() const { return size_of(b_type); }
  int c_bytes() const { return size_of(c_type); }
};

const char* to_string(OpKind k);
const char* to_string(LoopType t);
const char* to_string(Layout l);

}  // namespace strata
