// topk / sort / argsort as ONNX TopK. TopK takes no bool and no 0-d
// input: bools are ordered as uint8, a 0-d tensor as one element. A full
// sort takes k = the dim's size, read from the shape unless it is static.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

TopKResult emit_top_k(OnnxEmitter& e, const std::string& x, int32_t dtype, int64_t rank,
                      const std::string& k1d, int64_t axis, bool largest) {
  const int32_t work = dtype == onnx::TensorProto::BOOL ? onnx::TensorProto::UINT8 : dtype;
  std::string in = e.cast(x, dtype, work);
  if (rank == 0) in = e.unsqueeze(in, {0});
  auto r = e.emit("TopK", {in, k1d},
                  {attr("axis", axis), attr("largest", int64_t{largest}), attr("sorted", int64_t{1})}, 2);
  if (rank == 0) r = {e.squeeze(r[0], {0}), e.squeeze(r[1], {0})};
  return {e.cast(r[0], work, dtype), r[1]};
}

TopKResult emit_sort(OnnxEmitter& e, const std::string& x, int32_t dtype, int64_t rank, int64_t axis,
                     int64_t static_size, bool descending) {
  std::string k;
  if (rank == 0) k = e.ci64({1});
  else if (static_size >= 0) k = e.ci64({static_size});
  else k = e.unsqueeze(e.dim_size(x, axis), {0});
  return emit_top_k(e, x, dtype, rank, k, axis, descending);
}

}  // namespace mx::aten_onnx
