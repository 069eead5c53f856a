// linalg_cross(self, other, dim=-1) / cross(self, other, dim=None): the
// vector product along a dim of size 3, with broadcasting -
// a[1,2,0] * b[2,0,1] - a[2,0,1] * b[1,2,0], the rotations gathered along dim.
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_cross(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.out_rank();
  std::optional<int64_t> dim;
  if (cx.has("dim")) dim = cx.int_arg("dim");
  else if (cx.op() == "linalg_cross") dim = -1;  // its schema's default; cross's is None
  if (!dim) {                                    // cross without dim: the first dim of size 3
    const auto& shape = cx.out_shape();
    for (int64_t k = 0; k < r && !dim; ++k)
      if (shape[k].is_static && shape[k].value == 3) dim = k;
    if (!dim) cx.unsupported("cross without dim and no static dim of size 3");
  }
  // Broadcast first, so that dim counts from the output's rank.
  const int64_t d = norm_dim(*dim, r);
  auto aligned = [&](const char* name) {
    std::string t = cx.operand(name, dt);
    const int64_t missing = r - cx.rank_of(name);
    if (missing <= 0) return t;
    std::vector<int64_t> axes;
    for (int64_t k = 0; k < missing; ++k) axes.push_back(k);
    return cx.unsqueeze(t, axes);
  };
  const std::string a = aligned("self"), b = aligned("other");
  const std::string i120 = cx.ci64({1, 2, 0}), i201 = cx.ci64({2, 0, 1});
  auto rot = [&](const std::string& t, const std::string& idx) {
    return cx.emit1("Gather", {t, idx}, {attr("axis", d)});
  };
  const std::string lhs = cx.emit1("Mul", {rot(a, i120), rot(b, i201)});
  const std::string rhs = cx.emit1("Mul", {rot(a, i201), rot(b, i120)});
  cx.out(0, cx.emit1("Sub", {lhs, rhs}));
}
MX_ATEN_LOWER(lower_cross, "aten.linalg_cross.default", "aten.cross.default");

}  // namespace
}  // namespace mx::aten_onnx
