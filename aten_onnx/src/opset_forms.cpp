#include "opset_forms.hpp"

#include <algorithm>
#include <string_view>

#include <onnx/defs/schema.h>

#include "mx/aten_onnx/opset.hpp"

namespace mx::aten_onnx {
namespace {

bool takes_axes_input_from_18(std::string_view op) {
  static constexpr std::string_view kOps[] = {"ReduceMean", "ReduceMax",       "ReduceMin",
                                              "ReduceProd", "ReduceLogSumExp", "ReduceL1",
                                              "ReduceL2",   "ReduceLogSum",    "ReduceSumSquare"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

const onnx::AttributeProto* find_attr(const std::vector<onnx::AttributeProto>& attrs, std::string_view name) {
  for (const auto& a : attrs)
    if (a.name() == name) return &a;
  return nullptr;
}

std::vector<onnx::AttributeProto> without(const std::vector<onnx::AttributeProto>& attrs,
                                          std::string_view name) {
  std::vector<onnx::AttributeProto> out;
  for (const auto& a : attrs)
    if (a.name() != name) out.push_back(a);
  return out;
}

std::optional<NodeForm> reduction_axes_as_input(OnnxEmitter& e, const std::vector<std::string>& inputs,
                                                const std::vector<onnx::AttributeProto>& attrs) {
  const onnx::AttributeProto* axes = find_attr(attrs, "axes");
  if (!axes) return std::nullopt;  // no axes: all of them, in every opset
  NodeForm f{inputs, without(attrs, "axes")};
  f.inputs.resize(1);
  f.inputs.push_back(e.ci64({axes->ints().begin(), axes->ints().end()}));
  return f;
}

std::optional<NodeForm> split_num_outputs(const std::vector<std::string>& inputs,
                                          const std::vector<onnx::AttributeProto>& attrs, size_t n_out) {
  const bool has_sizes = inputs.size() > 1 && !inputs[1].empty();
  if (has_sizes || find_attr(attrs, "num_outputs")) return std::nullopt;
  NodeForm f{inputs, attrs};
  f.attrs.push_back(attr("num_outputs", static_cast<int64_t>(n_out)));
  return f;
}

std::optional<NodeForm> grid_sample_modes(const std::vector<std::string>& inputs,
                                          const std::vector<onnx::AttributeProto>& attrs) {
  const onnx::AttributeProto* mode = find_attr(attrs, "mode");
  if (!mode || (mode->s() != "bilinear" && mode->s() != "bicubic")) return std::nullopt;
  NodeForm f{inputs, without(attrs, "mode")};
  f.attrs.push_back(attr("mode", std::string(mode->s() == "bilinear" ? "linear" : "cubic")));
  return f;
}

std::optional<NodeForm> dft_axis_as_input(OnnxEmitter& e, const std::vector<std::string>& inputs,
                                          const std::vector<onnx::AttributeProto>& attrs) {
  const onnx::AttributeProto* axis = find_attr(attrs, "axis");
  // DFT-17's default axis is 1, DFT-20's -2: state it either way.
  const int64_t a = axis ? axis->i() : 1;
  NodeForm f{inputs, without(attrs, "axis")};
  f.inputs.resize(2);  // input, dft_length ("" = absent)
  f.inputs.push_back(e.ci64s(a));
  return f;
}

bool defines(const onnx::OpSchema* s, const std::vector<onnx::AttributeProto>& attrs) {
  if (!s) return false;
  for (const auto& a : attrs)
    if (!s->attributes().count(a.name())) return false;
  return true;
}

}  // namespace

void require_in_opset(const std::string& op, const std::vector<onnx::AttributeProto>& attrs, int opset) {
  const auto* registry = onnx::OpSchemaRegistry::Instance();
  const onnx::OpSchema* at_opset = registry->GetSchema(op, opset, "");
  if (defines(at_opset, attrs)) return;
  std::string what = op;
  if (at_opset) {
    what += " with";
    for (const auto& a : attrs)
      if (!at_opset->attributes().count(a.name())) what += " '" + a.name() + "'";
  }
  for (int v = opset + 1; v <= max_opset(); ++v)
    if (defines(registry->GetSchema(op, v, ""), attrs))
      throw OpsetTooLow("needs ONNX opset " + std::to_string(v) + " (" + what + "); this export is opset " +
                        std::to_string(opset) + ": export with --opset " + std::to_string(v) + " or newer");
  throw OpsetTooLow("ONNX has no " + what + " in any opset up to " + std::to_string(max_opset()));
}

std::optional<NodeForm> opset_form(OnnxEmitter& e, const std::string& op,
                                   const std::vector<std::string>& inputs,
                                   const std::vector<onnx::AttributeProto>& attrs, size_t n_out) {
  if (e.opset < 18) return std::nullopt;
  if (takes_axes_input_from_18(op)) return reduction_axes_as_input(e, inputs, attrs);
  if (op == "Split") return split_num_outputs(inputs, attrs, n_out);
  if (e.opset < 20) return std::nullopt;
  if (op == "GridSample") return grid_sample_modes(inputs, attrs);
  if (op == "DFT") return dft_axis_as_input(e, inputs, attrs);
  return std::nullopt;
}

}  // namespace mx::aten_onnx
