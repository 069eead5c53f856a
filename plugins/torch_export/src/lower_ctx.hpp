// Lowering context of the torch.export frontend: the program's values
// (tensors with their dtype and symbolic shape from graph.tensor_values;
// SymInts static or as 0-d int64 ONNX tensors) on top of the shared ONNX
// emitter. A lowering (lower/*.cpp) reads the current node's arguments by
// their schema names - arguments left at their defaults are absent from
// the JSON, so every accessor takes the op's default - and binds outputs.
// Nodes are emitted in the module nn_module_stack names (`module`).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mx/aten_onnx/onnx_emitter.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "program.hpp"

namespace mxte {

using mx::aten_onnx::attr;
using json = nlohmann::json;

struct Value {
  enum Kind { tensor, sym_int } kind = tensor;
  std::string onnx;            // tensor; or a dynamic SymInt as 0-d int64
  int32_t dtype = 0;           // onnx type of a tensor
  std::vector<Dim> shape;      // tensor
  std::optional<int64_t> int_value;  // a SymInt known statically
};

// The name torch gives a program's node, for messages: its "name" if it
// has one, else that of its first output ("linear_1"), else "?".
std::string node_name(const json& node);

class LowerCtx : public mx::aten_onnx::OnnxEmitter {
 public:
  LowerCtx(int opset, const Program& program) : OnnxEmitter(opset), program(program), tensors(&program.tensors) {}
  const Program& program;
  // Tensor metadata of the graph being lowered (the program's, or a nested
  // graph's while a higher-order op's body is inlined).
  const std::map<std::string, TensorMeta>* tensors;
  const TensorMeta& meta_of(const std::string& value) const;
  // Lowers one node of a nested graph in this context (set by the exporter).
  std::function<void(const json& node)> lower_nested;
  const json* node = nullptr;  // the node being lowered
  std::string target;          // "aten.conv2d.default"
  std::string module;          // its module path
  // "aten.relu_.default" -> "relu": the op without namespace, overload or
  // in-place suffix (a dunder name, "__or__", is kept whole).
  std::string op() const;
  std::unordered_map<std::string, Value> values;

  // ---- arguments by schema name (nullptr / default when absent)
  const json* arg(const std::string& name) const;
  bool has(const std::string& name) const;  // present and not None
  std::string tensor(const std::string& name);  // ONNX name of a tensor argument
  const Value& value_of(const std::string& name);
  int32_t dtype_of(const std::string& name) { return value_of(name).dtype; }
  int64_t rank_of(const std::string& name) { return static_cast<int64_t>(value_of(name).shape.size()); }
  // Static sizes of a tensor argument; a dynamic dim is an error naming the op.
  std::vector<int64_t> static_shape(const std::string& name);
  int64_t int_arg(const std::string& name, std::optional<int64_t> fallback = std::nullopt);
  double float_arg(const std::string& name, std::optional<double> fallback = std::nullopt);
  bool bool_arg(const std::string& name, std::optional<bool> fallback = std::nullopt);
  std::string string_arg(const std::string& name, const std::string& fallback);
  std::vector<int64_t> ints(const std::string& name, std::optional<std::vector<int64_t>> fallback = std::nullopt);
  // An int list that may hold SymInts, as a 1-D int64 ONNX tensor.
  std::string int_list(const std::string& name);
  // A SymInt/int argument as a 0-d int64 ONNX tensor.
  std::string sym_int(const std::string& name);
  // A Scalar or Tensor argument as an ONNX tensor of `dtype`.
  std::string operand(const std::string& name, int32_t dtype);
  // dtype argument (ScalarType code) as an ONNX type, or `fallback`.
  int32_t dtype_arg(const std::string& name, int32_t fallback);

  // ---- outputs
  size_t n_outputs() const;
  const TensorMeta& out_meta(size_t k = 0) const;
  int32_t out_dtype(size_t k = 0) const { return out_meta(k).dtype; }
  int64_t out_rank(size_t k = 0) const { return static_cast<int64_t>(out_meta(k).sizes.size()); }
  void out(size_t k, const std::string& onnx_name);
  void out_sym(size_t k, const std::string& onnx_name, std::optional<int64_t> static_value);
  // Output k is a list of tensors (split, unbind): its element count.
  size_t list_size(size_t k) const;
  void out_list(size_t k, const std::vector<std::string>& onnx_names);

  [[noreturn]] void unsupported(const std::string& what) const;
  std::string where() const;  // "node 'conv2d' (aten.conv2d.default) in module 'layer1.0.conv1'"

 protected:
  const std::string& current_module() const override { return module; }
  std::string current_source_node() const override {
    return node && node->contains("name") && (*node).at("name").is_string() ? (*node).at("name").get<std::string>() : "";
  }
  // The @N of the node's innermost nn_module_stack key, read once per node.
  int current_call() const override;

 private:
  const json& required(const std::string& name) const;
  // In-place ops (mutation.cpp): rebinds `self` to its new value and writes
  // it back through slice/select views into their bases.
  void apply_mutation(const std::string& new_self);
  void write_back(const std::string& value, const std::string& onnx);
  std::string slice_back(const json& view, const std::string& base, const std::string& new_view);
  std::string select_back(const json& view, const std::string& base, const std::string& new_view);
  const json* producer_of(const std::string& value);
  bool read_after_current(const std::string& value) const;
  struct ViewArgs;
  std::unordered_map<std::string, const json*> producers_;  // value -> node of the program's graph
  mutable const json* call_of_node_ = nullptr;  // the node call_ was read from
  mutable int call_ = 0;
  std::string symint_onnx(const json& sym);
};

// ---- op registry: one lowering per target ("aten.add.Tensor"), or per
// op name for every overload ("aten.add"). A name registered twice is kept
// with its first lowering and listed by duplicate_lowerings(), which
// `mxte-export --lowerings` reports as an error (a ctest runs it).
using LowerFn = void (*)(LowerCtx&);
struct Registration {
  LowerFn fn = nullptr;
  std::string file;  // the source file that registered it (lower/<family>.cpp)
};
std::unordered_map<std::string, Registration>& registry();
std::vector<std::string>& duplicate_lowerings();  // "name (file, file)"
LowerFn find_lowering(const std::string& target);
struct Registrar {
  Registrar(std::initializer_list<const char*> names, LowerFn fn, const char* file);
};
#define MXTE_CAT2(a, b) a##b
#define MXTE_CAT(a, b) MXTE_CAT2(a, b)
// MXTE_LOWER(fn, "aten.relu", "aten.relu_") registers fn for those ops.
#define MXTE_LOWER(fn, ...) static ::mxte::Registrar MXTE_CAT(mxte_reg_, __LINE__)({__VA_ARGS__}, fn, __FILE__)

double json_float(const json& v);

inline int64_t norm_dim(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }

}  // namespace mxte
