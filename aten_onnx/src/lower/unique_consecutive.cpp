// unique_consecutive(self, return_inverse, return_counts, dim?) -> (values,
// inverse, counts): ONNX's Unique collapses all repeats, not runs, so the
// runs are found directly. A run starts where an element (a slice along
// `dim`) differs from the one before it; the values are the starts
// (Compress), the inverse is the running count of starts minus one, and the
// counts are the distances between consecutive starts. The number of runs
// is data-dependent (an unbacked symbol of the program, a dynamic dim here).
// Without dim the input is flattened and the inverse takes its shape, as in
// ATen; an output the caller did not ask for is empty, as ATen's is.
#include "mx/onnx_proto.hpp"

#include <limits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

// 1 where a run starts along `dim` of x (int64, one per slice), 0 elsewhere.
std::string run_starts(OpContext& cx, const std::string& x, int64_t rank, int64_t dim, const std::string& n) {
  const std::string later = cx.emit1("Slice", {x, cx.ci64({1}), cx.ci64({kToEnd}), cx.ci64({dim})});
  const std::string earlier = cx.emit1("Slice", {x, cx.ci64({0}), cx.ci64({-1}), cx.ci64({dim})});
  std::string differs =
      cx.cast(cx.emit1("Not", {cx.emit1("Equal", {later, earlier})}), onnx::TensorProto::BOOL, kInt64);
  std::vector<int64_t> others;
  for (int64_t a = 0; a < rank; ++a)
    if (a != dim) others.push_back(a);
  if (!others.empty())
    differs = cx.emit1("ReduceMax", {differs}, {attr("axes", others), attr("keepdims", int64_t{0})});
  // The first element starts a run; an empty input has none.
  const std::string starts = cx.emit1("Concat", {cx.ci64({1}), differs}, {attr("axis", int64_t{0})});
  return cx.emit1("Slice", {starts, cx.ci64({0}), n});
}

std::string empty_int64(OpContext& cx) {
  onnx::TensorProto t;
  t.set_data_type(kInt64);
  t.add_dims(0);
  return cx.constant(t);
}

void lower_unique_consecutive(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const bool by_dim = cx.has("dim");
  const int64_t rank = by_dim ? static_cast<int64_t>(v.shape.size()) : 1;
  const int64_t dim = by_dim ? norm_dim(cx.int_arg("dim"), rank) : 0;
  const std::string x = by_dim ? v.onnx : cx.emit1("Reshape", {v.onnx, cx.ci64({-1})});
  const std::string n = cx.emit1("Slice", {cx.shape_of(x), cx.ci64({dim}), cx.ci64({dim + 1})});
  const std::string starts = run_starts(cx, x, rank, dim, n);
  const std::string mask = cx.cast(starts, kInt64, onnx::TensorProto::BOOL);
  cx.out(0, cx.emit1("Compress", {x, mask}, {attr("axis", dim)}));
  if (cx.n_outputs() > 1) {
    std::string inverse = empty_int64(cx);
    if (cx.bool_arg("return_inverse", false)) {
      inverse = cx.emit1("Sub", {cx.emit1("CumSum", {starts, cx.ci64s(0)}), cx.ci64s(1)});
      if (!by_dim) inverse = cx.emit1("Reshape", {inverse, cx.shape_of(v.onnx)});
    }
    cx.out(1, inverse);
  }
  if (cx.n_outputs() > 2) {
    std::string counts = empty_int64(cx);
    if (cx.bool_arg("return_counts", false)) {
      const std::string first = cx.emit1("Reshape", {cx.emit1("NonZero", {mask}), cx.ci64({-1})});
      const std::string next =
          cx.emit1("Concat", {cx.emit1("Slice", {first, cx.ci64({1}), cx.ci64({kToEnd})}), n},
                   {attr("axis", int64_t{0})});
      counts = cx.emit1("Sub", {next, first});
    }
    cx.out(2, counts);
  }
}
MX_ATEN_LOWER(lower_unique_consecutive, "aten.unique_consecutive");

}  // namespace
}  // namespace mx::aten_onnx
