// fractional_max_pool2d / fractional_max_pool3d(self, kernel_size,
// output_size, random_samples) -> (output, indices). ATen places the
// windows of each (n, c) plane by its random sample u in [0, 1): along a
// dim of input size L, window size k and o outputs, window i starts at
// trunc((i + u) a) - trunc(u a) with a = (L - k) / (o - 1), the last at
// L - k, all in the input's dtype. A window is a box, so its max is taken
// one dim at a time: the k rows of each window gathered along the dim,
// then reduced. The samples are an input of the op (torch.rand in the
// module), so the lowering is exact for the samples the program computes.
// The indices (the flat argmax in each window) are left uncomputed; a
// program that reads them gets an error naming the output.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// Window starts along one dim: [N, C, o] int64, from the samples' column
// `u_col` ([N, C, nd] of dtype dt) and the dim's size `len` (0-d int64).
std::string window_starts(OpContext& cx, const std::string& samples, int64_t u_col, const std::string& len,
                          int64_t k, int64_t o, int32_t dt) {
  const int32_t i64 = onnx::TensorProto::INT64;
  const std::string last_start = cx.emit1("Sub", {len, cx.ci64s(k)});
  const std::string u =
      cx.emit1("Gather", {samples, cx.ci64({u_col})}, {attr("axis", int64_t{2})});  // [N, C, 1]
  const std::string last_i = cx.emit1("Expand", {last_start, cx.shape_of(u)});      // [N, C, 1]
  if (o == 1) return last_i;
  const std::string alpha =
      cx.emit1("Div", {cx.cast(last_start, i64, dt), cx.cscalar(static_cast<double>(o - 1), dt)});
  const std::string i = cx.cast(cx.emit1("Range", {cx.ci64s(0), cx.ci64s(o - 1), cx.ci64s(1)}), i64, dt);
  const std::string at = cx.emit1("Floor", {cx.emit1("Mul", {cx.emit1("Add", {i, u}), alpha})});
  const std::string origin = cx.emit1("Floor", {cx.emit1("Mul", {u, alpha})});
  const std::string starts = cx.cast(cx.emit1("Sub", {at, origin}), dt, i64);
  return cx.emit1("Concat", {starts, last_i}, {attr("axis", int64_t{2})});
}

// The max over windows of k along axis `ax` of x: [.., L, ..] -> [.., o, ..].
std::string max_over_windows(OpContext& cx, const std::string& x, int64_t ax, int64_t rank,
                             const std::string& starts, int64_t k, int64_t o) {
  // [N, C, o] -> [N, C, o * k] row numbers, placed at axis ax
  const std::string offsets = cx.ci64([&] {
    std::vector<int64_t> a;
    for (int64_t j = 0; j < k; ++j) a.push_back(j);
    return a;
  }());
  std::vector<int64_t> placed = {0, 0};  // [N, C, 1, .., o*k at ax, 1, ..]
  for (int64_t d = 2; d < rank; ++d) placed.push_back(d == ax ? o * k : 1);
  const std::string rows =
      cx.emit1("Reshape", {cx.emit1("Add", {cx.unsqueeze(starts, {3}), offsets}), cx.ci64(placed)});
  const std::string shape = cx.shape_of(x);
  auto with = [&](const std::vector<int64_t>& mid) {  // x's shape, dim ax replaced by `mid`
    return cx.emit1("Concat",
                    {cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({ax})}), cx.ci64(mid),
                     cx.emit1("Slice", {shape, cx.ci64({ax + 1}), cx.ci64({rank})})},
                    {attr("axis", int64_t{0})});
  };
  const std::string picked =
      cx.emit1("GatherElements", {x, cx.emit1("Expand", {rows, with({o * k})})}, {attr("axis", ax)});
  return mx::aten_onnx::emit_reduce(cx, "ReduceMax", cx.emit1("Reshape", {picked, with({o, k})}), {ax + 1},
                                    false);
}

void lower_fractional_max_pool(OpContext& cx) {
  const int64_t rank = cx.rank_of("self"), nd = cx.target().find("3d") != std::string::npos ? 3 : 2;
  if (rank != nd + 2) cx.unsupported("fractional max pooling of an unbatched input");
  const int32_t dt = cx.out_dtype();
  if (!mx::aten_onnx::is_floating(dt)) cx.unsupported("fractional max pooling of integers");
  const auto kernel = expand_to(cx.ints("kernel_size"), static_cast<size_t>(nd));
  const auto out = expand_to(cx.ints("output_size"), static_cast<size_t>(nd));
  const std::string samples = cx.operand("random_samples", dt);
  std::string y = cx.tensor("self");
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t ax = 2 + d;
    // ATen's sample columns: 2-D (w, h); 3-D (t, h, w)
    const int64_t col = nd == 2 ? 1 - d : d;
    const std::string starts =
        window_starts(cx, samples, col, cx.dim_size(cx.tensor("self"), ax), kernel[d], out[d], dt);
    y = max_over_windows(cx, y, ax, rank, starts, kernel[d], out[d]);
  }
  cx.out(0, y);
  if (cx.n_outputs() > 1) cx.leave_uncomputed(1, "the indices of fractional max pooling are not lowered");
}
MX_ATEN_LOWER(lower_fractional_max_pool, "aten.fractional_max_pool2d", "aten.fractional_max_pool3d");

}  // namespace
}  // namespace mx::aten_onnx
