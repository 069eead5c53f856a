// The inverse of a view for an in-place write through it (mutation.cpp):
// the base the view was taken from, rebuilt with the view's new value,
// the way torch's functionalization turns a write through a view into a
// *_scatter of the view back into its base. Slices, narrows and split
// pieces go back between the base's head and tail along their dim (a
// slice with a step by ScatterElements at the indices it takes), selects
// and unbind pieces the same after an Unsqueeze; views that only reshape
// (view, unsqueeze, flatten...) are reshaped back to the base's shape;
// transposes and permutes are transposed back; an expand that broadcasts
// nothing is reshaped back. diagonal, unfold and as_strided (on a
// contiguous base) of static sizes are scattered back at the base's
// indices of their elements. What the write-back cannot prove to be the
// base's own storage, or where one element of the base is several of the
// view's (a broadcasting expand, an overlapping unfold), is named by
// cannot_write_through.
#include <climits>
#include <set>

#include "json_integers.hpp"
#include "lower_ctx.hpp"

namespace mx::torch_export {
namespace {

bool reshapes(const std::string& op) {
  static const std::set<std::string> ops = {"view",      "_reshape_alias", "view_as", "unflatten",
                                            "unsqueeze", "squeeze",        "reshape", "flatten"};
  return ops.count(op) > 0;
}

bool transposes(const std::string& op) {
  return op == "transpose" || op == "t" || op == "permute";
}

bool splits(const std::string& op) {
  return op == "split" || op == "split_with_sizes" || op == "chunk" || op == "unbind";
}

// Whether torch's strides say the tensor is laid out row-major (dims of
// size 1 may have any stride). Symbolic strides are not proven.
bool contiguous(const TensorMeta& m) {
  if (m.strides.size() != m.sizes.size()) return false;
  int64_t expect = 1;
  for (size_t k = m.sizes.size(); k-- > 0;) {
    if (!m.sizes[k].is_static || !m.strides[k].is_static) return false;
    if (m.sizes[k].value != 1 && m.strides[k].value != expect) return false;
    expect *= m.sizes[k].value;
  }
  return true;
}

const std::string& base_name(const json& view) {
  for (const auto& in : view.at("inputs"))
    if (in.at("name") == "self" || in.at("name") == "input")
      return in.at("arg").at("as_tensor").at("name").get_ref<const std::string&>();
  throw std::logic_error("a view without its base");
}

// Position of `value` in the view's list output (split and unbind pieces).
size_t piece_of(const json& view, const std::string& value) {
  const json& list = view.at("outputs").at(0).at("as_tensors");
  for (size_t k = 0; k < list.size(); ++k)
    if (list[k].value("name", "") == value) return k;
  throw std::logic_error("'" + value + "' is not an output of its view");
}

}  // namespace

// Reads the view node's arguments with the accessors (which read `node`).
struct LowerCtx::ViewArgs {
  LowerCtx& cx;
  const json* saved;
  ViewArgs(LowerCtx& cx, const json& view) : cx(cx), saved(cx.node) { cx.node = &view; }
  ~ViewArgs() { cx.node = saved; }
};

bool LowerCtx::is_view_op(const std::string& op) {
  static const std::set<std::string> others = {"slice",  "select",     "narrow",  "expand",
                                               "unfold", "as_strided", "diagonal"};
  return reshapes(op) || transposes(op) || splits(op) || others.count(op) > 0;
}

std::string LowerCtx::cannot_write_through(const json& view, const std::string& op) {
  if (op == "expand")
    return expands_nothing(view) ? "" : "several of its elements are one element of the base";
  if ((op == "reshape" || op == "flatten") && !contiguous(meta_of(base_name(view))))
    return "its input is not provably contiguous, so torch may have copied it";
  if (reshapes(op) || transposes(op) || splits(op) || op == "slice" || op == "select" || op == "narrow")
    return "";
  if (op == "diagonal" || op == "unfold" || op == "as_strided") {
    std::string why;
    strided_indices(view, op, why);
    return why;
  }
  return "writing through it back into its base is not lowered";
}

// The base's row-major strides: the view's elements are found in the
// base's logical layout, whatever torch's storage layout of it.
std::vector<int64_t> LowerCtx::strided_indices(const json& view, const std::string& op, std::string& why) {
  const TensorMeta& base = meta_of(base_name(view));
  const json& o = view.at("outputs").at(0);
  if (!o.contains("as_tensor")) {
    why = "a view whose result is not one tensor";
    return {};
  }
  const TensorMeta& out = meta_of(o.at("as_tensor").at("name").get<std::string>());
  for (const auto* dims : {&base.sizes, &out.sizes})
    for (const Dim& d : *dims)
      if (!d.is_static) {
        why = "its sizes or its base's are symbolic (the write-back computes the indices it writes)";
        return {};
      }
  const int64_t r = static_cast<int64_t>(base.sizes.size());
  std::vector<int64_t> rowmajor(r, 1);
  int64_t numel = 1;
  for (int64_t k = r; k-- > 0;) {
    rowmajor[k] = numel;
    numel *= base.sizes[k].value;
  }
  std::vector<int64_t> strides;
  int64_t offset = 0;
  {
    ViewArgs args(*this, view);
    if (op == "diagonal") {
      const int64_t d1 = norm_dim(int_arg("dim1", 0), r), d2 = norm_dim(int_arg("dim2", 1), r);
      const int64_t at = int_arg("offset", 0);
      for (int64_t k = 0; k < r; ++k)
        if (k != d1 && k != d2) strides.push_back(rowmajor[k]);
      strides.push_back(rowmajor[d1] + rowmajor[d2]);
      offset = at >= 0 ? at * rowmajor[d2] : -at * rowmajor[d1];
    } else if (op == "unfold") {
      const int64_t d = r == 0 ? 0 : norm_dim(int_arg("dimension"), r);
      strides = r == 0 ? std::vector<int64_t>{} : rowmajor;
      if (r > 0) strides[d] *= int_arg("step");
      strides.push_back(r == 0 ? 1 : rowmajor[d]);
    } else {  // as_strided: storage positions, the base's own when it is contiguous
      if (!contiguous(base) || !base.storage_offset.is_static) {
        why = "its base is not provably contiguous, so its storage positions are not the base's elements";
        return {};
      }
      const auto st = static_ints("stride");
      if (!st) {
        why = "its strides are symbolic";
        return {};
      }
      strides = *st;
      offset = base.storage_offset.value;
      if (has("storage_offset")) offset = int_arg("storage_offset");
      offset -= base.storage_offset.value;
    }
  }
  if (strides.size() != out.sizes.size()) {
    why = "its strides do not match its sizes";
    return {};
  }
  int64_t count = 1;
  for (const Dim& d : out.sizes) count *= d.value;
  std::vector<int64_t> idx;
  idx.reserve(count);
  std::vector<int64_t> at(out.sizes.size(), 0);
  std::set<int64_t> seen;
  for (int64_t n = 0; n < count; ++n) {
    int64_t i = offset;
    for (size_t k = 0; k < at.size(); ++k) i += at[k] * strides[k];
    if (i < 0 || i >= numel) {
      why = "it reaches storage outside its base";
      return {};
    }
    if (!seen.insert(i).second) {
      why = "several of its elements are one element of the base";
      return {};
    }
    idx.push_back(i);
    for (size_t k = at.size(); k-- > 0;) {
      if (++at[k] < out.sizes[k].value) break;
      at[k] = 0;
    }
  }
  return idx;
}

// The view's new elements scattered into the flattened base at the
// indices strided_indices found.
std::string LowerCtx::scatter_back(const json& view, const std::string& op, const std::string& new_view) {
  std::string why;
  const std::vector<int64_t> idx = strided_indices(view, op, why);
  if (!why.empty()) unsupported("an in-place write through the '" + op + "' view: " + why);
  const std::string b = values.at(base_name(view)).onnx;
  const std::string flat =
      emit1("ScatterElements",
            {emit1("Reshape", {b, ci64({-1})}), ci64(idx), emit1("Reshape", {new_view, ci64({-1})})},
            {attr("axis", int64_t{0})});
  return emit1("Reshape", {flat, shape_of(b)});
}

// expand(self, size) that broadcasts no dim (every size kept, new leading
// dims of 1): its elements are the base's, one to one.
bool LowerCtx::expands_nothing(const json& view) {
  const std::vector<Dim>& in = meta_of(base_name(view)).sizes;
  const json& o = view.at("outputs").at(0);
  if (!o.contains("as_tensor")) return false;
  const std::vector<Dim>& out = meta_of(o.at("as_tensor").at("name").get<std::string>()).sizes;
  if (out.size() < in.size()) return false;
  const size_t lead = out.size() - in.size();
  for (size_t k = 0; k < out.size(); ++k) {
    const Dim& d = out[k];
    if (k < lead) {
      if (!d.is_static || d.value != 1) return false;
      continue;
    }
    const Dim& e = in[k - lead];
    const bool same = d.is_static && e.is_static
                          ? d.value == e.value
                          : !d.is_static && !e.is_static && d.symbol == e.symbol && d.expr == e.expr &&
                                !(d.symbol.empty() && d.expr.empty());
    if (!same) return false;
  }
  return true;
}

std::string LowerCtx::view_back(const json& view, const std::string& op, const std::string& value,
                                const std::string& new_view) {
  const std::string& base = base_name(view);
  if (reshapes(op) || op == "expand") return emit1("Reshape", {new_view, shape_of(values.at(base).onnx)});
  if (op == "diagonal" || op == "unfold" || op == "as_strided") return scatter_back(view, op, new_view);
  if (transposes(op)) return transpose_back(view, op, new_view);
  if (op == "select") return select_back(view, base, new_view);
  if (op == "unbind") return piece_back(view, base, new_view, piece_of(view, value), true);
  if (splits(op)) return piece_back(view, base, new_view, piece_of(view, value), false);
  return slice_back(view, op == "narrow", base, new_view);
}

std::string LowerCtx::transpose_back(const json& view, const std::string& op, const std::string& new_view) {
  ViewArgs args(*this, view);
  const int64_t r = rank_of("self");
  std::vector<int64_t> perm(r);
  for (int64_t d = 0; d < r; ++d) perm[d] = d;
  if (op == "permute") {
    const auto dims = ints("dims");
    for (int64_t d = 0; d < r; ++d) perm[d] = norm_dim(dims.at(d), r);
  } else if (op == "transpose") {
    std::swap(perm[norm_dim(int_arg("dim0"), r)], perm[norm_dim(int_arg("dim1"), r)]);
  } else if (r == 2) {  // t of a 0-d or 1-d tensor is the tensor
    std::swap(perm[0], perm[1]);
  }
  std::vector<int64_t> inverse(r);
  for (int64_t d = 0; d < r; ++d) inverse[perm[d]] = d;
  return r < 2 ? new_view : transpose(new_view, inverse);
}

// slice(dim, start, end, step 1) or narrow(dim, start, length).
std::string LowerCtx::slice_back(const json& view, bool narrow, const std::string& base,
                                 const std::string& new_view) {
  std::string start, end;
  int64_t dim = 0, step = 1;
  {
    ViewArgs args(*this, view);
    dim = norm_dim(int_arg("dim", 0), rank_of("self"));
    if (narrow) {
      const json* s = arg("start");
      if (s && s->contains("as_int") && as_int64(s->at("as_int")) < 0)
        unsupported("an in-place write through narrow with a negative start");
      start = arg_kind("start") == mx::aten_onnx::ArgKind::tensor
                  ? emit1("Reshape",
                          {cast(tensor("start"), dtype_of("start"), onnx::TensorProto::INT64), ci64({1})})
                  : unsqueeze(sym_int("start"), {0});
      end = emit1("Add", {start, unsqueeze(sym_int("length"), {0})});
    } else {
      step = int_arg("step", 1);
      start = has("start") ? unsqueeze(sym_int("start"), {0}) : ci64({0});
      end = has("end") ? unsqueeze(sym_int("end"), {0}) : ci64({INT64_MAX});
    }
  }
  return step == 1 ? between(base, start, end, dim, new_view)
                   : strided(base, start, end, step, dim, new_view);
}

// x[..., a:b:step, ...] = v: v scattered to the indices the slice takes.
std::string LowerCtx::strided(const std::string& base, const std::string& start, const std::string& end,
                              int64_t step, int64_t dim, const std::string& new_view) {
  const std::string b = values.at(base).onnx;
  const std::string all = emit1("Range", {ci64s(0), dim_size(b, dim), ci64s(1)});
  std::string index = emit1("Slice", {all, start, end, ci64({0}), ci64({step})});
  std::vector<int64_t> along(values.at(base).shape.size(), 1);
  along[dim] = -1;
  index = emit1("Expand", {emit1("Reshape", {index, ci64(along)}), shape_of(new_view)});
  return emit1("ScatterElements", {b, index, new_view}, {attr("axis", dim)});
}

std::string LowerCtx::select_back(const json& view, const std::string& base, const std::string& new_view) {
  std::string index, next;
  int64_t dim = 0;
  {
    ViewArgs args(*this, view);
    dim = norm_dim(int_arg("dim"), rank_of("self"));
    const Value& self = value_of("self");
    const json* a = arg("index");
    if (a && a->contains("as_int")) {
      int64_t i = as_int64((*a).at("as_int"));
      if (i < 0) {
        if (!self.shape.at(dim).is_static)
          unsupported("an in-place write through select with a negative index on a dynamic dim");
        i += self.shape[dim].value;
      }
      index = ci64({i});
      next = ci64({i + 1});
    } else {
      index = unsqueeze(sym_int("index"), {0});
      next = emit1("Add", {index, ci64({1})});
    }
  }
  return between(base, index, next, dim, unsqueeze(new_view, {dim}));
}

// Piece k of split/chunk (a slice) or unbind (a select) along their dim;
// its offset is the sizes of the pieces before it.
std::string LowerCtx::piece_back(const json& view, const std::string& base, const std::string& new_view,
                                 size_t k, bool selects) {
  int64_t dim = 0;
  {
    ViewArgs args(*this, view);
    dim = norm_dim(int_arg("dim", 0), rank_of("self"));
  }
  const json& list = view.at("outputs").at(0).at("as_tensors");
  int64_t offset = 0;
  for (size_t j = 0; j < k && !selects; ++j) {
    const Dim& d = meta_of(list[j].at("name").get<std::string>()).sizes.at(dim);
    if (!d.is_static) unsupported("an in-place write through a piece of a split of a dynamic dim");
    offset += d.value;
  }
  if (selects) offset = static_cast<int64_t>(k);
  if (selects) return between(base, ci64({offset}), ci64({offset + 1}), dim, unsqueeze(new_view, {dim}));
  const std::string start = ci64({offset});
  return between(base, start, emit1("Add", {start, emit1("Gather", {shape_of(new_view), ci64({dim})})}), dim,
                 new_view);
}

// The base's [0, start) ++ `middle` ++ [end, ...) along `dim`.
std::string LowerCtx::between(const std::string& base, const std::string& start, const std::string& end,
                              int64_t dim, const std::string& middle) {
  const std::string b = values.at(base).onnx;
  std::string head = emit1("Slice", {b, ci64({0}), start, ci64({dim})});
  std::string tail = emit1("Slice", {b, end, ci64({INT64_MAX}), ci64({dim})});
  return emit1("Concat", {head, middle, tail}, {attr("axis", dim)});
}

// A view's offset is its base's plus, for a slice, narrow or select, the
// start (index) along its dim times the base's stride there, the start as
// torch normalizes it: a negative one counts from the end, and a slice's
// is clamped into [0, size]. Reshapes, transposes and expands keep the
// base's first element.
std::string LowerCtx::storage_offset_of(const std::string& value) {
  const TensorMeta& m = meta_of(value);
  if (m.storage_offset.is_static) return ci64s(m.storage_offset.value);
  const std::string base = viewed_base(value);
  const json* view = producer_of(value);
  const std::string what = "the symbolic storage offset (" +
                           (m.storage_offset.expr.empty() ? m.storage_offset.symbol : m.storage_offset.expr) +
                           ") of '" + value + "'";
  if (base.empty() || !view) unsupported(what + ", which is not a view of a tensor");
  std::string op = view->at("target").get<std::string>();
  if (op.rfind("torch.ops.", 0) == 0) op = op.substr(10);
  op = op.substr(op.find('.') + 1);
  op = op.substr(0, op.find('.'));
  const std::string from = storage_offset_of(base);
  if (reshapes(op) || transposes(op) || op == "expand" || !is_view_op(op)) return from;  // same first element
  if (op != "slice" && op != "narrow" && op != "select")
    unsupported(what + ", a '" + op + "' view: its offset is not computed");
  ViewArgs args(*this, *view);
  const int64_t dim = norm_dim(int_arg("dim", 0), rank_of("self"));
  const Dim& stride = meta_of(base).strides.at(dim);
  if (!stride.is_static) unsupported(what + ": the stride of its base along the view's dim is symbolic");
  const char* at = op == "select" ? "index" : "start";
  if (!has(at)) return from;
  if (arg_kind(at) == mx::aten_onnx::ArgKind::tensor) unsupported(what + ": a narrow at a tensor start");
  const std::string zero = ci64s(0), n = dim_size(tensor("self"), dim);
  std::string s = sym_int(at);
  s = emit1("Where", {emit1("Less", {s, zero}), emit1("Add", {s, n}), s});
  if (op == "slice") s = emit1("Min", {emit1("Max", {s, zero}), n});
  return emit1("Add", {from, emit1("Mul", {s, ci64s(stride.value)})});
}

}  // namespace mx::torch_export
