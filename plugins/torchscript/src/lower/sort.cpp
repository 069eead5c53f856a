// Ordering: topk, sort/argsort.
#include <climits>

#include "ctx.h"

namespace mxts {
namespace {

void lower_topk(Ctx& cx, const tj::Node*) {
  // topk(self, k, dim=-1, largest=True, sorted=True) -> (values, indices)
  int64_t dim = norm_dim(cx.n_in() > 2 ? cx.arg_int(2) : -1, cx.rank(0));
  bool largest = cx.n_in() > 3 ? cx.arg_bool(3) : true;
  std::string kk = cx.unsqueeze(cx.scalar_i64(cx.in(1)), {0});
  auto o = cx.emit("TopK", {cx.tensor(0), kk},
                   {attr("axis", dim), attr("largest", static_cast<int64_t>(largest)), attr("sorted", int64_t{1})}, 2);
  cx.out(0, o[0]);
  cx.out(1, o[1]);
}
MXTS_LOWER(lower_topk, "aten::topk");

void lower_sort(Ctx& cx, const tj::Node* n) {
  // sort(self, dim=-1, descending=False) / sort(self, stable, dim, descending) / argsort
  std::string k = n->kind().toQualString();
  const auto& args = n->schema().arguments();
  int64_t dim = -1;
  bool desc = false;
  for (size_t a = 1; a < args.size() && a < cx.n_in(); ++a) {
    if (args[a].name() == "dim") dim = cx.arg_int(a);
    else if (args[a].name() == "descending") desc = cx.arg_bool(a);
  }
  dim = norm_dim(dim, cx.rank(0));
  std::string x = cx.tensor(0);
  std::string kk = cx.unsqueeze(cx.dim_size(x, dim), {0});
  auto o = cx.emit("TopK", {x, kk},
                   {attr("axis", dim), attr("largest", static_cast<int64_t>(desc)), attr("sorted", int64_t{1})}, 2);
  if (k == "aten::argsort") { cx.out(0, o[1]); return; }
  cx.out(0, o[0]);
  cx.out(1, o[1]);
}
MXTS_LOWER(lower_sort, "aten::sort", "aten::argsort");

}  // namespace
}  // namespace mxts
