#include "spec/op_loader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/c_names.h"
#include "common/sha256.h"
#include "spec/fragments.h"
#include "spec/yaml_reader.h"

namespace strata {
namespace {

const std::vector<std::string> kKinds = {"gemm", "conv2d"};
const std::vector<std::string> kDataTypes = {"f32", "f16", "bf16"};
const std::vector<std::string> kLoopTypes = {"PL", "TNL", "TRL"};
const std::vector<std::string> kLayouts = {"row_major", "col_major"};
const std::vector<std::string> kAxisNames = {"m", "n", "k"};

// The runtime dimensions each kind of operator has, and the dimensions derived from them.
std::vector<std::string> dims_of(OpKind kind) {
  if (kind == OpKind::gemm) return {"m", "n", "k"};
  return {"batch", "in_h", "in_w", "in_c", "out_c", "kernel_h", "kernel_w"};
}
std::vector<std::string> derived_dims_of(OpKind kind) {
  if (kind == OpKind::gemm) return {};
  return {"out_h", "out_w"};  // (in + 2*padding - dilation*(kernel-1) - 1) / stride + 1
}

DimFacts read_dim(MapReader& parent, const std::string& name) {
  YAML::Node node = parent.node(name);
  DimFacts d;
  d.name = name;
  d.pos = pos_of(node, parent.file());
  if (node.IsNull()) return d;  // "m:" with no facts
  MapReader r(node, parent.file(), fmt::format("dims.{}", name));
  d.min = r.optional_integer("min", 0, 0);
  d.max = r.optional_integer("max", INT64_MAX, 1);  // a dimension that is always 0 leaves nothing to generate
  d.multiple_of = r.optional_integer("multiple_of", 1, 1);
  if (d.max < d.min) r.fail("max", fmt::format("is below min ({} < {})", d.max, d.min));
  if (d.max != INT64_MAX && d.max < d.multiple_of)
    r.fail("multiple_of", fmt::format("({}) exceeds max ({}): no non-zero size is allowed", d.multiple_of, d.max));
  r.finish();
  return d;
}

// A name or a list of names. With a family, they are fragment names, each one `family` knows in `slot`
// (spec/fragments.h); in a store list the names after the first are epilogue fragments, each with its position in
// *epilogue_pos.
std::vector<std::string> read_name_list(const YAML::Node& node, const std::string& file, const std::string& what,
                                        const std::string& family = "", FragmentSlot slot = FragmentSlot::load,
                                        std::vector<SourcePos>* epilogue_pos = nullptr) {
  std::vector<std::string> out;
  auto add = [&](const YAML::Node& item) {
    std::string s = scalar_string(item, file, what);
    if (!is_c_identifier(s))
      throw Error(pos_of(item, file),
                  fmt::format("{} must be a C identifier ([A-Za-z_][A-Za-z0-9_]*), found '{}'", what, s));
    if (family.empty()) {
      out.push_back(s);
      return;
    }
    const FragmentSlot as = slot == FragmentSlot::store && !out.empty() ? FragmentSlot::epilogue : slot;
    const std::vector<std::string>& known = fragment_names(family, as);
    if (std::find(known.begin(), known.end(), s) == known.end()) {
      const std::string expected = known.empty() ? std::string("none: ") + family + " levels take no " +
                                                       to_string(as) + " fragments after the store fragment"
                                                 : fmt::format("one of {}", fmt::join(known, ", "));
      throw Error(pos_of(item, file), fmt::format("{}: unknown {} {} fragment '{}'; expected {}", what, family,
                                                  to_string(as), s, expected));
    }
    if (as == FragmentSlot::epilogue && epilogue_pos != nullptr) epilogue_pos->push_back(pos_of(item, file));
    out.push_back(s);
  };
  if (node.IsSequence()) {
    if (node.size() == 0) throw Error(pos_of(node, file), what + " expected a non-empty list of names");
    for (const auto& item : node) add(item);
  } else {
    add(node);
  }
  return out;
}

// A level's epilogue fragments as the facts they fix: each part once, in the order the parts apply (bias,
// residual, activation, clamp).
EpilogueFacts epilogue_facts(const RKernelLevel& level, const std::vector<SourcePos>& positions) {
  EpilogueFacts facts;
  facts.pos = positions.front();
  int last_group = -1;
  for (size_t i = 0; i < level.epilogue.size(); ++i) {
    const std::string& name = level.epilogue[i];
    const int group = name == "bias_per_column" || name == "bias_per_row" ? 0
                      : name == "add_residual"                            ? 1
                      : name == "clamp"                                   ? 3
                                                                          : 2;
    if (group <= last_group)
      throw Error(positions[i], fmt::format("epilogue fragment '{}' comes after a {} part: give at most one bias, "
                                            "residual, activation and clamp, in that order",
                                            name, group == last_group ? "same" : "later"));
    last_group = group;
    if (group == 0) facts.bias = name == "bias_per_column" ? 1 : 2;
    if (group == 1) facts.residual = true;
    if (group == 3) facts.clamp = true;
    if (group == 2) facts.activation = name == "relu" ? 1 : name == "gelu_tanh" ? 2 : name == "gelu_erf" ? 3 : 4;
  }
  return facts;
}

RKernelLevel read_rkernel_level(const YAML::Node& node, const std::string& file, const std::string& what,
                                const std::string& family, std::vector<SourcePos>* epilogue_pos) {
  MapReader r(node, file, what);
  RKernelLevel level;
  level.pos = r.pos();
  MapReader loops(r.node("loops"), file, what + ".loops");
  for (int axis = 0; axis < kNumAxes; ++axis)
    level.loops[axis] = static_cast<LoopType>(loops.choice(kAxisNames[axis], kLoopTypes));
  loops.finish();
  if (level.loops[kAxisK] == LoopType::TNL)
    loops.fail("k", "is the reduction axis: it can be TRL (temporal reduction) or PL (split-K), not TNL");
  for (int axis : {kAxisM, kAxisN})
    if (level.loops[axis] == LoopType::TRL) loops.fail(kAxisNames[axis], "is not a reduction axis: use PL or TNL");
  level.load = read_name_list(r.node("load"), file, what + ": 'load'", family, FragmentSlot::load);
  level.compute =
      read_name_list(r.node("compute"), file, what + ": 'compute'", family, FragmentSlot::compute).front();
  const std::vector<std::string> store =
      read_name_list(r.node("store"), file, what + ": 'store'", family, FragmentSlot::store, epilogue_pos);
  level.store = store.front();
  level.epilogue.assign(store.begin() + 1, store.end());
  if (r.has("load_overlap")) {
    const size_t overlap = r.choice("load_overlap", {"true", "false"});
    level.load_overlaps_compute = overlap == 0;
  }
  r.finish();
  return level;
}

// The levels of one family, L0 first; *epilogue the facts that the outermost level's epilogue fragments fix (the
// only level that writes C), where it has any.
RKernel read_rkernel(MapReader& parent, const std::string& family, std::optional<EpilogueFacts>* epilogue) {
  YAML::Node node = parent.node(family);
  RKernel rk;
  rk.pos = pos_of(node, parent.file());
  if (!node.IsSequence() || node.size() == 0)
    throw Error(rk.pos, fmt::format("rkernel.{}: expected a non-empty list of levels, L0 first", family));
  std::vector<SourcePos> positions;
  for (size_t i = 0; i < node.size(); ++i) {
    if (!positions.empty())
      throw Error(positions.front(), fmt::format("rkernel.{}[{}]: epilogue fragments belong to the outermost level's "
                                                 "store, which writes C",
                                                 family, i - 1));
    rk.levels.push_back(
        read_rkernel_level(node[i], parent.file(), fmt::format("rkernel.{}[{}]", family, i), family, &positions));
  }
  if (!positions.empty()) *epilogue = epilogue_facts(rk.levels.back(), positions);
  return rk;
}

std::optional<std::array<int64_t, 2>> read_pair(MapReader& r, const std::string& key, int64_t min_value) {
  if (!r.has(key)) return std::nullopt;
  YAML::Node node = r.node(key);
  if (!node.IsSequence() || node.size() != 2)
    throw Error(pos_of(node, r.file()),
                fmt::format("{}: '{}' expected a list of two integers [h, w]", r.what(), key));
  return std::array<int64_t, 2>{scalar_integer(node[0], r.file(), r.what() + ": '" + key + "'", min_value),
                                scalar_integer(node[1], r.file(), r.what() + ": '" + key + "'", min_value)};
}

void read_gemm_view(MapReader& r, Op& op) {
  const auto dims = dims_of(op.kind);
  const auto derived = derived_dims_of(op.kind);
  if (!r.has("gemm_view")) {
    if (op.kind != OpKind::gemm) r.node("gemm_view");  // required: throws "missing required key"
    for (int axis = 0; axis < kNumAxes; ++axis) op.gemm_view[axis] = {kAxisNames[axis]};
    return;
  }
  MapReader view(r.node("gemm_view"), r.file(), "gemm_view");
  std::vector<std::string> seen;
  for (int axis = 0; axis < kNumAxes; ++axis) {
    const std::string& key = kAxisNames[axis];
    op.gemm_view[axis] = read_name_list(view.node(key), r.file(), "gemm_view: '" + key + "'");
    for (const auto& name : op.gemm_view[axis]) {
      const bool known =
          std::count(dims.begin(), dims.end(), name) || std::count(derived.begin(), derived.end(), name);
      if (!known)
        view.fail(key,
                  fmt::format("names '{}', which is not a dimension of a {} operator", name, to_string(op.kind)));
      if (std::count(seen.begin(), seen.end(), name)) view.fail(key, fmt::format("uses '{}' twice", name));
      seen.push_back(name);
    }
  }
  view.finish();
  if (op.kind == OpKind::gemm)
    for (int axis = 0; axis < kNumAxes; ++axis)
      if (op.gemm_view[axis] != std::vector<std::string>{kAxisNames[axis]})
        view.fail(kAxisNames[axis], fmt::format("must be [{}] for a gemm operator", kAxisNames[axis]));
}

}  // namespace

const char* axis_name(int axis) { return kAxisNames.at(static_cast<size_t>(axis)).c_str(); }

const char* to_string(OpKind k) { return kKinds[static_cast<size_t>(k)].c_str(); }
const char* to_string(LoopType t) { return kLoopTypes[static_cast<size_t>(t)].c_str(); }
const char* to_string(Layout l) { return kLayouts[static_cast<size_t>(l)].c_str(); }

DimFacts Op::axis_facts(int axis) const {
  DimFacts out;
  out.name = kAxisNames[static_cast<size_t>(axis)];
  auto saturating_mul = [](int64_t a, int64_t b) {
    if (a == 0 || b == 0) return int64_t{0};
    return a > INT64_MAX / b ? INT64_MAX : a * b;
  };
  out.min = 1;
  out.max = 1;
  for (const auto& name : gemm_view[static_cast<size_t>(axis)]) {
    auto it = std::find_if(dims.begin(), dims.end(), [&](const DimFacts& d) { return d.name == name; });
    DimFacts d = it != dims.end() ? *it : DimFacts{};  // derived dims carry no facts
    out.min = saturating_mul(out.min, d.min);
    out.max = (out.max == INT64_MAX || d.max == INT64_MAX) ? INT64_MAX : saturating_mul(out.max, d.max);
    out.multiple_of = saturating_mul(out.multiple_of, d.multiple_of);
  }
  return out;
}

const RKernel* Op::rkernel_for(Target target) const {
  const auto& rk = target == Target::cuda ? rkernel_cuda : rkernel_cpu;
  return rk ? &*rk : nullptr;
}

Op load_op(const std::string& path) { return load_op_text(path, read_spec_file(path)); }

Op load_op_text(const std::string& path, const std::string& content) {
  YAML::Node root = parse_yaml_text(path, content);
  MapReader r(root, path, "operator spec");
  Op op;
  op.file = path;
  op.content_sha = sha256_hex(content);
  const std::string schema = r.string("schema");
  if (schema != "strata-op/1")
    r.fail("schema", fmt::format("must be 'strata-op/1' (this Strata reads that version), found '{}'", schema));
  op.name = r.identifier("name");
  if (const std::string problem = name_part_problem(op.name); !problem.empty())
    r.fail("name",
           fmt::format("'{}' {}: it is a part of the default package name strata_<op>_<arch>", op.name, problem));
  op.description = r.string("description");
  op.kind = static_cast<OpKind>(r.choice("kind", kKinds));
  {
    MapReader types(r.node("types"), path, "types");
    op.a_type = static_cast<DataType>(types.choice("a", kDataTypes));
    op.b_type = static_cast<DataType>(types.choice("b", kDataTypes));
    op.c_type = static_cast<DataType>(types.choice("c", kDataTypes));
    op.accumulate = static_cast<DataType>(types.choice("accumulate", kDataTypes));
    if (op.a_type != op.b_type)
      types.fail("b", "must have the same type as 'a' (mixed-input products are not supported)");
    if (op.accumulate != DataType::f32) types.fail("accumulate", "must be f32 (the only accumulator Strata emits)");
    types.finish();
  }
  if (op.kind == OpKind::gemm) {
    MapReader layout(r.node("layout"), path, "layout");
    op.a_layout = static_cast<Layout>(layout.choice("a", kLayouts));
    op.b_layout = static_cast<Layout>(layout.choice("b", kLayouts));
    op.c_layout = static_cast<Layout>(layout.choice("c", kLayouts));
    layout.finish();
  } else {
    MapReader conv(r.node("conv"), path, "conv");
    const std::string input = conv.string("input_layout");
    if (input != "nhwc") conv.fail("input_layout", fmt::format("must be nhwc, found '{}'", input));
    const std::string filter = conv.string("filter_layout");
    if (filter != "krsc" && filter != "rsck")
      conv.fail("filter_layout", fmt::format("must be krsc or rsck, found '{}'", filter));
    op.b_layout = filter == "krsc" ? Layout::col_major : Layout::row_major;  // B is k x n = (r,s,c) x out_c
    const std::string output = conv.string("output_layout");
    if (output != "nhwc") conv.fail("output_layout", fmt::format("must be nhwc, found '{}'", output));
    op.conv.filter_krsc = filter == "krsc";
    op.conv.stride = read_pair(conv, "stride", 1);
    op.conv.padding = read_pair(conv, "padding", 0);
    op.conv.dilation = read_pair(conv, "dilation", 1);
    conv.finish();
  }
  {
    MapReader dims(r.node("dims"), path, "dims");
    for (const auto& name : dims_of(op.kind)) op.dims.push_back(read_dim(dims, name));
    dims.finish();
  }
  read_gemm_view(r, op);
  {
    MapReader rk(r.node("rkernel"), path, "rkernel");
    if (rk.has("cpu")) op.rkernel_cpu = read_rkernel(rk, "cpu", &op.epilogue);
    std::optional<EpilogueFacts> cuda_epilogue;  // none: the CUDA family knows no epilogue fragments
    if (rk.has("cuda")) op.rkernel_cuda = read_rkernel(rk, "cuda", &cuda_epilogue);
    // A convolution's kernels gather A from its input as they pack it, a GEMM's pack A as it lies: the outermost
    // CPU level's loads say which.
    if (op.rkernel_cpu) {
      const RKernelLevel& outer = op.rkernel_cpu->levels.back();
      const bool gathers =
          std::find(outer.load.begin(), outer.load.end(), "im2col_gather_a_panel") != outer.load.end();
      if (gathers != (op.kind == OpKind::conv2d))
        throw Error(outer.pos, op.kind == OpKind::conv2d
                                   ? "rkernel.cpu: a convolution's outermost level loads im2col_gather_a_panel"
                                   : "rkernel.cpu: im2col_gather_a_panel is a convolution's load (kind: conv2d)");
    }
    // On CUDA the gather is in the block's global-to-shared copy, at whichever level the spec puts it.
    if (op.rkernel_cuda) {
      bool gathers = false;
      for (const RKernelLevel& level : op.rkernel_cuda->levels)
        gathers =
            gathers || std::find(level.load.begin(), level.load.end(), "cp_async_gather_a_tile") != level.load.end();
      if (gathers != (op.kind == OpKind::conv2d))
        throw Error(op.rkernel_cuda->levels.back().pos,
                    op.kind == OpKind::conv2d
                        ? "rkernel.cuda: a convolution's block level loads cp_async_gather_a_tile"
                        : "rkernel.cuda: cp_async_gather_a_tile is a convolution's load (kind: conv2d)");
    }
    if (op.kind == OpKind::conv2d && op.epilogue && op.epilogue->bias == 2)
      throw Error(op.epilogue->pos,
                  "a convolution's bias is one per output channel: bias_per_column, not bias_per_row");
    if (!op.rkernel_cpu && !op.rkernel_cuda)
      throw Error(rk.pos(), "rkernel: expected at least one of 'cpu' or 'cuda'");
    rk.finish();
  }
  r.finish();
  return op;
}

}  // namespace strata
