// nn.EmbeddingBag: embedding_bag / _embedding_bag -> the rows gathered,
// then reduced into their bags by ScatterND (sum and mean: reduction add,
// opset 16; max: reduction max, opset 18). Index i belongs to bag b when
// offsets[b] <= i < offsets[b + 1]. An empty bag is zeros, as in ATen.
// Only the first output (the bags) is lowered: offset2bag, bag_size and
// max_indices are the backward pass's bookkeeping.
#include "mx/onnx_proto.hpp"

#include <limits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using onnx::TensorProto;

// Which bag each index is in: how many bag starts are at or before it, minus one.
std::string bag_of_each_index(OpContext& cx, const std::string& starts, const std::string& n_indices) {
  const std::string positions = cx.emit1("Range", {cx.ci64s(0), n_indices, cx.ci64s(1)});
  const std::string started =
      cx.emit1("LessOrEqual", {cx.unsqueeze(starts, {0}), cx.unsqueeze(positions, {1})});
  const std::string count =
      cx.emit1("ReduceSum", {cx.cast(started, TensorProto::BOOL, TensorProto::INT64), cx.ci64({1})},
               {attr("keepdims", int64_t{0})});
  return cx.emit1("Sub", {count, cx.ci64s(1)});
}

// A [bags, ...] tensor filled with `value`.
std::string filled(OpContext& cx, double value, int32_t dt, const std::string& shape) {
  return cx.emit1("Expand", {cx.cscalar(value, dt), shape});
}

void lower_embedding_bag(OpContext& cx) {
  const int64_t mode = cx.int_arg("mode", 0);  // 0 sum, 1 mean, 2 max
  if (mode < 0 || mode > 2) cx.unsupported("embedding_bag mode " + std::to_string(mode));
  if (cx.rank_of("indices") != 1)
    cx.unsupported("embedding_bag with indices of rank " + std::to_string(cx.rank_of("indices")));
  const int32_t dt = cx.dtype_of("weight");
  const std::string weight = cx.tensor("weight");
  const std::string indices = cx.cast(cx.tensor("indices"), cx.dtype_of("indices"), TensorProto::INT64);
  std::string starts = cx.cast(cx.tensor("offsets"), cx.dtype_of("offsets"), TensorProto::INT64);
  const std::string n_indices = cx.dim_size(indices, 0);
  // include_last_offset: the last offset ends the last bag. ATen's CPU
  // kernels read it so only for sum and mean's numerator; mean divides by
  // the count up to the end of the indices and max reduces up to there
  // too (all agree when the last offset is the indices' length, as the
  // docs ask).
  std::string before_end;  // [N] dt: 1 for the indices before the last offset
  if (cx.bool_arg("include_last_offset", false)) {
    const std::string end = cx.emit1("Slice", {starts, cx.ci64({-1}), cx.ci64({INT64_MAX}), cx.ci64({0})});
    const std::string positions = cx.emit1("Range", {cx.ci64s(0), n_indices, cx.ci64s(1)});
    before_end = cx.cast(cx.emit1("Less", {positions, end}), TensorProto::BOOL, dt);
    starts = cx.emit1("Slice", {starts, cx.ci64({0}), cx.ci64({-1}), cx.ci64({0})});
  }
  const std::string bag = cx.unsqueeze(bag_of_each_index(cx, starts, n_indices), {1});  // [N, 1]
  const std::string n_bags = cx.emit1("Shape", {starts});                               // [1]
  const std::string width = cx.unsqueeze(cx.dim_size(weight, 1), {0});
  const std::string out_shape = cx.emit1("Concat", {n_bags, width}, {attr("axis", int64_t{0})});

  std::string rows = cx.emit1("Gather", {weight, indices}, {attr("axis", int64_t{0})});  // [N, D]
  // padding_idx: -1 (or None) is none; its rows take no part in any bag.
  int64_t padding = -1;
  if (cx.has("padding_idx")) padding = cx.int_arg("padding_idx");
  std::string kept = cx.cscalar(1, dt);  // per index: 1, or 0 for a padding index
  if (padding >= 0)
    kept = cx.cast(cx.emit1("Not", {cx.emit1("Equal", {indices, cx.ci64s(padding)})}), TensorProto::BOOL, dt);
  // [B]: the indices each bag holds
  auto count = [&] {
    return cx.emit1(
        "ScatterND",
        {filled(cx, 0, dt, n_bags), bag, cx.emit1("Expand", {kept, cx.emit1("Shape", {indices})})},
        {attr("reduction", std::string("add"))});
  };
  if (mode == 2) {
    if (cx.has("per_sample_weights")) cx.unsupported("embedding_bag max with per_sample_weights");
    // The emitter knows ScatterND's 'reduction' from opset 16; 'max' came in 18.
    if (cx.opset < 18)
      cx.unsupported("needs ONNX opset 18 (ScatterND max/min); this export is opset " +
                     std::to_string(cx.opset) + ": export with --opset 18 or newer");
    const double lowest = -std::numeric_limits<double>::infinity();
    if (padding >= 0)
      rows = cx.emit1(
          "Where", {cx.cast(cx.unsqueeze(kept, {1}), dt, TensorProto::BOOL), rows, cx.cscalar(lowest, dt)});
    const std::string most = cx.emit1("ScatterND", {filled(cx, lowest, dt, out_shape), bag, rows},
                                      {attr("reduction", std::string("max"))});
    const std::string nonempty = cx.emit1("Greater", {cx.unsqueeze(count(), {1}), cx.cscalar(0, dt)});
    return cx.out(0, cx.emit1("Where", {nonempty, most, cx.cscalar(0, dt)}));
  }
  if (cx.has("per_sample_weights"))
    rows = cx.emit1("Mul", {rows, cx.unsqueeze(cx.operand("per_sample_weights", dt), {1})});
  if (padding >= 0) rows = cx.emit1("Mul", {rows, cx.unsqueeze(kept, {1})});
  if (!before_end.empty()) rows = cx.emit1("Mul", {rows, cx.unsqueeze(before_end, {1})});
  std::string sum = cx.emit1("ScatterND", {filled(cx, 0, dt, out_shape), bag, rows},
                             {attr("reduction", std::string("add"))});
  if (mode == 1)
    sum = cx.emit1("Div", {sum, cx.unsqueeze(cx.emit1("Max", {count(), cx.cscalar(1, dt)}), {1})});
  cx.out(0, sum);
}
MX_ATEN_LOWER(lower_embedding_bag, "aten._embedding_bag", "aten.embedding_bag",
              "aten._embedding_bag_forward_only");

}  // namespace
}  // namespace mx::aten_onnx
