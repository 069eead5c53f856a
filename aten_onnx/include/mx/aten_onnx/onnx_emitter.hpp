// The ONNX graph builder every frontend lowers into: emits nodes named in
// PyTorch's scoped style (`/encoder/layer.0/attention/self/query/MatMul`),
// records for each node the module that was executing when it was emitted
// (evidence `direct`), and emits constants once per module.
//
// A frontend derives from it and says which module is executing now
// (`current_module`): the TorchScript walker from its call frames, the
// torch.export frontend from each node's nn_module_stack. Everything that
// is an ONNX pattern (lower/patterns.hpp) takes an OnnxEmitter&, so both
// frontends share one copy of every lowering pattern.
#pragma once
#include "mx/onnx_proto.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mx/aten_onnx/attributes.hpp"

namespace mx::aten_onnx {

// One emitted node, the module it was captured from, and (when the
// frontend knows it) the source-program node it was lowered from and which
// call of its module emitted it.
struct NodeRecord {
  std::string name, module, evidence;
  std::string source_node;  // torch.export's FX node name; "" = not recorded
  int call = 0;             // 0-based call of `module` (a shared block's 2nd run: 1)
};

// "encoder.layer.0.attention" -> "/encoder/layer.0/attention": numeric
// components are glued to their container, as torch.onnx names scopes.
std::string scope_prefix(const std::string& module_path);

class OnnxEmitter {
 public:
  explicit OnnxEmitter(int opset) : opset(opset) {}
  virtual ~OnnxEmitter() = default;
  OnnxEmitter(const OnnxEmitter&) = delete;
  OnnxEmitter& operator=(const OnnxEmitter&) = delete;

  const int opset;
  // Fused ONNX ops where the opset has them (Gelu 20+, GroupNormalization
  // 21+, Attention and RMSNormalization 23+; docs/opsets.md); false keeps
  // their decompositions, for runtimes without those kernels.
  bool fused_ops = true;
  onnx::GraphProto graph;
  std::vector<NodeRecord> records;

  // ---- nodes (outputs are named <node>_output_<k>), written in opset 17's
  // form: the emitter turns them into the form of `opset` (opset_forms.hpp)
  std::vector<std::string> emit(const std::string& op, const std::vector<std::string>& inputs,
                                const std::vector<onnx::AttributeProto>& attrs = {}, size_t n_out = 1);
  std::string emit1(const std::string& op, const std::vector<std::string>& inputs,
                    const std::vector<onnx::AttributeProto>& attrs = {}) {
    return emit(op, inputs, attrs, 1)[0];
  }

  // ---- constants, emitted in the current module (small ones once per module)
  std::string constant(const onnx::TensorProto& value);
  std::string ci64(const std::vector<int64_t>& values);   // 1-D int64
  std::string ci64s(int64_t value);                       // 0-d int64
  std::string cscalar(double value, int32_t onnx_dtype);  // 0-d of that dtype

  // ---- small patterns every lowering uses
  std::string cast(const std::string& x, int32_t from, int32_t to);
  std::string shape_of(const std::string& x) { return emit1("Shape", {x}); }
  std::string unsqueeze(const std::string& x, const std::vector<int64_t>& axes) {
    return emit1("Unsqueeze", {x, ci64(axes)});
  }
  std::string squeeze(const std::string& x, const std::vector<int64_t>& axes) {
    return emit1("Squeeze", {x, ci64(axes)});
  }
  std::string transpose(const std::string& x, const std::vector<int64_t>& perm) {
    return emit1("Transpose", {x}, {attr("perm", perm)});
  }
  std::string dim_size(const std::string& x, int64_t dim);  // 0-d int64

  // ---- bodies of ONNX control flow (If branches, Loop and Scan bodies)
  // A typed input or output of a body: `dims` -1 is a dynamic dim; an
  // unranked value (`ranked` false) states no shape at all.
  struct BodyValue {
    std::string name;
    int32_t dtype = 0;
    std::vector<int64_t> dims;
    bool ranked = true;
  };
  // The body `name` of an ONNX `holder` op ("If", "Loop", "Scan"): `build`
  // runs with the emitter writing into a fresh graph whose inputs are
  // `inputs`, and returns the graph's outputs. Small constants are not
  // shared across the boundary: a value made inside a body is invisible
  // outside it. The body's nodes keep no module record: they are
  // attributed through the node that holds the body (the hierarchy
  // document and the tagging core list a graph's top-level nodes only).
  // The three ops take bf16 inputs and outputs from opset 16: below it a
  // bf16 one is refused. The emitter is restored when `build` throws.
  onnx::GraphProto body_graph(const std::string& holder, const std::string& name,
                              const std::vector<BodyValue>& inputs,
                              const std::function<std::vector<BodyValue>()>& build);

  // An Error(MX_ERR_UNSUPPORTED) "unsupported: <what> at <where()>".
  [[noreturn]] void unsupported(const std::string& what) const;
  // The op for messages: "node 'conv2d' (aten.conv2d.default) in module 'layer1.0.conv1'"
  virtual std::string where() const = 0;

 protected:
  // The module path whose code is running now ("" = the root's forward).
  virtual const std::string& current_module() const = 0;
  // The source-program node being lowered, recorded with each node ("" = none).
  virtual std::string current_source_node() const { return {}; }
  // Which call of current_module() is executing (0 = its first, or unknown).
  virtual int current_call() const { return 0; }

 private:
  std::map<std::string, int> name_count_;
  std::map<std::string, std::string> constant_cache_;
  // The graph and constants of a body, swapped with the emitter's own
  // while the body is built.
  struct Subgraph {
    onnx::GraphProto graph;
    std::map<std::string, std::string> constants;
  };
  void swap_subgraph(Subgraph& s) {
    graph.Swap(&s.graph);
    constant_cache_.swap(s.constants);
  }
  std::string unique_node_name(const std::string& base);
  std::vector<std::string> emit_node(const std::string& op, const std::vector<std::string>& inputs,
                                     const std::vector<onnx::AttributeProto>& attrs, size_t n_out);
};

}  // namespace mx::aten_onnx
