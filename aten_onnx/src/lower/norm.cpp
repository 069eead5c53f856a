// Normalisation: batch_norm (eval) and core ATen's
// _native_batch_norm_legit_no_training, layer_norm / native_layer_norm,
// group_norm, rms_norm, renorm, embedding_renorm.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

std::string ones_or(OpContext& cx, const std::string& name, int64_t c, double fill, int32_t dt) {
  return cx.has(name) ? cx.tensor(name) : cx.constant(mx::aten_onnx::filled_tensor(dt, {c}, fill));
}

// The mean/var outputs of core ATen's variant are unused in eval graphs;
// they are left unbound, so a use of them is a clear error.
void lower_batch_norm(OpContext& cx) {
  if (cx.target().rfind("aten.batch_norm", 0) == 0 && cx.bool_arg("training", false))
    cx.unsupported("batch_norm in training mode (call model.eval() before torch.export.export)");
  const int32_t dt = cx.out_dtype();
  const auto& shape = cx.value_of("input").shape;
  if (shape.size() < 2 || !shape[1].is_static) cx.unsupported("batch_norm needs a static channel dim");
  const int64_t c = shape[1].value;
  cx.out(0, cx.emit1("BatchNormalization",
                     {cx.tensor("input"), ones_or(cx, "weight", c, 1, dt), ones_or(cx, "bias", c, 0, dt),
                      cx.tensor("running_mean"), cx.tensor("running_var")},
                     {attr("epsilon", static_cast<float>(cx.float_arg("eps", 1e-5)))}));
}
MX_ATEN_LOWER(lower_batch_norm, "aten.batch_norm", "aten._native_batch_norm_legit_no_training");

// instance_norm(input, weight, bias, running_mean, running_var,
// use_input_stats, momentum, eps, cudnn_enabled) -> InstanceNormalization;
// core ATen's _native_batch_norm_legit.no_stats (what instance norm
// decomposes to, on a [1, N*C, ...] view whose channel count is dynamic
// with the batch): batch statistics per channel over every other dim,
// written out (mean, variance, affine broadcast over [C, 1, ...]).
void lower_instance_norm(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const float eps = static_cast<float>(cx.float_arg("eps", 1e-5));
  const auto& shape = cx.value_of("input").shape;
  const int64_t r = static_cast<int64_t>(shape.size());
  if (r < 3) cx.unsupported("instance/batch statistics of an input without spatial dims");
  const std::string x = cx.operand("input", dt);
  if (cx.target().rfind("aten._native_batch_norm_legit", 0) != 0) {
    if (!shape[1].is_static) cx.unsupported("instance_norm with a dynamic channel dim");
    const int64_t c = shape[1].value;
    if (!cx.bool_arg("use_input_stats", true))  // track_running_stats in eval: the running statistics
      return cx.out(0, cx.emit1("BatchNormalization",
                                {x, ones_or(cx, "weight", c, 1, dt), ones_or(cx, "bias", c, 0, dt),
                                 cx.tensor("running_mean"), cx.tensor("running_var")},
                                {attr("epsilon", eps)}));
    return cx.out(0, cx.emit1("InstanceNormalization",
                              {x, ones_or(cx, "weight", c, 1, dt), ones_or(cx, "bias", c, 0, dt)},
                              {attr("epsilon", eps)}));
  }
  if (!cx.bool_arg("training", true)) cx.unsupported("_native_batch_norm_legit.no_stats without training");
  std::vector<int64_t> axes = {0};
  for (int64_t k = 2; k < r; ++k) axes.push_back(k);
  const Moments m = emit_moments(cx, x, axes, eps, dt);
  std::string y = cx.emit1("Div", {m.deviation, m.std});
  std::vector<int64_t> trailing;
  for (int64_t k = 1; k < r - 1; ++k) trailing.push_back(k);
  if (cx.has("weight")) y = cx.emit1("Mul", {y, cx.unsqueeze(cx.operand("weight", dt), trailing)});
  if (cx.has("bias")) y = cx.emit1("Add", {y, cx.unsqueeze(cx.operand("bias", dt), trailing)});
  cx.out(0, y);  // save_mean / save_rstd (outputs 1, 2) are for backward: unbound
}
MX_ATEN_LOWER(lower_instance_norm, "aten.instance_norm", "aten._native_batch_norm_legit.no_stats");

// native_layer_norm's and native_group_norm's outputs 1 and 2, saved for
// backward but readable by a program: the mean and 1 / sqrt(var + eps)
// over `axes` (kept as dims of 1), in the outputs' dtype.
std::pair<std::string, std::string> normalization_stats(OpContext& cx, const std::string& x0,
                                                        const std::vector<int64_t>& axes, double eps) {
  const int32_t dt = cx.out_dtype(1);
  const std::string x = cx.cast(x0, cx.dtype_of("input"), dt);
  const Moments m = emit_moments(cx, x, axes, eps, dt);
  return {m.mean, cx.emit1("Reciprocal", {m.std})};
}

void lower_layer_norm(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const auto shape = cx.ints("normalized_shape");
  std::string w = cx.has("weight") ? cx.tensor("weight") : "";
  std::string b = cx.has("bias") ? cx.tensor("bias") : "";
  if (w.empty() && cx.opset >= 17) w = cx.constant(mx::aten_onnx::filled_tensor(dt, shape, 1.0));
  cx.out(0, mx::aten_onnx::emit_layer_norm(cx, cx.tensor("input"), cx.rank_of("input"),
                                           static_cast<int64_t>(shape.size()), w, b,
                                           cx.float_arg("eps", 1e-5), dt));
  if (cx.n_outputs() > 2 && (cx.output_is_tensor(1) || cx.output_is_tensor(2))) {
    std::vector<int64_t> axes;
    for (int64_t k = cx.rank_of("input") - static_cast<int64_t>(shape.size()); k < cx.rank_of("input"); ++k)
      axes.push_back(k);
    const auto [mean, rstd] = normalization_stats(cx, cx.tensor("input"), axes, cx.float_arg("eps", 1e-5));
    cx.out(1, mean);
    cx.out(2, rstd);
  }
}
MX_ATEN_LOWER(lower_layer_norm, "aten.layer_norm", "aten.native_layer_norm");

// group_norm(input, num_groups, weight, bias, eps): the shared pattern.
void lower_group_norm(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  // group_norm(input, num_groups, weight, bias, eps); core ATen's
  // native_group_norm(input, weight, bias, N, C, HxW, group, eps).
  const bool native = cx.target().rfind("aten.native_group_norm", 0) == 0;
  cx.out(0, mx::aten_onnx::emit_group_norm(
                cx, cx.tensor("input"), cx.rank_of("input"), cx.int_arg(native ? "group" : "num_groups"),
                cx.has("weight") ? cx.tensor("weight") : "", cx.has("bias") ? cx.tensor("bias") : "",
                cx.float_arg("eps", 1e-5), dt));
  if (!native || !(cx.output_is_tensor(1) || cx.output_is_tensor(2))) return;
  // mean and rstd per (n, group): [N, group], from the input as [N, group, -1]
  const int64_t groups = cx.int_arg("group");
  const std::string grouped = cx.emit1("Reshape", {cx.tensor("input"), cx.ci64({0, groups, -1})});
  const auto [mean, rstd] = normalization_stats(cx, grouped, {2}, cx.float_arg("eps", 1e-5));
  cx.out(1, cx.squeeze(mean, {2}));
  cx.out(2, cx.squeeze(rstd, {2}));
}
MX_ATEN_LOWER(lower_group_norm, "aten.group_norm", "aten.native_group_norm");

// rms_norm(input, normalized_shape, weight=None, eps=None) (nn.RMSNorm at
// the TRAINING level) and _fused_rms_norm (-> result, rstd): written out as
// ATen's decomposition does it - in float32 for half inputs (double stays
// double), eps defaulting to that dtype's machine epsilon, the weight
// applied before the cast back. The graph pass fuse_rms_norms makes
// RMSNormalization of it where the opset has that op.
void lower_rms_norm(OpContext& cx) {
  const int32_t in_dt = cx.dtype_of("input");
  const int32_t dt = in_dt == onnx::TensorProto::DOUBLE ? in_dt : onnx::TensorProto::FLOAT;
  const int64_t r = cx.rank_of("input"), n = static_cast<int64_t>(cx.list_length("normalized_shape"));
  std::vector<int64_t> axes;
  for (int64_t k = r - n; k < r; ++k) axes.push_back(k);
  const double eps =
      cx.float_arg("eps", dt == onnx::TensorProto::DOUBLE ? 2.220446049250313e-16 : 1.1920928955078125e-07);
  const std::string x = cx.operand("input", dt);
  const std::string ms = mx::aten_onnx::emit_reduce(cx, "ReduceMean", cx.emit1("Mul", {x, x}), axes, true);
  const std::string rstd =
      cx.emit1("Reciprocal", {cx.emit1("Sqrt", {cx.emit1("Add", {ms, cx.cscalar(eps, dt)})})});
  std::string y = cx.emit1("Mul", {x, rstd});
  if (cx.has("weight")) y = cx.emit1("Mul", {y, cx.operand("weight", dt)});
  cx.out(0, cx.cast(y, dt, cx.out_dtype(0)));
  if (cx.n_outputs() > 1) cx.out(1, cx.cast(rstd, dt, cx.out_dtype(1)));
}
MX_ATEN_LOWER(lower_rms_norm, "aten.rms_norm", "aten._fused_rms_norm");

// The factor renorm scales each slice by: maxnorm / (norm + 1e-7) where the
// slice's p-norm over `axes` exceeds maxnorm (ATen's epsilon), else 1.
std::string renorm_factor(OpContext& cx, const std::string& x, const std::vector<int64_t>& axes, double p,
                          double maxnorm, int32_t dt) {
  const std::string ax = cx.emit1("Abs", {x});
  std::string norm;
  if (p == 1) {
    norm = mx::aten_onnx::emit_reduce(cx, "ReduceSum", ax, axes, true);
  } else if (p == 2) {
    norm =
        cx.emit1("Sqrt", {mx::aten_onnx::emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {x, x}), axes, true)});
  } else {
    const std::string powed = cx.emit1("Pow", {ax, cx.cscalar(p, dt)});
    norm = cx.emit1(
        "Pow", {mx::aten_onnx::emit_reduce(cx, "ReduceSum", powed, axes, true), cx.cscalar(1.0 / p, dt)});
  }
  const std::string m = cx.cscalar(maxnorm, dt);
  return cx.emit1("Where",
                  {cx.emit1("Greater", {norm, m}),
                   cx.emit1("Div", {m, cx.emit1("Add", {norm, cx.cscalar(1e-7, dt)})}), cx.cscalar(1, dt)});
}

// renorm(self, p, dim, maxnorm): each slice along `dim` whose p-norm
// exceeds maxnorm scaled to it.
void lower_renorm(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("self"), dim = norm_dim(cx.int_arg("dim"), r);
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < r; ++k)
    if (k != dim) axes.push_back(k);
  const std::string x = cx.operand("self", dt);
  cx.out(0, cx.emit1("Mul", {x, renorm_factor(cx, x, axes, cx.float_arg("p"), cx.float_arg("maxnorm"), dt)}));
}
MX_ATEN_LOWER(lower_renorm, "aten.renorm");

// embedding_renorm(self, indices, max_norm, norm_type) (nn.Embedding with
// max_norm, which renormalizes the looked-up rows of its weight before the
// lookup): the rows `indices` name are scaled as renorm scales them; the
// others stay. The in-place form's write to the weight is the frontend's.
void lower_embedding_renorm(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string w = cx.operand("self", dt);
  const std::string factor =
      renorm_factor(cx, w, {1}, cx.float_arg("norm_type"), cx.float_arg("max_norm"), dt);
  const std::string i64_rows = cx.emit1("Slice", {cx.shape_of(w), cx.ci64({0}), cx.ci64({1})});
  const std::string idx = cx.emit1(
      "Reshape",
      {cx.cast(cx.tensor("indices"), cx.dtype_of("indices"), onnx::TensorProto::INT64), cx.ci64({-1})});
  const std::string hit = cx.emit1(
      "ScatterElements",
      {cx.emit1("Expand", {cx.ci64s(0), i64_rows}), idx, cx.emit1("Expand", {cx.ci64s(1), cx.shape_of(idx)})},
      {attr("axis", int64_t{0})});
  const std::string named =
      cx.unsqueeze(cx.cast(hit, onnx::TensorProto::INT64, onnx::TensorProto::BOOL), {1});
  cx.out(0, cx.emit1("Mul", {w, cx.emit1("Where", {named, factor, cx.cscalar(1, dt)})}));
}
MX_ATEN_LOWER(lower_embedding_renorm, "aten.embedding_renorm", "aten.embedding_renorm_");

// _weight_norm(v, g, dim=0): g * v / ||v||, the norm over every dim but
// `dim` (over all of them for dim = -1, as ATen's norm_except_dim).
void lower_weight_norm(OpContext& cx) {
  const int64_t r = cx.rank_of("v"), raw = cx.int_arg("dim", 0), dim = raw == -1 ? -1 : norm_dim(raw, r);
  std::vector<int64_t> axes;
  for (int64_t k = 0; k < r; ++k)
    if (k != dim) axes.push_back(k);
  std::string v = cx.tensor("v");
  std::string norm =
      cx.emit1("Sqrt", {mx::aten_onnx::emit_reduce(cx, "ReduceSum", cx.emit1("Mul", {v, v}), axes, true)});
  cx.out(0, cx.emit1("Mul", {v, cx.emit1("Div", {cx.tensor("g"), norm})}));
}
MX_ATEN_LOWER(lower_weight_norm, "aten._weight_norm");

}  // namespace
}  // namespace mx::aten_onnx
