// A convolution's geometry, as the gather of its implicit GEMM operand A reads it (see conv_gather.h). Fixed text,
// copied verbatim into convolution packages; shared by the dispatcher and the kernel files.
#ifndef STRATA_CONV_GEOMETRY_H_
#define STRATA_CONV_GEOMETRY_H_

#include <cstdint>

#include "config.h"

namespace STRATA_PACKAGE_INTERNAL {

struct ConvGeometry {
  const float* input;  // batch x in_h x in_w x in_c, dense
  int64_t in_h, in_w, in_c;
  int64_t out_h, out_w;  // the output image's extent (see the API's conv2d_output_size)
  int64_t kernel_w;      // kernel_h only bounds k
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
};

// The value a call gives, or the op spec's fact where it fixes one (config.h): then a constant of the package, which
// the compiler folds into the gather.
constexpr int64_t fact_or(int64_t fact, int64_t value) { return fact == kConvRuntime ? value : fact; }

}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_CONV_GEOMETRY_H_
