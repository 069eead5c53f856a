// Layer normalisation: LayerNormalization (opset 17) or its decomposition.
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

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
  std::string mean = e.emit1("ReduceMean", {x}, {attr("axes", axes), attr("keepdims", int64_t{1})});
  std::string d = e.emit1("Sub", {x, mean});
  std::string var =
      e.emit1("ReduceMean", {e.emit1("Mul", {d, d})}, {attr("axes", axes), attr("keepdims", int64_t{1})});
  std::string den = e.emit1("Sqrt", {e.emit1("Add", {var, e.cscalar(eps, dtype)})});
  std::string y = e.emit1("Div", {d, den});
  if (!w.empty()) y = e.emit1("Mul", {y, w});
  if (!b.empty()) y = e.emit1("Add", {y, b});
  return y;
}

}  // namespace mx::aten_onnx
