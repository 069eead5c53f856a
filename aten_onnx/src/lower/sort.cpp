// Ordering: topk, sort and argsort through the shared TopK pattern
// (aten_onnx/src/patterns/ordering.cpp, the TorchScript frontend's too);
// searchsorted / bucketize.
// ONNX TopK orders ties by index, as a stable sort does; ATen's sort is
// stable only when asked (`stable=True`), so ties may order differently
// from an unstable ATen sort - values agree, indices of equal values may not.
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

int64_t dim_arg(OpContext& cx, int64_t fallback) {
  const int64_t r = std::max<int64_t>(cx.rank_of("self"), 1);
  return norm_dim(cx.int_arg("dim", fallback), r);
}

// topk(self, k, dim=-1, largest=True, sorted=True)
void lower_topk(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const std::string k = cx.unsqueeze(cx.sym_int("k"), {0});
  const auto r = mx::aten_onnx::emit_top_k(cx, v.onnx, v.dtype, static_cast<int64_t>(v.shape.size()), k,
                                           dim_arg(cx, -1), cx.bool_arg("largest", true));
  cx.out(0, r.values);
  cx.out(1, r.indices);
}
MX_ATEN_LOWER(lower_topk, "aten.topk");

// ATen orders NaN above +inf (last ascending, first descending); TopK has
// no NaN order. A float sort is two stable passes (TopK orders ties by
// index): by the NaN flag, then by the value with NaN as +inf, so the
// second pass's ties at +inf keep the NaNs after (before) the infinities.
mx::aten_onnx::TopKResult sorted(OpContext& cx, int64_t default_dim = -1) {
  const Value& v = cx.value_of("self");
  const int64_t dim = dim_arg(cx, default_dim);
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  const int64_t size = !v.shape.empty() && v.shape[dim].is_static ? v.shape[dim].value : -1;
  const bool descending = cx.bool_arg("descending", false);
  if (!is_floating(v.dtype) || rank == 0)
    return mx::aten_onnx::emit_sort(cx, v.onnx, v.dtype, rank, dim, size, descending);
  const std::string nan = emit_is_nan(cx, v.onnx, v.dtype);
  const auto by_flag =
      mx::aten_onnx::emit_sort(cx, nan, onnx::TensorProto::BOOL, rank, dim, size, descending);
  auto take = [&](const std::string& t, const std::string& at) {
    return cx.emit1("GatherElements", {t, at}, {attr("axis", dim)});
  };
  const std::string key = cx.emit1("Where", {nan, cx.cscalar(INFINITY, v.dtype), v.onnx});
  const auto by_value =
      mx::aten_onnx::emit_sort(cx, take(key, by_flag.indices), v.dtype, rank, dim, size, descending);
  const std::string indices = take(by_flag.indices, by_value.indices);
  return {take(v.onnx, indices), indices};
}

// sort(self, dim=-1, descending=False) / sort.stable(self, stable, dim, descending)
void lower_sort(OpContext& cx) {
  const auto r = sorted(cx);
  cx.out(0, r.values);
  cx.out(1, r.indices);
}
MX_ATEN_LOWER(lower_sort, "aten.sort");

// argsort(self, dim=-1, descending=False) / argsort.stable
void lower_argsort(OpContext& cx) {
  cx.out(0, sorted(cx).indices);
}
MX_ATEN_LOWER(lower_argsort, "aten.argsort");

// msort(self): the values of a sort along dim 0 (msort has no dim argument)
void lower_msort(OpContext& cx) {
  cx.out(0, sorted(cx, 0).values);
}
MX_ATEN_LOWER(lower_msort, "aten.msort");

// searchsorted(sorted_sequence, self, out_int32=False, right=False, side=None)
// and bucketize(self, boundaries, out_int32=False, right=False): for each
// value, how many sequence entries lie before it - a broadcast comparison
// summed over the sequence (O(values x sequence), no ONNX search op). A
// `sorter` (the argsort of an unsorted sequence) reorders the sequence first.
void lower_searchsorted(OpContext& cx) {
  const bool bucketize = cx.target().rfind("aten.bucketize", 0) == 0;
  const char* seq_name = bucketize ? "boundaries" : "sorted_sequence";
  const Value& seq = cx.value_of(seq_name);
  const Value& val = cx.value_of("self");
  bool right = cx.bool_arg("right", false);
  if (cx.has("side")) right = cx.string_arg("side", "left") == "right";
  const int32_t work = mx::aten_onnx::is_floating(seq.dtype) || mx::aten_onnx::is_floating(val.dtype)
                           ? onnx::TensorProto::DOUBLE
                           : onnx::TensorProto::INT64;
  std::string s = cx.cast(seq.onnx, seq.dtype, work), v = cx.cast(val.onnx, val.dtype, work);
  if (!bucketize && cx.has("sorter")) {
    const std::string order = cx.cast(cx.tensor("sorter"), cx.dtype_of("sorter"), onnx::TensorProto::INT64);
    s = cx.emit1("GatherElements", {s, order}, {attr("axis", static_cast<int64_t>(seq.shape.size()) - 1)});
  }
  const int64_t vr = static_cast<int64_t>(val.shape.size());
  if (seq.shape.size() == 1) {
    v = cx.unsqueeze(v, {vr});  // [..., N, 1] against [M]
  } else {
    if (static_cast<int64_t>(seq.shape.size()) != vr)
      cx.unsupported("searchsorted with sequence and values of other ranks");
    s = cx.unsqueeze(s, {vr - 1});  // [..., 1, M]
    v = cx.unsqueeze(v, {vr});      // [..., N, 1]
  }
  const std::string before = cx.emit1(right ? "LessOrEqual" : "Less", {s, v});
  const std::string count = cx.emit1(
      "ReduceSum", {cx.cast(before, onnx::TensorProto::BOOL, onnx::TensorProto::INT64), cx.ci64({-1})},
      {attr("keepdims", int64_t{0})});
  cx.out(0, cx.cast(count, onnx::TensorProto::INT64, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_searchsorted, "aten.searchsorted", "aten.bucketize");

}  // namespace
}  // namespace mx::aten_onnx
