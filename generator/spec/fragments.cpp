#include "spec/fragments.h"

#include <map>
#include <utility>

namespace strata {

const char* to_string(FragmentSlot slot) {
  switch (slot) {
    case FragmentSlot::load: return "load";
    case FragmentSlot::compute: return "compute";
    case FragmentSlot::store: return "store";
    case FragmentSlot::epilogue: return "epilogue";
  }
  return "?";
}

// What each name selects: CPU loads are the register tile's broadcasts and vector loads, the cache block's
// micro-panels and the core's packing (a convolution's gathered from its input); CUDA loads are the warp's shared
// memory reads (lds, or ldmatrix for Tensor Cores), the block's cp.async copies (a convolution's gathered from its
// input) and the grid's global reads. The
// epilogue fragments are the C API's epilogue parts, in the order they apply: a bias, a residual, an activation, a
// clamp.
const std::vector<std::string>& fragment_names(const std::string& family, FragmentSlot slot) {
  static const std::map<std::pair<std::string, FragmentSlot>, std::vector<std::string>> kNames = {
      {{"cpu", FragmentSlot::load},
       {"broadcast_a", "load_b_vectors", "load_a_micro_panel", "load_b_micro_panel", "pack_a_panel", "pack_b_panel",
        "im2col_gather_a_panel"}},
      {{"cpu", FragmentSlot::compute}, {"fma_broadcast", "register_tile", "cache_block"}},
      {{"cpu", FragmentSlot::store}, {"accumulate_c_tile", "masked_store", "write_c"}},
      {{"cpu", FragmentSlot::epilogue},
       {"bias_per_column", "bias_per_row", "add_residual", "relu", "gelu_tanh", "gelu_erf", "silu", "clamp"}},
      {{"cuda", FragmentSlot::load},
       {"lds_a_fragment", "lds_b_fragment", "ldmatrix_a", "ldmatrix_b", "cp_async_a_tile", "cp_async_b_tile",
        "cp_async_gather_a_tile", "global_a", "global_b"}},
      {{"cuda", FragmentSlot::compute}, {"ffma_thread_tile", "mma_sync", "warp_tile", "block_tile"}},
      {{"cuda", FragmentSlot::store}, {"accumulate_registers", "store_c_fragment", "write_c"}},
  };
  static const std::vector<std::string> kNone;
  const auto it = kNames.find({family, slot});
  return it == kNames.end() ? kNone : it->second;
}

}  // namespace strata
