// Lowering context of the torch.export frontend: the shared argument
// interface (mx::aten_onnx::OpContext) over a node of the program's JSON.
// The program's values (tensors with their dtype and symbolic shape from
// graph.tensor_values; SymInts static or as 0-d int64 ONNX tensors) are
// bound by value name. Arguments left at their defaults are absent from
// the JSON, so every accessor takes the op's default. Nodes are emitted in
// the module nn_module_stack names (`module`); an in-place op's result is
// written back (mutation.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/op_context.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "program.hpp"

namespace mx::torch_export {

using mx::aten_onnx::attr;
using mx::aten_onnx::norm_dim;
using json = nlohmann::json;
using Value = mx::aten_onnx::Value;

// The name torch gives a program's node, for messages: its "name" if it
// has one, else that of its first output ("linear_1"), else "?".
std::string node_name(const json& node);

class LowerCtx : public mx::aten_onnx::OpContext {
 public:
  LowerCtx(int opset, const Program& program)
      : OpContext(opset), program(program), tensors(&program.tensors) {}
  const Program& program;
  // Tensor metadata of the graph being lowered (the program's, or a nested
  // graph's while a higher-order op's body is inlined).
  const std::map<std::string, TensorMeta>* tensors;
  // The nested graph being inlined (its JSON), nullptr for the program's:
  // the graph whose nodes an in-place write looks through for views.
  const json* nested_graph = nullptr;
  const json& current_graph() const { return nested_graph ? *nested_graph : program.graph(); }
  const TensorMeta& meta_of(const std::string& value) const;
  // Lowers one node of a nested graph in this context (set by the exporter).
  std::function<void(const json& node)> lower_nested;
  const json* node = nullptr;   // the node being lowered
  std::string module;           // its module path
  using OpContext::set_target;  // "aten.conv2d.default", the node's target
  std::unordered_map<std::string, Value> values;
  // The ONNX name each program input (user input, parameter, buffer,
  // constant) was bound to before lowering; an in-place write rebinds the
  // input in `values`, not here (state.hpp).
  std::unordered_map<std::string, std::string> input_onnx;
  // Outputs their node's lowering left uncomputed (max_pool's indices
  // where only the values are lowered): value -> "output k of node 'n'
  // (target)", for the message of a node that reads one.
  std::unordered_map<std::string, std::string> uncomputed;
  // Why value `name` is not defined, for a message: uncomputed, or absent.
  std::string undefined_because(const std::string& name) const;
  // The storage offset of tensor `value` as a 0-d int64: torch's recorded
  // one when static, else computed up its chain of views (view_back.cpp);
  // refused where a view's offset cannot be computed.
  std::string storage_offset_of(const std::string& value);
  // A vmap region being unrolled (lower/vmap.cpp): the batch index its
  // nodes are lowered at (-1 outside one), the batch size, and each
  // _remove_batch_dim's pieces so far. skip_through is the region's last
  // node, which the walk of the program's graph skips to.
  int64_t vmap_index = -1;
  int64_t vmap_size = 0;
  std::map<std::string, std::vector<std::string>> vmap_pieces;
  const json* skip_through = nullptr;
  // Whether `op` ("slice", "view", ...) returns a view of its input
  // (view_back.cpp).
  static bool is_view_op(const std::string& op);
  // An in-place write to `value` made inside an inlined body (a no_grad
  // region writing a buffer; higher_order.cpp): `value` rebound to `onnx`
  // and written back through its views, as an in-place op's `self` is.
  void write_in_place(const std::string& value, const std::string& onnx);
  // Inside an enabled autocast region: the dtype its lower-precision ops
  // run in (ONNX element type; autocast.hpp); 0 = none.
  int32_t autocast_dtype = 0;

  // ---- arguments by schema name (the JSON; nullptr when absent or None)
  const json* arg(const std::string& name) const;
  mx::aten_onnx::ArgKind arg_kind(const std::string& name) const override;
  const Value& value_of(const std::string& name) override;
  std::vector<const Value*> tensor_list(const std::string& name) override;
  int64_t int_arg(const std::string& name, std::optional<int64_t> fallback = std::nullopt) override;
  double float_arg(const std::string& name, std::optional<double> fallback = std::nullopt) override;
  bool bool_arg(const std::string& name, std::optional<bool> fallback = std::nullopt) override;
  std::string string_arg(const std::string& name, const std::string& fallback) override;
  std::vector<int64_t> ints(const std::string& name,
                            std::optional<std::vector<int64_t>> fallback = std::nullopt) override;
  std::optional<std::vector<int64_t>> static_ints(const std::string& name) override;
  size_t list_length(const std::string& name) override;
  std::vector<double> floats(const std::string& name) override;
  std::string int_list(const std::string& name) override;
  std::string sym_int(const std::string& name) override;
  std::string operand(const std::string& name, int32_t dtype) override;
  int32_t dtype_arg(const std::string& name, int32_t fallback) override;
  std::pair<double, double> complex_arg(const std::string& name) override;

  // ---- outputs
  size_t n_outputs() const override;
  const TensorMeta& out_meta(size_t k = 0) const;
  const std::vector<Dim>& out_shape(size_t k = 0) const override { return out_meta(k).sizes; }
  int32_t out_dtype(size_t k = 0) const override { return out_meta(k).dtype; }
  void out(size_t k, const std::string& onnx_name) override;
  void out_sym(size_t k, const std::string& onnx_name, std::optional<int64_t> static_value) override;
  size_t list_size(size_t k) const override;
  const std::vector<Dim>& list_item_shape(size_t k, size_t item) const override;
  void out_list(size_t k, const std::vector<std::string>& onnx_names) override;

  bool output_is_tensor(size_t k) const override;
  bool output_is_tensor_list(size_t k) const override;
  std::string node_name() const override { return node ? mx::torch_export::node_name(*node) : "?"; }
  std::string where() const override;  // "node 'conv2d' (aten.conv2d.default) in module 'layer1.0.conv1'"

 protected:
  const std::string& current_module() const override { return module; }
  std::string current_source_node() const override {
    return node && node->contains("name") && (*node).at("name").is_string()
               ? (*node).at("name").get<std::string>()
               : "";
  }
  // The @N of the node's innermost nn_module_stack key, read once per node.
  int current_call() const override;

 private:
  const json& required(const std::string& name) const;
  const json& list_of(const std::string& name) const;  // as_tensors / as_optional_tensors
  // In-place ops (mutation.cpp): rebinds `self` to its new value and writes
  // it back through the views it was taken by into their bases.
  void apply_mutation(const std::string& new_self);
  void write_back(const std::string& value, const std::string& onnx);
  // The views a write goes back through (view_back.cpp): is_view_op names
  // the ops whose result shares its input's storage; cannot_write_through
  // says why a write through one cannot be lowered ("" when it can), and
  // view_back rebuilds the base of `value` (the view) from its new value.
  std::string cannot_write_through(const json& view, const std::string& op);
  // diagonal, unfold, as_strided: the base's row-major index of each of the
  // view's elements (row-major), or "" set to why there are none.
  std::vector<int64_t> strided_indices(const json& view, const std::string& op, std::string& why);
  std::string scatter_back(const json& view, const std::string& op, const std::string& new_view);
  bool expands_nothing(const json& view);
  std::string view_back(const json& view, const std::string& op, const std::string& value,
                        const std::string& new_view);
  std::string transpose_back(const json& view, const std::string& op, const std::string& new_view);
  std::string slice_back(const json& view, bool narrow, const std::string& base, const std::string& new_view);
  std::string select_back(const json& view, const std::string& base, const std::string& new_view);
  std::string piece_back(const json& view, const std::string& base, const std::string& new_view, size_t k,
                         bool selects);
  std::string strided(const std::string& base, const std::string& start, const std::string& end, int64_t step,
                      int64_t dim, const std::string& middle);
  std::string between(const std::string& base, const std::string& start, const std::string& end, int64_t dim,
                      const std::string& middle);
  // The state (program input) `value` is or views, by its ONNX name; "" if none.
  std::string state_viewed(const std::string& value);
  // The value `value` is a view of (alias, in-place result, view op); "" if none.
  std::string viewed_base(const std::string& value);
  // Refuses a view of the written tensor taken before the write and read after it.
  void refuse_stale_views(const std::string& written);
  const json* producer_of(const std::string& value);
  bool read_after_current(const std::string& value) const;
  struct ViewArgs;
  // value -> its node, per graph (the program's, nested ones)
  std::map<const json*, std::unordered_map<std::string, const json*>> producers_;
  mutable const json* call_of_node_ = nullptr;  // the node call_ was read from
  mutable int call_ = 0;
  std::string symint_onnx(const json& sym);
};

using LowerFn = mx::aten_onnx::LowerFn;

// This frontend's name in the lowering registry.
inline constexpr const char* kFrontend = "torch_export";
// The lowering of a target for this frontend: the shared ones
// (aten_onnx/src/lower/) and the few below that read the program's JSON.
inline mx::aten_onnx::LowerFn find_lowering(const std::string& target) {
  return mx::aten_onnx::find_lowering(target, kFrontend);
}
// A lowering that needs this frontend's context (the program's JSON,
// nested graphs), registered under the frontend's name.
template <void (*F)(LowerCtx&)>
void with_lower_ctx(mx::aten_onnx::OpContext& cx) {
  F(static_cast<LowerCtx&>(cx));
}
#define MXTE_CAT2(a, b) a##b
#define MXTE_CAT(a, b) MXTE_CAT2(a, b)
// MXTE_LOWER(fn, "higher_order.cond") registers fn(LowerCtx&) for the .pt2 frontend only.
#define MXTE_LOWER(fn, ...)                                                \
  static ::mx::aten_onnx::LoweringRegistrar MXTE_CAT(mxte_reg_, __LINE__)( \
      {__VA_ARGS__}, &::mx::torch_export::with_lower_ctx<fn>, __FILE__, "torch_export")

double json_float(const json& v);

}  // namespace mx::torch_export
