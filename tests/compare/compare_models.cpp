#include "compare_models.hpp"

#include <nlohmann/json.hpp>

#include "stacknet.hpp"

namespace mx::testing {

std::string stack_net_extra_bytes() {
  onnx::ModelProto m = stack_net();
  auto* g = m.mutable_graph();
  int relu = -1;
  for (int i = 0; i < g->node_size(); ++i) {
    auto* n = g->mutable_node(i);
    if (n->name() == "/blocks.1/act/Relu") relu = i;
    if (n->name() == "/blocks.1/Add")
      for (auto& in : *n->mutable_input())
        if (in == "/blocks.1/act/Relu_output_0") in = "/blocks.1/act/Identity_output_0";
  }
  auto* id = g->add_node();
  id->set_name("/blocks.1/act/Identity");
  id->set_op_type("Identity");
  id->add_input("/blocks.1/act/Relu_output_0");
  id->add_output("/blocks.1/act/Identity_output_0");
  // Keep topological order: move the new node right after the Relu.
  for (int i = g->node_size() - 1; i > relu + 1; --i) g->mutable_node()->SwapElements(i, i - 1);
  return m.SerializeAsString();
}

std::string stack_net_extra_hierarchy() {
  auto h = nlohmann::json::parse(stack_net_hierarchy());
  h["nodes"].push_back(
      {{"name", "/blocks.1/act/Identity"}, {"module", "blocks.1.act"}, {"evidence", "direct"}});
  return h.dump();
}

}  // namespace mx::testing
