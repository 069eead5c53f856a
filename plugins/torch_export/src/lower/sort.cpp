// Ordering: topk, sort and argsort, all ONNX TopK (sort takes k = the
// dim's size, read from the shape so a dynamic dim stays dynamic).
// ONNX TopK orders ties by index, as a stable sort does; ATen's sort is
// stable only when asked (`stable=True`), so ties may order differently
// from an unstable ATen sort - values agree, indices of equal values may not.
#include <onnx/onnx_pb.h>

#include "lower_ctx.hpp"

namespace mxte {
namespace {

// TopK(x, k) along dim -> (values, int64 indices). TopK takes no bool
// input; bools are sorted as uint8 and cast back.
std::vector<std::string> top_k(LowerCtx& cx, const std::string& k1d, int64_t dim, bool largest) {
  const Value& v = cx.value_of("self");
  const int32_t work = v.dtype == onnx::TensorProto::BOOL ? onnx::TensorProto::UINT8 : v.dtype;
  std::string x = cx.cast(v.onnx, v.dtype, work);
  if (v.shape.empty()) x = cx.unsqueeze(x, {0});
  auto r = cx.emit("TopK", {x, k1d},
                   {attr("axis", dim), attr("largest", int64_t{largest}), attr("sorted", int64_t{1})}, 2);
  if (v.shape.empty()) r = {cx.squeeze(r[0], {0}), cx.squeeze(r[1], {0})};
  r[0] = cx.cast(r[0], work, v.dtype);
  return r;
}

int64_t dim_arg(LowerCtx& cx, int64_t fallback) {
  const int64_t r = std::max<int64_t>(cx.rank_of("self"), 1);
  return norm_dim(cx.int_arg("dim", fallback), r);
}

// topk(self, k, dim=-1, largest=True, sorted=True)
void lower_topk(LowerCtx& cx) {
  const int64_t dim = dim_arg(cx, -1);
  const std::string k = cx.unsqueeze(cx.sym_int("k"), {0});
  auto r = top_k(cx, k, dim, cx.bool_arg("largest", true));
  cx.out(0, r[0]);
  cx.out(1, r[1]);
}
MXTE_LOWER(lower_topk, "aten.topk");

std::string full_k(LowerCtx& cx, int64_t dim) {
  const Value& v = cx.value_of("self");
  if (v.shape.empty()) return cx.ci64({1});
  if (v.shape[dim].is_static) return cx.ci64({v.shape[dim].value});
  return cx.unsqueeze(cx.dim_size(v.onnx, dim), {0});
}

// sort(self, dim=-1, descending=False) / sort.stable(self, stable, dim, descending)
void lower_sort(LowerCtx& cx) {
  const int64_t dim = dim_arg(cx, -1);
  auto r = top_k(cx, full_k(cx, dim), dim, cx.bool_arg("descending", false));
  cx.out(0, r[0]);
  cx.out(1, r[1]);
}
MXTE_LOWER(lower_sort, "aten.sort");

// argsort(self, dim=-1, descending=False) / argsort.stable
void lower_argsort(LowerCtx& cx) {
  const int64_t dim = dim_arg(cx, -1);
  cx.out(0, top_k(cx, full_k(cx, dim), dim, cx.bool_arg("descending", false))[1]);
}
MXTE_LOWER(lower_argsort, "aten.argsort");

}  // namespace
}  // namespace mxte

namespace mxte {
namespace {

// searchsorted(sorted_sequence, self, out_int32=False, right=False, side=None)
// and bucketize(self, boundaries, out_int32=False, right=False): for each
// value, how many sequence entries lie before it - a broadcast comparison
// summed over the sequence (O(values x sequence), no ONNX search op).
void lower_searchsorted(LowerCtx& cx) {
  const bool bucketize = cx.target.rfind("aten.bucketize", 0) == 0;
  const char* seq_name = bucketize ? "boundaries" : "sorted_sequence";
  const Value& seq = cx.value_of(seq_name);
  const Value& val = cx.value_of("self");
  bool right = cx.bool_arg("right", false);
  if (cx.has("side")) right = cx.string_arg("side", "left") == "right";
  if (cx.has("sorter")) cx.unsupported("searchsorted with a sorter");
  const int32_t work = mx::aten_onnx::is_floating(seq.dtype) || mx::aten_onnx::is_floating(val.dtype)
                           ? onnx::TensorProto::DOUBLE : onnx::TensorProto::INT64;
  std::string s = cx.cast(seq.onnx, seq.dtype, work), v = cx.cast(val.onnx, val.dtype, work);
  const int64_t vr = static_cast<int64_t>(val.shape.size());
  if (seq.shape.size() == 1) {
    v = cx.unsqueeze(v, {vr});                  // [..., N, 1] against [M]
  } else {
    if (static_cast<int64_t>(seq.shape.size()) != vr) cx.unsupported("searchsorted with sequence and values of other ranks");
    s = cx.unsqueeze(s, {vr - 1});              // [..., 1, M]
    v = cx.unsqueeze(v, {vr});                  // [..., N, 1]
  }
  const std::string before = cx.emit1(right ? "LessOrEqual" : "Less", {s, v});
  const std::string count = cx.emit1("ReduceSum", {cx.cast(before, onnx::TensorProto::BOOL, onnx::TensorProto::INT64),
                                                   cx.ci64({-1})}, {attr("keepdims", int64_t{0})});
  cx.out(0, cx.cast(count, onnx::TensorProto::INT64, cx.out_dtype()));
}
MXTE_LOWER(lower_searchsorted, "aten.searchsorted", "aten.bucketize");

}  // namespace
}  // namespace mxte
