// In-place ops of the TRAINING dialect. torch.export does not functionalize
// that dialect, so `mask[a:b, c:d] = k` (torchvision's Swin) reaches us as
// fill_ on a slice of a slice of `mask`, and later nodes read `mask`, not the
// fill_'s output. The lowering of an in-place op computes the new value of
// its `self` functionally; here every later read is made to see it: `self`
// is rebound, and when `self` is a view (or the same tensor: alias, detach,
// a `to` that converts nothing, an earlier in-place op's result), the new
// view is written back into its base (view_back.cpp), up the chain of
// views, so a write through `cache[:, :, pos]` or `buf.view(-1)` reaches
// the state it views (state.hpp). Views are looked up in the graph the
// write is in: the program's, or a nested one (a cond branch's clone
// written through a select reaches the clone). A write through a view that cannot be
// written back (an expand, a reshape torch may have copied) whose base is
// read later or is state is refused: the result would silently differ from
// PyTorch's. The core ATen dialect is functional and never gets here.
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

// An in-place op returns its `self`; so does a `to` that converts nothing.
bool same_tensor(const json& node, const std::map<std::string, TensorMeta>& tensors) {
  return is_inplace(target_of(node)) || to_returns_self(node, tensors);
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
  auto& producers = producers_[&current_graph()];
  if (producers.empty())
    for (const auto& n : current_graph().at("nodes"))
      for (const auto& o : n.at("outputs")) {
        if (o.contains("as_tensor")) producers[o.at("as_tensor").value("name", "")] = &n;
        if (o.contains("as_tensors"))  // split and unbind pieces
          for (const auto& t : o.at("as_tensors")) producers[t.value("name", "")] = &n;
      }
  auto it = producers.find(value);
  return it == producers.end() ? nullptr : it->second;
}

bool LowerCtx::read_after_current(const std::string& value) const {
  bool after = false;
  for (const auto& n : current_graph().at("nodes")) {
    if (after && reads(n, value)) return true;
    if (&n == node) after = true;
  }
  return false;
}

std::string LowerCtx::viewed_base(const std::string& value) {
  const json* prod = producer_of(value);
  if (!prod) return "";
  const std::string view = same_tensor(*prod, *tensors) ? "alias" : op_name(target_of(*prod));
  const json* base = input_arg(*prod, "self");
  if (!base) base = input_arg(*prod, "input");
  if ((view != "alias" && view != "detach" && !is_view_op(view)) || !base || !base->contains("as_tensor"))
    return "";
  return (*base).at("as_tensor").at("name").get<std::string>();
}

std::string LowerCtx::state_viewed(const std::string& value) {
  std::string v = value;
  for (size_t hops = 0; hops <= current_graph().at("nodes").size(); ++hops) {
    if (!producer_of(v)) {
      for (const auto& in : program.inputs)
        if (in.value == v) return input_onnx.count(v) ? input_onnx.at(v) : v;
      return "";
    }
    v = viewed_base(v);
    if (v.empty()) return "";
  }
  return "";
}

void LowerCtx::apply_mutation(const std::string& new_self) {
  if (!is_inplace(target())) return;
  const json* self = arg("self");
  if (!self || !self->contains("as_tensor")) return;
  const std::string written = (*self).at("as_tensor").at("name").get<std::string>();
  write_back(written, new_self);
  refuse_stale_views(written);
}

void LowerCtx::write_in_place(const std::string& value, const std::string& onnx) {
  write_back(value, onnx);
  refuse_stale_views(value);
}

// In PyTorch every view of a tensor sees a write to it; here a view taken
// before the write holds the value it was taken from. Views on the written
// chain itself were rebound by write_back; another one read after the write
// would silently keep the old values.
void LowerCtx::refuse_stale_views(const std::string& written) {
  std::set<std::string> chain;
  std::string root = written;
  for (std::string v = written; !v.empty() && chain.insert(v).second; v = viewed_base(v)) root = v;
  for (const auto& n : current_graph().at("nodes")) {
    if (&n == node) return;
    for (const auto& o : n.at("outputs")) {
      if (!o.contains("as_tensor")) continue;
      const std::string out = o.at("as_tensor").value("name", "");
      if (chain.count(out) || viewed_base(out).empty()) continue;
      std::string r = out;
      std::set<std::string> seen;
      for (std::string v = out; !v.empty() && seen.insert(v).second; v = viewed_base(v)) r = v;
      if (r == root && read_after_current(out))
        unsupported("'" + out + "' (node '" + n.value("name", "?") + "') views '" + root +
                    "' from before this in-place write and is read after it: PyTorch's view sees the write, "
                    "the export would not; export the core ATen program (ep.run_decompositions())");
    }
  }
}

void LowerCtx::write_back(const std::string& value, const std::string& onnx) {
  auto it = values.find(value);
  if (it == values.end()) return;
  const std::string before = it->second.onnx;
  it->second.onnx = onnx;
  const json* prod = producer_of(value);
  if (!prod) {                 // a program input: every input bound to the same tensor sees the write
    if (nested_graph) return;  // a nested graph's input: its caller writes what it bound (higher_order.cpp)
    for (const auto& in : program.inputs)
      if (auto other = values.find(in.value); other != values.end() && other->second.onnx == before)
        other->second.onnx = onnx;
    return;
  }
  const std::string view = same_tensor(*prod, *tensors) ? "alias" : op_name(target_of(*prod));
  if (view != "alias" && view != "detach" && !is_view_op(view)) return;  // not a view
  const json* base_arg = input_arg(*prod, "self");
  if (!base_arg) base_arg = input_arg(*prod, "input");
  if (!base_arg || !base_arg->contains("as_tensor")) return;
  const std::string base = (*base_arg).at("as_tensor").at("name").get<std::string>();
  if (view == "alias" || view == "detach") return write_back(base, onnx);  // the same storage, whole
  const std::string why = cannot_write_through(*prod, view);
  if (why.empty()) return write_back(base, view_back(*prod, view, value, onnx));
  const std::string state = state_viewed(base);
  if (state.empty() && !read_after_current(base)) return;  // nothing reads the base again
  unsupported("an in-place write through the '" + view + "' view (node '" + prod->value("name", "?") +
              "') of '" + base + "', " +
              (state.empty() ? "which is read later" : "which is state '" + state + "'") + ": " + why +
              "; export the core ATen program (ep.run_decompositions()), which has no in-place ops");
}

}  // namespace mx::torch_export
