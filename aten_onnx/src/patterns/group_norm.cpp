// Group normalisation (nn.GroupNorm): ONNX GroupNormalization from opset 21
// (per-channel scale and bias; opset 18's version, per-group, was
// withdrawn), else the input as [N, G, -1] normalised per group, then the
// per-channel affine. Per group is InstanceNormalization of [N, G, -1] with
// unit scale and zero shift (one node, as torch.onnx writes it) for float32;
// ONNX Runtime's CPU InstanceNormalization is float32 only, so other dtypes
// compute the statistics node by node.
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// GroupNormalization-21 needs both scale and bias: a missing one is ones
// (zeros) of the channel count, read from the input's shape.
std::string channel_fill(OnnxEmitter& e, const std::string& x, double value, int32_t dt) {
  const std::string c = e.emit1("Slice", {e.shape_of(x), e.ci64({1}), e.ci64({2})});
  return e.emit1("Expand", {e.cscalar(value, dt), c});
}

}  // namespace

std::string emit_group_norm(OnnxEmitter& e, const std::string& x, int64_t rank, int64_t groups,
                            const std::string& w, const std::string& b, double eps, int32_t dt) {
  if (e.fused_ops && e.opset >= 21) {
    return e.emit1(
        "GroupNormalization",
        {x, w.empty() ? channel_fill(e, x, 1.0, dt) : w, b.empty() ? channel_fill(e, x, 0.0, dt) : b},
        {attr("num_groups", groups), attr("epsilon", static_cast<float>(eps))});
  }
  const std::string xg = e.emit1("Reshape", {x, e.ci64({0, groups, -1})});
  std::string y = dt == onnx::TensorProto::FLOAT
                      ? e.emit1("InstanceNormalization",
                                {xg, e.constant(filled_tensor(dt, {groups}, 1.0)),
                                 e.constant(filled_tensor(dt, {groups}, 0.0))},
                                {attr("epsilon", static_cast<float>(eps))})
                      : emit_layer_norm(e, xg, 3, 1, "", "", eps, dt);
  y = e.emit1("Reshape", {y, e.shape_of(x)});
  std::vector<int64_t> axes;
  for (int64_t k = 1; k < rank - 1; ++k) axes.push_back(k);
  if (!w.empty()) y = e.emit1("Mul", {y, axes.empty() ? w : e.unsqueeze(w, axes)});
  if (!b.empty()) y = e.emit1("Add", {y, axes.empty() ? b : e.unsqueeze(b, axes)});
  return y;
}

}  // namespace mx::aten_onnx
