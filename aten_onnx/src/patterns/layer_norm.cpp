// Layer normalisation: LayerNormalization (opset 17) or its decomposition;
// the moments it and the other normalisations divide by.
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

Moments emit_moments(OnnxEmitter& e, const std::string& x, const std::vector<int64_t>& axes, double eps,
                     int32_t dtype) {
  Moments m;
  m.mean = emit_reduce(e, "ReduceMean", x, axes, true);
  m.deviation = e.emit1("Sub", {x, m.mean});
  const std::string var =
      emit_reduce(e, "ReduceMean", e.emit1("Mul", {m.deviation, m.deviation}), axes, true);
  m.std = e.emit1("Sqrt", {e.emit1("Add", {var, e.cscalar(eps, dtype)})});
  return m;
}

std::string emit_layer_norm(OnnxEmitter& e, const std::string& x, int64_t x_rank, int64_t n_axes,
                            const std::string& w, const std::string& b, double eps, int32_t dtype) {
  if (e.opset >= 17 && !w.empty()) {
    std::vector<std::string> ins = {x, w};
    if (!b.empty()) ins.push_back(b);
    return e.emit1("LayerNormalization", ins,
                   {attr("axis", -n_axes), attr("epsilon", static_cast<float>(eps))});
  }
  std::vector<int64_t> axes;
  for (int64_t k = x_rank - n_axes; k < x_rank; ++k) axes.push_back(k);
  const Moments m = emit_moments(e, x, axes, eps, dtype);
  std::string y = e.emit1("Div", {m.deviation, m.std});
  if (!w.empty()) y = e.emit1("Mul", {y, w});
  if (!b.empty()) y = e.emit1("Add", {y, b});
  return y;
}

}  // namespace mx::aten_onnx
