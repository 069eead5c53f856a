// Ordering: topk, sort/argsort, read from the TorchScript node; the ONNX
// form is the shared TopK pattern (aten_onnx/src/patterns/ordering.cpp),
// as the torch.export frontend's. Sizes stay dynamic: the example input's
// size is not baked in.
#include "ctx.h"

namespace mxts {
namespace {

void lower_topk(Ctx& cx, const tj::Node*) {
  // topk(self, k, dim=-1, largest=True, sorted=True) -> (values, indices)
  const int64_t dim = norm_dim(cx.n_in() > 2 ? cx.arg_int(2) : -1, cx.rank(0));
  const bool largest = cx.n_in() > 3 ? cx.arg_bool(3) : true;
  const std::string k = cx.unsqueeze(cx.scalar_i64(cx.in(1)), {0});
  const auto r = mx::aten_onnx::emit_top_k(cx, cx.tensor(0), cx.onnx_type(cx.in(0)), cx.rank(0), k, dim, largest);
  cx.out(0, r.values);
  cx.out(1, r.indices);
}
MXTS_LOWER(lower_topk, "aten::topk");

void lower_sort(Ctx& cx, const tj::Node* n) {
  // sort(self, dim=-1, descending=False) / sort(self, stable, dim, descending) / argsort
  const auto& args = n->schema().arguments();
  int64_t dim = -1;
  bool desc = false;
  for (size_t a = 1; a < args.size() && a < cx.n_in(); ++a) {
    if (args[a].name() == "dim") dim = cx.arg_int(a);
    else if (args[a].name() == "descending") desc = cx.arg_bool(a);
  }
  dim = norm_dim(dim, cx.rank(0));
  const auto r = mx::aten_onnx::emit_sort(cx, cx.tensor(0), cx.onnx_type(cx.in(0)), cx.rank(0), dim, -1, desc);
  if (std::string(n->kind().toQualString()) == "aten::argsort") return cx.out(0, r.indices);
  cx.out(0, r.values);
  cx.out(1, r.indices);
}
MXTS_LOWER(lower_sort, "aten::sort", "aten::argsort");

}  // namespace
}  // namespace mxts
