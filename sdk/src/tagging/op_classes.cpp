#include "tagging/op_classes.hpp"

#include <cctype>
#include <set>

namespace modelexport {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool is_layout_op(const std::string& op) {
  static const std::set<std::string> ops = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten"};
  return ops.count(op) != 0;
}

bool is_arithmetic(const std::string& op) {
  static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Pow"};
  return ops.count(op) != 0;
}

bool is_glue(const std::string& op) {
  static const std::set<std::string> ops = {"Constant", "Shape", "Gather", "Unsqueeze", "Squeeze",
                                            "Concat", "Cast", "Reshape", "Identity", "Slice", "Size"};
  return ops.count(op) != 0;
}

std::vector<std::string> ops_of_module_class(const std::string& cls) {
  const std::string c = lower(cls);
  auto has = [&](const char* s) { return c.find(s) != std::string::npos; };
  if (has("hardswish")) return {"HardSwish", "HardSigmoid", "Mul"};  // before "swish"
  if (has("relu6")) return {"Clip", "Relu"};
  if (has("leakyrelu")) return {"LeakyRelu"};
  if (has("gelu")) return {"Gelu", "Erf", "Tanh", "Pow", "Sqrt", "Mul", "Div", "Add"};
  if (has("silu") || has("swish")) return {"Sigmoid", "Mul", "HardSigmoid"};
  if (has("hardsigmoid")) return {"HardSigmoid"};
  if (has("hardtanh")) return {"Clip"};
  if (has("mish")) return {"Mish", "Softplus", "Tanh", "Mul"};
  if (has("relu")) return {"Relu"};  // before "elu", which it contains
  if (has("selu")) return {"Selu"};
  if (has("celu")) return {"Celu"};
  if (has("elu")) return {"Elu"};
  if (has("sigmoid")) return {"Sigmoid"};
  if (has("tanh")) return {"Tanh"};
  if (has("logsoftmax")) return {"LogSoftmax"};
  if (has("softmax")) return {"Softmax"};
  if (has("softplus")) return {"Softplus"};
  if (has("adaptiveavgpool")) return {"GlobalAveragePool", "AveragePool", "ReduceMean"};
  if (has("adaptivemaxpool")) return {"GlobalMaxPool", "MaxPool", "ReduceMax"};
  if (has("maxpool")) return {"MaxPool"};
  if (has("avgpool")) return {"AveragePool"};
  if (has("flatten")) return {"Flatten", "Reshape"};
  if (has("dropout")) return {"Dropout"};
  if (has("identity")) return {"Identity"};
  if (has("upsample")) return {"Resize"};
  if (has("pixelshuffle")) return {"DepthToSpace"};
  if (has("pad")) return {"Pad"};
  return {};
}

}  // namespace modelexport
