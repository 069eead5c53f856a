#include "tagging/op_classes.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>

namespace mx {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A handful of names: a linear scan of views beats a tree of strings
// (asked several times for each of 200,000 nodes).
template <size_t N>
bool one_of(const std::string_view (&ops)[N], std::string_view op) {
  return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}

}  // namespace

bool is_layout_op(std::string_view op) {
  static constexpr std::string_view ops[] = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten"};
  return one_of(ops, op);
}

bool is_arithmetic(std::string_view op) {
  static constexpr std::string_view ops[] = {"Add", "Sub", "Mul", "Div", "Pow"};
  return one_of(ops, op);
}

bool is_glue(std::string_view op) {
  static constexpr std::string_view ops[] = {"Constant", "Shape",  "Gather", "Unsqueeze",
                                             "Squeeze",  "Concat", "Cast",   "Reshape",
                                             "Identity", "Slice",  "Size"};
  return one_of(ops, op);
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

}  // namespace mx
