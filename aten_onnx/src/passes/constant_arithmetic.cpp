// A folded value must be the one the runtime would have computed, to the
// bit: parity tests compare against the unfolded graph, and a constant
// that differs in its last bit can flip a comparison downstream. So each
// op is computed in the precision the runtime computes it in, never wider:
// float32 in float32 (computing in double and rounding once would be a
// different, if closer, result for Pow and for chains), float64 in float64.
// Max, Min, Clip, Floor and Ceil select or truncate, with no rounding at
// all; a Range of whole numbers within 2^24 is exact. Add, Sub, Mul, Div, Sqrt and Reciprocal (1 / x) are correctly rounded in
// IEEE arithmetic, and ONNX Runtime's kernels compute exactly those
// (Eigen / MLAS, no fused multiply-add on one op), so the results agree on
// every platform. float16 and bfloat16 are computed in float32 and rounded
// once to their type: ONNX Runtime's CPU provider does exactly that (it
// casts half operands to float32 around kernels it lacks), and for one
// correctly rounded op float32 holds more than twice the half types'
// precision plus two bits, so the result is also the correctly rounded
// half result a native half kernel gives. Where a runtime's result
// depends on its math library (Log, Tanh, Erf, ...) or on
// its rounding path (double to a half type: through float32 or not), the
// node is not folded. Nor is a result holding a NaN (its payload and sign
// are the runtime's choice).
//
// Cos and Sin are the exception: they are folded to the value rounded from
// double (libm's, within an ulp of the true value), which no runtime
// promises to the bit either (ONNX Runtime's vectorized float kernels and
// libm differ by an ulp). They are what builds a signal window (stft's and
// istft's Hann, Hamming, Blackman: a cosine of an arange), which torch
// computes at export in the anchor's file; left to the runtime, the window
// and everything computed from it per frame stays in the graph. A value
// an ulp from the runtime's is as close to torch's own window (computed
// with its vectorized cos) as the runtime's is. Pow by an exponent other
// than 2 or 3 (float32 / float64) is folded the same way, for the same
// reason: it builds a rotary table's inverse frequencies (theta ^ (arange
// / d), Flux's position embedding computes them in its forward), which the
// anchor's file holds as a constant. So is Exp: a diffusion model's
// timestep embedding computes its frequencies as exp(-log(max_period) *
// arange(half) / half) in its forward (DiT, Flux, UNets).
//
// A Resize of a weight is the second exception (resize_data.cpp, folded
// by fold_weight_data): computed in double and rounded once, the correctly
// rounded interpolation, where ONNX Runtime's float32 kernel rounds every
// coordinate, coefficient and partial sum. It is what builds a position
// table resized to the patch grid (YOLOS's bicubic embeddings, BEiT's
// bilinear relative position bias), which torch computes at export in the
// anchor's file; left to the runtime, the Resize and the chain reshaping
// the table around it stay. Measured on the interpolate_weight samples
// against torch in float64, in ulps of the table's largest value: ours
// within 0.5 ulp; ONNX Runtime's kernel up to 10 ulps (bicubic), 1.3
// (bilinear); torch's float32 (the anchor's constant) up to 4.3 and 3.0.
// Nearest is a copy, bit for bit; float16 agreed to the bit.
#include "constant_arithmetic.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"

namespace mx::aten_onnx::passes {
namespace {

using TP = onnx::TensorProto;

// float32 or float64: the type a floating dtype is computed in.
bool is_double(int32_t dtype) {
  return dtype == TP::DOUBLE;
}

template <typename T>
T load(const ConstantData& c, int64_t k) {
  const char* p = c.bytes.data() + static_cast<size_t>(k) * element_size(c.dtype);
  switch (c.dtype) {
    case TP::FLOAT16:
    case TP::BFLOAT16: {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      return static_cast<T>(c.dtype == TP::FLOAT16 ? float16_value(bits) : bfloat16_value(bits));
    }
    case TP::DOUBLE: {
      double v;
      std::memcpy(&v, p, 8);
      return static_cast<T>(v);
    }
    default: {
      float v;
      std::memcpy(&v, p, 4);
      return static_cast<T>(v);
    }
  }
}

template <typename T>
void append(std::string& bytes, T v) {
  bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Appends `v` (computed in float32, or float64 for DOUBLE) as an element of
// `dtype`: one rounding, to nearest even, for float16 and bfloat16.
template <typename T>
void store(std::string& bytes, int32_t dtype, T v) {
  switch (dtype) {
    case TP::FLOAT16:
      append(bytes, float16_bits(static_cast<float>(v)));
      break;
    case TP::BFLOAT16:
      append(bytes, bfloat16_bits(static_cast<float>(v)));
      break;
    case TP::DOUBLE:
      append(bytes, static_cast<double>(v));
      break;
    default:
      append(bytes, static_cast<float>(v));
      break;
  }
}

// `f` applied element by element to `x`, in T.
template <typename T, typename F>
std::optional<ConstantData> map(const ConstantData& x, F f) {
  ConstantData r;
  r.dtype = x.dtype;
  r.dims = x.dims;
  const int64_t n = x.numel();
  for (int64_t k = 0; k < n; ++k) {
    const T v = f(load<T>(x, k));
    if (std::isnan(v)) return std::nullopt;
    store(r.bytes, r.dtype, v);
  }
  return r;
}

template <typename T>
std::optional<ConstantData> unary(const std::string& op, const ConstantData& x) {
  if (op == "Neg") return map<T>(x, [](T v) { return -v; });
  if (op == "Abs") return map<T>(x, [](T v) { return std::fabs(v); });
  if (op == "Sqrt") return map<T>(x, [](T v) { return std::sqrt(v); });
  if (op == "Reciprocal") return map<T>(x, [](T v) { return T(1) / v; });
  if (op == "Floor") return map<T>(x, [](T v) { return std::floor(v); });  // exact: no rounding
  if (op == "Ceil") return map<T>(x, [](T v) { return std::ceil(v); });
  // The exceptions to the rule above (see the file's head): rounded from double.
  if (op == "Cos") return map<T>(x, [](T v) { return static_cast<T>(std::cos(static_cast<double>(v))); });
  if (op == "Sin") return map<T>(x, [](T v) { return static_cast<T>(std::sin(static_cast<double>(v))); });
  if (op == "Exp") return map<T>(x, [](T v) { return static_cast<T>(std::exp(static_cast<double>(v))); });
  return std::nullopt;
}

// a op b, broadcast as ONNX broadcasts (both ways).
template <typename T>
std::optional<ConstantData> binary(const std::string& op, const ConstantData& a, const ConstantData& b,
                                   int64_t max) {
  const auto wa = expand(a, b.dims, max);
  if (!wa) return std::nullopt;
  const auto wb = expand(b, wa->dims, max);
  if (!wb) return std::nullopt;
  ConstantData r;
  r.dtype = a.dtype;
  r.dims = wa->dims;
  const int64_t n = r.numel();
  for (int64_t k = 0; k < n; ++k) {
    const T x = load<T>(*wa, k), y = load<T>(*wb, k);
    T v;
    if (op == "Add") v = x + y;
    else if (op == "Sub") v = x - y;
    else if (op == "Mul") v = x * y;
    else if (op == "Div") v = x / y;
    else if (op == "Max" || op == "Min") {
      // Selects an operand, exactly; which zero a runtime picks of -0 and
      // +0 is its choice: left to it.
      if (std::isnan(x) || std::isnan(y) || (x == y && std::signbit(x) != std::signbit(y))) return std::nullopt;
      v = (op == "Max") == (x < y) ? y : x;
    } else return std::nullopt;
    if (std::isnan(v)) return std::nullopt;
    store(r.bytes, r.dtype, v);
  }
  return r;
}

// The exponent of a Pow when it is one element (any numeric dtype).
std::optional<double> scalar_exponent(const ConstantData& e) {
  if (e.numel() != 1) return std::nullopt;
  if (is_floating(e.dtype)) return load<double>(e, 0);
  if (const auto v = ints_of(&e)) return static_cast<double>((*v)[0]);
  return std::nullopt;
}

// x^e for other exponents (float32 / float64 only: a half type's result
// would round twice), rounded from double: the second exception to the
// rule (see the file's head).
std::optional<ConstantData> power_from_double(const ConstantData& x, const ConstantData& e, int64_t max) {
  if (x.dtype != TP::FLOAT && x.dtype != TP::DOUBLE) return std::nullopt;
  if (!is_floating(e.dtype) && !ints_of(&e)) return std::nullopt;
  const auto wx = expand(x, e.dims, max);
  if (!wx) return std::nullopt;
  const auto we = expand(e, wx->dims, max);
  if (!we) return std::nullopt;
  const auto exponents = is_floating(we->dtype) ? std::nullopt : ints_of(&*we);
  ConstantData r;
  r.dtype = x.dtype;
  r.dims = wx->dims;
  for (int64_t k = 0; k < r.numel(); ++k) {
    const double y = exponents ? static_cast<double>((*exponents)[static_cast<size_t>(k)]) : load<double>(*we, k);
    const double v = std::pow(load<double>(*wx, k), y);
    if (std::isnan(v)) return std::nullopt;
    store(r.bytes, r.dtype, v);
  }
  return r;
}

// ONNX Runtime computes x^2 as x * x and x^3 as x * x * x (in T); other
// exponents go through the math library's pow. A half type's x * x is
// exact in float32, so x^2 is one rounding there; x^3 is two, and a native
// half kernel would round in between: not folded.
template <typename T>
std::optional<ConstantData> power(const ConstantData& x, const ConstantData& e, int64_t max) {
  const auto p = scalar_exponent(e);
  if (!p || (*p != 2 && *p != 3)) return power_from_double(x, e, max);
  if (*p == 3 && (x.dtype == TP::FLOAT16 || x.dtype == TP::BFLOAT16)) return std::nullopt;
  const auto wx = expand(x, e.dims, max);
  if (!wx) return std::nullopt;
  if (*p == 2) return map<T>(*wx, [](T v) { return v * v; });
  return map<T>(*wx, [](T v) { return v * v * v; });
}

// A floating-point value cast to int32 / int64: truncated, as a C++ cast
// (ONNX Runtime's); values a 32-bit int cannot hold are left to the runtime
// (the cast of an out-of-range float is undefined).
std::optional<ConstantData> float_to_int(const ConstantData& x, int32_t to) {
  ConstantData r;
  r.dtype = to;
  r.dims = x.dims;
  for (int64_t k = 0; k < x.numel(); ++k) {
    const double t = std::trunc(load<double>(x, k));
    if (!(std::fabs(t) < 2147483648.0)) return std::nullopt;  // NaN included
    if (to == TP::INT64) append(r.bytes, static_cast<int64_t>(t));
    else append(r.bytes, static_cast<int32_t>(t));
  }
  return r;
}

// Integers of magnitude up to 2^24 are exact in float32, so every cast
// path (direct or through float32) rounds them the same, once.
std::optional<ConstantData> int_to_float(const ConstantData& x, int32_t to) {
  const auto v = ints_of(&x);
  if (!v) return std::nullopt;
  ConstantData r;
  r.dtype = to;
  r.dims = x.dims;
  for (int64_t i : *v) {
    if (i > (int64_t{1} << 24) || i < -(int64_t{1} << 24)) return std::nullopt;
    store(r.bytes, to, static_cast<float>(i));
  }
  return r;
}

std::optional<ConstantData> cast(const ConstantData& x, int32_t to) {
  if (!is_floating(x.dtype)) return is_floating(to) ? int_to_float(x, to) : std::nullopt;
  if (to == TP::INT64 || to == TP::INT32) return float_to_int(x, to);
  if (!is_floating(to)) return std::nullopt;
  // double to a half type: some runtimes round through float32, some do not.
  if (x.dtype == TP::DOUBLE && (to == TP::FLOAT16 || to == TP::BFLOAT16)) return std::nullopt;
  ConstantData r;
  r.dtype = to;
  r.dims = x.dims;
  for (int64_t k = 0; k < x.numel(); ++k) {
    const double v = load<double>(x, k);  // exact: every source type widens to double
    if (std::isnan(v)) return std::nullopt;
    if (is_double(to)) store(r.bytes, to, v);
    else store(r.bytes, to, static_cast<float>(v));  // double to float32: one rounding
  }
  return r;
}

// Clip(x, lo, hi) with 0-d bounds of x's dtype (an omitted one: no bound),
// Max then Min as ONNX Runtime's kernel does: selects a value, exactly.
template <typename T>
std::optional<ConstantData> clip(const ConstantData& x, const std::vector<const ConstantData*>& in) {
  std::optional<T> lo, hi;
  for (size_t k = 1; k < in.size(); ++k) {
    if (!in[k]) continue;
    if (in[k]->dtype != x.dtype || in[k]->numel() != 1) return std::nullopt;
    (k == 1 ? lo : hi) = load<T>(*in[k], 0);
  }
  if (lo && hi && !(*lo <= *hi)) return std::nullopt;
  bool ambiguous = false;
  auto r = map<T>(x, [&](T v) {
    for (const auto& b : {lo, hi})
      ambiguous |= b && v == *b && std::signbit(v) != std::signbit(*b);  // -0 against +0
    if (lo && v < *lo) v = *lo;
    if (hi && v > *hi) v = *hi;
    return v;
  });
  if (ambiguous) return std::nullopt;
  return r;
}

// Range(start, limit, delta) of 0-d float32 / float64 whole numbers whose
// values stay within 2^24: every value start + k * delta is then exact, so
// a runtime that adds delta step by step (ONNX Runtime) and one that
// multiplies get the same elements, as does the count (an arange of
// positions, the input of a window's cos).
std::optional<ConstantData> whole_range(const std::vector<const ConstantData*>& in, int64_t max) {
  if (in.size() != 3) return std::nullopt;
  double v[3];
  for (int k = 0; k < 3; ++k) {
    if (!in[k] || in[k]->dtype != in[0]->dtype || in[k]->numel() != 1 || !in[k]->dims.empty())
      return std::nullopt;
    v[k] = load<double>(*in[k], 0);
    if (!(std::fabs(v[k]) <= 16777216.0) || std::trunc(v[k]) != v[k]) return std::nullopt;  // NaN too
  }
  const double start = v[0], limit = v[1], delta = v[2];
  if (delta == 0 || (in[0]->dtype != TP::FLOAT && in[0]->dtype != TP::DOUBLE)) return std::nullopt;
  const double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (count > static_cast<double>(max)) return std::nullopt;
  ConstantData r;
  r.dtype = in[0]->dtype;
  r.dims = {static_cast<int64_t>(count)};
  for (int64_t k = 0; k < r.dims[0]; ++k) {
    const double x = start + static_cast<double>(k) * delta;
    if (std::fabs(x) > 16777216.0) return std::nullopt;
    store(r.bytes, r.dtype, x);
  }
  return r;
}

template <typename T>
std::optional<ConstantData> eval(const onnx::NodeProto& n, const std::vector<const ConstantData*>& in,
                                 int64_t max) {
  const std::string& op = n.op_type();
  const ConstantData& x = *in[0];
  if (op == "Clip") return in.size() <= 3 ? clip<T>(x, in) : std::nullopt;
  if (op == "Range") return whole_range(in, max);
  for (const auto* c : in)
    if (!c) return std::nullopt;
  if (in.size() == 1) return unary<T>(op, x);
  if (in.size() != 2 || !in[1]) return std::nullopt;
  if (op == "Pow") return power<T>(x, *in[1], max);
  if (in[1]->dtype != x.dtype) return std::nullopt;
  return binary<T>(op, x, *in[1], max);
}

}  // namespace

std::optional<ConstantData> eval_float_arithmetic(const onnx::NodeProto& n,
                                                  const std::vector<const ConstantData*>& in,
                                                  int64_t max_elements) {
  if (!n.domain().empty() || n.output_size() != 1 || in.empty() || !in[0]) return std::nullopt;
  std::optional<ConstantData> r;
  if (n.op_type() == "Cast") {
    if (in.size() == 1) r = cast(*in[0], static_cast<int32_t>(int_attr(n, "to", 0)));
  } else if (is_floating(in[0]->dtype)) {
    r = is_double(in[0]->dtype) ? eval<double>(n, in, max_elements) : eval<float>(n, in, max_elements);
  }
  if (!r || r->numel() > max_elements) return std::nullopt;
  return r;
}

}  // namespace mx::aten_onnx::passes
