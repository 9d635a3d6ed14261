// Micro-kernel {{NAME}}: a {{MR}} x {{NR}} register tile ({{MR}} rows x {{NV}} {{ISA_NAME}} vectors of {{LANES}} floats), k unrolled
// {{KU}} times. {{#MEMORY_BROADCAST}}Each k step broadcasts one element of A per row and multiplies it into {{NV}} vectors of B:
// {{ACCUMULATORS}} accumulators + {{NV}} B registers + 1 broadcast register = {{REGISTERS}} of {{VECTOR_REGISTERS}} vector registers.
{{/MEMORY_BROADCAST}}{{#LANE_BROADCAST}}In a packed tile each k step loads A's {{MR}} elements as {{A_VECTORS}} vectors and multiplies lane r into
// row r's {{NV}} vectors of B (FMA by element): {{ACCUMULATORS}} accumulators + {{NV}} B registers + {{A_VECTORS}} A registers = {{REGISTERS}} of
// {{VECTOR_REGISTERS}} vector registers. A direct tile broadcasts A from memory.
{{/LANE_BROADCAST}}// The loops, edges and packing are the package's fixed kernel code (kernel_tile.h, kernel_paths.h), instantiated
// here for this tile and compiled with its ISA's flags.
#include "simd_{{ISA}}.h"
{{#PACKAGE_ENTRY}}#include "kernel_paths.h"
#include "post_ops_apply.h"
{{/PACKAGE_ENTRY}}{{#CONV}}#include "conv_gather.h"
{{/CONV}}{{#PROFILE_ENTRY}}#include "kernel_tile.h"
{{/PROFILE_ENTRY}}
namespace {{PACKAGE}}_internal {
namespace {

struct Shape {
  static constexpr int kTileRows = {{MR}};
  static constexpr int kTileVectors = {{NV}};
  static constexpr int kUnroll = {{KU}};
  static constexpr bool kLaneBroadcast = {{LANE_BROADCAST_VALUE}};
};

}  // namespace

{{#PACKAGE_ENTRY}}void {{NAME}}_packed(const TileArgs& args) { one_tile<Shape, Operands::kPacked>(args); }
void {{NAME}}_streamed(const TileArgs& args) { one_tile<Shape, Operands::kStreamedB>(args); }
void {{NAME}}_direct(const TileArgs& args) { direct<Shape>(args); }
void {{NAME}}_row_streams(const TileArgs& args) { row_streams_of(args); }
void {{NAME}}_wide_rows(const TileArgs& args) { wide_rows(args); }
void {{NAME}}_dots(const TileArgs& args) { dots(args); }
{{/PACKAGE_ENTRY}}{{#PROFILE_ENTRY}}// The profiler times the full packed tile (the same instantiation the package runs on interior tiles) and, for a
// profiled level 1, the packing routines with it.
void {{NAME}}_full_packed(const TileArgs& args) { tile<Shape, Operands::kPacked, {{MR}}, {{NV}}>(args); }
{{/PROFILE_ENTRY}}{{#PACKING}}void {{NAME}}_pack_a(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out) {
  pack_a<Shape>(a, lda, rows, depth, out);
}
void {{NAME}}_pack_b(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* out) {
  pack_b<Shape>(b, ldb, cols, depth, out);
}
{{/PACKING}}{{#PACKAGE_ENTRY}}void {{NAME}}_pack_a_transposed(const float* a, int64_t lda, int64_t rows, int64_t depth, float* out) {
  pack_a_transposed<Shape>(a, lda, rows, depth, out);
}
void {{NAME}}_pack_b_transposed(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* out) {
  pack_b_transposed<Shape>(b, ldb, cols, depth, out);
}
void {{NAME}}_copy_transposed(const float* src, int64_t ld, int64_t rows, int64_t cols, float* dst) {
  copy_transposed(src, ld, rows, cols, dst);
}
void {{NAME}}_post(const PostOps& post, float* c, int64_t rows, int64_t cols) {
  apply_post_ops(post, c, rows, cols);
}
{{/PACKAGE_ENTRY}}{{#CONV}}void {{NAME}}_gather_a(const ConvGeometry& conv, int64_t row, int64_t p, int64_t rows, int64_t depth,
                         float* out) {
  gather_a<Shape>(conv, row, p, rows, depth, out);
}
{{/CONV}}
}  // namespace {{PACKAGE}}_internal
