// kron(self, other): the Kronecker product. The lower-rank operand gets
// leading dims of 1; then self as [a0, 1, a1, 1, ...] times other as
// [1, b0, 1, b1, ...] broadcasts to [a0, b0, a1, b1, ...], reshaped to the
// products a_k * b_k (Shape * Shape, so dynamic dims stay dynamic).
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_kron(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.out_rank();
  auto padded = [&](const char* name) {
    std::string t = cx.operand(name, dt);
    const int64_t missing = r - cx.rank_of(name);
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < missing; ++k) axes.push_back(k);
    return axes.empty() ? t : cx.unsqueeze(t, axes);
  };
  const std::string a = padded("self"), b = padded("other");
  if (r == 0) return cx.out(0, cx.emit1("Mul", {a, b}));
  std::vector<int64_t> after_a, before_b;  // axes of the interleaved rank-2r layout
  for (int64_t k = 0; k < r; ++k) {
    after_a.push_back(2 * k + 1);
    before_b.push_back(2 * k);
  }
  const std::string product = cx.emit1("Mul", {cx.unsqueeze(a, after_a), cx.unsqueeze(b, before_b)});
  const std::string sizes = cx.emit1("Mul", {cx.shape_of(a), cx.shape_of(b)});
  cx.out(0, cx.emit1("Reshape", {product, sizes}));
}
MX_ATEN_LOWER(lower_kron, "aten.kron.default");

}  // namespace
}  // namespace mx::aten_onnx
