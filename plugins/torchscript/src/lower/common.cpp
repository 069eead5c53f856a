#include "lower/common.h"

#include <cmath>

namespace mxts {

std::string emit_linear(Ctx& cx, const std::string& x, int64_t x_rank, const std::string& w,
                        const std::string& b) {
  if (x_rank == 2) {
    std::vector<std::string> ins = {x, w};
    if (!b.empty()) ins.push_back(b);
    return cx.emit1("Gemm", ins, {attr("transB", int64_t{1})});
  }
  std::string y = cx.emit1("MatMul", {x, cx.transpose(w, {1, 0})});
  return b.empty() ? y : cx.emit1("Add", {y, b});
}

std::string emit_layer_norm(Ctx& cx, const std::string& x, int64_t x_rank, int64_t n_axes,
                            const std::string& w, const std::string& b, double eps,
                            at::ScalarType dtype) {
  if (cx.opset >= 17 && !w.empty()) {
    std::vector<std::string> ins = {x, w};
    if (!b.empty()) ins.push_back(b);
    return cx.emit1("LayerNormalization", ins,
                    {attr("axis", -n_axes), attr("epsilon", static_cast<float>(eps))});
  }
  std::vector<int64_t> axes;
  for (int64_t k = x_rank - n_axes; k < x_rank; ++k) axes.push_back(k);
  std::string mean = cx.emit1("ReduceMean", {x}, {attr("axes", axes), attr("keepdims", int64_t{1})});
  std::string d = cx.emit1("Sub", {x, mean});
  std::string var = cx.emit1("ReduceMean", {cx.emit1("Mul", {d, d})},
                              {attr("axes", axes), attr("keepdims", int64_t{1})});
  std::string den = cx.emit1("Sqrt", {cx.emit1("Add", {var, cx.cscalar(eps, dtype)})});
  std::string y = cx.emit1("Div", {d, den});
  if (!w.empty()) y = cx.emit1("Mul", {y, w});
  if (!b.empty()) y = cx.emit1("Add", {y, b});
  return y;
}

std::string emit_gelu(Ctx& cx, const std::string& x, const std::string& approximate,
                      at::ScalarType dt) {
  std::string half_x = cx.emit1("Mul", {x, cx.cscalar(0.5, dt)});
  std::string inner;
  if (approximate == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    std::string x3 = cx.emit1("Mul", {cx.emit1("Mul", {x, x}), x});
    std::string s = cx.emit1("Add", {x, cx.emit1("Mul", {x3, cx.cscalar(0.044715, dt)})});
    inner = cx.emit1("Tanh", {cx.emit1("Mul", {s, cx.cscalar(std::sqrt(2.0 / M_PI), dt)})});
  } else {
    // 0.5 x (1 + erf(x / sqrt 2))
    inner = cx.emit1("Erf", {cx.emit1("Div", {x, cx.cscalar(std::sqrt(2.0), dt)})});
  }
  return cx.emit1("Mul", {half_x, cx.emit1("Add", {inner, cx.cscalar(1.0, dt)})});
}

std::pair<std::string, std::string> emit_attention(Ctx& cx, const std::string& q, const std::string& k,
                                                   const std::string& v, const std::string& mask_add,
                                                   double scale, at::ScalarType dt) {
  // scores = (q * scale) @ k^T, as ATen scales q first
  std::string qs = cx.emit1("Mul", {q, cx.cscalar(scale, dt)});
  std::string kt = cx.emit1("Transpose", {k}, {attr("perm", std::vector<int64_t>{0, 1, 3, 2})});
  std::string s = cx.emit1("MatMul", {qs, kt});
  if (!mask_add.empty()) s = cx.emit1("Add", {s, mask_add});
  std::string p = cx.emit1("Softmax", {s}, {attr("axis", int64_t{-1})});
  return {cx.emit1("MatMul", {p, v}), p};
}

}  // namespace mxts
