// Convolution (plain and transposed) and pooling (max, average, adaptive).
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/patterns.hpp"

#include "../lower/linalg_steps.hpp"  // matrix_const

namespace mx::aten_onnx {

std::vector<int64_t> symmetric_pads(const std::vector<int64_t>& p) {
  std::vector<int64_t> r(p);
  r.insert(r.end(), p.begin(), p.end());
  return r;
}

std::vector<int64_t> expand_to(std::vector<int64_t> v, size_t n) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  return v;
}

std::string emit_conv(OnnxEmitter& e, const std::string& x, const std::string& w, const std::string& b,
                      const ConvParams& p) {
  std::vector<std::string> ins = {x, w};
  if (!b.empty()) ins.push_back(b);
  std::vector<onnx::AttributeProto> a = {attr("strides", p.stride), attr("pads", p.pads),
                                         attr("dilations", p.dilation), attr("group", p.groups)};
  if (!p.transposed) return e.emit1("Conv", ins, a);
  if (!p.output_padding.empty()) a.push_back(attr("output_padding", p.output_padding));
  return e.emit1("ConvTranspose", ins, a);
}

std::string emit_max_pool(OnnxEmitter& e, const std::string& x, const std::vector<int64_t>& kernel,
                          const std::vector<int64_t>& stride, const std::vector<int64_t>& pads,
                          const std::vector<int64_t>& dilation, bool ceil_mode) {
  return e.emit1("MaxPool", {x},
                 {attr("kernel_shape", kernel), attr("strides", stride), attr("pads", pads),
                  attr("dilations", dilation), attr("ceil_mode", static_cast<int64_t>(ceil_mode))});
}

std::string emit_avg_pool(OnnxEmitter& e, const std::string& x, const std::vector<int64_t>& kernel,
                          const std::vector<int64_t>& stride, const std::vector<int64_t>& pads,
                          bool ceil_mode, bool count_include_pad) {
  return e.emit1("AveragePool", {x},
                 {attr("kernel_shape", kernel), attr("strides", stride), attr("pads", pads),
                  attr("ceil_mode", static_cast<int64_t>(ceil_mode)),
                  attr("count_include_pad", static_cast<int64_t>(count_include_pad))});
}

namespace {

// The largest averaging matrix (in x out elements) written as a constant:
// 64 K elements, 256 KB of float32; past it the windows stay Slices.
constexpr int64_t kMaxAveragingMatrix = 65536;

// ATen's window i of `o` over `n`: [floor(i n / o), ceil((i + 1) n / o)).
std::pair<int64_t, int64_t> window(int64_t n, int64_t o, int64_t i) {
  return {i * n / o, ((i + 1) * n + o - 1) / o};
}

// The [n, o] matrix whose column i averages window i: 1 / its length on
// its rows, 0 elsewhere (transposed: [o, n]).
std::string averaging_matrix(OnnxEmitter& e, int32_t dtype, int64_t n, int64_t o, bool transposed) {
  std::vector<double> a(static_cast<size_t>(n * o), 0.0);
  for (int64_t i = 0; i < o; ++i) {
    const auto [s, t] = window(n, o, i);
    for (int64_t j = s; j < t; ++j)
      a[static_cast<size_t>(transposed ? i * n + j : j * o + i)] = 1.0 / static_cast<double>(t - s);
  }
  return transposed ? linalg::matrix_const(e, dtype, o, n, a) : linalg::matrix_const(e, dtype, n, o, a);
}

}  // namespace

std::string emit_adaptive_pool(OnnxEmitter& e, const std::string& x0, const std::vector<int64_t>& in,
                               const std::vector<int64_t>& out, bool is_max, int32_t dtype) {
  bool global = true;
  for (auto o : out) global &= o == 1;
  if (global) return e.emit1(is_max ? "GlobalMaxPool" : "GlobalAveragePool", {x0});
  bool divisible = true;
  std::vector<int64_t> kernel;
  for (size_t d = 0; d < out.size(); ++d) {
    divisible &= in[d] >= 0 && out[d] != 0 && in[d] % out[d] == 0;
    kernel.push_back(out[d] && in[d] >= 0 ? in[d] / out[d] : 1);
  }
  if (divisible)
    return e.emit1(is_max ? "MaxPool" : "AveragePool", {x0},
                   {attr("kernel_shape", kernel), attr("strides", kernel)});
  // float32 only: ONNX Runtime (1.31) fuses a scalar Mul next to a MatMul
  // into FusedMatMul's float alpha, a float32 rounding of a float64 scale
  // (x * 1e4 pooled, then * 1e-4: 2e-8 off); half types keep ReduceMean's
  // float accumulation.
  const bool matrices = !is_max && dtype == onnx::TensorProto::FLOAT;
  // One dim at a time (a window's mean or max is that of its rows' ones).
  std::string x = x0;
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t n = in[d], o = out[d], ax = 2 + static_cast<int64_t>(d);
    if (n == o) continue;
    // A static mean over the last two dims is one MatMul by a constant
    // averaging matrix ([o, n] from the left for the second-last dim, as
    // MatMul broadcasts it over the leading dims): as close to ATen's
    // float32 result as the Slice + ReduceMean per window (each window's
    // sum rounds once per element either way; measured against float64
    // within 4e-7 on random inputs, as ATen's own result), in one node.
    const bool last = d + 1 == out.size(), second_last = d + 2 == out.size();
    if (matrices && n > 0 && o > 0 && n * o <= kMaxAveragingMatrix && (last || second_last)) {
      x = last ? e.emit1("MatMul", {x, averaging_matrix(e, dtype, n, o, false)})
               : e.emit1("MatMul", {averaging_matrix(e, dtype, n, o, true), x});
      continue;
    }
    // a dynamic size: the window bounds computed from it at run time
    const std::string size = n < 0 ? e.unsqueeze(e.dim_size(x, ax), {0}) : "";
    auto bound = [&](int64_t num, int64_t add) {  // (num * n + add) div o
      if (n >= 0) return e.ci64({(num * n + add) / o});
      return e.emit1("Div",
                     {e.emit1("Add", {e.emit1("Mul", {size, e.ci64({num})}), e.ci64({add})}), e.ci64({o})});
    };
    std::vector<std::string> parts;
    for (int64_t i = 0; i < o; ++i) {
      std::string sl = e.emit1("Slice", {x, bound(i, 0), bound(i + 1, o - 1), e.ci64({ax})});
      parts.push_back(e.emit1(is_max ? "ReduceMax" : "ReduceMean", {sl},
                              {attr("axes", std::vector<int64_t>{ax}), attr("keepdims", int64_t{1})}));
    }
    x = parts.size() == 1 ? parts[0] : e.emit1("Concat", parts, {attr("axis", ax)});
  }
  return x;
}

// Adaptive average pooling to output sizes known at run time only (a
// size computed from the input's, as interpolate(mode="area") does): per
// spatial dim, ATen's windows [floor(i n / o), ceil((i + 1) n / o)) for
// i in Range(o), each window's sum a difference of prefix sums. The sums
// run in double so that a long prefix keeps the window's digits.
std::string emit_adaptive_avg_pool_dynamic(OnnxEmitter& e, const std::string& x0, int64_t rank,
                                           const std::string& out_sizes, int32_t dtype) {
  const int32_t f64 = onnx::TensorProto::DOUBLE;
  std::string x = e.cast(x0, dtype, f64);
  for (int64_t ax = 2; ax < rank; ++ax) {
    const std::string n = e.dim_size(x, ax);
    const std::string o = e.emit1("Gather", {out_sizes, e.ci64s(ax - 2)}, {attr("axis", int64_t{0})});
    const std::string one = e.ci64s(1);
    const std::string i = e.emit1("Range", {e.ci64s(0), o, one});
    const std::string start = e.emit1("Div", {e.emit1("Mul", {i, n}), o});
    const std::string end_num =
        e.emit1("Add", {e.emit1("Mul", {e.emit1("Add", {i, one}), n}), e.emit1("Sub", {o, one})});
    const std::string end = e.emit1("Div", {end_num, o});
    std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
    pads[static_cast<size_t>(ax)] = 1;  // a zero before the first prefix sum
    const std::string prefix =
        e.emit1("Pad", {e.emit1("CumSum", {x, e.ci64s(ax)}), e.ci64(pads), e.cscalar(0, f64)});
    const std::string sums = e.emit1("Sub", {e.emit1("Gather", {prefix, end}, {attr("axis", ax)}),
                                             e.emit1("Gather", {prefix, start}, {attr("axis", ax)})});
    std::string count = e.cast(e.emit1("Sub", {end, start}), onnx::TensorProto::INT64, f64);
    std::vector<int64_t> trailing;
    for (int64_t k = 1; k < rank - ax; ++k) trailing.push_back(k);
    if (!trailing.empty()) count = e.unsqueeze(count, trailing);
    x = e.emit1("Div", {sums, count});
  }
  return e.cast(x, f64, dtype);
}

}  // namespace mx::aten_onnx
