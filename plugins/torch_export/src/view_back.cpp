// The inverse of a view for an in-place write through it (mutation.cpp):
// the base the view was taken from, rebuilt with the view's new value,
// the way torch's functionalization turns a write through a view into a
// *_scatter of the view back into its base. Slices, narrows and split
// pieces go back between the base's head and tail along their dim (a
// slice with a step by ScatterElements at the indices it takes), selects
// and unbind pieces the same after an Unsqueeze; views that only reshape
// (view, unsqueeze, flatten...) are reshaped back to the base's shape;
// transposes and permutes are transposed back. What the write-back cannot
// prove to be the base's own storage, or where one element of the view is
// several of the base's (expand), is named by cannot_write_through.
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

std::string LowerCtx::cannot_write_through(const json& view, const std::string& op) const {
  if (op == "expand") return "several of its elements are one element of the base";
  if ((op == "reshape" || op == "flatten") && !contiguous(meta_of(base_name(view))))
    return "its input is not provably contiguous, so torch may have copied it";
  if (reshapes(op) || transposes(op) || splits(op) || op == "slice" || op == "select" || op == "narrow")
    return "";
  return "writing through it back into its base is not lowered";
}

std::string LowerCtx::view_back(const json& view, const std::string& op, const std::string& value,
                                const std::string& new_view) {
  const std::string& base = base_name(view);
  if (reshapes(op)) return emit1("Reshape", {new_view, shape_of(values.at(base).onnx)});
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

}  // namespace mx::torch_export
