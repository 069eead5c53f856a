// Lowering context: the value environment of the graph walk and the ONNX
// graph builder. Every lowering (src/lower/*.cpp) sees only this header.
//
// A torch::jit::Value is bound, per frame, to a Val:
//   * iv        its example value: real for static values, weights and shape
//               arithmetic; for values computed from the model's inputs a
//               meta tensor (dtype/rank/shape, no data; shape_exec.hpp);
//   * is_static the value depends only on prim::Constant (and non-tensor
//               attributes): it is folded, and materialised as an ONNX
//               Constant only when a lowering needs it as a tensor;
//   * name      the ONNX tensor carrying it (tensors, dynamic scalars as 0-d
//               tensors, int lists as 1-D int64 tensors);
//   * elems     per-element Vals of lists/tuples;
//   * module    submodule objects (with their path);
//   * shifted   the same value at the shifted example shapes, which tells
//               its dynamic dims (dynamic_dims.hpp);
//   * dim_symbols / value_symbols  which model input dims its dynamic sizes
//               are (dim_symbols.hpp).
#pragma once
#include <torch/script.h>
#include "mx/onnx_proto.hpp"

#include <deque>
#include <functional>
#include <optional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "exporter.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/op_context.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::torchscript {
namespace tj = torch::jit;

// This frontend's name in the lowering registry (its lowering plugins and
// the shared lowerings it may use).
inline constexpr const char* kFrontend = "torchscript";

struct Val;
using VP = std::shared_ptr<Val>;
// Whether a value has a twin from the shifted run (dynamic_dims.hpp): none
// (it reads no named input dim), known (Val::shifted holds it) or unknown
// (the shifted run failed: every dim counts as dynamic).
enum class Shift : uint8_t { none, known, unknown };
struct Val {
  c10::IValue iv;
  bool is_static = false;
  std::string name;
  int32_t onnx_type = 0;  // onnx::TensorProto_DataType of `name`
  bool has_elems = false;
  std::vector<VP> elems;
  bool is_module = false;
  std::string path;  // module path (is_module)
  // the node that produced this value as a view of its first input
  // (slice/select/view/transpose/...): in-place writes go back to the base
  const tj::Node* view_of = nullptr;
  // Bit k: computed from the model's k-th input (the first 64), so that an
  // op failing on the example inputs can say which inputs it reads.
  uint64_t from_inputs = 0;
  Shift shift = Shift::none;
  c10::IValue shifted;  // Shift::known: the value at the shifted example shapes
  // What the sizes provably are (dim_symbols.hpp), for the graph passes:
  // per dim of a tensor, and per element of an int value (one for an int or
  // a 0-d tensor holding one, n for an int list), the symbol of its dynamic
  // size, DimSymbols::kStatic when proven static, "" when nothing is proven.
  std::vector<std::string> dim_symbols, value_symbols;
  // An output its op's lowering does not compute (max_pool2d_with_indices'
  // indices): "output 1 of aten::max_pool2d_with_indices (in module ...)",
  // for the error when something reads it.
  std::string not_computed;
};

struct Frame {
  tj::Module module;
  std::string path;  // module path, "" = root
  std::unordered_map<const tj::Value*, VP> env;
};

// ONNX attribute helpers and the shared patterns (emit_linear, ...).
using mx::aten_onnx::attr;
using mx::aten_onnx::ConvParams;
using mx::aten_onnx::emit_adaptive_pool;
using mx::aten_onnx::emit_attention;
using mx::aten_onnx::emit_avg_pool;
using mx::aten_onnx::emit_conv;
using mx::aten_onnx::emit_gelu;
using mx::aten_onnx::emit_layer_norm;
using mx::aten_onnx::emit_linear;
using mx::aten_onnx::emit_max_pool;
using mx::aten_onnx::emit_reduce;
using mx::aten_onnx::emit_sdpa;
using mx::aten_onnx::expand_to;
using mx::aten_onnx::symmetric_pads;

int32_t onnx_type_of(at::ScalarType t);
at::ScalarType scalar_type_of_onnx(int32_t t);
onnx::TensorProto to_tensor_proto(const at::Tensor& t, const std::string& name);

// The walk's environment on top of the shared ONNX emitter: nodes are
// recorded in the module of the current frame. It is also the shared
// argument interface (mx::aten_onnx::OpContext) over the current node, for
// the lowerings of aten_onnx/src/lower (op_args.cpp): arguments by the
// node's schema names, tensors' dtype and shape from their example values.
class Ctx : public mx::aten_onnx::OpContext {
 public:
  explicit Ctx(int opset) : OpContext(opset) {}
  Frame* frame = nullptr;
  const tj::Node* node = nullptr;
  std::vector<c10::IValue> ex_out;  // example outputs of `node`
  // The shifted run of `node` (dynamic_dims.hpp): its outputs when known.
  Shift out_shift = Shift::none;
  std::vector<c10::IValue> shifted_out;

  std::vector<std::string> input_names;  // the model's inputs, in Val::from_inputs bit order
  // Weights by initializer name. The initializers in `graph` carry name,
  // data type and dims only: their bytes are taken from these tensors (the
  // module's own storage, not a copy) when the model is written — inline
  // raw_data, or an external data file (weights.h) — so lowering never
  // copies a weight.
  std::unordered_map<std::string, at::Tensor> init_data;

  // ---- environment
  VP get(const tj::Value* v) const;
  void bind(const tj::Value* v, VP val) { frame->env[v] = std::move(val); }
  VP in(size_t i) const { return get(node->input(i)); }
  size_t n_in() const { return node->inputs().size(); }
  bool is_none(size_t i) const { return in(i)->iv.isNone(); }

  // ---- static arguments (example values; callers use them for things
  // that are static by nature: dims, flags, kernel sizes)
  int64_t arg_int(size_t idx) const;
  double arg_double(size_t idx) const;
  bool arg_bool(size_t idx) const;
  std::string arg_string(size_t idx) const;
  std::vector<int64_t> arg_int_list(size_t idx) const;
  at::Tensor ex_t(size_t idx) const;  // example of a tensor input
  at::Tensor ex_out_t(size_t idx = 0) const;
  int64_t rank(size_t idx) const { return ex_t(idx).dim(); }
  at::ScalarType dtype(size_t idx) const { return ex_t(idx).scalar_type(); }
  at::ScalarType out_st(size_t idx = 0) const { return ex_out_t(idx).scalar_type(); }

  const at::Tensor& value_of(const at::Tensor& t, size_t idx) const;

  // ---- materialisation
  using OpContext::tensor;
  std::string tensor(size_t idx) { return tensor(in(idx)); }
  std::string tensor(const VP& v);  // ONNX tensor of v
  std::string tensor_as(size_t idx, at::ScalarType st) { return tensor_as(in(idx), st); }
  std::string tensor_as(const VP& v, at::ScalarType st);  // ... cast to st
  int32_t onnx_type(const VP& v);                         // type of tensor(v)
  using OnnxEmitter::cast;
  std::string cast_to(const std::string& x, int32_t from, at::ScalarType to) {
    return cast(x, from, onnx_type_of(to));
  }
  std::string shape_list(const VP& v);  // int list (static/dynamic) -> 1-D int64
  std::string shape_list(size_t idx) { return shape_list(in(idx)); }
  std::string scalar_i64(const VP& v);  // int scalar -> 0-d int64

  // ---- constants (emitted in the current module, cached per module)
  using OnnxEmitter::constant;
  using OnnxEmitter::cscalar;
  std::string constant(const at::Tensor& t);
  std::string cscalar(double v, at::ScalarType st) { return cscalar(v, onnx_type_of(st)); }
  std::string initializer(const at::Tensor& t, const std::string& path);

  // ---- outputs of the current node
  void out(size_t idx, const std::string& name, int32_t onnx_t);
  void out_val(size_t idx, VP v) { bind(node->output(idx), std::move(v)); }
  // output idx denotes the same ONNX value as src (views, no-op casts);
  // the example value is the executed one (strides/contiguity differ)
  void same(size_t idx, const VP& src) {
    auto v = std::make_shared<Val>(*src);
    v->iv = ex_out.at(idx);
    bind(node->output(idx), v);
  }

  // ---- errors
  [[noreturn]] void unsupported(const std::string& what) const;
  std::string location() const;  // "(in module ..., class ...) at file:line: text"

  // ---- the shared argument interface over `node` (op_args.cpp)
  // Starts a shared lowering of `node`: its target ("aten.relu.default")
  // and fresh per-node caches.
  void begin_shared(const tj::Node* n);
  mx::aten_onnx::ArgKind arg_kind(const std::string& name) const override;
  const mx::aten_onnx::Value& value_of(const std::string& name) override;
  std::vector<const mx::aten_onnx::Value*> tensor_list(const std::string& name) override;
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
  size_t n_outputs() const override { return node->outputs().size(); }
  const std::vector<mx::aten_onnx::Dim>& out_shape(size_t k = 0) const override;
  int32_t out_dtype(size_t k = 0) const override { return onnx_type_of(out_st(k)); }
  void out(size_t k, const std::string& onnx_name) override { out(k, onnx_name, -1); }
  void out_sym(size_t k, const std::string& onnx_name, std::optional<int64_t> static_value) override;
  size_t list_size(size_t k) const override;
  const std::vector<mx::aten_onnx::Dim>& list_item_shape(size_t k, size_t item) const override;
  void out_list(size_t k, const std::vector<std::string>& onnx_names) override;
  bool output_is_tensor(size_t k) const override { return ex_out.at(k).isTensor(); }
  bool output_is_tensor_list(size_t k) const override { return ex_out.at(k).isTensorList(); }
  std::string node_name() const override;
  std::string where() const override;

 protected:
  const std::string& current_module() const override { return frame->path; }

 private:
  std::map<std::string, std::string> init_by_key_;
  // Per shared lowering: the Values handed out (stable addresses) and shapes.
  std::deque<mx::aten_onnx::Value> shared_values_;
  std::map<std::string, const mx::aten_onnx::Value*> shared_by_name_;
  mutable std::map<std::pair<size_t, size_t>, std::vector<mx::aten_onnx::Dim>> shared_shapes_;
  size_t arg_index(const std::string& name) const;  // the node input of a schema argument
  std::optional<size_t> find_arg(const std::string& name) const;
  std::vector<mx::aten_onnx::Dim> dims_of(const at::Tensor& t, const std::vector<bool>& dynamic) const;
  const c10::IValue& shifted_output(size_t k) const;
  const mx::aten_onnx::Value& shared_value(const VP& v, const std::string& key);
  std::map<std::string, int> init_names_;
};

inline int64_t norm_dim(int64_t d, int64_t rank) {
  return d < 0 ? d + rank : d;
}

// ---- op registry: one lowering per ATen/prim symbol
using LowerFn = void (*)(Ctx&, const tj::Node*);
std::unordered_map<std::string, LowerFn>& registry();
struct Registrar {
  Registrar(std::initializer_list<const char*> names, LowerFn fn) {
    for (auto n : names) registry()[n] = fn;
  }
};
#define MXTS_CAT2(a, b) a##b
#define MXTS_CAT(a, b) MXTS_CAT2(a, b)
// MXTS_LOWER(fn, "aten::foo", "aten::foo_") registers fn for those symbols.
#define MXTS_LOWER(fn, ...) \
  static ::mx::torchscript::Registrar MXTS_CAT(mxts_reg_, __LINE__)({__VA_ARGS__}, fn)

}  // namespace mx::torchscript
