// Indexing: index.Tensor (one index tensor, leading None dims allowed),
// index_select, gather, embedding-style lookups.
#include <onnx/onnx_pb.h>

#include "lower_ctx.hpp"

namespace mxte {
namespace {

// x[..., idx, ...] with one tensor index at position k: Gather on axis k.
void lower_index(LowerCtx& cx) {
  const json& list = cx.arg("indices")->at("as_optional_tensors");
  int64_t axis = -1;
  std::string idx;
  for (size_t k = 0; k < list.size(); ++k) {
    if (list[k].contains("as_none")) continue;
    if (axis >= 0) cx.unsupported("index with more than one index tensor");
    axis = static_cast<int64_t>(k);
    const auto& v = cx.values.at(list[k]["as_tensor"]["name"].get<std::string>());
    if (v.dtype == onnx::TensorProto::BOOL) cx.unsupported("boolean mask indexing (its output shape depends on data)");
    idx = v.onnx;
  }
  if (axis < 0) cx.unsupported("index without an index tensor");
  cx.out(0, cx.emit1("Gather", {cx.tensor("self"), idx}, {attr("axis", axis)}));
}
MXTE_LOWER(lower_index, "aten.index.Tensor");

void lower_index_select(LowerCtx& cx) {
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1("Gather", {cx.tensor("self"), cx.tensor("index")}, {attr("axis", dim)}));
}
MXTE_LOWER(lower_index_select, "aten.index_select");

void lower_gather(LowerCtx& cx) {
  const int64_t dim = norm_dim(cx.int_arg("dim"), cx.rank_of("self"));
  cx.out(0, cx.emit1("GatherElements", {cx.tensor("self"), cx.tensor("index")}, {attr("axis", dim)}));
}
MXTE_LOWER(lower_gather, "aten.gather");

}  // namespace
}  // namespace mxte
