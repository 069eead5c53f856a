// Real FFTs and the complex values between them. ONNX has no complex
// element type that runtimes compute with, so a complex tensor of shape S
// is carried as a real one of shape S + [2] (real, imaginary) - the layout
// of torch.view_as_real and of ONNX DFT. The Value keeps the complex dtype
// and PyTorch's shape; only the lowerings registered under "complex." (the
// exporter dispatches there when a node reads a complex tensor) see it.
//
//   fft_rfft(2, n) / _fft_r2c   DFT onesided over the last dim, full DFTs
//                               over the others (rfft / fft of n points: the
//                               signal zero-padded or cut to n)
//   fft_irfft(2, n) / _fft_c2r  inverse DFTs over all but the last dim, then
//                               the full spectrum rebuilt by Hermitian
//                               symmetry, inverse DFT, real part
//   fft_fft / fft_ifft (2, n) / _fft_c2c   complex DFTs (a real input gains
//                               a zero imaginary part)
//   abs, angle, view_as_real, real, imag, add/sub/mul/div of complex and
//   real operands (lower/complex_math.cpp: exp, log, sqrt, matrix products)
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

// The number of points a transform sums over: the product of its dims'
// sizes, those known at export and those read at run time (a dynamic dim:
// FNet's sequence).
struct Points {
  double known = 1;
  std::vector<int64_t> dynamic_dims;
  const Value* of = nullptr;
};

Points points(const Value& v, const std::vector<int64_t>& dims, double known = 1) {
  Points p{known, {}, &v};
  for (int64_t d : dims) {
    if (v.shape.at(d).is_static) p.known *= static_cast<double>(v.shape[d].value);
    else p.dynamic_dims.push_back(d);
  }
  return p;
}

// The count as a 0-d tensor of dt.
std::string points_tensor(OpContext& cx, const Points& p, int32_t dt) {
  std::string n = cx.cscalar(p.known, dt);
  for (int64_t d : p.dynamic_dims)
    n = cx.emit1("Mul", {n, cx.cast(cx.dim_size(p.of->onnx, d), onnx::TensorProto::INT64, dt)});
  return n;
}

// The factor normalization `norm` scales `points` points by: none (0),
// 1 / sqrt(n) (1, ortho), 1 / n (2).
double static_factor(int norm, double points) {
  return norm == 1 ? 1.0 / std::sqrt(points) : norm == 2 ? 1.0 / points : 1.0;
}

std::string scaled(OpContext& cx, const std::string& x, int norm, const Points& p, int32_t dt) {
  if (norm == 0) return x;
  if (p.dynamic_dims.empty()) return cx.emit1("Mul", {x, cx.cscalar(static_factor(norm, p.known), dt)});
  std::string n = points_tensor(cx, p, dt);
  if (norm == 1) n = cx.emit1("Sqrt", {n});
  return cx.emit1("Div", {x, n});
}

// Unscaled complex DFTs of a pair-layout tensor over `dims` (ONNX's inverse
// divides by the size: multiplied back, so both directions are plain sums).
// DFT reads its length from the input, so a dim may be dynamic.
std::string raw_dfts(OpContext& cx, std::string z, const Value& v, const std::vector<int64_t>& dims,
                     bool inverse, int32_t dt) {
  for (int64_t d : dims) {
    z = cx.emit1("DFT", {z}, {attr("axis", d), attr("inverse", int64_t{inverse})});
    if (inverse) z = cx.emit1("Mul", {z, points_tensor(cx, points(v, {d}), dt)});
  }
  return z;
}

// A signal zero-padded or cut to n points along dim: the `n` of a 1-D FFT.
// A dynamic length is padded by n and cut to n, which does both.
std::string resized(OpContext& cx, const std::string& x, int64_t onnx_rank, int64_t dim, const Dim& len,
                    int64_t n, int32_t dt) {
  if (n < 1) cx.unsupported("an FFT of " + std::to_string(n) + " points");
  if (len.is_static && n == len.value) return x;
  const std::string cut = cx.ci64({n});
  if (len.is_static && n < len.value) return cx.emit1("Slice", {x, cx.ci64({0}), cut, cx.ci64({dim})});
  std::vector<int64_t> pads(static_cast<size_t>(2 * onnx_rank), 0);
  pads[static_cast<size_t>(onnx_rank + dim)] = len.is_static ? n - len.value : n;
  const std::string padded = cx.emit1("Pad", {x, cx.ci64(pads), cx.cscalar(0, dt)});
  if (len.is_static) return padded;
  return cx.emit1("Slice", {padded, cx.ci64({0}), cut, cx.ci64({dim})});
}

// The length of an inverse real FFT's output when the program gives none:
// 2 (m - 1) for a one-sided spectrum of m points.
int64_t default_length(OpContext& cx, const Dim& m) {
  if (!m.is_static) cx.unsupported("an inverse real FFT along a dynamic dim with no output length n");
  return 2 * (m.value - 1);
}

// A one-sided spectrum of m points along dim, zero-padded to hold the
// l / 2 + 1 points an inverse real DFT of l points reads, as ATen pads it.
// A dynamic m is padded by all of them; the DFT's slice keeps what it needs.
std::string covering(OpContext& cx, const std::string& z, int64_t onnx_rank, int64_t dim, const Dim& m,
                     int64_t l, int32_t dt) {
  const int64_t need = l / 2 + 1;
  if (m.is_static && m.value >= need) return z;
  std::vector<int64_t> pads(static_cast<size_t>(2 * onnx_rank), 0);
  pads[static_cast<size_t>(onnx_rank + dim)] = m.is_static ? need - m.value : need;
  return cx.emit1("Pad", {z, cx.ci64(pads), cx.cscalar(0, dt)});
}

// The unscaled spectrum of a real signal: a onesided (or full) DFT over the
// last of t's dims, full ones over the others, the signal first cut or
// zero-padded to n points (the n of a 1-D transform); and the number of
// points the norm divides by.
struct Spectrum {
  std::string z;
  Points points;
};
Spectrum real_spectrum(OpContext& cx, const Value& v, const Transform& t, bool onesided, int32_t dt) {
  const int64_t r = static_cast<int64_t>(v.shape.size()), last = t.dims.back();
  const std::vector<int64_t> others(t.dims.begin(), t.dims.end() - 1);
  std::string x = cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {r});
  Points p = points(v, t.dims);
  if (cx.has("n")) {
    const int64_t n = cx.int_arg("n");
    x = resized(cx, x, r + 1, last, v.shape.at(last), n, dt);
    p = points(v, others, static_cast<double>(n));
  }
  const std::string z = cx.emit1("DFT", {x}, {attr("axis", last), attr("onesided", int64_t{onesided})});
  return {raw_dfts(cx, z, v, others, false, dt), p};
}

// rfft / rfft2 / rfftn / _fft_r2c: a onesided DFT over the last dim (two-sided
// when _fft_r2c says so), full ones over the others.
void lower_rfft(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const Transform t = transform_of(cx, r, false);
  if (t.dims.empty()) cx.unsupported("an FFT over no dim");
  const bool onesided = !cx.has("onesided") || cx.bool_arg("onesided");  // false: core ATen's fft of a real
  require_unpadded(cx, t, v, false);
  const int32_t dt = component(complex_of(v.dtype));
  const auto [spectrum, p] = real_spectrum(cx, v, t, onesided, dt);
  cx.out(0, scaled(cx, spectrum, t.normalization, p, dt));
}
MX_ATEN_LOWER(lower_rfft, "aten.fft_rfft", "aten.fft_rfft2", "aten.fft_rfftn", "aten._fft_r2c");

}  // namespace

// patterns/inverse_real_dft.cpp: the inverse to a run-time length (1-D int64 n1d).
std::string emit_inverse_real_dft(OnnxEmitter& e, const std::string& spectrum, int64_t rank, int64_t dim,
                                  const std::string& n1d, int32_t dt);

namespace {

// irfft to a length the program computes (`n=x.shape[-1]` of a dynamic
// dim: a SymInt n / last_dim_size): the spectrum rebuilt and inverted at
// run time, scaled by the run-time number of points.
void irfft_to_dynamic_length(OpContext& cx, const Value& v, const Transform& t, const char* length) {
  const int64_t r = static_cast<int64_t>(v.shape.size()), last = t.dims.back();
  const int32_t dt = component(v.dtype);
  const std::vector<int64_t> others(t.dims.begin(), t.dims.end() - 1);
  const std::string l = cx.unsqueeze(cx.sym_int(length), {0});
  const std::string z = raw_dfts(cx, v.onnx, v, others, true, dt);
  std::string real = cx.emit1(  // ONNX's inverse divides by l: multiplied back to the plain sum
      "Mul", {emit_inverse_real_dft(cx, z, r, last, l, dt), cx.cast(l, onnx::TensorProto::INT64, dt)});
  if (t.normalization != 0) {
    std::string n =
        cx.emit1("Mul", {points_tensor(cx, points(v, others), dt), cx.cast(l, onnx::TensorProto::INT64, dt)});
    if (t.normalization == 1) n = cx.emit1("Sqrt", {n});
    real = cx.emit1("Div", {real, n});
  }
  cx.out(0, cx.cast(real, dt, cx.out_dtype()));
}

// irfft (2, n) / _fft_c2r: full inverse DFTs over every dim but the last,
// then the last: X [.., M, .., 2] with M = L/2 + 1 -> the L-point spectrum
// X[0..M) ++ conj(X[L-M .. 1]) -> inverse DFT (which scales by 1/L) -> real.
void lower_irfft(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const Transform t = transform_of(cx, r, true);
  if (t.dims.empty()) cx.unsupported("an FFT over no dim");
  const int64_t last = t.dims.back();
  const Dim& m = v.shape.at(last);
  require_unpadded(cx, t, v, true);
  const char* length = cx.has("last_dim_size")          ? "last_dim_size"
                       : t.sizes.empty() && cx.has("n") ? "n"
                                                        : nullptr;
  if (length && cx.arg_kind(length) == ArgKind::sym_int) return irfft_to_dynamic_length(cx, v, t, length);
  const int64_t l = cx.has("last_dim_size") ? cx.int_arg("last_dim_size")
                    : !t.sizes.empty()      ? t.sizes.back()
                    : cx.has("n")           ? cx.int_arg("n")
                                            : default_length(cx, m);
  if (l < 1) cx.unsupported("irfft to " + std::to_string(l) + " points");
  const int32_t dt = component(v.dtype);
  const std::vector<int64_t> others(t.dims.begin(), t.dims.end() - 1);
  const std::string z = covering(cx, raw_dfts(cx, v.onnx, v, others, true, dt), r + 1, last, m, l, dt);
  const double len = static_cast<double>(l);
  std::string real = cx.emit1("Mul", {emit_inverse_real_dft(cx, z, r, last, l, dt), cx.cscalar(len, dt)});
  real = scaled(cx, real, t.normalization, points(v, others, len), dt);
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
  require_unpadded(cx, t, v, false);
  const int32_t dt = component(cx.out_dtype());
  std::string z = v.onnx;
  if (!is_complex(v.dtype)) {
    const std::string re = cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {r});
    z = cx.emit1("Concat", {re, cx.emit1("Mul", {re, cx.cscalar(0, dt)})}, {attr("axis", r)});
  }
  if (t.dims.size() == 1 && cx.has("n")) {  // fft / ifft of n points: the signal padded or cut
    const int64_t d = t.dims[0], n = cx.int_arg("n");
    z = cx.emit1("DFT", {resized(cx, z, r + 1, d, v.shape.at(d), n, dt)},
                 {attr("axis", d), attr("inverse", int64_t{inverse})});
    if (inverse) z = cx.emit1("Mul", {z, cx.cscalar(static_cast<double>(n), dt)});
    return cx.out(0, scaled(cx, z, t.normalization, points(v, {}, static_cast<double>(n)), dt));
  }
  z = raw_dfts(cx, z, v, t.dims, inverse, dt);
  cx.out(0, scaled(cx, z, t.normalization, points(v, t.dims), dt));
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
// parts); a complex one is used as it is, in the result's precision (a 0-d
// complex128 operand does not promote a complex64 tensor: TorchScript
// traces a Python complex number so).
std::string as_pair_operand(OpContext& cx, const char* name, int32_t dt, bool& complex) {
  complex = false;
  if (cx.arg_kind(name) == ArgKind::tensor) {
    const Value& v = cx.value_of(name);
    if (is_complex(v.dtype)) {
      complex = true;
      return cx.cast(v.onnx, component(v.dtype), dt);
    }
    return cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {-1});
  }
  if (cx.arg_kind(name) == ArgKind::complex_number) {  // a [2] that broadcasts
    complex = true;
    const auto [re, im] = cx.complex_arg(name);
    return cx.emit1("Concat", {cx.unsqueeze(cx.cscalar(re, dt), {0}), cx.unsqueeze(cx.cscalar(im, dt), {0})},
                    {attr("axis", int64_t{0})});
  }
  return cx.operand(name, dt);  // a Python number
}

// A real operand as a complex one: (x, 0) in the pair layout, from
// as_pair_operand's [..., 1] (a Python number, 0-d, becomes a [2] that
// broadcasts).
std::string real_as_pair(OpContext& cx, const std::string& x, const char* name) {
  const int64_t r = cx.arg_kind(name) == ArgKind::tensor ? cx.rank_of(name) + 1 : 1;
  std::vector<int64_t> pads(2 * r, 0);
  pads.back() = 1;
  const std::string unsq = cx.arg_kind(name) == ArgKind::tensor ? x : cx.unsqueeze(x, {0});
  return cx.emit1("Pad", {unsq, cx.ci64(pads)});
}

// (a + ib) / (c + id) by Smith's algorithm, as c10::complex divides: the
// ratio of the smaller to the larger of |c|, |d| keeps the denominator
// from overflowing; 0 / 0 gives a / 0 and b / 0 as ATen does.
std::string complex_quotient(OpContext& cx, const std::string& x, const std::string& y, int32_t dt) {
  const std::string a = part(cx, x, 0), b = part(cx, x, 1), c = part(cx, y, 0), d = part(cx, y, 1);
  const std::string ac = cx.emit1("Abs", {c}), ad = cx.emit1("Abs", {d});
  auto mul = [&](const std::string& p, const std::string& q) { return cx.emit1("Mul", {p, q}); };
  auto add = [&](const std::string& p, const std::string& q) { return cx.emit1("Add", {p, q}); };
  auto sub = [&](const std::string& p, const std::string& q) { return cx.emit1("Sub", {p, q}); };
  const std::string one = cx.cscalar(1, dt);
  // |c| >= |d|: rat = d / c, scl = 1 / (c + d rat)
  const std::string rc = cx.emit1("Div", {d, c});
  const std::string sc = cx.emit1("Div", {one, add(c, mul(d, rc))});
  const std::string re_c = mul(add(a, mul(b, rc)), sc), im_c = mul(sub(b, mul(a, rc)), sc);
  // |c| < |d|: rat = c / d, scl = 1 / (d + c rat)
  const std::string rd = cx.emit1("Div", {c, d});
  const std::string sd = cx.emit1("Div", {one, add(d, mul(c, rd))});
  const std::string re_d = mul(add(mul(a, rd), b), sd), im_d = mul(sub(mul(b, rd), a), sd);
  const std::string c_larger = cx.emit1("GreaterOrEqual", {ac, ad});
  const std::string zero = cx.cscalar(0, dt);
  const std::string both_zero =
      cx.emit1("And", {cx.emit1("Equal", {ac, zero}), cx.emit1("Equal", {ad, zero})});
  const std::string re =
      cx.emit1("Where", {both_zero, cx.emit1("Div", {a, ac}), cx.emit1("Where", {c_larger, re_c, re_d})});
  const std::string im =
      cx.emit1("Where", {both_zero, cx.emit1("Div", {b, ad}), cx.emit1("Where", {c_larger, im_c, im_d})});
  return cx.emit1("Concat", {re, im}, {attr("axis", int64_t{-1})});
}

void lower_complex_arith(OpContext& cx) {
  const int32_t dt = component(cx.out_dtype());
  const std::string op = cx.op();
  bool ca = false, cb = false;
  std::string a = as_pair_operand(cx, "self", dt, ca), b = as_pair_operand(cx, "other", dt, cb);
  if (op == "add" || op == "sub" || op == "rsub") {
    if (cx.has("alpha") && cx.float_arg("alpha") != 1.0) cx.unsupported("complex add/sub with alpha");
    if (!ca) a = real_as_pair(cx, a, "self");  // a real adds to the real part only
    if (!cb) b = real_as_pair(cx, b, "other");
    if (op == "rsub") return cx.out(0, cx.emit1("Sub", {b, a}));  // other - self
    return cx.out(0, cx.emit1(op == "add" ? "Add" : "Sub", {a, b}));
  }
  if (op == "div" && cb) {
    if (!ca) a = real_as_pair(cx, a, "self");
    return cx.out(0, complex_quotient(cx, a, b, dt));
  }
  if (!(ca && cb)) return cx.out(0, cx.emit1(op == "div" ? "Div" : "Mul", {a, b}));  // scaled by a real
  const int64_t r = cx.out_rank();
  const std::string ar = part(cx, a, 0), ai = part(cx, a, 1), br = part(cx, b, 0), bi = part(cx, b, 1);
  const std::string re = cx.emit1("Sub", {cx.emit1("Mul", {ar, br}), cx.emit1("Mul", {ai, bi})});
  const std::string im = cx.emit1("Add", {cx.emit1("Mul", {ar, bi}), cx.emit1("Mul", {ai, br})});
  cx.out(0, cx.emit1("Concat", {re, im}, {attr("axis", r)}));
}
MX_ATEN_LOWER(lower_complex_arith, "complex.aten.mul", "complex.aten.div", "complex.aten.add",
              "complex.aten.sub", "complex.aten.rsub");

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
              "complex.aten._conj_physical");

// resolve_conj / resolve_neg: materialise a lazy conjugate (negation). The
// pair layout has no lazy bits - _conj above and ihfft conjugate their
// values when they compute them - so the values are already resolved; a
// real tensor has none either.
void lower_resolve(OpContext& cx) {
  cx.out(0, cx.emit1("Identity", {cx.tensor("self")}));
}
MX_ATEN_LOWER(lower_resolve, "complex.aten.resolve_conj", "complex.aten.resolve_neg", "aten.resolve_conj",
              "aten.resolve_neg");

// fftfreq(n, d=1.0) = [0, 1, .., (n - 1) / 2, -(n / 2), .., -1] / (d n);
// rfftfreq the first n / 2 + 1 of them. As ATen: the integers times
// 1 / (n d) in the output's dtype.
void lower_fft_frequencies(OpContext& cx) {
  const int64_t n = cx.int_arg("n");
  const double d = cx.float_arg("d", 1.0);
  const bool onesided = cx.op() == "fft_rfftfreq";
  std::vector<int64_t> k;
  for (int64_t i = 0; i < (onesided ? n / 2 + 1 : n); ++i)
    k.push_back(onesided || i < (n + 1) / 2 ? i : i - n);
  const int32_t dt = cx.out_dtype();
  cx.out(0, cx.emit1("Mul", {cx.cast(cx.ci64(k), onnx::TensorProto::INT64, dt),
                             cx.cscalar(1.0 / (static_cast<double>(n) * d), dt)}));
}
MX_ATEN_LOWER(lower_fft_frequencies, "aten.fft_fftfreq", "aten.fft_rfftfreq");

// fftshift(self, dim=None) rolls each dim (all when None) by n / 2, the
// zero frequency to the middle: x[c:] ++ x[:c] with c = ceil(n / 2);
// ifftshift undoes it with c = floor(n / 2). A dynamic size is read in
// the graph. A complex input keeps its pair axis last, beyond PyTorch's dims.
void lower_fft_shift(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const bool inverse = cx.op() == "fft_ifftshift";
  std::vector<int64_t> dims;
  if (cx.has("dim")) {
    for (int64_t d : cx.ints("dim")) dims.push_back(norm_dim(d, r));
  } else {
    for (int64_t d = 0; d < r; ++d) dims.push_back(d);
  }
  std::string x = v.onnx;
  for (int64_t d : dims) {
    std::string cut;
    if (v.shape.at(d).is_static) {
      const int64_t n = v.shape[d].value, c = inverse ? n / 2 : (n + 1) / 2;
      if (c == 0 || c == n) continue;
      cut = cx.ci64({c});
    } else {
      std::string n = cx.unsqueeze(cx.dim_size(x, d), {0});
      if (!inverse) n = cx.emit1("Add", {n, cx.ci64({1})});
      cut = cx.emit1("Div", {n, cx.ci64({2})});
    }
    const std::string tail = cx.emit1("Slice", {x, cut, cx.ci64({INT64_MAX}), cx.ci64({d})});
    const std::string head = cx.emit1("Slice", {x, cx.ci64({0}), cut, cx.ci64({d})});
    x = cx.emit1("Concat", {tail, head}, {attr("axis", d)});
  }
  cx.out(0, x == v.onnx ? cx.emit1("Identity", {x}) : x);
}
MX_ATEN_LOWER(lower_fft_shift, "aten.fft_fftshift", "aten.fft_ifftshift", "complex.aten.fft_fftshift",
              "complex.aten.fft_ifftshift");

// (re, im) * (s, -s): conj(z) * s in the pair layout.
std::string conj_scaled(OpContext& cx, const std::string& z, double s, int32_t dt) {
  const std::string factors =
      cx.emit1("Concat", {cx.unsqueeze(cx.cscalar(s, dt), {0}), cx.unsqueeze(cx.cscalar(-s, dt), {0})},
               {attr("axis", int64_t{0})});
  return cx.emit1("Mul", {z, factors});
}

// hfft / hfft2 / hfftn(self, n or s, dim, norm): the real signal of a
// Hermitian spectrum, one-sided along the last dim - a forward transform:
// N irfftn(conj(self)) scaled by norm. The last dim is cut or zero-padded
// to n / 2 + 1 points as ATen does (the others must keep their sizes); a
// real input is a spectrum with no imaginary part.
void lower_hfft(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const Transform t = transform_of(cx, r, false);
  if (t.dims.empty()) cx.unsupported("an FFT over no dim");
  require_unpadded(cx, t, v, true);
  const int64_t d = t.dims.back();
  const Dim& m = v.shape.at(d);
  const int64_t l = !t.sizes.empty() ? t.sizes.back() : cx.has("n") ? cx.int_arg("n") : default_length(cx, m);
  if (l < 1) cx.unsupported("hfft to " + std::to_string(l) + " points");
  const int32_t dt = cx.out_dtype();
  std::string z = v.onnx;
  if (!is_complex(v.dtype)) {
    std::vector<int64_t> pads(2 * (r + 1), 0);
    pads.back() = 1;
    z = cx.emit1("Pad", {cx.unsqueeze(cx.cast(v.onnx, v.dtype, dt), {r}), cx.ci64(pads)});
  }
  z = covering(cx, z, r + 1, d, m, l, dt);
  const std::vector<int64_t> others(t.dims.begin(), t.dims.end() - 1);
  z = raw_dfts(cx, conj_scaled(cx, z, 1.0, dt), v, others, true, dt);  // unscaled sums
  const double len = static_cast<double>(l);
  const std::string real = cx.emit1("Mul", {emit_inverse_real_dft(cx, z, r, d, l, dt), cx.cscalar(len, dt)});
  cx.out(0, scaled(cx, real, t.normalization, points(v, others, len), dt));
}
MX_ATEN_LOWER(lower_hfft, "aten.fft_hfft", "aten.fft_hfft2", "aten.fft_hfftn", "complex.aten.fft_hfft",
              "complex.aten.fft_hfft2", "complex.aten.fft_hfftn");

// ihfft / ihfft2 / ihfftn(self, n or s, dim, norm): the Hermitian spectrum
// of a real signal, one-sided along the last dim - an inverse transform:
// conj(rfftn(self)) scaled by norm. ihfft's signal is zero-padded or cut
// to n; the n-d forms take no other s.
void lower_ihfft(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const Transform t = transform_of(cx, r, true);
  if (t.dims.empty()) cx.unsupported("an FFT over no dim");
  require_unpadded(cx, t, v, false);
  const int32_t dt = component(cx.out_dtype());
  const auto [spectrum, p] = real_spectrum(cx, v, t, true, dt);
  if (!p.dynamic_dims.empty())  // scaled at run time, then conjugated
    return cx.out(0, conj_scaled(cx, scaled(cx, spectrum, t.normalization, p, dt), 1.0, dt));
  cx.out(0, conj_scaled(cx, spectrum, static_factor(t.normalization, p.known), dt));
}
MX_ATEN_LOWER(lower_ihfft, "aten.fft_ihfft", "aten.fft_ihfft2", "aten.fft_ihfftn");

// fft_irfft / _fft_c2r / istft take a complex input: they are only reached through
// the complex dispatch. Registered under their plain names too, so the
// program-wide check for missing lowerings knows them.
void lower_needs_complex(OpContext& cx) {
  cx.unsupported("an inverse real FFT of a real tensor");
}
MX_ATEN_LOWER(lower_needs_complex, "aten.fft_irfft", "aten.fft_irfft2", "aten.fft_irfftn", "aten._fft_c2r",
              "aten._fft_c2c", "aten._conj", "aten._conj_physical", "aten.view_as_real", "aten.real",
              "aten.imag", "aten.istft");

}  // namespace
}  // namespace mx::aten_onnx
