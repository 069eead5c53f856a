// Real FFTs and the complex values between them. ONNX has no complex
// element type that runtimes compute with, so a complex tensor of shape S
// is carried as a real one of shape S + [2] (real, imaginary) - the layout
// of torch.view_as_real and of ONNX DFT. The Value keeps the complex dtype
// and PyTorch's shape; only the lowerings registered under "complex." (the
// exporter dispatches there when a node reads a complex tensor) see it.
//
//   fft_rfft / _fft_r2c   DFT onesided over one dim
//   fft_irfft / _fft_c2r  the full spectrum rebuilt by Hermitian symmetry,
//                         inverse DFT, real part
//   abs, view_as_real, real, imag, mul/div by a real, add/sub, mul of two
//   complex tensors
#include "mx/onnx_proto.hpp"

#include <cmath>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

bool is_complex(int32_t dt) {
  return dt == onnx::TensorProto::COMPLEX64 || dt == onnx::TensorProto::COMPLEX128;
}
int32_t component(int32_t dt) {
  return dt == onnx::TensorProto::COMPLEX128 ? onnx::TensorProto::DOUBLE : onnx::TensorProto::FLOAT;
}
int32_t complex_of(int32_t dt) {
  return dt == onnx::TensorProto::DOUBLE ? onnx::TensorProto::COMPLEX128 : onnx::TensorProto::COMPLEX64;
}

// The one transformed dim and the scaling, from either overload:
// fft_rfft(self, n=None, dim=-1, norm=None) / _fft_r2c(self, dim, normalization, onesided).
struct Transform {
  int64_t dim = -1;
  int normalization = 0;  // 0: none, 1: 1/sqrt(n), 2: 1/n
};

Transform transform_of(OpContext& cx, int64_t rank, bool inverse) {
  Transform t;
  if (cx.target().find("._fft_") != std::string::npos) {
    const auto dims = cx.ints("dim");
    if (dims.size() != 1)
      cx.unsupported("an FFT over " + std::to_string(dims.size()) + " dims (one is lowered)");
    t.dim = norm_dim(dims[0], rank);
    t.normalization = static_cast<int>(cx.int_arg("normalization", 0));
    return t;
  }
  t.dim = norm_dim(cx.int_arg("dim", -1), rank);
  const std::string norm = cx.string_arg("norm", "backward");
  if (norm == "ortho") t.normalization = 1;
  else if (norm == "forward") t.normalization = inverse ? 0 : 2;
  else t.normalization = inverse ? 2 : 0;  // "backward": the inverse scales by 1/n
  return t;
}

std::string scaled(OpContext& cx, const std::string& x, int norm, double n, int32_t dt) {
  if (norm == 0) return x;
  return cx.emit1("Mul", {x, cx.cscalar(norm == 1 ? 1.0 / std::sqrt(n) : 1.0 / n, dt)});
}

int64_t static_dim(OpContext& cx, const Value& v, int64_t d) {
  if (!v.shape.at(d).is_static) cx.unsupported("an FFT along a dynamic dim");
  return v.shape[d].value;
}

void lower_rfft(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const Transform t = transform_of(cx, r, false);
  if (cx.has("onesided") && !cx.bool_arg("onesided")) cx.unsupported("a two-sided real FFT");
  const int64_t n = static_dim(cx, v, t.dim);
  if (cx.has("n") && cx.int_arg("n") != n) cx.unsupported("rfft with n other than the signal length");
  const int32_t dt = component(complex_of(v.dtype));
  const std::string x = cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {r});
  const std::string spectrum = cx.emit1("DFT", {x}, {attr("axis", t.dim), attr("onesided", int64_t{1})});
  cx.out(0, scaled(cx, spectrum, t.normalization, static_cast<double>(n), dt));
}
MX_ATEN_LOWER(lower_rfft, "aten.fft_rfft", "aten._fft_r2c");

// irfft: X [.., M, .., 2] with M = L/2 + 1 -> the L-point spectrum
// X[0..M) ++ conj(X[L-M .. 1]) -> inverse DFT (which scales by 1/L) -> real.
void lower_irfft(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const Transform t = transform_of(cx, r, true);
  const int64_t m = static_dim(cx, v, t.dim);
  const int64_t l = cx.has("last_dim_size") ? cx.int_arg("last_dim_size") : cx.int_arg("n", 2 * (m - 1));
  if (l < 1 || l / 2 + 1 > m) cx.unsupported("irfft to a length the spectrum does not cover");
  const int32_t dt = component(v.dtype);
  std::string real = emit_inverse_real_dft(cx, v.onnx, r, t.dim, l, dt);
  // the inverse DFT divided by L: undo it unless ATen divides too
  const double len = static_cast<double>(l);
  if (t.normalization == 0) real = cx.emit1("Mul", {real, cx.cscalar(len, dt)});
  else if (t.normalization == 1) real = cx.emit1("Mul", {real, cx.cscalar(std::sqrt(len), dt)});
  cx.out(0, cx.cast(real, dt, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_irfft, "complex.aten.fft_irfft", "complex.aten._fft_c2r");

// ---- element-wise ops on complex values, [.., 2] real pairs.

// The pair axis is the last one, whatever the rank (a 0-d complex scalar
// broadcast against a tensor is a [2]).
std::string part(OpContext& cx, const std::string& z, int64_t k) {
  return cx.emit1("Slice", {z, cx.ci64({k}), cx.ci64({k + 1}), cx.ci64({-1})});
}

void lower_complex_abs(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const std::string sq = cx.emit1("Mul", {v.onnx, v.onnx});
  const std::string sum = cx.emit1("ReduceSum", {sq, cx.ci64({r})}, {attr("keepdims", int64_t{0})});
  cx.out(0, cx.cast(cx.emit1("Sqrt", {sum}), component(v.dtype), cx.out_dtype()));
}
MX_ATEN_LOWER(lower_complex_abs, "complex.aten.abs");

void lower_view_as_real(OpContext& cx) {
  cx.out(0, cx.emit1("Identity", {cx.tensor("self")}));
}
MX_ATEN_LOWER(lower_view_as_real, "complex.aten.view_as_real");

void lower_real_imag(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const int64_t k = cx.target().rfind("aten.imag", 0) == 0 ? 1 : 0;
  cx.out(0, cx.squeeze(part(cx, v.onnx, k), {r}));
}
MX_ATEN_LOWER(lower_real_imag, "complex.aten.real", "complex.aten.imag");

// A real operand next to a complex one gains the pair axis (it scales both
// parts); a complex one is used as it is.
std::string as_pair_operand(OpContext& cx, const char* name, int32_t dt, bool& complex) {
  complex = false;
  if (cx.arg_kind(name) == ArgKind::tensor) {
    const Value& v = cx.value_of(name);
    if (is_complex(v.dtype)) {
      complex = true;
      return v.onnx;
    }
    return cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {-1});
  }
  return cx.operand(name, dt);  // a Python number
}

void lower_complex_arith(OpContext& cx) {
  const int32_t dt = component(cx.out_dtype());
  const std::string op = cx.op();
  bool ca = false, cb = false;
  const std::string a = as_pair_operand(cx, "self", dt, ca), b = as_pair_operand(cx, "other", dt, cb);
  if (op == "add" || op == "sub") {
    if (ca != cb) cx.unsupported("adding a real tensor to a complex one");
    if (cx.has("alpha") && cx.float_arg("alpha") != 1.0) cx.unsupported("complex add/sub with alpha");
    return cx.out(0, cx.emit1(op == "add" ? "Add" : "Sub", {a, b}));
  }
  if (!(ca && cb)) return cx.out(0, cx.emit1(op == "div" ? "Div" : "Mul", {a, b}));
  if (op != "mul") cx.unsupported("complex division of two complex tensors");
  const int64_t r = cx.out_rank();
  const std::string ar = part(cx, a, 0), ai = part(cx, a, 1), br = part(cx, b, 0), bi = part(cx, b, 1);
  const std::string re = cx.emit1("Sub", {cx.emit1("Mul", {ar, br}), cx.emit1("Mul", {ai, bi})});
  const std::string im = cx.emit1("Add", {cx.emit1("Mul", {ar, bi}), cx.emit1("Mul", {ai, br})});
  cx.out(0, cx.emit1("Concat", {re, im}, {attr("axis", r)}));
}
MX_ATEN_LOWER(lower_complex_arith, "complex.aten.mul", "complex.aten.div", "complex.aten.add",
              "complex.aten.sub");

// fft_irfft / _fft_c2r / istft take a complex input: they are only reached through
// the complex dispatch. Registered under their plain names too, so the
// program-wide check for missing lowerings knows them.
void lower_needs_complex(OpContext& cx) {
  cx.unsupported("an inverse real FFT of a real tensor");
}
MX_ATEN_LOWER(lower_needs_complex, "aten.fft_irfft", "aten._fft_c2r", "aten.view_as_real", "aten.real",
              "aten.imag", "aten.istft");

}  // namespace
}  // namespace mx::aten_onnx
