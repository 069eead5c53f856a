// cummax / cummin(self, dim) -> (values, indices). Over the scanned dim of
// size N (static or dynamic): a lower-triangular N x N mask j <= i, the
// masked ReduceMax/Min over j for the values, and for the indices the
// largest j <= i whose element equals the running extremum - ATen's CPU
// kernel keeps the last index of a tie (`>=`), which the tie samples check.
// O(N^2) memory on the scanned dim; NaN is not propagated as ATen does.
#include <limits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using onnx::TensorProto;

// The value every other element beats: -inf/+inf for floats, the type's
// lowest/highest for integers.
std::string neutral(OpContext& cx, bool max, int32_t dt) {
  const bool floating = dt == TensorProto::FLOAT || dt == TensorProto::DOUBLE || dt == TensorProto::FLOAT16 ||
                        dt == TensorProto::BFLOAT16;
  if (floating)
    return cx.cscalar(
        max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity(), dt);
  if (dt == TensorProto::INT32)
    return cx.cscalar(max ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max(), dt);
  if (dt == TensorProto::INT64) {
    onnx::TensorProto t = mx::aten_onnx::int64_tensor(
        {max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max()}, true);
    return cx.constant(t);
  }
  if (dt == TensorProto::UINT8) return cx.cscalar(max ? 0 : 255, dt);
  if (dt == TensorProto::INT8) return cx.cscalar(max ? -128 : 127, dt);
  cx.unsupported("cummax/cummin of dtype " + mx::aten_onnx::dtype_name(dt));
}

void lower_cum_extremum(OpContext& cx) {
  const bool max = cx.op() == "cummax";
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  if (r == 0) {
    cx.out(0, cx.emit1("Identity", {v.onnx}));
    return cx.out(1, cx.cscalar(0, TensorProto::INT64));
  }
  const int64_t d = norm_dim(cx.int_arg("dim"), r);
  // The scanned dim last: [..., N]; then x_j broadcast over i: [..., 1, N].
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < r; ++k)
    if (k != d) perm.push_back(k);
  perm.push_back(d);
  const bool moved = d != r - 1;
  std::string x = moved ? cx.transpose(v.onnx, perm) : v.onnx;
  const std::string n = cx.dim_size(x, r - 1);
  const std::string j = cx.emit1("Range", {cx.ci64s(0), n, cx.ci64s(1)});               // [N]
  const std::string i = cx.unsqueeze(j, {1});                                           // [N, 1]
  const std::string seen = cx.emit1("LessOrEqual", {j, i});                             // [N, N]: j <= i
  const std::string xj = cx.unsqueeze(x, {r - 1});                                      // [..., 1, N]
  const std::string masked = cx.emit1("Where", {seen, xj, neutral(cx, max, v.dtype)});  // [..., N, N]
  const std::string values =
      mx::aten_onnx::emit_reduce(cx, max ? "ReduceMax" : "ReduceMin", masked, {r}, false);  // [..., N]
  const std::string hit = cx.emit1("And", {seen, cx.emit1("Equal", {xj, cx.unsqueeze(values, {r})})});
  const std::string where_hit = cx.emit1("Where", {hit, j, cx.ci64s(-1)});
  std::string indices = mx::aten_onnx::emit_reduce(cx, "ReduceMax", where_hit, {r}, false);
  std::string vals = values;
  if (moved) {
    std::vector<int64_t> back(r);
    for (int64_t k = 0; k < r; ++k) back[perm[k]] = k;
    vals = cx.transpose(values, back);
    indices = cx.transpose(indices, back);
  }
  cx.out(0, vals);
  cx.out(1, indices);
}
MX_ATEN_LOWER(lower_cum_extremum, "aten.cummax.default", "aten.cummin.default");

}  // namespace
}  // namespace mx::aten_onnx
