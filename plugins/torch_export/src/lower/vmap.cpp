// functorch's vmap as the TRAINING dialect records it (associative_scan's
// combine_mode="generic" vmaps its combine function over the pairs it
// combines): a region from _vmap_increment_nesting(batch_size, randomness)
// to _vmap_decrement_nesting(), whose _add_batch_dim(x, in_dim, level)
// values are x's batch elements one at a time (their recorded shapes lack
// the batch dim) and whose _remove_batch_dim(y, level, batch_size, out_dim)
// stacks y's batch elements along out_dim. By vmap's definition the region
// is its body run once per batch element: it is unrolled over the static
// batch size, each _add_batch_dim a Gather of element b, each
// _remove_batch_dim the Concat of its pieces (over no element, an empty
// tensor of its recorded shape). Refused: a symbolic batch
// size, randomness="same" (one random draw for every element), a vmap
// nested in another, an in-place write in the region to a tensor it did
// not make (a write to a batched tensor reaches the tensor it batches).
#include <map>
#include <set>

#include "json_integers.hpp"
#include "lower_ctx.hpp"

namespace mx::torch_export {
namespace {

const std::string kFunctorch = "torch._functorch.predispatch.";

const json& positional(LowerCtx& cx, size_t k) {
  const json& in = cx.node->at("inputs");
  if (k >= in.size()) cx.unsupported("argument " + std::to_string(k) + " is missing");
  return in[k].at("arg");
}

int64_t static_int(LowerCtx& cx, size_t k, const char* what) {
  const json& a = positional(cx, k);
  if (a.contains("as_int")) return as_int64(a.at("as_int"));
  if (a.contains("as_sym_int") && a.at("as_sym_int").contains("as_int"))
    return as_int64(a.at("as_sym_int").at("as_int"));
  cx.unsupported(std::string("a vmap whose ") + what + " is not a static int");
}

const std::string& tensor_name(LowerCtx& cx, size_t k) {
  const json& a = positional(cx, k);
  if (!a.contains("as_tensor")) cx.unsupported("a batch dim added to or removed from something not a tensor");
  return a.at("as_tensor").at("name").get_ref<const std::string&>();
}

// "torch.ops.aten.add_.Tensor" -> "add_"; "" for what is not an ATen op.
std::string op_of(std::string t) {
  if (t.rfind("torch.ops.", 0) == 0) t = t.substr(10);
  if (t.rfind("aten.", 0) != 0) return "";
  return t.substr(5, t.find('.', 5) - 5);
}

// aten.add_.Tensor and the like; detach_ writes nothing.
bool writes_in_place(const std::string& t) {
  const std::string op = op_of(t);
  return op.size() > 1 && op.back() == '_' && op.rfind("__", 0) != 0 && op != "detach_";
}

// The in-place node writes a tensor the region made itself (not a view, an
// in-place result or a batch element), which nothing outside it shares.
bool writes_local(const json& node, const std::map<std::string, std::string>& local) {
  for (const auto& in : node.at("inputs")) {
    if (in.value("name", "") != "self" || !in.at("arg").contains("as_tensor")) continue;
    auto it = local.find(in.at("arg").at("as_tensor").at("name").get<std::string>());
    static const std::set<std::string> may_return_self = {"to",     "contiguous", "type_as", "alias",
                                                          "detach", "lift_fresh", "_to_copy"};
    return it != local.end() && !it->second.empty() && !LowerCtx::is_view_op(it->second) &&
           it->second.back() != '_' && !may_return_self.count(it->second);
  }
  return false;
}

void lower_vmap_region(LowerCtx& cx) {
  if (cx.vmap_index >= 0)
    cx.unsupported("a vmap nested in another (an unrolled vmap of a vmap is not lowered)");
  const int64_t size = static_int(cx, 0, "batch size");
  const json& randomness = positional(cx, 1);
  if (randomness.contains("as_string") && randomness.at("as_string") == "same")
    cx.unsupported("a vmap with randomness='same' (one random draw shared by every batch element)");
  if (size < 0) cx.unsupported("a vmap over a negative batch size");
  const json& nodes = cx.current_graph().at("nodes");
  size_t first = nodes.size();
  for (size_t k = 0; k < nodes.size(); ++k)
    if (&nodes[k] == cx.node) first = k;
  if (first == nodes.size()) cx.unsupported("a vmap region whose graph is not the one being lowered");
  size_t last = first + 1;
  std::map<std::string, std::string> local;  // value made in the region -> the op that made it
  for (; last < nodes.size(); ++last) {
    const std::string t = nodes[last].at("target").get<std::string>();
    if (t == kFunctorch + "_vmap_decrement_nesting") break;
    if (t == kFunctorch + "_vmap_increment_nesting")
      cx.unsupported("a vmap nested in another (an unrolled vmap of a vmap is not lowered)");
    if (writes_in_place(t) && !writes_local(nodes[last], local))
      cx.unsupported("an in-place op (" + t + ", node '" + node_name(nodes[last]) +
                     "') in a vmap region writing a tensor the region did not make: a write to a batched "
                     "tensor writes the tensor it batches, which the unrolled region does not");
    for (const auto& o : nodes[last].at("outputs"))
      if (o.contains("as_tensor")) local[o.at("as_tensor").at("name").get<std::string>()] = op_of(t);
  }
  if (last == nodes.size()) cx.unsupported("a vmap region that never ends (no _vmap_decrement_nesting)");
  const json* start = cx.node;
  if (size == 0) {  // the body runs for no element: each result is empty
    for (size_t k = first + 1; k < last; ++k) {
      if (nodes[k].at("target") != kFunctorch + "_remove_batch_dim") continue;
      cx.node = &nodes[k];
      std::vector<int64_t> shape;
      for (const Dim& d : cx.out_shape(0)) {
        if (!d.is_static) cx.unsupported("an empty vmap result of a symbolic shape");
        shape.push_back(d.value);
      }
      cx.out(0, cx.emit1("Expand", {cx.cscalar(0, cx.out_dtype(0)), cx.ci64(shape)}));
    }
    cx.node = start;
    cx.skip_through = &nodes[last];
    return;
  }
  cx.vmap_size = size;
  cx.vmap_pieces.clear();
  try {
    for (int64_t b = 0; b < size; ++b) {
      cx.vmap_index = b;
      for (size_t k = first + 1; k < last; ++k) cx.lower_nested(nodes[k]);
    }
  } catch (...) {
    cx.vmap_index = -1;
    throw;
  }
  cx.vmap_index = -1;
  cx.vmap_pieces.clear();
  cx.node = start;
  cx.skip_through = &nodes[last];
}
MXTE_LOWER(lower_vmap_region, "torch._functorch.predispatch._vmap_increment_nesting");

// _add_batch_dim(x, in_dim, level): element vmap_index of x along in_dim.
void lower_add_batch_dim(LowerCtx& cx) {
  if (cx.vmap_index < 0) cx.unsupported("_add_batch_dim outside a vmap region");
  const Value& x = cx.values.at(tensor_name(cx, 0));
  const int64_t dim = norm_dim(static_int(cx, 1, "batch dim"), static_cast<int64_t>(x.shape.size()));
  if (x.shape.empty() || dim < 0 || dim >= static_cast<int64_t>(x.shape.size()))
    cx.unsupported("_add_batch_dim along a dim its tensor lacks");
  if (x.shape[dim].is_static && x.shape[dim].value != cx.vmap_size)
    cx.unsupported("_add_batch_dim of a dim of " + std::to_string(x.shape[dim].value) + " in a vmap over " +
                   std::to_string(cx.vmap_size));
  cx.out(0, cx.emit1("Gather", {x.onnx, cx.ci64s(cx.vmap_index)}, {attr("axis", dim)}));
}
MXTE_LOWER(lower_add_batch_dim, "torch._functorch.predispatch._add_batch_dim");

// _remove_batch_dim(y, level, batch_size, out_dim): y's elements stacked
// along out_dim once the last one is computed.
void lower_remove_batch_dim(LowerCtx& cx) {
  if (cx.vmap_index < 0) cx.unsupported("_remove_batch_dim outside a vmap region");
  if (static_int(cx, 2, "batch size") != cx.vmap_size)
    cx.unsupported("_remove_batch_dim of another batch size than its vmap's");
  const Value& y = cx.values.at(tensor_name(cx, 0));
  const int64_t rank = static_cast<int64_t>(y.shape.size()) + 1;
  const int64_t dim = norm_dim(static_int(cx, 3, "out dim"), rank);
  if (dim < 0 || dim >= rank) cx.unsupported("_remove_batch_dim to a dim out of range");
  const std::string out = cx.node->at("outputs").at(0).at("as_tensor").at("name").get<std::string>();
  auto& pieces = cx.vmap_pieces[out];
  pieces.push_back(cx.unsqueeze(y.onnx, {dim}));
  if (cx.vmap_index + 1 < cx.vmap_size) return;  // bound once every element is
  cx.out(0, pieces.size() == 1 ? cx.emit1("Identity", {pieces[0]})
                               : cx.emit1("Concat", pieces, {attr("axis", dim)}));
}
MXTE_LOWER(lower_remove_batch_dim, "torch._functorch.predispatch._remove_batch_dim");

// The region's end: its unrolling was done at its start.
void lower_vmap_end(LowerCtx& cx) {
  cx.unsupported("_vmap_decrement_nesting without its _vmap_increment_nesting");
}
MXTE_LOWER(lower_vmap_end, "torch._functorch.predispatch._vmap_decrement_nesting");

}  // namespace
}  // namespace mx::torch_export
