// A Constant node is a node only in name: torch.onnx writes constants as
// initializers, and ONNX Runtime folds them alike. Turning every top-level
// Constant into an initializer of the same value name leaves the graph with
// the nodes that compute. The initializer carries its bytes (raw_data);
// the weight writers leave such initializers as they are.
#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {

void constants_to_initializers(onnx::GraphProto& g, PassReport& report) {
  const auto outputs = passes::graph_outputs(g);
  std::set<std::string> removed;
  for (const auto& n : g.node()) {
    if (n.op_type() != "Constant" || !n.domain().empty() || n.output_size() != 1 || n.attribute_size() != 1)
      continue;
    const auto& a = n.attribute(0);
    if (a.name() != "value" || !a.has_t() || a.t().data_location() == onnx::TensorProto::EXTERNAL) continue;
    if (outputs.count(n.output(0))) continue;
    auto* t = g.add_initializer();
    *t = a.t();
    t->set_name(n.output(0));
    removed.insert(n.name());
  }
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
