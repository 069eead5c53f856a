// Ops whose output size is data-dependent counting (an unbacked symbol of
// the program, a dynamic ONNX dim):
//  - repeat_interleave.Tensor(repeats): index k repeated repeats[k] times -
//    output position p holds the number of inclusive cumulative sums <= p
//    (a [T, N] comparison, T the output size);
//  - repeat_interleave.self_Tensor(self, repeats, dim=None): self gathered
//    at those indices along dim (self flattened when dim is None), repeats
//    of one element applying to every slice;
//  - bincount(self, weights=None, minlength=0): counts (or summed weights)
//    of each value in [0, max(self) + 1) and at least minlength bins, from a
//    [N, S] equality table.
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using onnx::TensorProto;

// [T] int64: element k of `repeats` ([N] int64) repeated repeats[k] times.
std::string repeated_indices(OpContext& cx, const std::string& repeats) {
  const std::string ends = cx.emit1("CumSum", {repeats, cx.ci64s(0)});                         // [N]
  const std::string total = mx::aten_onnx::emit_reduce(cx, "ReduceSum", repeats, {0}, false);  // []
  const std::string positions =
      cx.unsqueeze(cx.emit1("Range", {cx.ci64s(0), total, cx.ci64s(1)}), {1});  // [T, 1]
  const std::string passed =
      cx.cast(cx.emit1("LessOrEqual", {ends, positions}), TensorProto::BOOL, TensorProto::INT64);
  return mx::aten_onnx::emit_reduce(cx, "ReduceSum", passed, {1}, false);  // [T]
}

void lower_repeat_interleave_counts(OpContext& cx) {
  const Value& r = cx.value_of("repeats");
  const std::string repeats = cx.cast(r.onnx, r.dtype, TensorProto::INT64);
  cx.out(0, cx.cast(repeated_indices(cx, repeats), TensorProto::INT64, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_repeat_interleave_counts, "aten.repeat_interleave.Tensor");

void lower_repeat_interleave_tensor(OpContext& cx) {
  const Value& v = cx.value_of("self");
  std::string x = v.onnx;
  int64_t dim = 0;
  if (cx.has("dim")) dim = norm_dim(cx.int_arg("dim"), static_cast<int64_t>(v.shape.size()));
  else x = cx.emit1("Reshape", {x, cx.ci64({-1})});
  if (v.shape.empty()) x = cx.emit1("Reshape", {x, cx.ci64({-1})});
  const Value& r = cx.value_of("repeats");
  std::string repeats = cx.emit1("Reshape", {cx.cast(r.onnx, r.dtype, TensorProto::INT64), cx.ci64({-1})});
  // One repeat count for every slice: broadcast to the dim's size.
  repeats = cx.emit1("Expand", {repeats, cx.unsqueeze(cx.dim_size(x, dim), {0})});
  cx.out(0, cx.emit1("Gather", {x, repeated_indices(cx, repeats)}, {attr("axis", dim)}));
}
MX_ATEN_LOWER(lower_repeat_interleave_tensor, "aten.repeat_interleave.self_Tensor");

void lower_bincount(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t dt = cx.out_dtype();
  const std::string x = cx.cast(v.onnx, v.dtype, TensorProto::INT64);
  // max(self) + 1 bins, at least minlength; the -1 keeps an empty self valid.
  const std::string with_floor = cx.emit1("Concat", {x, cx.ci64({-1})}, {attr("axis", int64_t{0})});
  const std::string top = mx::aten_onnx::emit_reduce(cx, "ReduceMax", with_floor, {0}, false);
  const std::string bins =
      cx.emit1("Max", {cx.emit1("Add", {top, cx.ci64s(1)}), cx.ci64s(cx.int_arg("minlength", 0))});
  const std::string values = cx.emit1("Range", {cx.ci64s(0), bins, cx.ci64s(1)});                // [S]
  const std::string hit = cx.emit1("Equal", {cx.unsqueeze(x, {1}), cx.unsqueeze(values, {0})});  // [N, S]
  std::string per_element;
  if (cx.has("weights")) {
    const Value& w = cx.value_of("weights");
    per_element =
        cx.emit1("Where", {hit, cx.unsqueeze(cx.cast(w.onnx, w.dtype, dt), {1}), cx.cscalar(0, dt)});
  } else {
    per_element = cx.cast(hit, TensorProto::BOOL, dt);
  }
  cx.out(0, mx::aten_onnx::emit_reduce(cx, "ReduceSum", per_element, {0}, false));
}
MX_ATEN_LOWER(lower_bincount, "aten.bincount.default");

}  // namespace
}  // namespace mx::aten_onnx
