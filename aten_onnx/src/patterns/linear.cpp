// Linear: Gemm for 2-D inputs, MatMul(+Add) otherwise.
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

std::string emit_linear(OnnxEmitter& e, const std::string& x, int64_t x_rank, const std::string& w,
                        const std::string& b) {
  if (x_rank == 2) {
    std::vector<std::string> ins = {x, w};
    if (!b.empty()) ins.push_back(b);
    return e.emit1("Gemm", ins, {attr("transB", int64_t{1})});
  }
  std::string y = e.emit1("MatMul", {x, e.transpose(w, {1, 0})});
  return b.empty() ? y : e.emit1("Add", {y, b});
}

}  // namespace mx::aten_onnx
