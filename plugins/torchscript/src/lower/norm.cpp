// Normalisation: layer_norm, batch_norm (eval), group_norm, instance_norm,
// _weight_norm.
#include "ctx.hpp"

namespace mx::torchscript {
namespace {

void lower_layer_norm(Ctx& cx, const tj::Node*) {
  auto shape = cx.arg_int_list(1);
  auto dt = cx.out_st();
  std::string w = !cx.is_none(2) ? cx.tensor(2) : "";
  std::string b = !cx.is_none(3) ? cx.tensor(3) : "";
  if (w.empty() && cx.opset >= 17) w = cx.constant(at::ones(shape, at::TensorOptions().dtype(dt)));
  cx.out(0, emit_layer_norm(cx, cx.tensor(0), cx.rank(0), static_cast<int64_t>(shape.size()), w, b,
                            cx.arg_double(4), onnx_type_of(dt)));
}
MXTS_LOWER(lower_layer_norm, "aten::layer_norm");

void lower_batch_norm(Ctx& cx, const tj::Node*) {
  // batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn)
  if (cx.arg_bool(5)) cx.unsupported("batch_norm in training mode (call model.eval() before tracing)");
  auto dt = cx.out_st();
  int64_t c = cx.ex_t(0).size(1);
  auto opts = at::TensorOptions().dtype(dt);
  std::string w = !cx.is_none(1) ? cx.tensor(1) : cx.constant(at::ones({c}, opts));
  std::string b = !cx.is_none(2) ? cx.tensor(2) : cx.constant(at::zeros({c}, opts));
  cx.out(0, cx.emit1("BatchNormalization", {cx.tensor(0), w, b, cx.tensor(3), cx.tensor(4)},
                     {attr("epsilon", static_cast<float>(cx.arg_double(7)))}));
}
MXTS_LOWER(lower_batch_norm, "aten::batch_norm");

// group_norm(input, num_groups, weight, bias, eps): the shared pattern.
void lower_group_norm(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_st();
  cx.out(0, mx::aten_onnx::emit_group_norm(
                cx, cx.tensor_as(0, dt), cx.rank(0), cx.arg_int(1), cx.is_none(2) ? "" : cx.tensor(2),
                cx.is_none(3) ? "" : cx.tensor(3), cx.arg_double(4), onnx_type_of(dt)));
}
MXTS_LOWER(lower_group_norm, "aten::group_norm");

// instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn)
void lower_instance_norm(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_st();
  int64_t c = cx.ex_t(0).size(1);
  auto opts = at::TensorOptions().dtype(dt);
  std::string w = !cx.is_none(1) ? cx.tensor(1) : cx.constant(at::ones({c}, opts));
  std::string b = !cx.is_none(2) ? cx.tensor(2) : cx.constant(at::zeros({c}, opts));
  if (!cx.arg_bool(5)) {  // running statistics (track_running_stats in eval)
    cx.out(0, cx.emit1("BatchNormalization", {cx.tensor(0), w, b, cx.tensor(3), cx.tensor(4)},
                       {attr("epsilon", static_cast<float>(cx.arg_double(7)))}));
    return;
  }
  cx.out(0, cx.emit1("InstanceNormalization", {cx.tensor(0), w, b},
                     {attr("epsilon", static_cast<float>(cx.arg_double(7)))}));
}
MXTS_LOWER(lower_instance_norm, "aten::instance_norm");

void lower_weight_norm(Ctx& cx, const tj::Node*) {
  // _weight_norm(v, g, dim) = v * g / ||v|| over every dim but `dim` (all dims when dim == -1)
  auto dt = cx.out_st();
  int64_t r = cx.rank(0), dim = cx.arg_int(2);
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < r; ++d)
    if (dim == -1 || d != norm_dim(dim, r)) axes.push_back(d);
  std::string v = cx.tensor_as(0, dt);
  std::string nrm = cx.emit1("ReduceL2", {v}, {attr("axes", axes), attr("keepdims", int64_t{1})});
  cx.out(0, cx.emit1("Mul", {v, cx.emit1("Div", {cx.tensor_as(1, dt), nrm})}));
}
MXTS_LOWER(lower_weight_norm, "aten::_weight_norm");

}  // namespace
}  // namespace mx::torchscript
