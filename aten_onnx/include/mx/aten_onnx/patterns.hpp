// ONNX patterns of ATen ops, shared by every frontend (TorchScript and
// torch.export). A pattern takes ONNX value names and the static facts it
// needs (ranks, dtypes as onnx::TensorProto_DataType, attribute values) and
// emits the nodes through an OnnxEmitter; it never sees a frontend's value
// representation. Where a pattern depends on the opset, it says so.
//
// One file per family under src/patterns/ (the table is in README.md).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mx/aten_onnx/onnx_emitter.hpp"

namespace mx::aten_onnx {

// ---- clip.cpp
// Whether ONNX Runtime's Clip kernel takes `dtype` (emit_clip keeps Max and
// Min for the others).
bool clip_takes(int32_t dtype);
// x clamped to 0-d bounds `lo` and `hi` of `dtype` (either may be "": no
// bound): one Clip when both are given and ONNX Runtime has its kernel,
// else Max and/or Min.
std::string emit_clip(OnnxEmitter& e, const std::string& x, const std::string& lo, const std::string& hi,
                      int32_t dtype);

// ---- linear.cpp
// x @ w^T (+ b); b may be "". Gemm for rank-2 x, else MatMul(+Add).
std::string emit_linear(OnnxEmitter& e, const std::string& x, int64_t x_rank, const std::string& w,
                        const std::string& b);

// ---- layer_norm.cpp
// Layer normalisation over the last n_axes axes; w/b may be "".
// LayerNormalization from opset 17 when there is a weight, else decomposed.
std::string emit_layer_norm(OnnxEmitter& e, const std::string& x, int64_t x_rank, int64_t n_axes,
                            const std::string& w, const std::string& b, double eps, int32_t dtype);
// What normalisations divide by, over `axes` of x (kept as dims of 1):
// the mean, x less it, and sqrt(biased variance + eps), in `dtype`.
struct Moments {
  std::string mean, deviation, std;
};
Moments emit_moments(OnnxEmitter& e, const std::string& x, const std::vector<int64_t>& axes, double eps,
                     int32_t dtype);

// ---- group_norm.cpp
// Group normalisation of a [N, C, ...] input of `rank`; w/b may be "".
std::string emit_group_norm(OnnxEmitter& e, const std::string& x, int64_t rank, int64_t groups,
                            const std::string& w, const std::string& b, double eps, int32_t dtype);

// ---- gelu.cpp
// approximate: "none" (erf) or "tanh".
std::string emit_gelu(OnnxEmitter& e, const std::string& x, const std::string& approximate, int32_t dtype);

// ---- attention.cpp
// Scaled dot-product attention on [.., L, D] tensors (rank 4); mask_add is
// an additive float mask or "". Returns (output, probabilities).
std::pair<std::string, std::string> emit_attention(OnnxEmitter& e, const std::string& q, const std::string& k,
                                                   const std::string& v, const std::string& mask_add,
                                                   double scale, int32_t dtype);
// torch.nn.functional.scaled_dot_product_attention: a boolean attn_mask
// (true = attend) or a float one added to the scores, and/or a causal
// mask; scale defaults to 1/sqrt(D) (the caller passes it).
std::string emit_sdpa(OnnxEmitter& e, const std::string& q, const std::string& k, const std::string& v,
                      const std::string& attn_mask, int32_t mask_dtype, bool is_causal, double scale,
                      int32_t dtype);

// ---- conv_pool.cpp
struct ConvParams {
  std::vector<int64_t> stride, pads, dilation;  // pads: ONNX [begin..., end...]
  int64_t groups = 1;
  bool transposed = false;
  std::vector<int64_t> output_padding;
};
std::string emit_conv(OnnxEmitter& e, const std::string& x, const std::string& w, const std::string& b,
                      const ConvParams& p);
// PyTorch padding [p0, p1, ...] -> ONNX [p0, p1, ..., p0, p1, ...].
std::vector<int64_t> symmetric_pads(const std::vector<int64_t>& p);
// A 1-element list broadcast to n spatial dims, as ATen does.
std::vector<int64_t> expand_to(std::vector<int64_t> v, size_t n);
std::string emit_max_pool(OnnxEmitter& e, const std::string& x, const std::vector<int64_t>& kernel,
                          const std::vector<int64_t>& stride, const std::vector<int64_t>& pads,
                          const std::vector<int64_t>& dilation, bool ceil_mode);
std::string emit_avg_pool(OnnxEmitter& e, const std::string& x, const std::vector<int64_t>& kernel,
                          const std::vector<int64_t>& stride, const std::vector<int64_t>& pads,
                          bool ceil_mode, bool count_include_pad);
// Adaptive pooling over spatial sizes `in` (-1: dynamic) to `out`: global,
// one divisible pool, or ATen's windows [floor(i*in/out), ceil((i+1)*in/out)),
// their bounds computed at run time over a dynamic size. An average of a
// float32 `dtype` over a static last or second-last dim is a MatMul by a
// constant averaging matrix instead (other dtypes, 0 = not known: Slices).
std::string emit_adaptive_pool(OnnxEmitter& e, const std::string& x, const std::vector<int64_t>& in,
                               const std::vector<int64_t>& out, bool is_max, int32_t dtype = 0);
// Adaptive average pooling of a `dtype` tensor of `rank` dims to spatial
// sizes known at run time only (`out_sizes`: 1-D int64, one per spatial dim).
std::string emit_adaptive_avg_pool_dynamic(OnnxEmitter& e, const std::string& x, int64_t rank,
                                           const std::string& out_sizes, int32_t dtype);

// ---- reduce.cpp
// ReduceSum takes axes as an input (opset >= 13); the others as an
// attribute up to opset 17. Empty axes: all.
std::string emit_reduce(OnnxEmitter& e, const std::string& op, const std::string& x,
                        const std::vector<int64_t>& axes, bool keepdims);

// ---- ordering.cpp
struct TopKResult {
  std::string values, indices;  // indices int64
};
// TopK of `k1d` (1-D int64) elements along `axis`; any dtype, rank 0 too.
TopKResult emit_top_k(OnnxEmitter& e, const std::string& x, int32_t dtype, int64_t rank,
                      const std::string& k1d, int64_t axis, bool largest);
// A full sort along `axis` (static_size < 0: the dim is dynamic).
TopKResult emit_sort(OnnxEmitter& e, const std::string& x, int32_t dtype, int64_t rank, int64_t axis,
                     int64_t static_size, bool descending);

// ---- atan2.cpp
// atan2(y, x) written out: atan(y / x) corrected by quadrant; x == 0 gives
// +-pi/2 (and 0 when y is 0 too, as ATen).
std::string emit_atan2(OnnxEmitter& e, const std::string& y, const std::string& x, int32_t dtype);
// atan(q) of a double q to double precision (ONNX Runtime's Atan is float-only).
std::string emit_atan_double(OnnxEmitter& e, const std::string& q);

// ---- lower/special.cpp (beside the erfc it is written with)
// erf(x) of a double x to double precision (ONNX Runtime's Erf is
// float-only): Cephes' rational form on |x| <= 1, 1 - erfc(x) beyond.
std::string emit_erf_double(OnnxEmitter& e, const std::string& x);

// ---- log1p.cpp
// log1p(u) to the precision of `dtype` (Goldberg's form), log1p(inf) = inf.
std::string emit_log1p(OnnxEmitter& e, const std::string& u, int32_t dtype);

// ---- double_trig.cpp
// The trigonometric and hyperbolic ops ONNX Runtime's CPU provider has no
// double kernel for (tan, asin, acos, atan, sinh, cosh, asinh, acosh,
// atanh), written out with the double ops it has; "" for any other op.
std::string emit_trig_double(OnnxEmitter& e, const std::string& op, const std::string& x);

// ---- float_tests.cpp
// IsNaN / IsInf of x (a floating `dtype`), half precision included below
// opset 20; is_inf detects +inf and/or -inf.
std::string emit_is_nan(OnnxEmitter& e, const std::string& x, int32_t dtype);
std::string emit_is_inf(OnnxEmitter& e, const std::string& x, int32_t dtype, bool positive = true,
                        bool negative = true);

// ---- inverse_real_dft.cpp
// irfft of `spectrum` (complex in the pair layout, PyTorch rank `rank`)
// along `dim` to n real points, scaled by 1/n as ONNX's inverse DFT is.
std::string emit_inverse_real_dft(OnnxEmitter& e, const std::string& spectrum, int64_t rank, int64_t dim,
                                  int64_t n, int32_t dt);

// ---- pads.cpp
// ONNX Pad's pads (the begin of every dim, then the end of every dim) from
// PyTorch's pad list (pairs from the last dim backwards), for a tensor of
// `rank` dims whose last `unpadded_after` dims the list does not count (a
// complex pair axis): of a static list, and of a list of 2 * `pairs`
// SymInts as a 1-D int64 tensor.
std::vector<int64_t> static_onnx_pads(const std::vector<int64_t>& torch_pads, int64_t rank,
                                      int64_t unpadded_after = 0);
std::string onnx_pads_of_list(OnnxEmitter& e, const std::string& torch_pads, int64_t pairs, int64_t rank,
                              int64_t unpadded_after = 0);

// ---- resize.cpp
// upsample_<mode> ("upsample_bilinear2d", "_upsample_nearest_exact1d", ...)
// to spatial sizes (1-D int64, one per spatial dim) or by static scales.
std::string emit_resize_to(OnnxEmitter& e, const std::string& aten_op, bool align_corners,
                           const std::string& x, const std::string& spatial_sizes);
std::string emit_resize_by(OnnxEmitter& e, const std::string& aten_op, bool align_corners,
                           const std::string& x, const std::vector<float>& spatial_scales);

// ---- recurrent.cpp
enum class RecurrentCell { rnn_tanh, rnn_relu, gru, lstm };
RecurrentCell recurrent_cell(const std::string& aten_op);  // "lstm", "gru", "rnn_tanh", "rnn_relu"
struct RecurrentLayer {
  RecurrentCell cell = RecurrentCell::lstm;
  std::string input;                // [seq, batch, in], or [batch, seq, in] with batch_first
  std::vector<std::string> states;  // initial h (and c for LSTM): [layers * dirs, batch, H (h: P)]
  std::vector<std::string> params;  // per layer, per direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]
  bool has_biases = true, bidirectional = false, batch_first = false;
  int64_t layers = 1, hidden = 0;
  int64_t proj = 0;   // LSTM only: proj_size P (w_hr [P, H] per direction); 0 = none
  int32_t dtype = 1;  // ONNX element type of input, states and params (1 = float)
};
struct RecurrentResult {
  std::string output;               // [seq, batch, dirs * H (P)] (batch-major with batch_first)
  std::vector<std::string> states;  // final h (and c): [layers * dirs, batch, H (h: P)]
};
// Layers with a projection (proj > 0) go to emit_projected_lstm.
RecurrentResult emit_recurrent(OnnxEmitter& e, const RecurrentLayer& layer);

// ---- projected_lstm.cpp
// An LSTM with projections as one ONNX Scan per layer and direction (ONNX's
// LSTM has no projection).
RecurrentResult emit_projected_lstm(OnnxEmitter& e, const RecurrentLayer& layer);

}  // namespace mx::aten_onnx
