// What mixture-of-experts routing emits: histc (tokens per expert) and the
// grouped matmul over tokens sorted by expert - aten._grouped_mm and
// transformers' custom op grouped_mm_fallback, which transformers 5 uses
// on CPU (a well-known op of the library most MoE programs come from, so it
// is lowered here rather than refused as a foreign custom op).
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// histc(self, bins=100, min=0, max=0): counts of the values in `bins`
// equal bins over [min, max] (max itself in the last bin, values outside
// not counted). min == max takes the data's own range (its min and max,
// widened by 1 on both sides when they are equal), as ATen does; the bin
// of a value is (x - min) * bins / (max - min) in ATen's order of operations.
void lower_histc(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  const int64_t bins = cx.int_arg("bins", 100);
  const double lo = cx.float_arg("min", 0.0), hi = cx.float_arg("max", 0.0);
  if (bins <= 0) cx.unsupported("histc with no bins");
  if (lo > hi) cx.unsupported("histc with min > max");
  const int32_t f =
      cx.dtype_of("self") == onnx::TensorProto::DOUBLE ? onnx::TensorProto::DOUBLE : onnx::TensorProto::FLOAT;
  const int32_t i64 = onnx::TensorProto::INT64;
  const std::string x = cx.emit1("Reshape", {cx.operand("self", f), cx.ci64({-1})});
  std::string left = cx.cscalar(lo, f), right = cx.cscalar(hi, f);
  if (lo == hi) {
    left = emit_reduce(cx, "ReduceMin", x, {}, false);
    right = emit_reduce(cx, "ReduceMax", x, {}, false);
    const std::string same = cx.emit1("Equal", {left, right});
    left = cx.emit1("Where", {same, cx.emit1("Sub", {left, cx.cscalar(1.0, f)}), left});
    right = cx.emit1("Where", {same, cx.emit1("Add", {right, cx.cscalar(1.0, f)}), right});
  }
  const std::string inside =
      cx.emit1("And", {cx.emit1("GreaterOrEqual", {x, left}), cx.emit1("LessOrEqual", {x, right})});
  std::string bin =
      cx.emit1("Floor", {cx.emit1("Div", {cx.emit1("Mul", {cx.emit1("Sub", {x, left}),
                                                           cx.cscalar(static_cast<double>(bins), f)}),
                                          cx.emit1("Sub", {right, left})})});
  bin = cx.emit1("Min", {cx.cast(bin, f, i64), cx.ci64s(bins - 1)});
  bin = cx.emit1("Where", {inside, bin, cx.ci64s(-1)});  // -1 matches no bin
  const std::string ids = cx.emit1("Range", {cx.ci64s(0), cx.ci64s(bins), cx.ci64s(1)});
  const std::string hits = cx.emit1("Equal", {cx.unsqueeze(bin, {1}), cx.unsqueeze(ids, {0})});  // [N, bins]
  cx.out(0, cx.emit1("ReduceSum", {cx.cast(hits, onnx::TensorProto::BOOL, dt), cx.ci64({0})},
                     {attr("keepdims", int64_t{0})}));
}
MX_ATEN_LOWER(lower_histc, "aten.histc");

// grouped mm(input [S, K], weight [G, K, N], offs [G]): rows
// [offs[g-1], offs[g]) times weight[g]. G (the expert count) is static:
// one Slice + MatMul per group, concatenated - no [S, K, N] gather.
void lower_grouped_mm(OpContext& cx) {
  const bool aten = cx.target().rfind("aten.", 0) == 0;
  const char* a_name = aten ? "self" : "input";
  const char* b_name = aten ? "mat2" : "weight";
  const int32_t dt = cx.out_dtype();
  const Value& w = cx.value_of(b_name);
  if (w.shape.size() != 3 || !w.shape[0].is_static)
    cx.unsupported("a grouped mm whose weight is not [G, K, N] with static G");
  if (cx.rank_of(a_name) != 2) cx.unsupported("a grouped mm whose input is not 2-D");
  if (aten && cx.has("bias")) cx.unsupported("_grouped_mm with a bias");
  const int64_t groups = w.shape[0].value;
  const std::string a = cx.operand(a_name, dt), b = cx.cast(w.onnx, w.dtype, dt);
  const std::string ends = cx.cast(cx.tensor("offs"), cx.dtype_of("offs"), onnx::TensorProto::INT64);
  std::vector<std::string> parts;
  std::string start = cx.ci64({0});
  for (int64_t g = 0; g < groups; ++g) {
    const std::string end = cx.emit1("Slice", {ends, cx.ci64({g}), cx.ci64({g + 1})});
    const std::string rows = cx.emit1("Slice", {a, start, end, cx.ci64({0})});
    const std::string wg =
        cx.squeeze(cx.emit1("Slice", {b, cx.ci64({g}), cx.ci64({g + 1}), cx.ci64({0})}), {0});
    parts.push_back(cx.emit1("MatMul", {rows, wg}));
    start = end;
  }
  cx.out(0, parts.size() == 1 ? cx.emit1("Identity", {parts[0]})
                              : cx.emit1("Concat", parts, {attr("axis", int64_t{0})}));
}
MX_ATEN_LOWER(lower_grouped_mm, "transformers.grouped_mm_fallback.default", "aten._grouped_mm");

}  // namespace
}  // namespace mx::aten_onnx
