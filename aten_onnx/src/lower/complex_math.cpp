// Complex math on the pair layout of lower/fft.cpp (a complex tensor of
// PyTorch shape S is a real [S..., 2] of (real, imaginary)): exp, log,
// sqrt on the principal branch, matrix products, and constant padding
// (core ATen pads a spectrum before an inverse FFT). Only the "complex."
// dispatch of a frontend that carries complex values reaches them.
#include "mx/onnx_proto.hpp"

#include <algorithm>

#include "complex_pairs.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {

std::string pairs::operand(OpContext& cx, const std::string& name, int32_t dt) {
  switch (cx.arg_kind(name)) {
    case ArgKind::tensor: {
      const Value& v = cx.value_of(name);
      if (is_complex(v.dtype)) return cx.cast(v.onnx, component(v.dtype), dt);
      return real_as_pair(cx, cx.cast(v.onnx, v.dtype, dt), static_cast<int64_t>(v.shape.size()));
    }
    case ArgKind::complex_number: {
      const auto [re, im] = cx.complex_arg(name);
      return cx.emit1("Concat",
                      {cx.unsqueeze(cx.cscalar(re, dt), {0}), cx.unsqueeze(cx.cscalar(im, dt), {0})},
                      {attr("axis", int64_t{0})});
    }
    default:  // a Python number: (x, 0)
      return real_as_pair(cx, cx.operand(name, dt), 0);
  }
}

std::string pairs::modulus(OnnxEmitter& e, const std::string& a, const std::string& b, int32_t dt) {
  const std::string m = e.emit1("Max", {e.emit1("Abs", {a}), e.emit1("Abs", {b})});
  const std::string zero = e.cscalar(0, dt);
  const std::string is_zero = e.emit1("Equal", {m, zero});
  const std::string safe = e.emit1("Where", {is_zero, e.cscalar(1, dt), m});
  const std::string ua = e.emit1("Div", {a, safe}), ub = e.emit1("Div", {b, safe});
  const std::string r = e.emit1(
      "Mul", {m, e.emit1("Sqrt", {e.emit1("Add", {e.emit1("Mul", {ua, ua}), e.emit1("Mul", {ub, ub})})})});
  return e.emit1("Where", {is_zero, zero, r});
}

std::string pairs::product(OnnxEmitter& e, const std::string& x, const std::string& y) {
  const std::string a = part(e, x, 0), b = part(e, x, 1), c = part(e, y, 0), d = part(e, y, 1);
  const std::string re = e.emit1("Sub", {e.emit1("Mul", {a, c}), e.emit1("Mul", {b, d})});
  const std::string im = e.emit1("Add", {e.emit1("Mul", {a, d}), e.emit1("Mul", {b, c})});
  return join(e, re, im);
}

// Principal square root, in the form of C's csqrt (which ATen calls), free
// of cancellation: for a >= 0, t = sqrt((|z| + a) / 2) and sqrt(z) = t +
// i b / 2t; for a < 0, t = sqrt((|z| - a) / 2) and sqrt(z) = |b| / 2t +
// i copysign(t, b) - the cut along the negative axis follows the sign of
// b's zero. The halves are taken before the sum so it cannot overflow.
std::string pairs::sqrt(OnnxEmitter& e, const std::string& z, int32_t dt) {
  const std::string a = part(e, z, 0), b = part(e, z, 1);
  const std::string half = e.cscalar(0.5, dt), zero = e.cscalar(0, dt);
  const std::string m = e.emit1("Mul", {modulus(e, a, b, dt), half});
  const std::string ha = e.emit1("Mul", {a, half});
  const std::string negative = e.emit1("Less", {a, zero});
  const std::string t =
      e.emit1("Sqrt", {e.emit1("Where", {negative, e.emit1("Sub", {m, ha}), e.emit1("Add", {m, ha})})});
  const std::string safe_t = e.emit1("Where", {e.emit1("Equal", {t, zero}), e.cscalar(1, dt), t});
  const std::string other = e.emit1("Div", {e.emit1("Mul", {b, half}), safe_t});  // b / 2t
  const std::string other_or_zero = e.emit1("Where", {e.emit1("Equal", {t, zero}), b, other});
  // copysign(t, b): b's sign bit, -0.0 included
  const std::string b_negative =
      e.emit1("Or", {e.emit1("Less", {b, zero}), e.emit1("Less", {e.emit1("Reciprocal", {b}), zero})});
  const std::string signed_t = e.emit1("Where", {b_negative, e.emit1("Neg", {t}), t});
  const std::string re = e.emit1("Where", {negative, e.emit1("Abs", {other_or_zero}), t});
  const std::string im = e.emit1("Where", {negative, signed_t, other_or_zero});
  return join(e, re, im);
}

// 1 / (c + id) by Smith's algorithm, as c10::complex divides (lower/fft.cpp's
// quotient with a = 1, b = 0): 1 / 0 is inf + i nan.
std::string pairs::reciprocal(OnnxEmitter& e, const std::string& z, int32_t dt) {
  const std::string c = part(e, z, 0), d = part(e, z, 1);
  const std::string one = e.cscalar(1, dt), zero = e.cscalar(0, dt);
  // |c| >= |d|: rat = d / c, scl = 1 / (c + d rat), 1 / z = scl - i rat scl
  const std::string rc = e.emit1("Div", {d, c});
  const std::string sc = e.emit1("Div", {one, e.emit1("Add", {c, e.emit1("Mul", {d, rc})})});
  const std::string im_c = e.emit1("Neg", {e.emit1("Mul", {rc, sc})});
  // |c| < |d|: rat = c / d, scl = 1 / (d + c rat), 1 / z = rat scl - i scl
  const std::string rd = e.emit1("Div", {c, d});
  const std::string sd = e.emit1("Div", {one, e.emit1("Add", {d, e.emit1("Mul", {c, rd})})});
  const std::string re_d = e.emit1("Mul", {rd, sd});
  const std::string ac = e.emit1("Abs", {c}), ad = e.emit1("Abs", {d});
  const std::string c_larger = e.emit1("GreaterOrEqual", {ac, ad});
  const std::string both_zero = e.emit1("And", {e.emit1("Equal", {ac, zero}), e.emit1("Equal", {ad, zero})});
  // 0 / 0: 1 / |c| and 0 / |d|
  const std::string re =
      e.emit1("Where", {both_zero, e.emit1("Div", {one, ac}), e.emit1("Where", {c_larger, sc, re_d})});
  const std::string im = e.emit1("Where", {both_zero, e.emit1("Div", {zero, ad}),
                                           e.emit1("Where", {c_larger, im_c, e.emit1("Neg", {sd})})});
  return join(e, re, im);
}

namespace {

using pairs::component;
using pairs::modulus;

// The real (k = 0) or imaginary (k = 1) part of a pair-layout tensor of
// PyTorch rank r, as a real tensor of PyTorch's shape.
std::string part(OpContext& cx, const std::string& z, int64_t r, int64_t k) {
  return cx.squeeze(cx.emit1("Slice", {z, cx.ci64({k}), cx.ci64({k + 1}), cx.ci64({r})}), {r});
}

std::string pair(OpContext& cx, const std::string& re, const std::string& im, int64_t r) {
  return cx.emit1("Concat", {cx.unsqueeze(re, {r}), cx.unsqueeze(im, {r})}, {attr("axis", r)});
}

// exp(a + ib) = e^a (cos b + i sin b)
void lower_complex_exp(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const std::string a = part(cx, v.onnx, r, 0), b = part(cx, v.onnx, r, 1);
  const std::string e = cx.emit1("Exp", {a});
  cx.out(0,
         pair(cx, cx.emit1("Mul", {e, cx.emit1("Cos", {b})}), cx.emit1("Mul", {e, cx.emit1("Sin", {b})}), r));
}
MX_ATEN_LOWER(lower_complex_exp, "complex.aten.exp");

// log(z) = log|z| + i arg(z), arg in (-pi, pi] with the sign of a zero imaginary part.
void lower_complex_log(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t dt = component(v.dtype);
  const int64_t r = static_cast<int64_t>(v.shape.size());
  const std::string a = part(cx, v.onnx, r, 0), b = part(cx, v.onnx, r, 1);
  cx.out(0, pair(cx, cx.emit1("Log", {modulus(cx, a, b, dt)}), emit_atan2(cx, b, a, dt), r));
}
MX_ATEN_LOWER(lower_complex_log, "complex.aten.log");

// sqrt on the principal branch (pairs::sqrt).
void lower_complex_sqrt(OpContext& cx) {
  const Value& v = cx.value_of("self");
  cx.out(0, pairs::sqrt(cx, v.onnx, component(v.dtype)));
}
MX_ATEN_LOWER(lower_complex_sqrt, "complex.aten.sqrt");

// (A + iB)(C + iD) = (AC - BD) + i(AD + BC): four real products of the
// parts, MatMul's broadcasting being matmul's (mm and bmm are its 2-d and
// 3-d cases). PyTorch multiplies complex matrices only with complex ones.
void lower_complex_matmul(OpContext& cx) {
  const Value& x = cx.value_of("self");
  const Value& y = cx.value_of(cx.has("mat2") ? "mat2" : "other");
  if (x.dtype != y.dtype) cx.unsupported("a product of a complex and a real matrix");
  const int64_t rx = static_cast<int64_t>(x.shape.size()), ry = static_cast<int64_t>(y.shape.size());
  const std::string a = part(cx, x.onnx, rx, 0), b = part(cx, x.onnx, rx, 1);
  const std::string c = part(cx, y.onnx, ry, 0), d = part(cx, y.onnx, ry, 1);
  auto mm = [&](const std::string& p, const std::string& q) { return cx.emit1("MatMul", {p, q}); };
  const std::string re = cx.emit1("Sub", {mm(a, c), mm(b, d)});
  const std::string im = cx.emit1("Add", {mm(a, d), mm(b, c)});
  cx.out(0, pair(cx, re, im, cx.out_rank()));
}
MX_ATEN_LOWER(lower_complex_matmul, "complex.aten.matmul", "complex.aten.mm", "complex.aten.bmm");

// constant_pad_nd(self, pad, value=0): PyTorch's pairs from the last
// dim backwards, the pair axis not padded.
void lower_complex_pad(OpContext& cx) {
  const int64_t r = cx.rank_of("self");
  if (cx.has("value") && cx.float_arg("value") != 0.0)
    cx.unsupported("a complex pad with a value other than 0");
  const auto pad = cx.static_ints("pad");
  const int32_t dt = component(cx.dtype_of("self"));
  const std::string pads = pad ? cx.ci64(static_onnx_pads(*pad, r + 1, 1))
                               : onnx_pads_of_list(cx, cx.int_list("pad"),
                                                   static_cast<int64_t>(cx.list_length("pad")) / 2, r + 1, 1);
  cx.out(0, cx.emit1("Pad", {cx.tensor("self"), pads, cx.cscalar(0, dt)}));
}
MX_ATEN_LOWER(lower_complex_pad, "complex.aten.constant_pad_nd");

// to / _to_copy of a complex tensor (Llama 4's rotary `freqs_ci.to(device)`
// at the TRAINING level): the pairs cast component-wise to another complex
// dtype; a real target keeps the real part, as PyTorch does.
void lower_complex_to(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t to = cx.out_dtype();
  const bool to_complex = to == onnx::TensorProto::COMPLEX64 || to == onnx::TensorProto::COMPLEX128;
  if (to_complex) {
    const std::string y = cx.cast(v.onnx, component(v.dtype), component(to));
    return cx.out(0, y == v.onnx ? cx.emit1("Identity", {y}) : y);
  }
  const int64_t r = static_cast<int64_t>(v.shape.size());
  cx.out(0, cx.cast(part(cx, v.onnx, r, 0), component(v.dtype), to));
}
MX_ATEN_LOWER(lower_complex_to, "complex.aten.to", "complex.aten._to_copy");

// neg: both parts negated.
void lower_complex_neg(OpContext& cx) {
  cx.out(0, cx.emit1("Neg", {cx.tensor("self")}));
}
MX_ATEN_LOWER(lower_complex_neg, "complex.aten.neg");

// square: z z, as ATen multiplies.
void lower_complex_square(OpContext& cx) {
  const std::string z = cx.tensor("self");
  cx.out(0, pairs::product(cx, z, z));
}
MX_ATEN_LOWER(lower_complex_square, "complex.aten.square");

// reciprocal (pairs::reciprocal).
void lower_complex_reciprocal(OpContext& cx) {
  const Value& v = cx.value_of("self");
  cx.out(0, pairs::reciprocal(cx, v.onnx, component(v.dtype)));
}
MX_ATEN_LOWER(lower_complex_reciprocal, "complex.aten.reciprocal");

// einsum of one or two complex operands (PyTorch does not promote a real
// one): the equation applied to the real and imaginary parts, (A + iB)(C +
// iD) = (AC - BD) + i(AD + BC).
void lower_complex_einsum(OpContext& cx) {
  const int32_t dt = component(cx.out_dtype());
  std::string eq = cx.string_arg("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  std::vector<std::string> re_parts, im_parts;
  for (const Value* t : cx.tensor_list("tensors")) {
    if (!pairs::is_complex(t->dtype)) cx.unsupported("einsum of a complex and a real operand");
    const int64_t r = static_cast<int64_t>(t->shape.size());
    const std::string z = cx.cast(t->onnx, component(t->dtype), dt);
    re_parts.push_back(part(cx, z, r, 0));
    im_parts.push_back(part(cx, z, r, 1));
  }
  if (re_parts.empty() || re_parts.size() > 2) cx.unsupported("a complex einsum of more than two operands");
  auto ein = [&](std::vector<std::string> in) { return cx.emit1("Einsum", in, {attr("equation", eq)}); };
  std::string re, im;
  if (re_parts.size() == 1) {
    re = ein({re_parts[0]});
    im = ein({im_parts[0]});
  } else {
    re = cx.emit1("Sub", {ein({re_parts[0], re_parts[1]}), ein({im_parts[0], im_parts[1]})});
    im = cx.emit1("Add", {ein({re_parts[0], im_parts[1]}), ein({im_parts[0], re_parts[1]})});
  }
  cx.out(0, pair(cx, re, im, cx.out_rank()));
}
MX_ATEN_LOWER(lower_complex_einsum, "complex.aten.einsum");

// rsqrt: 1 / sqrt(z), as ATen computes it.
void lower_complex_rsqrt(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t dt = component(v.dtype);
  cx.out(0, pairs::reciprocal(cx, pairs::sqrt(cx, v.onnx, dt), dt));
}
MX_ATEN_LOWER(lower_complex_rsqrt, "complex.aten.rsqrt");

// sgn: z / |z|, 0 at 0.
void lower_complex_sgn(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t dt = component(v.dtype);
  const std::string m = pairs::modulus(cx, pairs::part(cx, v.onnx, 0), pairs::part(cx, v.onnx, 1), dt);
  const std::string zero = cx.emit1("Equal", {m, cx.cscalar(0, dt)});
  const std::string q = cx.emit1("Div", {v.onnx, cx.emit1("Where", {zero, cx.cscalar(1, dt), m})});
  cx.out(0, cx.emit1("Where", {zero, cx.cscalar(0, dt), q}));
}
MX_ATEN_LOWER(lower_complex_sgn, "complex.aten.sgn");

// isnan / isinf: of either part; isfinite: of both.
void lower_complex_float_tests(OpContext& cx) {
  const Value& v = cx.value_of("self");
  const int32_t dt = component(v.dtype);
  const std::string op = cx.op();
  const std::string a = pairs::part(cx, v.onnx, 0), b = pairs::part(cx, v.onnx, 1);
  auto test = [&](const std::string& x) {
    return op == "isnan" ? emit_is_nan(cx, x, dt) : emit_is_inf(cx, x, dt);
  };
  std::string y;
  if (op == "isfinite")
    y = cx.emit1("Not", {cx.emit1("Or", {cx.emit1("Or", {emit_is_nan(cx, a, dt), emit_is_inf(cx, a, dt)}),
                                         cx.emit1("Or", {emit_is_nan(cx, b, dt), emit_is_inf(cx, b, dt)})})});
  else y = cx.emit1("Or", {test(a), test(b)});
  cx.out(0, cx.squeeze(y, {static_cast<int64_t>(v.shape.size())}));
}
MX_ATEN_LOWER(lower_complex_float_tests, "complex.aten.isnan", "complex.aten.isinf", "complex.aten.isfinite");

// eq / ne: both parts equal (a real operand is (x, 0), a number (n, 0)).
void lower_complex_eq(OpContext& cx) {
  int32_t dt = onnx::TensorProto::FLOAT;
  for (const char* n : {"self", "other"})
    if (cx.arg_kind(n) == ArgKind::tensor && pairs::is_complex(cx.dtype_of(n)) &&
        component(cx.dtype_of(n)) == onnx::TensorProto::DOUBLE)
      dt = onnx::TensorProto::DOUBLE;
  const std::string equal =
      cx.emit1("Equal", {pairs::operand(cx, "self", dt), pairs::operand(cx, "other", dt)});
  std::string y = cx.emit1("And", {pairs::part(cx, equal, 0), pairs::part(cx, equal, 1)});
  if (cx.op() == "ne") y = cx.emit1("Not", {y});
  cx.out(0, cx.squeeze(y, {cx.out_rank()}));
}
MX_ATEN_LOWER(lower_complex_eq, "complex.aten.eq", "complex.aten.ne");

}  // namespace
}  // namespace mx::aten_onnx
