// In-place ops of the TRAINING dialect. torch.export does not functionalize
// that dialect, so `mask[a:b, c:d] = k` (torchvision's Swin) reaches us as
// fill_ on a slice of a slice of `mask`, and later nodes read `mask`, not the
// fill_'s output. The lowering of an in-place op computes the new value of
// its `self` functionally; here every later read is made to see it: `self`
// is rebound, and when `self` is a slice or select view (or the same
// tensor: alias, detach, a `to` that converts nothing, an earlier in-place
// op's result), the new view is
// written back into its base (Concat of the base's head, the view and the
// base's tail along the sliced dim), up the chain of views. A write through
// another kind of view whose base is read later, or is a view of a program
// input (state the file carries, state.hpp), is refused: the result would
// silently differ from PyTorch's. The core ATen dialect is functional and
// never gets here.
#include <climits>
#include <set>

#include "lower_ctx.hpp"
#include "json_integers.hpp"

namespace mx::torch_export {
namespace {

std::string target_of(const json& node) {
  std::string t = node.at("target").get<std::string>();
  if (t.rfind("torch.ops.", 0) == 0) t = t.substr(10);
  return t;
}

// "aten.fill_.Scalar" -> "fill_"
std::string op_name(const std::string& target) {
  const size_t a = target.find('.');
  if (a == std::string::npos) return target;
  const size_t b = target.find('.', a + 1);
  return target.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

bool is_inplace(const std::string& target) {
  const std::string op = op_name(target);
  return target.rfind("aten.", 0) == 0 && op.size() > 1 && op.back() == '_' && op.rfind("__", 0) != 0;
}

// Ops whose output aliases their input's storage (a write through them
// changes the input) beyond the slice/select/alias handled here.
const std::set<std::string>& other_views() {
  static const std::set<std::string> ops = {
      "view",       "permute", "transpose",        "t",       "unsqueeze", "squeeze",       "expand",
      "as_strided", "unfold",  "diagonal",         "narrow",  "view_as",   "unflatten",     "split",
      "chunk",      "unbind",  "split_with_sizes", "flatten", "reshape",   "_reshape_alias"};
  return ops;
}

const json* input_arg(const json& node, const char* name) {
  for (const auto& in : node.at("inputs"))
    if (in.at("name") == name) return &in.at("arg");
  return nullptr;
}

// `to` that converts nothing returns its input itself (PyTorch: "if self
// already has the dtype and device, self is returned"): a write to its
// result is a write to the input (transformers' StaticCache adds to
// `cumulative_length.to(device)` in place).
bool to_returns_self(const json& node, const std::map<std::string, TensorMeta>& tensors) {
  if (op_name(target_of(node)) != "to" || node.at("outputs").empty()) return false;
  const json* self = input_arg(node, "self");
  const json& out = node.at("outputs")[0];
  if (!self || !self->contains("as_tensor") || !out.contains("as_tensor")) return false;
  const json* copy = input_arg(node, "copy");
  if (copy && copy->contains("as_bool") && copy->at("as_bool").get<bool>()) return false;
  const json* format = input_arg(node, "memory_format");
  constexpr int kPreserveFormat = 4;  // torch/_export/serde/schema.py MemoryFormat
  if (format && !(format->contains("as_memory_format") && format->at("as_memory_format") == kPreserveFormat))
    return false;
  auto a = tensors.find(self->at("as_tensor").value("name", ""));
  auto b = tensors.find(out.at("as_tensor").value("name", ""));
  return a != tensors.end() && b != tensors.end() && a->second.dtype == b->second.dtype;
}

bool reads(const json& node, const std::string& value) {
  for (const auto& in : node.at("inputs")) {
    const json& a = in.at("arg");
    if (a.contains("as_tensor") && a.at("as_tensor").value("name", "") == value) return true;
    if (a.contains("as_tensors"))
      for (const auto& t : a.at("as_tensors"))
        if (t.value("name", "") == value) return true;
  }
  return false;
}

}  // namespace

const json* LowerCtx::producer_of(const std::string& value) {
  if (producers_.empty())
    for (const auto& n : program.graph().at("nodes"))
      for (const auto& o : n.at("outputs"))
        if (o.contains("as_tensor")) producers_[o.at("as_tensor").value("name", "")] = &n;
  auto it = producers_.find(value);
  return it == producers_.end() ? nullptr : it->second;
}

bool LowerCtx::read_after_current(const std::string& value) const {
  bool after = false;
  for (const auto& n : program.graph().at("nodes")) {
    if (after && reads(n, value)) return true;
    if (&n == node) after = true;
  }
  return false;
}

bool LowerCtx::views_an_input(const std::string& value) {
  std::string v = value;
  for (size_t hops = 0; hops <= program.graph().at("nodes").size(); ++hops) {
    const json* prod = producer_of(v);
    if (!prod) {
      for (const auto& in : program.inputs)
        if (in.value == v) return true;
      return false;
    }
    const std::string view = op_name(target_of(*prod));
    if (view != "slice" && view != "select" && view != "alias" && view != "detach" &&
        !other_views().count(view) && !to_returns_self(*prod, *tensors) && !is_inplace(target_of(*prod)))
      return false;
    const json* base = nullptr;
    for (const auto& in : prod->at("inputs"))
      if (in.at("name") == "self" || in.at("name") == "input") base = &in.at("arg");
    if (!base || !base->contains("as_tensor")) return false;
    v = (*base).at("as_tensor").at("name").get<std::string>();
  }
  return false;
}

void LowerCtx::apply_mutation(const std::string& new_self) {
  if (!is_inplace(target())) return;
  const json* self = arg("self");
  if (!self || !self->contains("as_tensor")) return;
  write_back((*self).at("as_tensor").at("name").get<std::string>(), new_self);
}

void LowerCtx::write_back(const std::string& value, const std::string& onnx) {
  auto it = values.find(value);
  if (it == values.end()) return;
  const std::string before = it->second.onnx;
  it->second.onnx = onnx;
  const json* prod = producer_of(value);
  if (!prod) {  // a program input: every input bound to the same tensor sees the write
    for (const auto& in : program.inputs)
      if (auto other = values.find(in.value); other != values.end() && other->second.onnx == before)
        other->second.onnx = onnx;
    return;
  }
  // an in-place op returns its `self`
  const bool same_tensor = is_inplace(target_of(*prod)) || to_returns_self(*prod, *tensors);
  const std::string view = same_tensor ? "alias" : op_name(target_of(*prod));
  if (view != "slice" && view != "select" && view != "alias" && view != "detach" &&
      !other_views().count(view))
    return;  // not a view
  const json* base_arg = nullptr;
  for (const auto& in : prod->at("inputs"))
    if (in.at("name") == "self" || in.at("name") == "input") base_arg = &in.at("arg");
  if (!base_arg || !base_arg->contains("as_tensor")) return;
  const std::string base = (*base_arg).at("as_tensor").at("name").get<std::string>();
  if (view == "alias" || view == "detach") return write_back(base, onnx);  // the same storage, whole
  if (view != "slice" && view != "select") {
    if (read_after_current(base) || views_an_input(base))
      unsupported(
          "an in-place write through a '" + view + "' view (node '" + prod->value("name", "?") + "') of '" +
          base + "', which " +
          (read_after_current(base) ? "is read later" : "is state of the program (an input it writes)") +
          "; export the core ATen program (ep.run_decompositions()), which has no in-place ops");
    return;
  }
  write_back(base, view == "slice" ? slice_back(*prod, base, onnx) : select_back(*prod, base, onnx));
}

// Reads the view node's arguments with the accessors (which read `node`).
struct LowerCtx::ViewArgs {
  LowerCtx& cx;
  const json* saved;
  ViewArgs(LowerCtx& cx, const json& view) : cx(cx), saved(cx.node) { cx.node = &view; }
  ~ViewArgs() { cx.node = saved; }
};

std::string LowerCtx::slice_back(const json& view, const std::string& base, const std::string& new_view) {
  const std::string b = values.at(base).onnx;
  std::string start, end;
  int64_t dim = 0;
  {
    ViewArgs args(*this, view);
    dim = norm_dim(int_arg("dim", 0), rank_of("self"));
    if (int_arg("step", 1) != 1) unsupported("an in-place write through a slice with step != 1");
    start = has("start") ? unsqueeze(sym_int("start"), {0}) : ci64({0});
    end = has("end") ? unsqueeze(sym_int("end"), {0}) : ci64({INT64_MAX});
  }
  std::string head = emit1("Slice", {b, ci64({0}), start, ci64({dim})});
  std::string tail = emit1("Slice", {b, end, ci64({INT64_MAX}), ci64({dim})});
  return emit1("Concat", {head, new_view, tail}, {attr("axis", dim)});
}

std::string LowerCtx::select_back(const json& view, const std::string& base, const std::string& new_view) {
  const std::string b = values.at(base).onnx;
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
  std::string head = emit1("Slice", {b, ci64({0}), index, ci64({dim})});
  std::string tail = emit1("Slice", {b, next, ci64({INT64_MAX}), ci64({dim})});
  return emit1("Concat", {head, unsqueeze(new_view, {dim}), tail}, {attr("axis", dim)});
}

}  // namespace mx::torch_export
