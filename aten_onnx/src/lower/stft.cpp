// stft -> ONNX STFT (opset 17), its inverse istft, and the window
// functions they are given. torch.stft pads a centred signal before
// it calls aten.stft, so the op itself frames the signal as given. ONNX
// frames [batch, length, 1] into [batch, frames, bins, 2]; PyTorch's
// complex [batch, bins, frames] is the same values with the frame and bin
// axes swapped (the trailing pair axis is how complex values are carried,
// lower/fft.cpp). At the core IR level stft is already unfold + rfft.
#include "mx/onnx_proto.hpp"

#include <cmath>
#include <limits>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

using onnx::TensorProto;

// The window over n_fft samples: the program's (win_length long) or a
// rectangular one, zero-padded on both sides to n_fft as torch.stft does.
std::string stft_window(OpContext& cx, int64_t n_fft, int64_t win_length, int32_t dt) {
  std::string w;
  if (cx.has("window")) {
    w = cx.cast(cx.tensor("window"), cx.dtype_of("window"), dt);
  } else {
    w = cx.emit1("Expand", {cx.cscalar(1.0, dt), cx.ci64({win_length})});
  }
  if (win_length == n_fft) return w;
  const int64_t left = (n_fft - win_length) / 2;
  return cx.emit1("Pad", {w, cx.ci64({left, n_fft - win_length - left})});
}

// n_fft, hop_length (n_fft / 4 by default) and win_length (n_fft by
// default) of an stft or istft, checked as ATen checks them.
struct Framing {
  int64_t n_fft, hop, win_length;
};
Framing framing_of(OpContext& cx) {
  const int64_t n_fft = cx.int_arg("n_fft");
  const int64_t hop = cx.has("hop_length") ? cx.int_arg("hop_length") : n_fft / 4;
  const int64_t win_length = cx.has("win_length") ? cx.int_arg("win_length") : n_fft;
  if (win_length <= 0 || win_length > n_fft || hop <= 0)
    cx.unsupported(cx.op() + " with win_length or hop_length out of range");
  return {n_fft, hop, win_length};
}

void lower_stft(OpContext& cx) {
  const Value& x = cx.value_of("self");
  if (x.shape.size() != 1 && x.shape.size() != 2)
    cx.unsupported("stft of a tensor of rank " + std::to_string(x.shape.size()));
  if (x.dtype != TensorProto::FLOAT && x.dtype != TensorProto::DOUBLE)
    cx.unsupported("stft of a complex or integer signal");
  if (cx.has("align_to_window") && cx.bool_arg("align_to_window"))
    cx.unsupported("stft with align_to_window=True");
  const bool onesided = !cx.has("onesided") || cx.bool_arg("onesided");  // two-sided: all n_fft bins
  const auto [n_fft, hop, win_length] = framing_of(cx);
  const bool batched = x.shape.size() == 2;
  const std::string signal =
      cx.unsqueeze(x.onnx, batched ? std::vector<int64_t>{2} : std::vector<int64_t>{0, 2});
  std::string s =
      cx.emit1("STFT", {signal, cx.ci64s(hop), stft_window(cx, n_fft, win_length, x.dtype), cx.ci64s(n_fft)},
               {attr("onesided", int64_t{onesided ? 1 : 0})});
  if (cx.has("normalized") && cx.bool_arg("normalized"))
    s = cx.emit1("Mul", {s, cx.cscalar(1.0 / std::sqrt(static_cast<double>(n_fft)), x.dtype)});
  s = cx.transpose(s, {0, 2, 1, 3});  // [batch, bins, frames, 2]
  cx.out(0, batched ? s : cx.squeeze(s, {0}));
}
MX_ATEN_LOWER(lower_stft, "aten.stft");

// istft(self, n_fft, hop_length?, win_length?, window?, center, normalized,
// onesided?, length?, return_complex): ONNX has no inverse STFT, so it is
// written as ATen computes it - each frame's inverse real DFT times the
// window, overlap-added by Col2Im (opset 18) over a [1, length] image, and
// divided by the overlap-added squared window; then the centre padding is
// cut and the signal cut or zero-padded to `length`. Only the core IR level
// has istft decomposed already; a program saved as exported carries it whole.
void lower_istft(OpContext& cx) {
  // Checked first: the inverse DFT (opset 17) would otherwise be the refusal.
  if (cx.opset < 18) cx.unsupported("istft needs ONNX opset 18 (Col2Im)");
  const Value& v = cx.value_of("self");  // complex [batch?, bins, frames]
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  if (rank != 2 && rank != 3) cx.unsupported("istft of a spectrum of rank " + std::to_string(rank));
  if (cx.bool_arg("return_complex", false)) cx.unsupported("istft with return_complex=True");
  if (cx.has("onesided") && !cx.bool_arg("onesided")) cx.unsupported("a two-sided istft");
  const Framing f = framing_of(cx);  // named members: a lambda below captures them
  const int64_t n_fft = f.n_fft, hop = f.hop, win_length = f.win_length;
  const int32_t dt = v.dtype == TensorProto::COMPLEX128 ? TensorProto::DOUBLE : TensorProto::FLOAT;
  const std::string spectrum = rank == 3 ? v.onnx : cx.unsqueeze(v.onnx, {0});  // [batch, bins, frames, 2]
  std::string frames = emit_inverse_real_dft(cx, spectrum, 3, 1, n_fft, dt);    // [batch, n_fft, frames]
  if (cx.bool_arg("normalized", false))
    frames = cx.emit1("Mul", {frames, cx.cscalar(std::sqrt(static_cast<double>(n_fft)), dt)});
  const std::string window = cx.unsqueeze(stft_window(cx, n_fft, win_length, dt), {1});  // [n_fft, 1]
  const std::string n_frames = cx.emit1("Slice", {cx.shape_of(spectrum), cx.ci64({2}), cx.ci64({3})});
  const std::string total = cx.emit1(
      "Add",
      {cx.ci64({n_fft}), cx.emit1("Mul", {cx.ci64({hop}), cx.emit1("Sub", {n_frames, cx.ci64({1})})})});
  const std::string image = cx.emit1("Concat", {cx.ci64({1}), total}, {attr("axis", int64_t{0})});
  auto overlap_add = [&](const std::string& columns) {  // [N, n_fft, frames] -> [N, total]
    const std::string img = cx.emit1("Col2Im", {columns, image, cx.ci64({1, n_fft})},
                                     {attr("strides", std::vector<int64_t>{1, hop})});
    return cx.squeeze(img, {1, 2});
  };
  const std::string signal = overlap_add(cx.emit1("Mul", {frames, window}));
  const std::string squared = cx.unsqueeze(cx.emit1("Mul", {window, window}), {0});  // [1, n_fft, 1]
  const std::string envelope = overlap_add(cx.emit1(
      "Expand", {squared, cx.emit1("Concat", {cx.ci64({1, n_fft}), n_frames}, {attr("axis", int64_t{0})})}));
  std::string y = cx.emit1("Div", {signal, envelope});
  const bool center = cx.bool_arg("center", true);
  const int64_t start = center ? n_fft / 2 : 0;
  if (cx.has("length")) {
    const std::string length = cx.unsqueeze(cx.sym_int("length"), {0});
    y = cx.emit1("Slice", {y, cx.ci64({start}), cx.emit1("Add", {cx.ci64({start}), length}), cx.ci64({1})});
    // ATen zero-pads a signal shorter than `length`.
    const std::string have = cx.emit1("Slice", {cx.shape_of(y), cx.ci64({1}), cx.ci64({2})});
    const std::string missing = cx.emit1("Max", {cx.emit1("Sub", {length, have}), cx.ci64({0})});
    y = cx.emit1("Pad", {y, cx.emit1("Concat", {cx.ci64({0, 0, 0}), missing}, {attr("axis", int64_t{0})})});
  } else {
    y = cx.emit1("Slice",
                 {y, cx.ci64({start}), cx.ci64({center ? -(n_fft / 2) : std::numeric_limits<int64_t>::max()}),
                  cx.ci64({1})});
  }
  cx.out(0, cx.cast(rank == 3 ? y : cx.squeeze(y, {0}), dt, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_istft, "complex.aten.istft");

// hann / hamming / blackman windows of a static length: constants. A
// periodic window of N is the symmetric one of N + 1 without its last value.
void lower_window(OpContext& cx) {
  const int64_t n = cx.int_arg("window_length");
  if (n < 0) cx.unsupported("a window of negative length");
  const bool periodic = cx.bool_arg("periodic", true);
  const std::string op = cx.op();
  double alpha = 0.5, beta = 0.5;
  if (op == "hamming_window") {
    alpha = cx.has("alpha") ? cx.float_arg("alpha") : 0.54;
    beta = cx.has("beta") ? cx.float_arg("beta") : 0.46;
  }
  const double m = static_cast<double>(periodic ? n : n - 1);
  onnx::TensorProto w;
  w.set_data_type(TensorProto::DOUBLE);
  w.add_dims(n);
  for (int64_t k = 0; k < n; ++k) {
    const double t = n == 1 ? 0.0 : 2.0 * M_PI * static_cast<double>(k) / m;
    const double v = op == "blackman_window" ? 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2.0 * t)
                                             : alpha - beta * std::cos(t);
    w.add_double_data(n == 1 ? 1.0 : v);
  }
  cx.out(0, cx.cast(cx.constant(w), TensorProto::DOUBLE, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_window, "aten.hann_window", "aten.hamming_window", "aten.blackman_window");

}  // namespace
}  // namespace mx::aten_onnx
