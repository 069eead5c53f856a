#include "mx/common/aten_op_classes.hpp"

#include <unordered_map>

namespace mx::common {
namespace {

using Ops = std::vector<std::string>;

// aten ops whose ONNX op types are not just their own name.
const std::unordered_map<std::string, Ops>& aliases() {
  static const std::unordered_map<std::string, Ops> table = {
      // arithmetic spelled differently
      {"rsub", {"Sub"}},
      {"rsqrt", {"Sqrt", "Reciprocal", "Div"}},
      {"floor_divide", {"Div", "Floor", "Cast"}},
      {"true_divide", {"Div"}},
      {"square", {"Mul", "Pow"}},
      {"baddbmm", {"MatMul", "Mul", "Add"}},
      // linear algebra
      {"linear", {"Gemm", "MatMul"}},
      {"addmm", {"Gemm"}},
      {"mm", {"MatMul", "Gemm"}},
      {"bmm", {"MatMul"}},
      {"einsum", {"Einsum", "MatMul"}},
      {"_convolution", {"Conv", "ConvTranspose"}},
      {"conv1d", {"Conv"}},
      {"conv2d", {"Conv"}},
      {"conv3d", {"Conv"}},
      {"conv_transpose1d", {"ConvTranspose"}},
      {"conv_transpose2d", {"ConvTranspose"}},
      {"conv_transpose3d", {"ConvTranspose"}},
      // layout
      {"cat", {"Concat"}},
      {"concat", {"Concat"}},
      {"stack", {"Concat", "Unsqueeze"}},
      {"permute", {"Transpose"}},
      {"t", {"Transpose"}},
      {"swapaxes", {"Transpose"}},
      {"view", {"Reshape"}},
      {"reshape", {"Reshape"}},
      {"view_as", {"Reshape"}},
      {"reshape_as", {"Reshape"}},
      {"flatten", {"Flatten", "Reshape"}},
      {"unflatten", {"Reshape"}},
      {"expand_as", {"Expand"}},
      {"repeat", {"Tile"}},
      {"split", {"Split", "Slice"}},
      {"split_with_sizes", {"Split", "Slice"}},
      {"chunk", {"Split", "Slice"}},
      {"unbind", {"Split", "Squeeze", "Gather"}},
      {"narrow", {"Slice"}},
      {"select", {"Gather"}},
      {"index_select", {"Gather"}},
      {"index", {"Gather", "GatherND"}},
      {"embedding", {"Gather"}},
      {"gather", {"GatherElements"}},
      {"scatter", {"ScatterElements"}},
      {"pixel_shuffle", {"DepthToSpace", "Reshape", "Transpose"}},
      {"size", {"Shape", "Gather"}},
      // casts and copies
      {"to", {"Cast"}},
      {"type_as", {"Cast"}},
      {"float", {"Cast"}},
      {"half", {"Cast"}},
      {"long", {"Cast"}},
      {"bool", {"Cast"}},
      {"clone", {"Identity"}},
      {"copy", {"Identity", "Expand", "ScatterND", "Where"}},
      // reductions
      {"mean", {"ReduceMean"}},
      {"sum", {"ReduceSum"}},
      {"prod", {"ReduceProd"}},
      {"amax", {"ReduceMax"}},
      {"amin", {"ReduceMin"}},
      {"max", {"ReduceMax", "Max", "ArgMax"}},
      {"min", {"ReduceMin", "Min", "ArgMin"}},
      {"maximum", {"Max"}},
      {"minimum", {"Min"}},
      {"norm", {"ReduceL2", "ReduceL1", "ReduceSumSquare", "Sqrt"}},
      {"linalg_vector_norm", {"ReduceL2", "ReduceL1", "ReduceSumSquare", "Sqrt"}},
      {"var", {"ReduceMean", "Sub", "Mul", "Div"}},
      {"std", {"ReduceMean", "Sub", "Mul", "Div", "Sqrt"}},
      {"cumsum", {"CumSum"}},
      // comparisons and masks
      {"gt", {"Greater"}},
      {"lt", {"Less"}},
      {"ge", {"GreaterOrEqual", "Less", "Not"}},
      {"le", {"LessOrEqual", "Greater", "Not"}},
      {"eq", {"Equal"}},
      {"ne", {"Equal", "Not"}},
      {"logical_not", {"Not"}},
      {"logical_and", {"And"}},
      {"logical_or", {"Or"}},
      {"bitwise_not", {"Not"}},
      {"masked_fill", {"Where", "Cast"}},
      {"triu", {"Trilu"}},
      {"tril", {"Trilu"}},
      // creation
      {"arange", {"Range", "Cast"}},
      {"zeros", {"ConstantOfShape"}},
      {"ones", {"ConstantOfShape"}},
      {"full", {"ConstantOfShape", "Expand"}},
      {"zeros_like", {"ConstantOfShape", "Shape"}},
      {"ones_like", {"ConstantOfShape", "Shape"}},
      {"full_like", {"ConstantOfShape", "Shape", "Expand"}},
      {"new_zeros", {"ConstantOfShape"}},
      {"new_ones", {"ConstantOfShape"}},
      {"new_full", {"ConstantOfShape"}},
      // activations and normalisation
      {"silu", {"Sigmoid", "Mul"}},
      {"gelu", {"Gelu", "Erf", "Div", "Mul", "Add", "Tanh", "Pow"}},
      {"hardswish", {"HardSwish", "HardSigmoid", "Mul"}},
      {"hardsigmoid", {"HardSigmoid"}},
      {"hardtanh", {"Clip"}},
      {"relu6", {"Clip", "Relu"}},
      {"clamp", {"Clip", "Max", "Min"}},
      {"clip", {"Clip"}},
      {"leaky_relu", {"LeakyRelu"}},
      {"mish", {"Mish", "Softplus", "Tanh", "Mul"}},
      {"log_softmax", {"LogSoftmax"}},
      {"layer_norm", {"LayerNormalization", "ReduceMean", "Sub", "Pow", "Sqrt", "Div"}},
      {"batch_norm", {"BatchNormalization"}},
      {"instance_norm", {"InstanceNormalization"}},
      {"group_norm", {"InstanceNormalization", "Reshape", "Mul", "Add"}},
      {"dropout", {"Dropout"}},
      // pooling, padding, resizing
      {"adaptive_avg_pool1d", {"GlobalAveragePool", "AveragePool", "ReduceMean"}},
      {"adaptive_avg_pool2d", {"GlobalAveragePool", "AveragePool", "ReduceMean"}},
      {"adaptive_avg_pool3d", {"GlobalAveragePool", "AveragePool", "ReduceMean"}},
      {"adaptive_max_pool2d", {"GlobalMaxPool", "MaxPool"}},
      {"max_pool1d", {"MaxPool"}},
      {"max_pool2d", {"MaxPool"}},
      {"max_pool3d", {"MaxPool"}},
      {"avg_pool1d", {"AveragePool"}},
      {"avg_pool2d", {"AveragePool"}},
      {"avg_pool3d", {"AveragePool"}},
      {"constant_pad_nd", {"Pad"}},
      {"reflection_pad2d", {"Pad"}},
      {"replication_pad2d", {"Pad"}},
      {"upsample_nearest2d", {"Resize"}},
      {"upsample_bilinear2d", {"Resize"}},
      {"interpolate", {"Resize"}},
  };
  return table;
}

// aten ops that become the ONNX op of the same name ("mul" -> "Mul").
const std::unordered_map<std::string, std::string>& same_name() {
  static const std::unordered_map<std::string, std::string> ops = {{"add", "Add"},
                                                                   {"sub", "Sub"},
                                                                   {"mul", "Mul"},
                                                                   {"div", "Div"},
                                                                   {"pow", "Pow"},
                                                                   {"sqrt", "Sqrt"},
                                                                   {"exp", "Exp"},
                                                                   {"log", "Log"},
                                                                   {"erf", "Erf"},
                                                                   {"neg", "Neg"},
                                                                   {"abs", "Abs"},
                                                                   {"sin", "Sin"},
                                                                   {"cos", "Cos"},
                                                                   {"tanh", "Tanh"},
                                                                   {"sigmoid", "Sigmoid"},
                                                                   {"relu", "Relu"},
                                                                   {"elu", "Elu"},
                                                                   {"selu", "Selu"},
                                                                   {"celu", "Celu"},
                                                                   {"softplus", "Softplus"},
                                                                   {"softmax", "Softmax"},
                                                                   {"matmul", "MatMul"},
                                                                   {"where", "Where"},
                                                                   {"expand", "Expand"},
                                                                   {"floor", "Floor"},
                                                                   {"ceil", "Ceil"},
                                                                   {"round", "Round"},
                                                                   {"sign", "Sign"},
                                                                   {"reciprocal", "Reciprocal"},
                                                                   {"unsqueeze", "Unsqueeze"},
                                                                   {"squeeze", "Squeeze"},
                                                                   {"transpose", "Transpose"},
                                                                   {"slice", "Slice"},
                                                                   {"topk", "TopK"},
                                                                   {"argmax", "ArgMax"},
                                                                   {"argmin", "ArgMin"},
                                                                   {"pad", "Pad"}};
  return ops;
}

}  // namespace

std::optional<std::vector<std::string>> onnx_ops_of(std::string_view op_kind) {
  constexpr std::string_view prefix = "aten::";
  if (op_kind.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string name(op_kind.substr(prefix.size()));
  if (name.size() > 1 && name.back() == '_') name.pop_back();  // in-place: add_, mul_
  auto alias = aliases().find(name);
  auto direct = same_name().find(name);
  if (alias == aliases().end() && direct == same_name().end()) return std::nullopt;
  Ops ops = alias != aliases().end() ? alias->second : Ops{};
  if (direct != same_name().end()) ops.push_back(direct->second);
  return ops;
}

}  // namespace mx::common
