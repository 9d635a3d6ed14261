// The dispatcher's configuration of {{PACKAGE}}: the kernel table (the generator's selection; manifest.yaml says why
// each kernel is here), the machine as its model sees it, and the thresholds taken from the descriptor's memory
// hierarchy. Generated; read by the dispatcher alone.
#ifndef {{PACKAGE_UPPER}}_DISPATCH_CONFIG_H_
#define {{PACKAGE_UPPER}}_DISPATCH_CONFIG_H_

#include "dispatch_kernel.h"

#define STRATA_ISA_NAME "{{ISA_NAME}}"

namespace {{PACKAGE}}_internal {
namespace {

// ---- Kernel table -------------------------------------------------------------------------------------------

constexpr Kernel kKernels[] = {
{{#KERNEL}}    {"{{NAME}}", &{{UKERNEL}}_packed, &{{UKERNEL}}_streamed, &{{UKERNEL}}_direct, &{{UKERNEL}}_row_streams, &{{UKERNEL}}_wide_rows, &{{UKERNEL}}_dots, &{{UKERNEL}}_pack_a, &{{UKERNEL}}_pack_b, &{{UKERNEL}}_pack_a_transposed, &{{UKERNEL}}_pack_b_transposed, &{{UKERNEL}}_copy_transposed, &{{UKERNEL}}_post, {{GATHER_A}}, {{MR}}, {{NR}}, {{KU}}, {{M1}}, {{N1}}, {{K1}}, {{M2}}, {{N2}}, {{K2}}, {{L0_SECONDS}}, { {{L1_SECONDS}} }},
{{/KERNEL}}};
constexpr int32_t kKernelCount = static_cast<int32_t>(sizeof(kKernels) / sizeof(kKernels[0]));
// The entries of the dispatcher's per-kernel tables (the generator's copy of the planner sizes them for any table).
constexpr int32_t kKernelSlots = kKernelCount;
// The entries of the planner's table of FMA chain steps (see chain_steps), from kChains.
constexpr int kChainSlots = kChains / 2 + 1;

// The machine as the model sees it ({{ARCH_NAME}}); level {{TOP_LEVEL}}'s parallel units are set per call to the
// thread count.
constexpr strata_model::Machine kMachine = {
    {{NUM_LEVELS}},
    {
{{#LEVEL}}        { {{LATENCY_S}}, {{BANDWIDTH_BPS}}, {{PARALLEL_UNITS}}, { {{LOOP_M}}, {{LOOP_N}}, {{LOOP_K}} }, {{SERIAL_LOAD}} },  // L{{INDEX}} {{LEVEL_NAME}}
{{/LEVEL}}    },
    { {{PROBLEM_LATENCY_S}}, {{PROBLEM_BANDWIDTH_BPS}}, 1, {strata_model::kTemporal, strata_model::kTemporal, strata_model::kReduction}, false },
    {{UNIT_FLOPS}},  // F: peak FLOP/s of one core
    {{FMA_LATENCY_S}},  // one dependent FMA
    {{LAUNCH_S}},  // T_launch
    {{A_BYTES}}, {{B_BYTES}}, {{C_BYTES}},  // bytes of an element of A, B and C
};

// Whether this CPU runs the kernels' instructions.
inline bool cpu_runs_kernels() { return {{CPU_CHECK}}; }

// ---- The memory hierarchy, from the descriptor's levels -----------------------------------------------------------

// Below this many bytes of A and B together, packing buys nothing (see use_direct).
constexpr int64_t kDirectBytes = {{DIRECT_BYTES}};
// Half of {{TILE_CACHE}} (the tile cache), the cache register tiles load from: a direct call walks C in row
// blocks whose A fits in it (see direct_block_rows).
constexpr int64_t kTileCacheBytes = {{TILE_CACHE_BYTES}};
constexpr int64_t kVectorFloats = {{VECTOR_FLOATS}};  // floats in one vector register
// Data up to this many bytes stays in {{OUTER_CACHE}} (the outer cache), the outermost level, from one call to
// the next.
constexpr int64_t kOuterBytes = {{OUTER_BYTES}};
// A direct call whose A is larger than {{DIRECT_CACHE}} (the direct cache) reads it from beyond: the first strip
// of each row block asks its tiles to fetch A ahead (see a_from_beyond).
constexpr int64_t kStreamABytes = {{STREAM_A_BYTES}};
constexpr int32_t kMaxThreads = {{MAX_THREADS}};
// The bytes one of {{TILE_CACHE}}'s ways spans (its sets times its line); 0 where the descriptor does not give its
// associativity. Lines a multiple of it apart share a set.
constexpr int64_t kTileCacheWayBytes = {{TILE_CACHE_WAY_BYTES}};
// {{TILE_CACHE}}'s line: what a store of part of one moves.
constexpr int64_t kLineBytes = {{LINE_BYTES}};
// The model's top level, whose parallel units are the thread count.
constexpr int kTopLevel = {{TOP_LEVEL}};

// What generated this package (the C API's _provenance()).
constexpr const char* kProvenance = {{PROVENANCE_STRING}};

}  // namespace
}  // namespace {{PACKAGE}}_internal

#endif  // {{PACKAGE_UPPER}}_DISPATCH_CONFIG_H_
