// triu_indices / tril_indices(row, col, offset=0, dtype=int64): the indices
// depend on the three ints only, which the program holds statically, so
// they are computed here and emitted as a [2, K] constant, row-major as
// ATen lists them.
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_triangle_indices(OpContext& cx) {
  const bool upper = cx.op() == "triu_indices";
  const int64_t rows = cx.int_arg("row"), cols = cx.int_arg("col"), offset = cx.int_arg("offset", 0);
  if (rows < 0 || cols < 0) cx.unsupported("negative row or col");
  if (rows > 4096 || cols > 4096)
    cx.unsupported("more than 4096 rows or columns (the indices become a constant)");
  std::vector<int64_t> r, c;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (upper ? j - i >= offset : j - i <= offset) {
        r.push_back(i);
        c.push_back(j);
      }
  const int64_t k = static_cast<int64_t>(r.size());
  r.insert(r.end(), c.begin(), c.end());
  const std::string flat = cx.ci64(r);
  const std::string shaped = cx.emit1("Reshape", {flat, cx.ci64({2, k})});
  cx.out(0, cx.cast(shaped, onnx::TensorProto::INT64, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_triangle_indices, "aten.triu_indices.default", "aten.tril_indices.default");

}  // namespace
}  // namespace mx::aten_onnx
