// Real FFTs and the complex values between them. ONNX has no complex
// element type that runtimes compute with, so a complex tensor of shape S
// is carried as a real one of shape S + [2] (real, imaginary) - the layout
// of torch.view_as_real and of ONNX DFT. The Value keeps the complex dtype
// and PyTorch's shape; only the lowerings registered under "complex." (the
// exporter dispatches there when a node reads a complex tensor) see it.
//
//   fft_rfft(2, n) / _fft_r2c   DFT onesided over the last dim, full DFTs
//                               over the others
//   fft_irfft(2, n) / _fft_c2r  inverse DFTs over all but the last dim, then
//                               the full spectrum rebuilt by Hermitian
//                               symmetry, inverse DFT, real part
//   fft_fft / fft_ifft (2, n) / _fft_c2c   complex DFTs (a real input gains
//                               a zero imaginary part)
//   abs, angle, view_as_real, real, imag, mul/div by a real, add/sub, mul of two
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

// The transformed dims and the scaling, from every overload:
// fft_rfft / fft_fft / fft_ifft / fft_irfft(self, n=None, dim=-1, norm=None),
// fft_rfft2 / fft_irfft2 / fft_fft2 / fft_ifft2 (s=None, dim=[-2, -1]),
// fft_rfftn / fft_irfftn / fft_fftn / fft_ifftn (s=None, dim=None: all),
// _fft_r2c / _fft_c2r / _fft_c2c(self, dim, normalization, ...).
struct Transform {
  std::vector<int64_t> dims;   // ascending; a real transform's half-spectrum dim is the last
  std::vector<int64_t> sizes;  // the signal sizes s, one per dim, when the program gives them
  int normalization = 0;       // 0: none, 1: 1/sqrt(n), 2: 1/n (n: the product of the signal sizes)
};

// A signal size s other than the input's (padding or trimming the signal)
// is refused; `skip_last` leaves the last one to an inverse real FFT, for
// which it is the output length.
void require_unpadded(OpContext& cx, const Transform& t, const Value& v, bool skip_last) {
  if (t.sizes.empty()) return;
  if (t.sizes.size() != t.dims.size()) cx.unsupported("an FFT whose s and dim differ in length");
  for (size_t k = 0; k + (skip_last ? 1 : 0) < t.dims.size(); ++k) {
    const Dim& d = v.shape.at(t.dims[k]);
    if (!d.is_static || d.value != t.sizes[k])
      cx.unsupported("an FFT with a signal size s other than the input's (padding or trimming)");
  }
}

Transform transform_of(OpContext& cx, int64_t rank, bool inverse) {
  Transform t;
  const std::string op = cx.op();
  if (op.rfind("_fft_", 0) == 0) {
    for (int64_t d : cx.ints("dim")) t.dims.push_back(norm_dim(d, rank));
    t.normalization = static_cast<int>(cx.int_arg("normalization", 0));
    return t;
  }
  if (cx.has("s")) t.sizes = cx.ints("s");
  if (op.find("fft2") != std::string::npos) {
    for (int64_t d : cx.has("dim") ? cx.ints("dim") : std::vector<int64_t>{-2, -1})
      t.dims.push_back(norm_dim(d, rank));
  } else if (op.find("fftn") != std::string::npos) {
    if (cx.has("dim")) {
      for (int64_t d : cx.ints("dim")) t.dims.push_back(norm_dim(d, rank));
    } else {  // the last len(s) dims, or all
      const int64_t first = t.sizes.empty() ? 0 : rank - static_cast<int64_t>(t.sizes.size());
      for (int64_t d = first; d < rank; ++d) t.dims.push_back(d);
    }
  } else {
    t.dims = {norm_dim(cx.int_arg("dim", -1), rank)};
  }
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

// Unscaled complex DFTs of a pair-layout tensor over `dims` (ONNX's inverse
// divides by the size: multiplied back, so both directions are plain sums).
std::string raw_dfts(OpContext& cx, std::string z, const Value& v, const std::vector<int64_t>& dims,
                     bool inverse, int32_t dt) {
  for (int64_t d : dims) {
    z = cx.emit1("DFT", {z}, {attr("axis", d), attr("inverse", int64_t{inverse})});
    if (inverse) z = cx.emit1("Mul", {z, cx.cscalar(static_cast<double>(static_dim(cx, v, d)), dt)});
  }
  return z;
}

double signal_size(OpContext& cx, const Value& v, const std::vector<int64_t>& dims) {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(static_dim(cx, v, d));
  return n;
}

// rfft / rfft2 / rfftn / _fft_r2c: a onesided DFT over the last dim (two-sided
// when _fft_r2c says so), full ones over the others.
void lower_rfft(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const Transform t = transform_of(cx, r, false);
  if (t.dims.empty()) cx.unsupported("an FFT over no dim");
  const bool onesided = !cx.has("onesided") || cx.bool_arg("onesided");  // false: core ATen's fft of a real
  const int64_t last = t.dims.back();
  const int64_t n = static_dim(cx, v, last);
  if (cx.has("n") && cx.int_arg("n") != n) cx.unsupported("rfft with n other than the signal length");
  require_unpadded(cx, t, v, false);
  const int32_t dt = component(complex_of(v.dtype));
  const std::string x = cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {r});
  std::string spectrum = cx.emit1("DFT", {x}, {attr("axis", last), attr("onesided", int64_t{onesided})});
  spectrum = raw_dfts(cx, spectrum, v, {t.dims.begin(), t.dims.end() - 1}, false, dt);
  cx.out(0, scaled(cx, spectrum, t.normalization, signal_size(cx, v, t.dims), dt));
}
MX_ATEN_LOWER(lower_rfft, "aten.fft_rfft", "aten.fft_rfft2", "aten.fft_rfftn", "aten._fft_r2c");

// irfft (2, n) / _fft_c2r: full inverse DFTs over every dim but the last,
// then the last: X [.., M, .., 2] with M = L/2 + 1 -> the L-point spectrum
// X[0..M) ++ conj(X[L-M .. 1]) -> inverse DFT (which scales by 1/L) -> real.
void lower_irfft(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const Transform t = transform_of(cx, r, true);
  if (t.dims.empty()) cx.unsupported("an FFT over no dim");
  const int64_t last = t.dims.back();
  const int64_t m = static_dim(cx, v, last);
  require_unpadded(cx, t, v, true);
  const int64_t l = cx.has("last_dim_size") ? cx.int_arg("last_dim_size")
                    : !t.sizes.empty()      ? t.sizes.back()
                                            : cx.int_arg("n", 2 * (m - 1));
  if (l < 1 || l / 2 + 1 > m) cx.unsupported("irfft to a length the spectrum does not cover");
  const int32_t dt = component(v.dtype);
  const std::vector<int64_t> others(t.dims.begin(), t.dims.end() - 1);
  const std::string z = raw_dfts(cx, v.onnx, v, others, true, dt);
  const double len = static_cast<double>(l);
  std::string real = cx.emit1("Mul", {emit_inverse_real_dft(cx, z, r, last, l, dt), cx.cscalar(len, dt)});
  real = scaled(cx, real, t.normalization, len * signal_size(cx, v, others), dt);
  cx.out(0, cx.cast(real, dt, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_irfft, "complex.aten.fft_irfft", "complex.aten.fft_irfft2", "complex.aten.fft_irfftn",
              "complex.aten._fft_c2r");

// Complex FFTs: fft / ifft (2, n) and core ATen's _fft_c2c(self, dim,
// normalization, forward). A real input (fft of a real tensor at the
// TRAINING level) gains a zero imaginary part.
void lower_c2c(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const std::string op = cx.op();
  const bool inverse = op == "_fft_c2c" ? !cx.bool_arg("forward") : op.rfind("fft_i", 0) == 0;
  const Transform t = transform_of(cx, r, inverse);
  if (t.dims.size() == 1 && cx.has("n") && cx.int_arg("n") != static_dim(cx, v, t.dims[0]))
    cx.unsupported("an FFT with n other than the signal length");
  require_unpadded(cx, t, v, false);
  const int32_t dt = component(cx.out_dtype());
  std::string z = v.onnx;
  if (!is_complex(v.dtype)) {
    const std::string re = cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {r});
    z = cx.emit1("Concat", {re, cx.emit1("Mul", {re, cx.cscalar(0, dt)})}, {attr("axis", r)});
  }
  z = raw_dfts(cx, z, v, t.dims, inverse, dt);
  cx.out(0, scaled(cx, z, t.normalization, signal_size(cx, v, t.dims), dt));
}
MX_ATEN_LOWER(lower_c2c, "aten.fft_fft", "aten.fft_ifft", "aten.fft_fft2", "aten.fft_ifft2", "aten.fft_fftn",
              "aten.fft_ifftn", "complex.aten.fft_fft", "complex.aten.fft_ifft", "complex.aten.fft_fft2",
              "complex.aten.fft_ifft2", "complex.aten.fft_fftn", "complex.aten.fft_ifftn",
              "complex.aten._fft_c2c");

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

// angle: atan2(imag, real) of a complex value; of a real one pi below
// zero, else 0 (NaN stays NaN).
void lower_complex_angle(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t dt = cx.out_dtype();
  const int64_t r = static_cast<int64_t>(v.shape.size());
  if (is_complex(v.dtype)) {
    const std::string re = cx.squeeze(part(cx, v.onnx, 0), {r}), im = cx.squeeze(part(cx, v.onnx, 1), {r});
    return cx.out(0, emit_atan2(cx, im, re, dt));
  }
  const std::string x = cx.operand("self", dt);
  const std::string a =
      cx.emit1("Where", {cx.emit1("Less", {x, cx.cscalar(0, dt)}), cx.cscalar(M_PI, dt), cx.cscalar(0, dt)});
  cx.out(0, cx.emit1("Where", {emit_is_nan(cx, x, dt), x, a}));
}
MX_ATEN_LOWER(lower_complex_angle, "aten.angle", "complex.aten.angle");

// complex(real, imag): the pair layout itself.
void lower_complex(OpContext& cx) {
  const int32_t dt = component(cx.out_dtype());
  const int64_t r = cx.out_rank();
  const std::string re = cx.operand("real", dt), im = cx.operand("imag", dt);
  const std::string shape = cx.shape_of(cx.emit1("Add", {re, im}));  // the broadcast shape
  cx.out(0, cx.emit1("Concat",
                     {cx.unsqueeze(cx.emit1("Expand", {re, shape}), {r}),
                      cx.unsqueeze(cx.emit1("Expand", {im, shape}), {r})},
                     {attr("axis", r)}));
}
MX_ATEN_LOWER(lower_complex, "aten.complex");

// conj: the imaginary part negated (_conj is the lazy flag core ATen
// writes; conj_physical the eager one).
void lower_complex_conj(OpContext& cx) {
  const int32_t dt = component(cx.out_dtype());
  const std::string flip =
      cx.emit1("Concat", {cx.unsqueeze(cx.cscalar(1, dt), {0}), cx.unsqueeze(cx.cscalar(-1, dt), {0})},
               {attr("axis", int64_t{0})});
  cx.out(0, cx.emit1("Mul", {cx.tensor("self"), flip}));
}
MX_ATEN_LOWER(lower_complex_conj, "complex.aten._conj", "complex.aten.conj", "complex.aten.conj_physical",
              "complex.aten.resolve_conj");

// fft_irfft / _fft_c2r / istft take a complex input: they are only reached through
// the complex dispatch. Registered under their plain names too, so the
// program-wide check for missing lowerings knows them.
void lower_needs_complex(OpContext& cx) {
  cx.unsupported("an inverse real FFT of a real tensor");
}
MX_ATEN_LOWER(lower_needs_complex, "aten.fft_irfft", "aten.fft_irfft2", "aten.fft_irfftn", "aten._fft_c2r",
              "aten._fft_c2c", "aten._conj", "aten.view_as_real", "aten.real", "aten.imag", "aten.istft");

}  // namespace
}  // namespace mx::aten_onnx
