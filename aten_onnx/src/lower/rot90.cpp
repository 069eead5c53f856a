// rot90(self, k=1, dims=[0,1]) as ATen computes it: k mod 4 = 1 flips
// dims[1] then swaps the two dims, 2 flips both, 3 flips dims[0] then swaps.
// A flip is a Slice with step -1, so dynamic dims stay dynamic.
#include <climits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

std::string flipped(OpContext& cx, const std::string& x, const std::vector<int64_t>& axes) {
  const size_t n = axes.size();
  return cx.emit1("Slice",
                  {x, cx.ci64(std::vector<int64_t>(n, -1)), cx.ci64(std::vector<int64_t>(n, INT64_MIN)),
                   cx.ci64(axes), cx.ci64(std::vector<int64_t>(n, -1))});
}

void lower_rot90(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  auto dims = cx.ints("dims", std::vector<int64_t>{0, 1});
  if (dims.size() != 2 || r < 2) cx.unsupported("rot90 needs two dims of a tensor of rank 2 or more");
  const int64_t d0 = norm_dim(dims[0], r), d1 = norm_dim(dims[1], r);
  if (d0 == d1) cx.unsupported("rot90 with the same dim twice");
  const int64_t k = ((cx.int_arg("k", 1) % 4) + 4) % 4;
  const std::string x = cx.tensor("self");
  std::vector<int64_t> swap(r);
  for (int64_t a = 0; a < r; ++a) swap[a] = a;
  std::swap(swap[d0], swap[d1]);
  if (k == 0) return cx.out(0, cx.emit1("Identity", {x}));
  if (k == 2) return cx.out(0, flipped(cx, x, {d0, d1}));
  cx.out(0, cx.transpose(flipped(cx, x, {k == 1 ? d1 : d0}), swap));
}
MX_ATEN_LOWER(lower_rot90, "aten.rot90.default");

}  // namespace
}  // namespace mx::aten_onnx
