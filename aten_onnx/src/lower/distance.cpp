// Pairwise distances: _cdist_forward(x1 [.., P, M], x2 [.., R, M], p,
// compute_mode) -> [.., P, R] and _pdist_forward(self [N, M], p) -> the
// upper triangle of the [N, N] distances, row by row (N static or dynamic). Computed from the
// broadcast differences (exact, memory P*R*M), not from the matmul
// expansion ATen may use for large inputs (whose rounding differs).
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// || a - b ||_p over the last axis of the broadcast difference.
std::string p_norm(OpContext& cx, const std::string& a, const std::string& b, double p, int32_t dt) {
  const std::string d = cx.emit1("Abs", {cx.emit1("Sub", {a, b})});
  const std::string last = cx.ci64({-1});
  const std::vector<onnx::AttributeProto> drop = {attr("keepdims", int64_t{0})};
  if (std::isinf(p))
    return cx.emit1("ReduceMax", {d}, {attr("axes", std::vector<int64_t>{-1}), attr("keepdims", int64_t{0})});
  if (p == 0.0)
    return cx.emit1(
        "ReduceSum",
        {cx.cast(cx.emit1("Not", {cx.emit1("Equal", {d, cx.cscalar(0, dt)})}), onnx::TensorProto::BOOL, dt),
         last},
        drop);
  if (p == 1.0) return cx.emit1("ReduceSum", {d, last}, drop);
  if (p == 2.0) return cx.emit1("Sqrt", {cx.emit1("ReduceSum", {cx.emit1("Mul", {d, d}), last}, drop)});
  const std::string s = cx.emit1("ReduceSum", {cx.emit1("Pow", {d, cx.cscalar(p, dt)}), last}, drop);
  return cx.emit1("Pow", {s, cx.cscalar(1.0 / p, dt)});
}

void lower_cdist(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t r = cx.rank_of("x1");
  const std::string a = cx.unsqueeze(cx.operand("x1", dt), {r - 1});  // [.., P, 1, M]
  const std::string b = cx.unsqueeze(cx.operand("x2", dt), {r - 2});  // [.., 1, R, M]
  cx.out(0, p_norm(cx, a, b, cx.float_arg("p", 2.0), dt));
}
MX_ATEN_LOWER(lower_cdist, "aten._cdist_forward", "aten.cdist");

void lower_pdist(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const Value& v = cx.value_of("self");
  if (v.shape.size() != 2) cx.unsupported("pdist of a tensor that is not [N, M]");
  const std::string x = cx.cast(v.onnx, v.dtype, dt);
  const std::string all = cx.emit1(
      "Reshape",
      {p_norm(cx, cx.unsqueeze(x, {1}), cx.unsqueeze(x, {0}), cx.float_arg("p", 2.0), dt), cx.ci64({-1})});
  if (v.shape[0].is_static) {
    const int64_t n = v.shape[0].value;
    std::vector<int64_t> flat;  // i * n + j for i < j, row by row
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) flat.push_back(i * n + j);
    return cx.out(0, cx.emit1("Gather", {all, cx.ci64(flat)}, {attr("axis", int64_t{0})}));
  }
  // A dynamic N: the elements above the diagonal (column > row), kept in
  // row-major order by Compress.
  const std::string n = cx.dim_size(x, 0);
  const std::string idx = cx.emit1("Range", {cx.ci64s(0), n, cx.ci64s(1)});
  const std::string above = cx.emit1("Greater", {cx.unsqueeze(idx, {0}), cx.unsqueeze(idx, {1})});
  cx.out(0, cx.emit1("Compress", {all, cx.emit1("Reshape", {above, cx.ci64({-1})})},
                     {attr("axis", int64_t{0})}));
}
MX_ATEN_LOWER(lower_pdist, "aten._pdist_forward", "aten.pdist");

// dist(self, other, p=2): the p-norm of all elements of the broadcast
// difference.
void lower_dist(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string d = cx.emit1(
      "Reshape", {cx.emit1("Sub", {cx.operand("self", dt), cx.operand("other", dt)}), cx.ci64({-1})});
  cx.out(0, p_norm(cx, d, cx.cscalar(0, dt), cx.float_arg("p", 2.0), dt));
}
MX_ATEN_LOWER(lower_dist, "aten.dist");

// cosine_similarity(x1, x2, dim=1, eps=1e-8): <x1, x2> / max(|x1| |x2|, eps)
// as ATen computes it (the product of the norms clamped, not each norm).
void lower_cosine_similarity(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string a = cx.operand("x1", dt), b = cx.operand("x2", dt);
  const int64_t r = std::max(cx.rank_of("x1"), cx.rank_of("x2"));
  const std::string axis = cx.ci64({norm_dim(cx.int_arg("dim", 1), r)});
  const std::vector<onnx::AttributeProto> drop = {attr("keepdims", int64_t{0})};
  auto sum = [&](const std::string& t) { return cx.emit1("ReduceSum", {t, axis}, drop); };
  const std::string dot = sum(cx.emit1("Mul", {a, b}));
  const std::string norms =
      cx.emit1("Sqrt", {cx.emit1("Mul", {sum(cx.emit1("Mul", {a, a})), sum(cx.emit1("Mul", {b, b}))})});
  cx.out(0, cx.emit1("Div", {dot, cx.emit1("Max", {norms, cx.cscalar(cx.float_arg("eps", 1e-8), dt)})}));
}
MX_ATEN_LOWER(lower_cosine_similarity, "aten.cosine_similarity");

// pairwise_distance(x1, x2, p=2, eps=1e-6, keepdim=False): ||x1 - x2 + eps||_p over the last dim.
void lower_pairwise_distance(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const std::string d = cx.emit1("Add", {cx.emit1("Sub", {cx.operand("x1", dt), cx.operand("x2", dt)}),
                                         cx.cscalar(cx.float_arg("eps", 1e-6), dt)});
  std::string n = p_norm(cx, d, cx.cscalar(0, dt), cx.float_arg("p", 2.0), dt);
  if (cx.bool_arg("keepdim", false)) n = cx.unsqueeze(n, {-1});
  cx.out(0, n);
}
MX_ATEN_LOWER(lower_pairwise_distance, "aten.pairwise_distance");

}  // namespace
}  // namespace mx::aten_onnx
