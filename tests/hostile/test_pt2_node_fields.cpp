// Fields of a program's nodes and values that torch.export.load refuses:
// a malformed nn_module_stack (it was blamed on the node lowered before,
// or on node '?', and never named the field) and a dtype code outside
// torch.export's ScalarType (it reached the ONNX checker as "Invalid
// tensor data type 0"). Each is refused naming the node or value, its op
// and the field.
#include <doctest/doctest.h>

#include "pt2_cli.hpp"

using namespace mx::hostile;

namespace {

// tiny_mlp with node `k`'s metadata.nn_module_stack set to `stack`.
fs::path with_module_stack(const Scratch& s, size_t k, const nlohmann::json& stack) {
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  nlohmann::json program = a.json("models/model.json");
  program["graph_module"]["graph"]["nodes"][k]["metadata"]["nn_module_stack"] = stack;
  a.set_json("models/model.json", program);
  const fs::path out = s.models() / ("stack" + std::to_string(k) + ".pt2");
  write_pt2(out, a);
  return out;
}

fs::path with_dtype(const Scratch& s, const std::string& value, int64_t code) {
  Pt2 a = read_pt2(pt2_fixture("tiny_mlp"));
  nlohmann::json program = a.json("models/model.json");
  program["graph_module"]["graph"]["tensor_values"][value]["dtype"] = code;
  a.set_json("models/model.json", program);
  const fs::path out = s.models() / ("dtype" + std::to_string(code) + ".pt2");
  write_pt2(out, a);
  return out;
}

}  // namespace

TEST_CASE("a malformed nn_module_stack is refused naming its own node, op and the field") {
  Scratch s("pt2_module_stack");
  // gelu is node 3: the error named linear_1, the node before it.
  const fs::path not_text = with_module_stack(s, 3, 5);
  const std::string why = "node 'gelu' (aten.gelu.default): metadata.nn_module_stack must be a string, got 5";
  check_refused(export_pt2(s, not_text), s, why);
  check_refused(hierarchy_of_pt2(s, not_text), s, why);
  // The first node: the error said node '?'.
  const fs::path garbage = with_module_stack(s, 0, "L__self__;garbage");
  check_refused(
      export_pt2(s, garbage), s,
      "node 'linear' (aten.linear.default): metadata.nn_module_stack entry 0 (L__self__) is not of the "
      "form key,path,class");
  check_refused(hierarchy_of_pt2(s, garbage), s, "metadata.nn_module_stack entry 0");
}

TEST_CASE("a value's dtype code outside torch.export's ScalarType is refused naming the value") {
  Scratch s("pt2_dtype_code");
  const fs::path unknown = with_dtype(s, "relu", 99);
  check_refused(export_pt2(s, unknown), s,
                "tensor_values 'relu': dtype 99 is not a torch.export ScalarType code");
  check_refused(hierarchy_of_pt2(s, unknown), s, "dtype 99 is not a torch.export ScalarType code");
  // uint16 (28) is a code of the schema ONNX export has no type for here:
  // on the model's output it is named, not left to the ONNX checker.
  check_refused(export_pt2(s, with_dtype(s, "linear_2", 28)), s,
                "output 'linear_2' has a dtype ONNX cannot express");
}
