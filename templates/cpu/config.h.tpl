// The configuration of {{PACKAGE}}'s micro-kernels: the names the fixed sources are compiled under, the core as
// the descriptor ({{ARCH_NAME}}) gives it, and the kernels' entry points. Generated; the fixed sources (src/*.h,
// src/dispatch.cpp) are the same in every package, and dispatch_config.h holds what the dispatcher alone reads.
#ifndef {{PACKAGE_UPPER}}_CONFIG_H_
#define {{PACKAGE_UPPER}}_CONFIG_H_

#include <cstdint>

// The names the fixed sources are compiled under, FFTW-style: STRATA_X(status) is {{PACKAGE}}_status,
// STRATA_C(OK) is {{PACKAGE_UPPER}}_OK, so that two packages link into one program.
#define STRATA_X(name) {{PACKAGE}}_##name
#define STRATA_C(name) {{PACKAGE_UPPER}}_##name
#define STRATA_GEMM {{PACKAGE}}
#define STRATA_NAME_STRING "{{PACKAGE}}"
#define STRATA_PUBLIC_HEADER "{{PACKAGE}}.h"
#define STRATA_PACKAGE_INTERNAL {{PACKAGE}}_internal
#define STRATA_MODEL_NAMESPACE {{PACKAGE}}_model
// Whether the package computes a convolution: its entry points are then dispatch_conv.h's.
#define STRATA_CONV_PACKAGE {{CONV_PACKAGE}}

// The fixed sources' rules that read this configuration are constant expressions here, where it is known when the
// package compiles. The generator compiles the same planner (dispatch_rules.h to dispatch_offers.h) over a
// configuration it holds at run time, so that its selection and the package price a call alike (one model): there
// STRATA_CONFIG_CONSTEXPR is empty and STRATA_DERIVED declares a table the generator fills per configuration.
#define STRATA_CONFIG_CONSTEXPR constexpr
#define STRATA_DERIVED(type, name, value) constexpr type name = value

namespace {{PACKAGE}}_internal {
{{#CONV}}
// ---- The convolution, from the op spec -----------------------------------------------------------------------

// The values the op spec fixes: a call must give them, and the gather reads them as constants. kConvRuntime: any
// value, given per call.
constexpr int64_t kConvRuntime = -1;
constexpr int64_t kConvStrideH = {{STRIDE_H}}, kConvStrideW = {{STRIDE_W}};
constexpr int64_t kConvPadH = {{PAD_H}}, kConvPadW = {{PAD_W}};
constexpr int64_t kConvDilationH = {{DILATION_H}}, kConvDilationW = {{DILATION_W}};
// The filter's layout: KRSC (out_c x kernel_h x kernel_w x in_c), or else RSCK (kernel_h x kernel_w x in_c x out_c).
constexpr bool kConvFilterKrsc = {{FILTER_KRSC}};
{{/CONV}}
// ---- The fused epilogue, from the op spec ---------------------------------------------------------------------

// The epilogue the op spec fixes with its epilogue fragments, numbered as the C API's epilogue_t: an epilogue call
// must give exactly these parts, and the kernels carry this activation alone. kEpilogueFixed false: a call gives
// any epilogue.
constexpr bool kEpilogueFixed = {{EPILOGUE_FIXED}};
constexpr int32_t kFixedBias = {{FIXED_BIAS}};
constexpr bool kFixedResidual = {{FIXED_RESIDUAL}};
constexpr int32_t kFixedActivation = {{FIXED_ACTIVATION}};
constexpr bool kFixedClamp = {{FIXED_CLAMP}};

// ---- The core, from the descriptor's isa ----------------------------------------------------------------------

// The independent FMA chains that keep the FMA pipes busy: an FMA's latency in cycles times the FMAs a core starts
// per cycle, from the descriptor. A tile of at most half that many accumulators splits its k loop over
// thin_sets() sets of them (see thin_tile_body in the kernels); the dispatcher's direct_work prices its k steps by the
// chains it runs.
constexpr int kChains = {{FMA_CHAINS}};

// The vector FMAs a core starts per cycle, from the descriptor (see the kernels' tile_body).
constexpr int kFmaPipes = {{FMA_PIPES}};

// The FMAs it starts per cycle on vectors of half the width, from the descriptor (see half_strip in the AVX-512
// kernels): more than kFmaPipes where a core runs a full-width FMA as two halves.
constexpr int kHalfFmaPipes = {{HALF_FMA_PIPES}};

// The ISA's vector registers, from the descriptor.
constexpr int kVectorRegisters = {{VECTOR_REGISTERS}};

// The most rows a one-vector tile runs over A in place, from the ISA's general registers (an offset register per row):
// a taller one runs as two shorter ones (see tile_body in the kernels), and a single row of such tiles is packed
// instead (the dispatcher's use_direct).
constexpr int kDirectRows = {{DIRECT_ROWS}};

// ---- Micro-kernel entry points: a packed, a streamed and a direct variant per register tile, and its packing -----

struct TileArgs;
struct PostOps;
{{#UKERNEL}}void {{NAME}}_packed(const TileArgs& args);
void {{NAME}}_streamed(const TileArgs& args);
void {{NAME}}_direct(const TileArgs& args);
void {{NAME}}_row_streams(const TileArgs& args);
void {{NAME}}_wide_rows(const TileArgs& args);
void {{NAME}}_dots(const TileArgs& args);
void {{NAME}}_pack_a(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out);
void {{NAME}}_pack_b(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* out);
void {{NAME}}_pack_a_transposed(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out);
void {{NAME}}_pack_b_transposed(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* out);
void {{NAME}}_copy_transposed(const float* src, int64_t ld, int64_t rows, int64_t cols, float* dst);
void {{NAME}}_post(const PostOps& post, float* c, int64_t rows, int64_t cols);
{{/UKERNEL}}{{#CONV}}
// The implicit GEMM's A, gathered from a convolution's input (conv_gather.h).
struct ConvGeometry;
{{#CONV_UKERNEL}}void {{NAME}}_gather_a(const ConvGeometry& conv, int64_t row, int64_t p, int64_t rows, int64_t depth,
                         float* out);
{{/CONV_UKERNEL}}{{/CONV}}
}  // namespace {{PACKAGE}}_internal

#endif  // {{PACKAGE_UPPER}}_CONFIG_H_
