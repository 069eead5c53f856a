// stft -> ONNX STFT (opset 17), and the window functions it is given. torch.stft pads a centred signal before
// it calls aten.stft, so the op itself frames the signal as given. ONNX
// frames [batch, length, 1] into [batch, frames, bins, 2]; PyTorch's
// complex [batch, bins, frames] is the same values with the frame and bin
// axes swapped (the trailing pair axis is how complex values are carried,
// lower/fft.cpp). At the core IR level stft is already unfold + rfft.
#include "mx/onnx_proto.hpp"

#include <cmath>

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

void lower_stft(OpContext& cx) {
  const Value& x = cx.value_of("self");
  if (x.shape.size() != 1 && x.shape.size() != 2)
    cx.unsupported("stft of a tensor of rank " + std::to_string(x.shape.size()));
  if (x.dtype != TensorProto::FLOAT && x.dtype != TensorProto::DOUBLE)
    cx.unsupported("stft of a complex or integer signal");
  if (cx.has("align_to_window") && cx.bool_arg("align_to_window"))
    cx.unsupported("stft with align_to_window=True");
  if (cx.has("onesided") && !cx.bool_arg("onesided")) cx.unsupported("a two-sided stft of a real signal");
  const int64_t n_fft = cx.int_arg("n_fft");
  const int64_t hop = cx.has("hop_length") ? cx.int_arg("hop_length") : n_fft / 4;
  const int64_t win_length = cx.has("win_length") ? cx.int_arg("win_length") : n_fft;
  if (win_length <= 0 || win_length > n_fft || hop <= 0)
    cx.unsupported("stft with win_length or hop_length out of range");
  const bool batched = x.shape.size() == 2;
  const std::string signal =
      cx.unsqueeze(x.onnx, batched ? std::vector<int64_t>{2} : std::vector<int64_t>{0, 2});
  std::string s =
      cx.emit1("STFT", {signal, cx.ci64s(hop), stft_window(cx, n_fft, win_length, x.dtype), cx.ci64s(n_fft)},
               {attr("onesided", int64_t{1})});
  if (cx.has("normalized") && cx.bool_arg("normalized"))
    s = cx.emit1("Mul", {s, cx.cscalar(1.0 / std::sqrt(static_cast<double>(n_fft)), x.dtype)});
  s = cx.transpose(s, {0, 2, 1, 3});  // [batch, bins, frames, 2]
  cx.out(0, batched ? s : cx.squeeze(s, {0}));
}
MX_ATEN_LOWER(lower_stft, "aten.stft");

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
