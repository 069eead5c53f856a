// Cumulative and triangular ops: cumsum, tril/triu.
#include <climits>

#include "ctx.h"

namespace mxts {
namespace {

void lower_cumsum(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_st();
  int64_t dim = norm_dim(cx.arg_int(1), std::max<int64_t>(1, cx.rank(0)));
  cx.out(0, cx.emit1("CumSum", {cx.tensor_as(0, dt), cx.ci64s(dim)}));
}
MXTS_LOWER(lower_cumsum, "aten::cumsum", "aten::cumsum_");

void lower_trilu(Ctx& cx, const tj::Node* n) {
  bool upper = std::string(n->kind().toQualString()).find("triu") != std::string::npos;
  int64_t k = cx.n_in() > 1 ? cx.arg_int(1) : 0;
  auto dt = cx.out_st();
  std::string x = cx.tensor(0);
  bool via_i64 = !(dt == at::kFloat || dt == at::kDouble || dt == at::kLong);
  if (via_i64) x = cx.cast_to(x, onnx_type_of(dt), at::kLong);
  std::string y = cx.emit1("Trilu", {x, cx.ci64s(k)}, {attr("upper", static_cast<int64_t>(upper))});
  if (via_i64) y = cx.cast(y, onnx::TensorProto::INT64, onnx_type_of(dt));
  cx.out(0, y);
}
MXTS_LOWER(lower_trilu, "aten::tril", "aten::triu", "aten::tril_", "aten::triu_");

}  // namespace
}  // namespace mxts
