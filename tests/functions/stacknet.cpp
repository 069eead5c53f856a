#include "stacknet.hpp"

#include <nlohmann/json.hpp>

namespace mx::testing {
namespace {

void value(onnx::ValueInfoProto* v, const std::string& name, int64_t cols) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param("N");
  t->mutable_shape()->add_dim()->set_dim_value(cols);
}

void weight(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims, int seed) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (auto d : dims) t->add_dims(d), n *= d;
  for (int64_t i = 0; i < n; ++i)
    t->add_float_data(0.05f * static_cast<float>((i * 7 + seed * 3) % 11) - 0.25f);
}

void node(onnx::GraphProto* g, const std::string& name, const std::string& op, std::vector<std::string> in,
          std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
}

}  // namespace

onnx::ModelProto stack_net(int blocks) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("modelexport-tests");
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("stack_net");
  value(g->add_input(), "X", 4);
  value(g->add_output(), "Y", 2);
  std::string x = "X";
  for (int b = 0; b < blocks; ++b) {
    const std::string p = "blocks." + std::to_string(b), s = "/blocks." + std::to_string(b);
    weight(g, p + ".fc.weight", {4, 4}, b);
    weight(g, p + ".fc.bias", {4}, b + 1);
    node(g, s + "/fc/MatMul", "MatMul", {x, p + ".fc.weight"}, {s + "/fc/MatMul_output_0"});
    node(g, s + "/fc/Add", "Add", {s + "/fc/MatMul_output_0", p + ".fc.bias"}, {s + "/fc/Add_output_0"});
    node(g, s + "/act/Relu", "Relu", {s + "/fc/Add_output_0"}, {s + "/act/Relu_output_0"});
    node(g, s + "/Add", "Add", {x, s + "/act/Relu_output_0"}, {s + "/Add_output_0"});
    x = s + "/Add_output_0";
  }
  weight(g, "head.weight", {4, 2}, 9);
  weight(g, "head.bias", {2}, 10);
  node(g, "/head/MatMul", "MatMul", {x, "head.weight"}, {"/head/MatMul_output_0"});
  node(g, "/head/Add", "Add", {"/head/MatMul_output_0", "head.bias"}, {"Y"});
  return m;
}

std::string stack_net_hierarchy(int blocks) {
  using nlohmann::json;
  json modules = json::array(), nodes = json::array();
  json block_paths = json::array();
  for (int b = 0; b < blocks; ++b) block_paths.push_back("blocks." + std::to_string(b));
  modules.push_back({{"path", ""},
                     {"class", "StackNet"},
                     {"qualified_class", "__main__.StackNet"},
                     {"parent", nullptr},
                     {"children", {"blocks", "head"}},
                     {"executed", true}});
  modules.push_back({{"path", "blocks"},
                     {"class", "ModuleList"},
                     {"qualified_class", "torch.nn.modules.container.ModuleList"},
                     {"parent", ""},
                     {"children", block_paths},
                     {"executed", false}});
  for (int b = 0; b < blocks; ++b) {
    const std::string p = "blocks." + std::to_string(b), s = "/blocks." + std::to_string(b);
    modules.push_back({{"path", p},
                       {"class", "Block"},
                       {"qualified_class", "__main__.Block"},
                       {"parent", "blocks"},
                       {"children", {p + ".fc", p + ".act"}},
                       {"executed", true}});
    modules.push_back({{"path", p + ".fc"},
                       {"class", "Linear"},
                       {"qualified_class", "torch.nn.modules.linear.Linear"},
                       {"parent", p},
                       {"children", json::array()},
                       {"executed", true}});
    modules.push_back({{"path", p + ".act"},
                       {"class", "ReLU"},
                       {"qualified_class", "torch.nn.modules.activation.ReLU"},
                       {"parent", p},
                       {"children", json::array()},
                       {"executed", true}});
    nodes.push_back({{"name", s + "/fc/MatMul"}, {"module", p + ".fc"}, {"evidence", "direct"}});
    nodes.push_back({{"name", s + "/fc/Add"}, {"module", p + ".fc"}, {"evidence", "direct"}});
    nodes.push_back({{"name", s + "/act/Relu"}, {"module", p + ".act"}, {"evidence", "direct"}});
    nodes.push_back({{"name", s + "/Add"}, {"module", p}, {"evidence", "direct"}});
  }
  modules.push_back({{"path", "head"},
                     {"class", "Linear"},
                     {"qualified_class", "torch.nn.modules.linear.Linear"},
                     {"parent", ""},
                     {"children", json::array()},
                     {"executed", true}});
  nodes.push_back({{"name", "/head/MatMul"}, {"module", "head"}, {"evidence", "direct"}});
  nodes.push_back({{"name", "/head/Add"}, {"module", "head"}, {"evidence", "direct"}});
  return json{{"schema", "modelexport.hierarchy/1"}, {"modules", modules}, {"nodes", nodes}}.dump();
}

}  // namespace mx::testing
