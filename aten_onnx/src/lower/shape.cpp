// Shape and view ops: view/reshape, permute/transpose, (un)squeeze,
// flatten, expand, slice/select, cat/stack, split/chunk/unbind, and the ops
// that are identities in an eval graph (clone, contiguous, alias, dropout).
#include <climits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/aten_onnx/view_copies.hpp"

namespace mx::aten_onnx {
namespace {

// Identities of an eval graph. dropout(input, p, train) in training mode is
// refused unless p == 0 (torchvision's swin calls F.dropout(attn, p=0.0)
// with the default training=True).
void lower_identity(OpContext& cx) {
  const char* in = cx.has("self") ? "self" : "input";
  if (cx.arg_kind("train") == ArgKind::boolean && cx.bool_arg("train") && cx.float_arg("p", 0.0) != 0.0)
    cx.unsupported("dropout in training mode (call model.eval() before exporting)");
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.cast(cx.tensor(in), cx.dtype_of(in), dt));
}
MX_ATEN_LOWER_VIEW(lower_identity, "aten.alias", "aten.detach");
MX_ATEN_LOWER(lower_identity, "aten.clone", "aten.contiguous", "aten.dropout", "aten.detach_",
              "aten.lift_fresh_copy", "aten.feature_dropout", "aten.alpha_dropout", "aten.dropout_",
              "aten.feature_alpha_dropout", "aten.lift_fresh", "aten.lift", "aten.positive");

// native_dropout(input, p, train?) -> (output, mask): outside training (or
// with p == 0) the input and a mask that keeps everything. A None `train`
// means training, as in ATen.
void lower_native_dropout(OpContext& cx) {
  const bool train = cx.arg_kind("train") != ArgKind::boolean || cx.bool_arg("train");
  if (train && cx.float_arg("p") != 0.0)
    cx.unsupported("dropout in training mode (call model.eval() before exporting)");
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.tensor("input");
  cx.out(0, cx.cast(x, cx.dtype_of("input"), dt));
  if (cx.n_outputs() > 1)
    cx.out(1, cx.emit1("Expand", {cx.cscalar(1, onnx::TensorProto::BOOL), cx.shape_of(x)}));
}
MX_ATEN_LOWER(lower_native_dropout, "aten.native_dropout");

void lower_view(OpContext& cx) {
  const char* shape = cx.has("size") ? "size" : "shape";
  cx.out(0, cx.emit1("Reshape", {cx.tensor("self"), cx.int_list(shape)}));
}
MX_ATEN_LOWER_VIEW(lower_view, "aten.view", "aten._reshape_alias");
MX_ATEN_LOWER(lower_view, "aten.reshape", "aten._unsafe_view");

void lower_permute(OpContext& cx) {
  auto d = cx.ints("dims");
  for (auto& x : d) x = norm_dim(x, cx.rank_of("self"));
  cx.out(0, cx.transpose(cx.tensor("self"), d));
}
MX_ATEN_LOWER_VIEW(lower_permute, "aten.permute");

void lower_transpose(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < r; ++k) perm.push_back(k);
  const std::string op = cx.op();
  if (op == "t") {
    if (r == 2) std::swap(perm[0], perm[1]);
  } else if (op == "mT" || op == "mH" || op == "adjoint") {  // the last two dims (real: no conjugate)
    if (r < 2) cx.unsupported(op + " of a tensor with fewer than 2 dims");
    std::swap(perm[r - 2], perm[r - 1]);
  } else {
    const bool swap =
        cx.target().rfind("aten.swap", 0) == 0;  // swapaxes(axis0, axis1) / swapdims(dim0, dim1)
    const bool axes = swap && cx.has("axis0");
    std::swap(perm[norm_dim(cx.int_arg(axes ? "axis0" : "dim0"), r)],
              perm[norm_dim(cx.int_arg(axes ? "axis1" : "dim1"), r)]);
  }
  cx.out(0, cx.transpose(cx.tensor("self"), perm));
}
MX_ATEN_LOWER_VIEW(lower_transpose, "aten.transpose", "aten.t");
MX_ATEN_LOWER(lower_transpose, "aten.swapaxes", "aten.swapdims", "aten.mT", "aten.mH", "aten.adjoint");

void lower_unsqueeze(OpContext& cx) {
  cx.out(0, cx.unsqueeze(cx.tensor("self"), {norm_dim(cx.int_arg("dim"), cx.rank_of("self") + 1)}));
}
MX_ATEN_LOWER_VIEW(lower_unsqueeze, "aten.unsqueeze");

void lower_squeeze(OpContext& cx) {
  const auto& shape = cx.value_of("self").shape;
  const int64_t r = static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  if (cx.has("dim")) dims = cx.ints("dim");
  else
    for (int64_t k = 0; k < r; ++k) dims.push_back(k);
  bool dynamic = false;
  for (const auto& d : shape) dynamic |= !d.is_static;
  // squeeze() of a tensor with a dynamic dim: ONNX Squeeze without axes
  // drops the dims that are 1 at run time, as ATen does.
  if (!cx.has("dim") && dynamic) return cx.out(0, cx.emit1("Squeeze", {cx.tensor("self")}));
  std::vector<int64_t> axes;  // only dims of size 1 squeeze, as in ATen (a dynamic dim: as its example)
  for (auto d : dims) {
    d = norm_dim(d, r);
    if (shape[d].value == 1) axes.push_back(d);
  }
  cx.out(0, axes.empty() ? cx.emit1("Identity", {cx.tensor("self")}) : cx.squeeze(cx.tensor("self"), axes));
}
MX_ATEN_LOWER_VIEW(lower_squeeze, "aten.squeeze");

void lower_flatten(OpContext& cx) {
  const char* in = cx.has("self") ? "self" : "input";
  const int64_t r = cx.rank_of(in);
  const int64_t s = norm_dim(cx.int_arg("start_dim", 0), r), e = norm_dim(cx.int_arg("end_dim", -1), r);
  std::string x = cx.tensor(in);
  if (r == 0) return cx.out(0, cx.emit1("Reshape", {x, cx.ci64({1})}));
  if (s == 1 && e == r - 1) return cx.out(0, cx.emit1("Flatten", {x}, {attr("axis", int64_t{1})}));
  // keep dims before s and after e, -1 in between
  std::string shape = cx.shape_of(x);
  std::vector<std::string> parts;
  if (s > 0) parts.push_back(cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({s})}));
  parts.push_back(cx.ci64({-1}));
  if (e < r - 1) parts.push_back(cx.emit1("Slice", {shape, cx.ci64({e + 1}), cx.ci64({r})}));
  cx.out(0,
         cx.emit1("Reshape",
                  {x, parts.size() == 1 ? parts[0] : cx.emit1("Concat", parts, {attr("axis", int64_t{0})})}));
}
MX_ATEN_LOWER(lower_flatten, "aten.flatten");

// expand(self, size) / broadcast_to(self, size): -1 keeps the dim; ONNX
// Expand broadcasts, so -1 -> 1.
void lower_expand(OpContext& cx) {
  std::string size;
  if (auto v = cx.static_ints("size")) {
    for (auto& x : *v) x = x == -1 ? 1 : x;
    size = cx.ci64(*v);
  } else {
    size = cx.emit1("Abs", {cx.int_list("size")});  // -1 -> 1
  }
  cx.out(0, cx.emit1("Expand", {cx.tensor("self"), size}));
}
MX_ATEN_LOWER_VIEW(lower_expand, "aten.expand");
MX_ATEN_LOWER(lower_expand, "aten.broadcast_to");

void lower_reshape_as(OpContext& cx) {
  cx.out(0, cx.emit1("Reshape", {cx.tensor("self"), cx.shape_of(cx.tensor("other"))}));
}
MX_ATEN_LOWER(lower_reshape_as, "aten.reshape_as", "aten.view_as");

void lower_expand_as(OpContext& cx) {
  cx.out(0, cx.emit1("Expand", {cx.tensor("self"), cx.shape_of(cx.tensor("other"))}));
}
MX_ATEN_LOWER(lower_expand_as, "aten.expand_as");

// slice(self, dim=0, start=None, end=None, step=1); start/end may be SymInts.
void lower_slice(OpContext& cx) {
  const int64_t dim = norm_dim(cx.int_arg("dim", 0), cx.rank_of("self"));
  auto bound = [&](const char* n, int64_t fallback) {
    if (!cx.has(n)) return cx.ci64({fallback});
    if (cx.arg_kind(n) == ArgKind::integer) return cx.ci64({cx.int_arg(n)});
    return cx.unsqueeze(cx.sym_int(n), {0});
  };
  cx.out(0, cx.emit1("Slice", {cx.tensor("self"), bound("start", 0), bound("end", INT64_MAX), cx.ci64({dim}),
                               cx.ci64({cx.int_arg("step", 1)})}));
}
MX_ATEN_LOWER_VIEW(lower_slice, "aten.slice");

void lower_select(OpContext& cx) {
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1("Gather", {cx.tensor("self"), cx.sym_int("index")}, {attr("axis", dim)}));
}
MX_ATEN_LOWER_VIEW(lower_select, "aten.select");

std::vector<std::string> tensor_list(OpContext& cx, const char* name, int32_t dt) {
  std::vector<std::string> out;
  for (const Value* v : cx.tensor_list(name)) out.push_back(cx.cast(v->onnx, v->dtype, dt));
  return out;
}

// A legacy empty tensor: 1-D of static size 0. ATen's cat skips them when
// the other inputs have another rank (transformers' DynamicCache starts
// every layer's cache as torch.tensor([]) and concatenates onto it).
bool legacy_empty(const Value& v) {
  return v.shape.size() == 1 && v.shape[0].is_static && v.shape[0].value == 0;
}

void lower_cat(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t rank = cx.out_rank();
  const int64_t dim = norm_dim(cx.int_arg("dim", 0), rank);
  std::vector<std::string> parts;
  for (const Value* v : cx.tensor_list("tensors")) {
    if (rank != 1 && legacy_empty(*v)) continue;
    parts.push_back(cx.cast(v->onnx, v->dtype, dt));
  }
  if (parts.empty()) cx.unsupported("cat of legacy empty tensors only");
  cx.out(0, parts.size() == 1 ? cx.emit1("Identity", {parts[0]})
                              : cx.emit1("Concat", parts, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_cat, "aten.cat", "aten.concat", "aten.concatenate");

void lower_stack(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t dim = norm_dim(cx.int_arg("dim", 0), cx.out_rank());
  std::vector<std::string> parts;
  for (const auto& t : tensor_list(cx, "tensors", dt)) parts.push_back(cx.unsqueeze(t, {dim}));
  cx.out(0, cx.emit1("Concat", parts, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_stack, "aten.stack");

// tensor_split along a dynamic dim d: at `indices`, or into `sections`
// pieces, the first d % sections of them one longer (piece k starts at
// k * (d / sections) + min(k, d % sections)).
std::vector<std::string> tensor_split_dynamic(OpContext& cx, const std::string& x, int64_t dim, size_t n) {
  std::vector<std::string> starts{cx.ci64({0})};
  if (cx.has("indices")) {
    for (int64_t i : cx.ints("indices")) starts.push_back(cx.ci64({i}));
  } else if (cx.arg_kind("sections") == ArgKind::integer) {
    const std::string d = cx.emit1("Slice", {cx.shape_of(x), cx.ci64({dim}), cx.ci64({dim + 1})});
    const std::string sections = cx.ci64({cx.int_arg("sections")});
    const std::string piece = cx.emit1("Div", {d, sections});
    const std::string extra = cx.emit1("Mod", {d, sections});
    for (size_t k = 1; k < n; ++k) {
      const std::string kk = cx.ci64({static_cast<int64_t>(k)});
      starts.push_back(cx.emit1("Add", {cx.emit1("Mul", {piece, kk}), cx.emit1("Min", {kk, extra})}));
    }
  } else {
    cx.unsupported("tensor_split along a dynamic dim at indices given as a tensor");
  }
  if (starts.size() != n) cx.unsupported("tensor_split into a number of pieces the program did not record");
  std::vector<std::string> parts;
  for (size_t k = 0; k < n; ++k) {
    const std::string end = k + 1 == n ? cx.ci64({INT64_MAX}) : starts[k + 1];
    parts.push_back(cx.emit1("Slice", {x, starts[k], end, cx.ci64({dim})}));
  }
  return parts;
}

// split_with_sizes by its explicit sizes, which may be SymInts the program
// computed from data (a mixture of experts' tokens per expert, read with
// .tolist()): ONNX Split takes its sizes as a run-time tensor.
std::vector<std::string> split_by_sizes(OpContext& cx, const std::string& x, int64_t dim, size_t n) {
  const std::string name = cx.has("split_sizes") ? "split_sizes" : "split_size";
  const auto sizes = cx.static_ints(name);
  return cx.emit("Split", {x, sizes ? cx.ci64(*sizes) : cx.int_list(name)}, {attr("axis", dim)}, n);
}

// Pieces of a split along a dynamic dim, `n` of them as in the example:
// split(size) slices k*size..(k+1)*size, the last open-ended (right for
// every length that gives n pieces), the size an int or a SymInt (ZoeDepth
// splits its stacked feature maps by the batch size); chunk(n) computes
// the piece length ceil(d/n) at run time; split_with_sizes uses its
// explicit sizes.
std::vector<std::string> split_dynamic(OpContext& cx, const std::string& x, int64_t dim, size_t n) {
  const std::string& t = cx.target();
  if (t.rfind("aten.split_with_sizes", 0) == 0 || cx.arg_kind("split_size") == ArgKind::ints)
    return split_by_sizes(cx, x, dim, n);
  if (t.rfind("aten.tensor_split", 0) == 0) return tensor_split_dynamic(cx, x, dim, n);
  std::string piece;  // 1-element int64
  if (t.rfind("aten.split.", 0) == 0 && cx.arg_kind("split_size") == ArgKind::integer) {
    piece = cx.ci64({cx.int_arg("split_size")});
  } else if (t.rfind("aten.split.", 0) == 0 && cx.arg_kind("split_size") == ArgKind::sym_int) {
    piece = cx.unsqueeze(cx.sym_int("split_size"), {0});
  } else if (t.rfind("aten.chunk", 0) == 0) {
    const int64_t chunks = cx.int_arg("chunks");
    const std::string d = cx.emit1("Slice", {cx.shape_of(x), cx.ci64({dim}), cx.ci64({dim + 1})});
    piece = cx.emit1("Div", {cx.emit1("Add", {d, cx.ci64({chunks - 1})}), cx.ci64({chunks})});
  } else {
    cx.unsupported("split along a dynamic dim");
  }
  std::vector<std::string> parts;
  for (size_t k = 0; k < n; ++k) {
    const std::string start = k == 0 ? cx.ci64({0}) : cx.emit1("Mul", {piece, cx.ci64({int64_t(k)})});
    const std::string end =
        k + 1 == n ? cx.ci64({INT64_MAX}) : cx.emit1("Mul", {piece, cx.ci64({int64_t(k + 1)})});
    parts.push_back(cx.emit1("Slice", {x, start, end, cx.ci64({dim})}));
  }
  return parts;
}

// split(self, split_size, dim=0) / split_with_sizes(self, split_sizes, dim=0)
// / chunk / unbind: sizes from the outputs' static dims when the split
// dim is static, else split_dynamic.
void lower_split(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  const int64_t dim = norm_dim(cx.int_arg("dim", 0), r);
  const size_t n = cx.list_size(0);
  const bool unbind = cx.target().rfind("aten.unbind", 0) == 0;
  const std::string x = cx.tensor("self");
  std::vector<std::string> parts;
  if (!unbind && !cx.value_of("self").shape.at(dim).is_static) {
    parts = n == 1 ? std::vector<std::string>{cx.emit1("Identity", {x})} : split_dynamic(cx, x, dim, n);
  } else {
    std::vector<int64_t> sizes;
    const bool explicit_sizes = cx.target().rfind("aten.split_with_sizes", 0) == 0 ||
                                cx.target().rfind("aten.unsafe_split_with_sizes", 0) == 0;
    if (explicit_sizes && !cx.static_ints("split_sizes"))
      return cx.out_list(0, split_by_sizes(cx, x, dim, n));
    for (size_t k = 0; k < n; ++k) {
      const std::vector<Dim>& m = cx.list_item_shape(0, k);
      if (unbind) sizes.push_back(1);
      else if (!m.at(dim).is_static) cx.unsupported("split along a dynamic dim");
      else sizes.push_back(m[dim].value);
    }
    parts = cx.emit("Split", {x, cx.ci64(sizes)}, {attr("axis", dim)}, n);
  }
  if (unbind)
    for (auto& p : parts) p = cx.squeeze(p, {dim});
  cx.out_list(0, parts);
}
MX_ATEN_LOWER_VIEW(lower_split, "aten.split", "aten.split_with_sizes", "aten.unbind");
MX_ATEN_LOWER(lower_split, "aten.chunk", "aten.tensor_split", "aten.unsafe_split", "aten.unsafe_chunk",
              "aten.unsafe_split_with_sizes");

// repeat(self, repeats) is Tile. The repeats may be SymInts (Whisper's
// decoder repeats its position ids by the batch size): int_list makes them a
// runtime tensor. More repeats than dims first add leading dims of size 1.
void lower_repeat(OpContext& cx) {
  if (!cx.has("repeats")) cx.unsupported("repeat without 'repeats'");
  const int64_t n = static_cast<int64_t>(cx.list_length("repeats")), r = cx.rank_of("self");
  std::string x = cx.tensor("self");
  if (n > r) {  // leading new dims
    std::vector<int64_t> shape(n - r, 1);
    x = cx.emit1("Reshape",
                 {x, cx.emit1("Concat", {cx.ci64(shape), cx.shape_of(x)}, {attr("axis", int64_t{0})})});
  }
  cx.out(0, cx.emit1("Tile", {x, cx.int_list("repeats")}));
}
MX_ATEN_LOWER(lower_repeat, "aten.repeat");

void lower_tril(OpContext& cx) {
  const bool upper = cx.target().rfind("aten.triu", 0) == 0;
  cx.out(0, cx.emit1("Trilu", {cx.tensor("self"), cx.ci64s(cx.int_arg("diagonal", 0))},
                     {attr("upper", static_cast<int64_t>(upper))}));
}
MX_ATEN_LOWER(lower_tril, "aten.tril", "aten.triu");

// unflatten(self, dim, sizes): the dim split into `sizes` (one may be -1).
void lower_unflatten(OpContext& cx) {
  const int64_t r = cx.rank_of("self"), dim = norm_dim(cx.int_arg("dim"), r);
  std::string x = cx.tensor("self"), shape = cx.shape_of(x);
  std::vector<std::string> parts;
  if (dim > 0) parts.push_back(cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({dim})}));
  parts.push_back(cx.int_list("sizes"));
  if (dim < r - 1) parts.push_back(cx.emit1("Slice", {shape, cx.ci64({dim + 1}), cx.ci64({r})}));
  cx.out(0, cx.emit1("Reshape", {x, cx.emit1("Concat", parts, {attr("axis", int64_t{0})})}));
}
MX_ATEN_LOWER(lower_unflatten, "aten.unflatten");

// constant_pad_nd(self, pad, value=0) and pad(self, pad, mode='constant',
// value=None): PyTorch's pad pairs run from the last dim backwards; ONNX
// wants [begin of every dim..., end of every dim...]. reflect -> reflect,
// replicate -> edge, circular unsupported.
// pad(self, pad, mode, value) / constant_pad_nd(self, pad, value) /
// reflection_padNd(self, padding) / replication_padNd(self, padding)
std::string pad_mode(OpContext& cx) {
  if (cx.target().rfind("aten.reflection_pad", 0) == 0) return "reflect";
  if (cx.target().rfind("aten.replication_pad", 0) == 0) return "replicate";
  return cx.string_arg("mode", "constant");
}

// Circular: wrap around - per dim, the tail before and the head after.
std::string circular_pad(OpContext& cx, const std::vector<int64_t>& pads, int64_t r) {
  std::string x = cx.tensor("self");
  for (int64_t d = 0; d < r; ++d) {
    const int64_t lo = pads[d], hi = pads[r + d];
    if (lo < 0 || hi < 0) cx.unsupported("circular pad with a negative pad");
    if (lo == 0 && hi == 0) continue;
    std::vector<std::string> parts;
    if (lo) parts.push_back(cx.emit1("Slice", {x, cx.ci64({-lo}), cx.ci64({INT64_MAX}), cx.ci64({d})}));
    parts.push_back(x);
    if (hi) parts.push_back(cx.emit1("Slice", {x, cx.ci64({0}), cx.ci64({hi}), cx.ci64({d})}));
    x = cx.emit1("Concat", parts, {attr("axis", d)});
  }
  return x == cx.tensor("self") ? cx.emit1("Identity", {x}) : x;
}

void lower_pad(OpContext& cx) {
  const std::string mode = pad_mode(cx);
  const int64_t r = cx.rank_of("self");
  const std::string list_arg = cx.has("pad") ? "pad" : "padding";
  const auto static_pad = cx.static_ints(list_arg);
  if (mode == "circular") {
    if (!static_pad) cx.unsupported("circular pad of a dynamic size");
    return cx.out(0, circular_pad(cx, static_onnx_pads(*static_pad, r), r));
  }
  const std::string pads = static_pad
                               ? cx.ci64(static_onnx_pads(*static_pad, r))
                               : onnx_pads_of_list(cx, cx.int_list(list_arg),
                                                   static_cast<int64_t>(cx.list_length(list_arg)) / 2, r);
  if (mode == "constant") {
    const double v = cx.has("value") ? cx.float_arg("value") : 0.0;
    return cx.out(0, cx.emit1("Pad", {cx.tensor("self"), pads, cx.cscalar(v, cx.out_dtype())}));
  }
  if (mode != "reflect" && mode != "replicate") cx.unsupported("pad mode '" + mode + "'");
  cx.out(0, cx.emit1("Pad", {cx.tensor("self"), pads},
                     {attr("mode", std::string(mode == "reflect" ? "reflect" : "edge"))}));
}
MX_ATEN_LOWER(lower_pad, "aten.constant_pad_nd", "aten.pad", "aten.reflection_pad1d", "aten.reflection_pad2d",
              "aten.reflection_pad3d", "aten.replication_pad1d", "aten.replication_pad2d",
              "aten.replication_pad3d");

// A diagonal over dynamic dims: dim1 and dim2 moved last and flattened
// into one, whose elements (i + row0) * cols + (i + col0) are gathered for
// i < the diagonal's length, computed from the runtime sizes.
std::string dynamic_diagonal(OpContext& cx, const Value& v, int64_t d1, int64_t d2, int64_t off) {
  const int64_t r = static_cast<int64_t>(v.shape.size());
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < r; ++k)
    if (k != d1 && k != d2) perm.push_back(k);
  perm.push_back(d1);
  perm.push_back(d2);
  const std::string t = cx.transpose(v.onnx, perm);  // [rest..., rows, cols]
  const std::string shape = cx.shape_of(t);
  const std::string rows = cx.emit1("Slice", {shape, cx.ci64({r - 2}), cx.ci64({r - 1})});
  const std::string cols = cx.emit1("Slice", {shape, cx.ci64({r - 1}), cx.ci64({r})});
  const int64_t row0 = std::max<int64_t>(0, -off), col0 = std::max<int64_t>(0, off);
  const std::string length = cx.emit1(
      "Max",
      {cx.emit1("Min", {cx.emit1("Sub", {rows, cx.ci64({row0})}), cx.emit1("Sub", {cols, cx.ci64({col0})})}),
       cx.ci64({0})});
  const std::string i = cx.emit1("Range", {cx.ci64s(0), cx.squeeze(length, {0}), cx.ci64s(1)});
  const std::string at = cx.emit1("Add", {cx.emit1("Mul", {cx.emit1("Add", {i, cx.ci64({row0})}), cols}),
                                          cx.emit1("Add", {i, cx.ci64({col0})})});
  const std::string flat_shape =
      cx.emit1("Concat", {cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({r - 2})}), cx.ci64({-1})},
               {attr("axis", int64_t{0})});
  return cx.emit1("Gather", {cx.emit1("Reshape", {t, flat_shape}), at}, {attr("axis", r - 2)});
}

// diagonal(self, offset=0, dim1=0, dim2=1): dim1 and dim2 moved to the
// front, GatherND of the (i, i + offset) pairs, the diagonal moved last
// (where ATen puts it); over a dynamic dim, dynamic_diagonal.
void lower_diagonal(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const int64_t d1 = norm_dim(cx.int_arg("dim1", 0), r), d2 = norm_dim(cx.int_arg("dim2", 1), r);
  const int64_t off = cx.int_arg("offset", 0);
  if (d1 == d2) cx.unsupported("diagonal with dim1 == dim2");
  if (!v.shape[d1].is_static || !v.shape[d2].is_static)
    return cx.out(0, dynamic_diagonal(cx, v, d1, d2, off));
  const int64_t n1 = v.shape[d1].value, n2 = v.shape[d2].value;
  std::vector<int64_t> pairs;
  for (int64_t i = std::max<int64_t>(0, -off); i < n1 && i + off < n2; ++i) {
    pairs.push_back(i);
    pairs.push_back(i + off);
  }
  if (pairs.empty()) cx.unsupported("an empty diagonal");
  std::vector<int64_t> perm = {d1, d2};
  for (int64_t k = 0; k < r; ++k)
    if (k != d1 && k != d2) perm.push_back(k);
  onnx::TensorProto idx;
  idx.set_data_type(onnx::TensorProto::INT64);
  idx.add_dims(static_cast<int64_t>(pairs.size() / 2));
  idx.add_dims(2);
  for (int64_t p : pairs) idx.add_int64_data(p);
  const std::string diag =
      cx.emit1("GatherND", {cx.transpose(v.onnx, perm), cx.constant(idx)});  // [L, rest...]
  std::vector<int64_t> back;
  for (int64_t k = 1; k < r - 1; ++k) back.push_back(k);
  back.push_back(0);
  cx.out(0, r == 2 ? diag : cx.transpose(diag, back));
}
MX_ATEN_LOWER_VIEW(lower_diagonal, "aten.diagonal");

// copy(self, src, non_blocking=False): src broadcast to self's shape, in
// self's dtype (the functional form of copy_).
void lower_copy(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Expand", {cx.operand("src", dt), cx.shape_of(cx.tensor("self"))}));
}
MX_ATEN_LOWER(lower_copy, "aten.copy", "aten.copy_");

// roll(self, shifts, dims): per dim, the last `shift` elements moved first;
// on a dynamic dim the shift is taken modulo the size in the graph.
void lower_roll(OpContext& cx) {
  const auto shifts = cx.ints("shifts");
  auto dims = cx.ints("dims", std::vector<int64_t>{});
  const int64_t r = cx.rank_of("self");
  const std::string in = cx.tensor("self");
  std::string x = in;
  if (dims.empty()) cx.unsupported("roll without dims (over the flattened tensor)");
  if (dims.size() != shifts.size())
    cx.unsupported("roll with " + std::to_string(shifts.size()) + " shifts for " +
                   std::to_string(dims.size()) + " dims");
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = norm_dim(dims[k], r);
    const auto& dim = cx.value_of("self").shape.at(d);
    std::string cut;  // where the tail starts: n - (shift mod n)
    if (dim.is_static) {
      const int64_t n = dim.value, s = n ? ((shifts[k] % n) + n) % n : 0;
      if (s == 0) continue;
      cut = cx.ci64({n - s});
    } else {
      const std::string n = cx.unsqueeze(cx.dim_size(x, d), {0});
      const std::string s = cx.emit1("Mod", {cx.ci64({shifts[k]}), n}, {attr("fmod", int64_t{0})});
      cut = cx.emit1("Sub", {n, s});
    }
    std::string tail = cx.emit1("Slice", {x, cut, cx.ci64({INT64_MAX}), cx.ci64({d})});
    std::string head = cx.emit1("Slice", {x, cx.ci64({0}), cut, cx.ci64({d})});
    x = cx.emit1("Concat", {tail, head}, {attr("axis", d)});
  }
  cx.out(0, x == in ? cx.emit1("Identity", {x}) : x);
}
MX_ATEN_LOWER(lower_roll, "aten.roll");

// flip(self, dims): a Slice with step -1 along each dim.
void lower_flip(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  auto dims = cx.ints("dims");
  if (r == 0 || dims.empty()) return cx.out(0, cx.emit1("Identity", {cx.tensor("self")}));
  for (auto& d : dims) d = norm_dim(d, r);
  const size_t n = dims.size();
  cx.out(0, cx.emit1("Slice", {cx.tensor("self"), cx.ci64(std::vector<int64_t>(n, -1)),
                               cx.ci64(std::vector<int64_t>(n, INT64_MIN)), cx.ci64(dims),
                               cx.ci64(std::vector<int64_t>(n, -1))}));
}
MX_ATEN_LOWER(lower_flip, "aten.flip");

// fliplr / flipud: flip along dim 1 / 0 (they stay at the TRAINING level).
void lower_flip_lr_ud(OpContext& cx) {
  const int64_t d = cx.op() == "fliplr" ? 1 : 0;
  cx.out(0, cx.emit1("Slice",
                     {cx.tensor("self"), cx.ci64({-1}), cx.ci64({INT64_MIN}), cx.ci64({d}), cx.ci64({-1})}));
}
MX_ATEN_LOWER(lower_flip_lr_ud, "aten.fliplr", "aten.flipud");

// torch.atleast_{1,2,3}d's view of a tensor of `rank`: 0-d -> [1]*n,
// 1-d [a] -> [1, a] (2d) or [1, a, 1] (3d), 2-d [a, b] -> [a, b, 1] (3d).
std::string at_least(OpContext& cx, const std::string& x, int64_t rank, int64_t n) {
  if (rank >= n) return x;
  if (rank == 0) {
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < n; ++k) axes.push_back(k);
    return cx.unsqueeze(x, axes);
  }
  if (rank == 1) return cx.unsqueeze(x, n == 2 ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 2});
  return cx.unsqueeze(x, {2});  // rank 2, n == 3
}

void lower_atleast(OpContext& cx) {
  if (cx.arg_kind("self") != ArgKind::tensor) cx.unsupported("atleast_nd of a tensor list");
  const int64_t n = cx.op() == "atleast_1d" ? 1 : cx.op() == "atleast_2d" ? 2 : 3;
  cx.out(0, cx.emit1("Identity", {at_least(cx, cx.tensor("self"), cx.rank_of("self"), n)}));
}
MX_ATEN_LOWER(lower_atleast, "aten.atleast_1d", "aten.atleast_2d", "aten.atleast_3d");

// hstack (cat along dim 1, dim 0 for 1-d tensors), vstack / row_stack
// (atleast_2d, dim 0), dstack (atleast_3d, dim 2).
void lower_hvd_stack(OpContext& cx) {
  const std::string op = cx.op();
  const int32_t dt = cx.out_dtype();
  const int64_t n = op == "hstack" ? 1 : op == "dstack" ? 3 : 2;
  const int64_t dim = op == "hstack" ? (cx.out_rank() == 1 ? 0 : 1) : op == "dstack" ? 2 : 0;
  std::vector<std::string> parts;
  for (const Value* v : cx.tensor_list("tensors"))
    parts.push_back(at_least(cx, cx.cast(v->onnx, v->dtype, dt), static_cast<int64_t>(v->shape.size()), n));
  cx.out(0, parts.size() == 1 ? cx.emit1("Identity", {parts[0]})
                              : cx.emit1("Concat", parts, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_hvd_stack, "aten.hstack", "aten.vstack", "aten.row_stack", "aten.dstack");

// slice_scatter with a step: src scattered to the indices the slice takes.
std::string strided_scatter(OpContext& cx, const std::string& x, const std::string& src,
                            const std::string& start, const std::string& end, int64_t step, int64_t dim) {
  const std::string all = cx.emit1("Range", {cx.ci64s(0), cx.dim_size(x, dim), cx.ci64s(1)});
  std::string index = cx.emit1("Slice", {all, start, end, cx.ci64({0}), cx.ci64({step})});
  std::vector<int64_t> along(cx.rank_of("self"), 1);
  along[dim] = -1;
  index = cx.emit1("Expand", {cx.emit1("Reshape", {index, cx.ci64(along)}), cx.shape_of(src)});
  return cx.emit1("ScatterElements", {x, index, src}, {attr("axis", dim)});
}

// slice_scatter(self, src, dim=0, start=None, end=None, step=1), step 1:
// self[:start] ++ src ++ self[end:] along dim.
void lower_slice_scatter(OpContext& cx) {
  const int64_t dim = norm_dim(cx.int_arg("dim", 0), cx.rank_of("self"));
  std::string x = cx.tensor("self");
  std::string start = cx.has("start") ? cx.unsqueeze(cx.sym_int("start"), {0}) : cx.ci64({0});
  std::string end = cx.has("end") ? cx.unsqueeze(cx.sym_int("end"), {0}) : cx.ci64({INT64_MAX});
  if (const int64_t step = cx.int_arg("step", 1); step != 1)
    return cx.out(0, strided_scatter(cx, x, cx.cast(cx.tensor("src"), cx.dtype_of("src"), cx.out_dtype()),
                                     start, end, step, dim));
  std::string head = cx.emit1("Slice", {x, cx.ci64({0}), start, cx.ci64({dim})});
  std::string tail = cx.emit1("Slice", {x, end, cx.ci64({INT64_MAX}), cx.ci64({dim})});
  cx.out(0, cx.emit1("Concat", {head, cx.cast(cx.tensor("src"), cx.dtype_of("src"), cx.out_dtype()), tail},
                     {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_slice_scatter, "aten.slice_scatter");

void lower_fill(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string value = cx.has("value") ? cx.operand("value", dt) : cx.cscalar(0, dt);  // zero_: 0
  cx.out(0, cx.emit1("Expand", {value, cx.shape_of(cx.tensor("self"))}));
}
MX_ATEN_LOWER(lower_fill, "aten.fill", "aten.fill_", "aten.zero", "aten.zero_");

}  // namespace
}  // namespace mx::aten_onnx
