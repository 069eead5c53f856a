// Rearrangements the TRAINING dialect keeps whole (the core dialect
// decomposes them into views): narrow, tile, meshgrid, movedim,
// numpy_T, outer, Tensor.unfold, channel_shuffle, repeat_interleave.
#include "mx/onnx_proto.hpp"

#include <climits>
#include <limits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/aten_onnx/view_copies.hpp"

namespace mx::aten_onnx {
namespace {

void lower_narrow(OpContext& cx) {  // narrow(self, dim, start, length)
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  auto one = [&](const char* n) {  // a 1-element int64 tensor, a constant when static
    return cx.arg_kind(n) == ArgKind::integer ? cx.ci64({cx.int_arg(n)}) : cx.unsqueeze(cx.sym_int(n), {0});
  };
  const std::string start = one("start");
  // A negative start counts from the end, so start + length <= 0; at 0 the
  // view runs to the end, which Slice writes as an end past the dim (an end
  // of 0 would be empty).
  std::string end;
  if (cx.arg_kind("start") == ArgKind::integer && cx.arg_kind("length") == ArgKind::integer) {
    const int64_t stop = cx.int_arg("start") + cx.int_arg("length");
    end = cx.ci64({cx.int_arg("start") < 0 && stop == 0 ? std::numeric_limits<int64_t>::max() : stop});
  } else {
    end = cx.emit1("Add", {start, one("length")});
  }
  cx.out(0, cx.emit1("Slice", {cx.tensor("self"), start, end, cx.ci64({dim})}));
}
MX_ATEN_LOWER_VIEW(lower_narrow, "aten.narrow");

void lower_tile(OpContext& cx) {  // tile(self, dims): dims padded with leading 1s to the rank
  const int64_t r = cx.rank_of("self");
  auto reps = cx.ints("dims");
  std::string x = cx.tensor("self");
  const int64_t n = std::max<int64_t>(r, static_cast<int64_t>(reps.size()));
  reps.insert(reps.begin(), n - static_cast<int64_t>(reps.size()), 1);
  if (n > r) {
    std::vector<int64_t> lead;
    for (int64_t k = 0; k < n - r; ++k) lead.push_back(k);
    x = cx.unsqueeze(x, lead);
  }
  cx.out(0, cx.emit1("Tile", {x, cx.ci64(reps)}));
}
MX_ATEN_LOWER(lower_tile, "aten.tile");

// movedim(self, source, destination) / moveaxis: the moved dims at their
// destinations, the others in their order around them.
void lower_movedim(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  const auto src = cx.ints("source"), dst = cx.ints("destination");
  if (src.size() != dst.size()) cx.unsupported("movedim with source and destination of different lengths");
  std::vector<int64_t> perm(static_cast<size_t>(r), -1);
  std::vector<bool> moved(static_cast<size_t>(r), false);
  for (size_t k = 0; k < src.size(); ++k) {
    perm[static_cast<size_t>(norm_dim(dst[k], r))] = norm_dim(src[k], r);
    moved[static_cast<size_t>(norm_dim(src[k], r))] = true;
  }
  int64_t next = 0;
  for (auto& p : perm) {
    if (p >= 0) continue;
    while (moved[static_cast<size_t>(next)]) ++next;
    p = next++;
  }
  cx.out(0, cx.transpose(cx.tensor("self"), perm));
}
MX_ATEN_LOWER(lower_movedim, "aten.movedim", "aten.moveaxis");

void lower_numpy_t(OpContext& cx) {  // reverse every dim
  const int64_t r = cx.rank_of("self");
  std::vector<int64_t> perm;
  for (int64_t k = r - 1; k >= 0; --k) perm.push_back(k);
  cx.out(0, cx.transpose(cx.tensor("self"), perm));
}
MX_ATEN_LOWER(lower_numpy_t, "aten.numpy_T", "aten.permute_copy.numpy_T");

void lower_outer(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Mul",
                     {cx.unsqueeze(cx.operand("self", dt), {1}), cx.unsqueeze(cx.operand("vec2", dt), {0})}));
}
MX_ATEN_LOWER(lower_outer, "aten.outer", "aten.ger");

// meshgrid(tensors, indexing="ij"|"xy"): each 1-D input reshaped onto its
// axis and expanded to the full grid ("xy" swaps the first two axes).
void lower_meshgrid(OpContext& cx) {
  std::vector<const Value*> in;
  for (const Value* t : cx.tensor_list("tensors")) in.push_back(t);
  const bool xy = cx.string_arg("indexing", "ij") == "xy";
  const int64_t n = static_cast<int64_t>(in.size());
  std::vector<std::string> sizes;
  for (int64_t k = 0; k < n; ++k) sizes.push_back(cx.emit1("Reshape", {in[k]->onnx, cx.ci64({-1})}));
  auto axis_of = [&](int64_t k) { return xy && n >= 2 && k < 2 ? 1 - k : k; };
  std::vector<std::string> dims(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    dims[static_cast<size_t>(axis_of(k))] = cx.shape_of(sizes[static_cast<size_t>(k)]);
  const std::string grid = cx.emit1("Concat", dims, {attr("axis", int64_t{0})});
  std::vector<std::string> outs;
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> shape(static_cast<size_t>(n), 1);
    shape[static_cast<size_t>(axis_of(k))] = -1;
    outs.push_back(
        cx.emit1("Expand", {cx.emit1("Reshape", {sizes[static_cast<size_t>(k)], cx.ci64(shape)}), grid}));
  }
  cx.out_list(0, outs);
}
MX_ATEN_LOWER(lower_meshgrid, "aten.meshgrid");

// Tensor.unfold(self, dimension, size, step): windows along a static dim,
// gathered and moved to a new last axis.
// [n, size] element indices of the n = (length - size) / step + 1 windows.
std::string static_window_indices(OpContext& cx, int64_t length, int64_t size, int64_t step) {
  const int64_t n = (length - size) / step + 1;
  if (n <= 0) cx.unsupported("unfold with no window");
  onnx::TensorProto idx;
  idx.set_data_type(onnx::TensorProto::INT64);
  idx.add_dims(n);
  idx.add_dims(size);
  for (int64_t w = 0; w < n; ++w)
    for (int64_t k = 0; k < size; ++k) idx.add_int64_data(w * step + k);
  return cx.constant(idx);
}

// The same along a dynamic dim: Range(0, n * step, step)[:, None] + [0, size).
std::string dynamic_window_indices(OpContext& cx, const std::string& x, int64_t d, int64_t size,
                                   int64_t step) {
  const std::string length = cx.dim_size(x, d);
  const std::string n = cx.emit1(
      "Add", {cx.emit1("Div", {cx.emit1("Sub", {length, cx.ci64s(size)}), cx.ci64s(step)}), cx.ci64s(1)});
  const std::string starts =
      cx.emit1("Range", {cx.ci64s(0), cx.emit1("Mul", {n, cx.ci64s(step)}), cx.ci64s(step)});
  std::vector<int64_t> offsets;
  for (int64_t k = 0; k < size; ++k) offsets.push_back(k);
  return cx.emit1("Add", {cx.unsqueeze(starts, {1}), cx.ci64(offsets)});
}

void lower_unfold(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const int64_t d = norm_dim(cx.int_arg("dimension"), std::max<int64_t>(r, 1));
  const int64_t size = cx.int_arg("size"), step = cx.int_arg("step");
  if (r == 0) cx.unsupported("unfold of a 0-d tensor");
  if (step <= 0 || size <= 0) cx.unsupported("unfold with a step or size below 1");
  const std::string idx = v.shape[d].is_static ? static_window_indices(cx, v.shape[d].value, size, step)
                                               : dynamic_window_indices(cx, v.onnx, d, size, step);
  std::string g = cx.emit1("Gather", {v.onnx, idx}, {attr("axis", d)});  // [.., n, size, ..]
  std::vector<int64_t> perm;                                             // move the window axis (d + 1) last
  for (int64_t k = 0; k <= r; ++k)
    if (k != d + 1) perm.push_back(k);
  perm.push_back(d + 1);
  cx.out(0, cx.transpose(g, perm));
}
MX_ATEN_LOWER_VIEW(lower_unfold, "aten.unfold");

// channel_shuffle(self, groups): [N, g, C/g, ...] -> swap -> [N, C, ...]
void lower_channel_shuffle(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t g = cx.int_arg("groups");
  if (v.shape.size() < 3 || !v.shape[1].is_static)
    cx.unsupported("channel_shuffle without a static channel dim");
  const int64_t c = v.shape[1].value, r = static_cast<int64_t>(v.shape.size());
  const std::string shape = cx.shape_of(v.onnx);
  const std::string rest = cx.emit1("Slice", {shape, cx.ci64({2}), cx.ci64({INT64_MAX})});
  const std::string five =
      cx.emit1("Concat", {cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({1})}), cx.ci64({g, c / g}), rest},
               {attr("axis", int64_t{0})});
  std::vector<int64_t> perm = {0, 2, 1};
  for (int64_t k = 3; k <= r; ++k) perm.push_back(k);
  const std::string t = cx.transpose(cx.emit1("Reshape", {v.onnx, five}), perm);
  cx.out(0, cx.emit1("Reshape", {t, shape}));
}
MX_ATEN_LOWER(lower_channel_shuffle, "aten.channel_shuffle", "aten.native_channel_shuffle");

// repeat_interleave.self_int(self, repeats, dim=None, output_size=None):
// each element repeated `repeats` times along dim (flattened without one):
// [.., s, ..] -> Unsqueeze [.., s, 1, ..] -> Expand [.., s, n, ..] ->
// Reshape [.., s*n, ..]. The Expand's shape is 1 but at the new axis
// (Expand broadcasts, a 1 keeps the input's dim), and the Reshape's is a
// constant when at most one of its dims is dynamic (a 0 copies a dim before
// `dim`, one -1 is inferred): no shape read at run time (Flux's rotary
// tables repeat_interleave a [seq, d] table whose seq is dynamic).
namespace {

// The Reshape target of the result as one constant (0: copied from the
// input, -1: inferred), or nothing when two of its dims are dynamic or a
// static dim is 0 (a 0 in the target would copy, not be 0).
std::optional<std::vector<int64_t>> repeated_target(const std::vector<Dim>& dims, int64_t d,
                                                    std::optional<int64_t> n) {
  std::vector<int64_t> target;
  int dynamic = 0;
  for (size_t p = 0; p < dims.size(); ++p) {
    const Dim& dim = dims[p];
    if (dim.is_static && dim.value == 0) return std::nullopt;
    const auto pos = static_cast<int64_t>(p);
    if (pos < d) {
      target.push_back(0);
    } else if (pos == d && dim.is_static && n) {
      target.push_back(dim.value * *n);
    } else if (pos > d && dim.is_static) {
      target.push_back(dim.value);
    } else {
      ++dynamic;
      target.push_back(-1);
    }
  }
  if (dynamic > 1) return std::nullopt;
  return target;
}

}  // namespace

void lower_repeat_interleave(OpContext& cx) {
  if (!cx.has("self"))
    cx.unsupported("repeat_interleave of a repeats tensor alone (its output size is data-dependent)");
  const Value& v = cx.value_of("self");
  std::string x = v.onnx;
  std::vector<Dim> dims = v.shape;
  if (!cx.has("dim")) {
    x = cx.emit1("Reshape", {x, cx.ci64({-1})});
    Dim flat;  // static when every dim is
    flat.value = 1;
    for (const Dim& dim : v.shape) {
      flat.is_static = flat.is_static && dim.is_static;
      flat.value *= dim.value;
    }
    dims = {flat};
  }
  const auto r = static_cast<int64_t>(dims.size());
  const int64_t d = cx.has("dim") ? norm_dim(cx.int_arg("dim"), r) : 0;
  const ArgKind rep = cx.arg_kind("repeats");
  if (rep != ArgKind::integer && rep != ArgKind::sym_int)
    cx.unsupported("repeat_interleave with a repeats tensor");
  const auto repeats = cx.static_ints("repeats");
  const std::optional<int64_t> n_static = repeats ? std::optional<int64_t>(repeats->at(0)) : std::nullopt;
  const std::string n = n_static ? cx.ci64({*n_static}) : cx.unsqueeze(cx.sym_int("repeats"), {0});
  const std::string up = cx.unsqueeze(x, {d + 1});
  std::string ones_but_n;
  if (n_static) {
    std::vector<int64_t> s(static_cast<size_t>(r + 1), 1);
    s[static_cast<size_t>(d + 1)] = *n_static;
    ones_but_n = cx.ci64(s);
  } else {
    std::vector<std::string> parts = {cx.ci64(std::vector<int64_t>(static_cast<size_t>(d + 1), 1)), n};
    if (r - d - 1 > 0) parts.push_back(cx.ci64(std::vector<int64_t>(static_cast<size_t>(r - d - 1), 1)));
    ones_but_n = cx.emit1("Concat", parts, {attr("axis", int64_t{0})});
  }
  const std::string expanded = cx.emit1("Expand", {up, ones_but_n});
  if (const auto target = repeated_target(dims, d, n_static)) {
    cx.out(0, cx.emit1("Reshape", {expanded, cx.ci64(*target)}));
    return;
  }
  const std::string shape = cx.shape_of(x);
  const std::string size = cx.emit1("Mul", {cx.emit1("Slice", {shape, cx.ci64({d}), cx.ci64({d + 1})}), n});
  const std::string out = cx.emit1("Concat",
                                   {cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({d})}), size,
                                    cx.emit1("Slice", {shape, cx.ci64({d + 1}), cx.ci64({INT64_MAX})})},
                                   {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Reshape", {expanded, out}));
}
MX_ATEN_LOWER(lower_repeat_interleave, "aten.repeat_interleave.self_int");

}  // namespace
}  // namespace mx::aten_onnx
