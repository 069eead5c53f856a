// Reductions: ReduceSum takes its axes as an input (opset >= 13), the
// others as an attribute up to opset 17.
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

std::string emit_reduce(OnnxEmitter& e, const std::string& op, const std::string& x,
                        const std::vector<int64_t>& axes, bool keep) {
  std::vector<onnx::AttributeProto> a = {attr("keepdims", static_cast<int64_t>(keep))};
  if (op == "ReduceSum") {
    if (axes.empty()) return e.emit1(op, {x}, a);
    return e.emit1(op, {x, e.ci64(axes)}, a);
  }
  if (!axes.empty()) a.push_back(attr("axes", axes));
  return e.emit1(op, {x}, a);
}

}  // namespace mx::aten_onnx
