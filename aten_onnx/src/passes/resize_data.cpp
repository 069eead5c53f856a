// Resize follows the ONNX reference (onnx/reference/ops/op_resize.py):
// separable, one axis at a time; each output index x maps to a source
// coordinate c by the coordinate transformation, and the output is a
// weighted sum of source elements near c (edge elements repeated past the
// ends): nearest one element, linear two (c clamped into the axis first,
// as both ONNX Runtime and the reference's edge padding do), cubic four
// with the reference's coefficients of cubic_coeff_a (exclude_outside:
// the weights of elements past the ends are zeroed and the rest
// renormalized).
//
// The arithmetic is double, each element rounded once to its type. ONNX
// Runtime computes the coordinates, the weights and the sums in float32,
// so the folded value is not its bits (within an ulp or two of float32);
// constant_arithmetic.cpp argues why a weight's interpolation is folded
// anyway, against its rule. Where the choice of elements (not their
// weights) depends on the precision, the two must agree or the node stays:
// the output size (computed from `scales`, or rounded under
// keep_aspect_ratio_policy) in float32 (ONNX Runtime) and in double (the
// reference), and each nearest pixel (a coordinate of x.5 in one and not
// in the other picks another element, a whole pixel off). The linear and
// cubic weights are continuous in the coordinate: a coordinate an ulp off
// moves the value by about an ulp.
//
// Left to the runtime: where ONNX Runtime and the reference disagree. A
// one-element output under pytorch_half_pixel is source coordinate 0 in
// ONNX Runtime and -0.5 in the reference, which changes cubic's value
// (linear and nearest clamp both to element 0): cubic refused there. With
// `scales` whose output length L is not scale * length exactly, ONNX
// Runtime tests L and the reference scale * length: align_corners divides
// by L - 1 in one and by scale * length - 1 in the other (refused), and
// pytorch_half_pixel's one-element case is taken by ONNX Runtime alone
// when L is 1 (refused then; for L > 1 both take the half-pixel formula).
// exclude_outside outside cubic mode
// (ONNX Runtime rejects it), antialias, tf_crop_and_resize (roi and
// extrapolation) and tf_half_pixel_for_nn (gone in opset 13) are not
// evaluated.
#include "resize_data.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"

namespace mx::aten_onnx::passes {
namespace {

using TP = onnx::TensorProto;

enum class Mode { kNearest, kLinear, kCubic };

struct Options {
  Mode mode = Mode::kNearest;
  std::string transform;  // coordinate_transformation_mode
  std::string nearest;    // nearest_mode
  double cubic_a = -0.75;
  bool exclude_outside = false;
  std::string policy;  // keep_aspect_ratio_policy
};

std::string text_attr(const onnx::NodeProto& n, const char* name, const char* fallback) {
  const auto* a = find_attr(n, name);
  return a ? a->s() : fallback;
}

std::optional<Options> options_of(const onnx::NodeProto& n) {
  static const std::set<std::string> transforms{"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                                "half_pixel_symmetric"};
  static const std::set<std::string> nearest_modes{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  Options o;
  const std::string mode = text_attr(n, "mode", "nearest");
  if (mode == "nearest") o.mode = Mode::kNearest;
  else if (mode == "linear") o.mode = Mode::kLinear;
  else if (mode == "cubic") o.mode = Mode::kCubic;
  else return std::nullopt;
  o.transform = text_attr(n, "coordinate_transformation_mode", "half_pixel");
  o.nearest = text_attr(n, "nearest_mode", "round_prefer_floor");
  o.policy = text_attr(n, "keep_aspect_ratio_policy", "stretch");
  if (const auto* a = find_attr(n, "cubic_coeff_a")) o.cubic_a = a->f();
  o.exclude_outside = int_attr(n, "exclude_outside", 0) != 0;
  if (!transforms.count(o.transform) || !nearest_modes.count(o.nearest) || int_attr(n, "antialias", 0) != 0 ||
      (o.exclude_outside && o.mode != Mode::kCubic) ||
      (o.policy != "stretch" && o.policy != "not_larger" && o.policy != "not_smaller"))
    return std::nullopt;
  return o;
}

// Element k of a float32, float64, float16 or bfloat16 constant (exact).
double element(const ConstantData& c, int64_t k) {
  const char* p = c.bytes.data() + static_cast<size_t>(k) * element_size(c.dtype);
  if (c.dtype == TP::DOUBLE) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (c.dtype == TP::FLOAT) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return c.dtype == TP::FLOAT16 ? float16_value(bits) : bfloat16_value(bits);
}

// `v` as float32 rounded to odd: when inexact, of the two float32 values
// around it the one whose last bit is 1. Rounding that to float16 or
// bfloat16 (to nearest even) is the correct rounding of `v` itself: float32
// holds more than twice their precision plus two bits.
float round_to_odd(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) == v || !std::isfinite(f)) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1u;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Appends `v` rounded once (to nearest even) to `dtype`; false when the
// element is not finite there.
bool store(std::string& bytes, int32_t dtype, double v) {
  if (dtype == TP::DOUBLE) {
    bytes.append(reinterpret_cast<const char*>(&v), 8);
    return std::isfinite(v);
  }
  if (dtype == TP::FLOAT) {
    const float f = static_cast<float>(v);
    bytes.append(reinterpret_cast<const char*>(&f), 4);
    return std::isfinite(f);
  }
  const bool half = dtype == TP::FLOAT16;
  const uint16_t bits = half ? float16_bits(round_to_odd(v)) : bfloat16_bits(round_to_odd(v));
  bytes.append(reinterpret_cast<const char*>(&bits), 2);
  return std::isfinite(half ? float16_value(bits) : bfloat16_value(bits));
}

// The output dims of a Resize and the scale of each axis, computed in T:
// float as ONNX Runtime computes them, double as the reference does.
template <typename T>
struct Target {
  std::vector<int64_t> dims;
  std::vector<T> scales;
};

template <typename T>
std::optional<Target<T>> target(const std::vector<int64_t>& in, const std::vector<size_t>& axes,
                                const std::vector<double>& scales, const std::vector<int64_t>& sizes,
                                const std::string& policy) {
  Target<T> t{in, std::vector<T>(in.size(), T(1))};
  for (size_t k = 0; k < axes.size(); ++k) {
    const size_t d = axes[k];
    const T length = static_cast<T>(in[d]);
    if (!sizes.empty()) {
      t.dims[d] = sizes[k];
      t.scales[d] = static_cast<T>(sizes[k]) / length;
    } else {
      t.scales[d] = static_cast<T>(static_cast<float>(scales[k]));  // a float32 tensor
      if (!(t.scales[d] > 0)) return std::nullopt;
      t.dims[d] = static_cast<int64_t>(t.scales[d] * length);  // truncated, in both
    }
  }
  if (!sizes.empty() && policy != "stretch") {  // one scale for every axis, the smaller or the larger
    T s = t.scales[axes[0]];
    for (size_t d : axes) s = policy == "not_larger" ? std::min(s, t.scales[d]) : std::max(s, t.scales[d]);
    for (size_t d : axes) {
      t.scales[d] = s;
      t.dims[d] = static_cast<int64_t>(std::round(s * static_cast<T>(in[d])));
    }
  }
  for (auto d : t.dims)
    if (d < 1) return std::nullopt;
  return t;
}

// The source coordinate of output index x, in T (ONNX Runtime's formulas,
// which are the reference's but for a one-element output, see above).
template <typename T>
T source_coordinate(const std::string& transform, int64_t x, T scale, int64_t in, int64_t out) {
  const T xr = static_cast<T>(x);
  if (transform == "asymmetric") return xr / scale;
  if (transform == "align_corners")
    return out == 1 ? T(0) : xr * static_cast<T>(in - 1) / static_cast<T>(out - 1);
  if (transform == "pytorch_half_pixel") return out > 1 ? (xr + T(0.5)) / scale - T(0.5) : T(0);
  if (transform == "half_pixel_symmetric") {  // centred when out is not scale * in exactly
    const T adjustment = static_cast<T>(out) / (scale * static_cast<T>(in));
    const T offset = static_cast<T>(in) / T(2) * (T(1) - adjustment);
    return offset + (xr + T(0.5)) / scale - T(0.5);
  }
  return (xr + T(0.5)) / scale - T(0.5);  // half_pixel
}

// The element nearest_mode picks for source coordinate c, clamped into
// the axis (a coordinate of a whole number is that element in every mode).
template <typename T>
int64_t nearest_pixel(const std::string& mode, T c, int64_t in) {
  const T f = std::floor(c), r = c - f;
  const bool up = r != 0 && (mode == "ceil" || (mode == "round_prefer_floor" && r > T(0.5)) ||
                             (mode == "round_prefer_ceil" && r >= T(0.5)));
  const T k = up ? f + 1 : f;
  if (!(k > 0)) return 0;
  return k >= static_cast<T>(in - 1) ? in - 1 : static_cast<int64_t>(k);
}

// The reference's cubic weights of the elements at c - 1 - r, c - r,
// c + 1 - r, c + 2 - r for fraction r of c.
std::array<double, 4> cubic_weights(double r, double a) {
  const auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };     // |d| <= 1
  const auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
  return {far(r + 1), near(r), near(1 - r), far(2 - r)};
}

// Per output index of one axis: the source elements it sums, each with
// its weight.
using Taps = std::vector<std::vector<std::pair<int64_t, double>>>;

std::optional<Taps> axis_taps(const Options& o, int64_t in, int64_t out, double scale, float scale32) {
  if (o.mode == Mode::kCubic && o.transform == "pytorch_half_pixel" && out == 1) return std::nullopt;
  Taps taps(static_cast<size_t>(out));
  for (int64_t x = 0; x < out; ++x) {
    const double c = source_coordinate<double>(o.transform, x, scale, in, out);
    if (!std::isfinite(c)) return std::nullopt;
    auto& t = taps[static_cast<size_t>(x)];
    if (o.mode == Mode::kNearest) {
      const int64_t k = nearest_pixel(o.nearest, c, in);
      if (k != nearest_pixel(o.nearest, source_coordinate<float>(o.transform, x, scale32, in, out), in))
        return std::nullopt;  // float32 picks another element
      t.emplace_back(k, 1.0);
    } else if (o.mode == Mode::kLinear) {
      const double cc = std::clamp(c, 0.0, static_cast<double>(in - 1));
      const int64_t k = static_cast<int64_t>(std::floor(cc));
      const double r = cc - static_cast<double>(k);
      t.emplace_back(k, 1 - r);
      t.emplace_back(std::min(k + 1, in - 1), r);
    } else {
      const double f = std::floor(c);
      if (std::fabs(f) > 1e15) return std::nullopt;
      const auto w = cubic_weights(c - f, o.cubic_a);
      double sum = 0;
      for (int j = 0; j < 4; ++j) {
        const int64_t k = static_cast<int64_t>(f) - 1 + j;
        const double wj = o.exclude_outside && (k < 0 || k >= in) ? 0.0 : w[static_cast<size_t>(j)];
        t.emplace_back(std::clamp<int64_t>(k, 0, in - 1), wj);
        sum += wj;
      }
      if (o.exclude_outside) {
        if (sum == 0) return std::nullopt;
        for (auto& tap : t) tap.second /= sum;
      }
    }
  }
  return taps;
}

// `v` (of `dims`) resampled along `axis` by `taps`; dims[axis] becomes
// the output length. The first term is a product, not 0 plus it: nearest
// copies a -0 as -0.
std::vector<double> resample(const std::vector<double>& v, std::vector<int64_t>& dims, size_t axis,
                             const Taps& taps) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t in = dims[axis], out = static_cast<int64_t>(taps.size());
  std::vector<double> r(static_cast<size_t>(outer * out * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t x = 0; x < out; ++x) {
      double* row = r.data() + (o * out + x) * inner;
      bool first = true;
      for (const auto& [k, w] : taps[static_cast<size_t>(x)]) {
        const double* src = v.data() + (o * in + k) * inner;
        for (int64_t i = 0; i < inner; ++i) row[i] = first ? w * src[i] : row[i] + w * src[i];
        first = false;
      }
    }
  dims[axis] = out;
  return r;
}

// The axes `n` resizes (its `axes` attribute, or all), or nothing for
// axes out of range or repeated.
std::optional<std::vector<size_t>> resized_axes(const onnx::NodeProto& n, size_t rank) {
  std::vector<size_t> axes;
  const auto* a = find_attr(n, "axes");
  if (!a) {
    for (size_t d = 0; d < rank; ++d) axes.push_back(d);
    return axes;
  }
  std::set<size_t> seen;
  for (int64_t axis : a->ints()) {
    if (!normalize_axis(axis, static_cast<int64_t>(rank)) || !seen.insert(static_cast<size_t>(axis)).second)
      return std::nullopt;
    axes.push_back(static_cast<size_t>(axis));
  }
  if (axes.empty()) return std::nullopt;
  return axes;
}

bool is_float_data(int32_t dtype) {
  return dtype == TP::FLOAT || dtype == TP::DOUBLE || dtype == TP::FLOAT16 || dtype == TP::BFLOAT16;
}

// The target of `n` as float32 and double compute it, when both give the
// same output dims.
std::optional<std::pair<Target<float>, Target<double>>> targets(const onnx::NodeProto& n, const Options& o,
                                                                const ConstantData& x,
                                                                const std::vector<const ConstantData*>& in) {
  const ConstantData* scales = in[2] && in[2]->numel() > 0 ? in[2] : nullptr;  // opset 11, 12: empty
  const ConstantData* sizes = in.size() > 3 && in[3] && in[3]->numel() > 0 ? in[3] : nullptr;
  const auto axes = resized_axes(n, x.dims.size());
  if (!axes || (scales == nullptr) == (sizes == nullptr)) return std::nullopt;
  std::vector<double> scale_values;
  std::vector<int64_t> size_values;
  if (scales) {
    if (!is_float_data(scales->dtype)) return std::nullopt;
    for (int64_t k = 0; k < scales->numel(); ++k) scale_values.push_back(element(*scales, k));
  } else if (const auto v = ints_of(sizes)) {
    size_values = *v;
  }
  if (scale_values.size() + size_values.size() != axes->size()) return std::nullopt;
  auto t32 = target<float>(x.dims, *axes, scale_values, size_values, o.policy);
  auto t64 = target<double>(x.dims, *axes, scale_values, size_values, o.policy);
  if (!t32 || !t64 || t32->dims != t64->dims) return std::nullopt;
  for (size_t d = 0; scales && d < x.dims.size(); ++d) {
    const int64_t out = t64->dims[d];
    const bool exact = t64->scales[d] * static_cast<double>(x.dims[d]) == static_cast<double>(out);
    if (!exact && (o.transform == "align_corners" || (o.transform == "pytorch_half_pixel" && out == 1)))
      return std::nullopt;
  }
  return std::make_pair(std::move(*t32), std::move(*t64));
}

}  // namespace

std::optional<ConstantData> eval_resize(const onnx::NodeProto& n, const std::vector<const ConstantData*>& in,
                                        int64_t max_elements) {
  if (n.op_type() != "Resize" || !n.domain().empty() || n.output_size() != 1 || in.size() < 3 || in.size() > 4 ||
      !in[0])
    return std::nullopt;  // two inputs: opset 10's (X, scales), or no output size
  const ConstantData& x = *in[0];
  const auto o = options_of(n);
  if (!o || !is_float_data(x.dtype) || x.dims.empty() || x.numel() == 0) return std::nullopt;
  const auto t = targets(n, *o, x, in);
  if (!t) return std::nullopt;
  const auto& [t32, t64] = *t;

  std::vector<double> v(static_cast<size_t>(x.numel()));
  for (int64_t k = 0; k < x.numel(); ++k) v[static_cast<size_t>(k)] = element(x, k);
  std::vector<int64_t> dims = x.dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (t64.dims[d] == x.dims[d] && t64.scales[d] == 1) continue;  // the identity in every mode
    int64_t numel = t64.dims[d];  // this step's result, at most max_elements
    for (size_t e = 0; e < dims.size(); ++e)
      if (e != d) numel *= dims[e];
    if (numel > max_elements) return std::nullopt;
    const auto taps = axis_taps(*o, x.dims[d], t64.dims[d], t64.scales[d], t32.scales[d]);
    if (!taps) return std::nullopt;
    v = resample(v, dims, d, *taps);
  }
  ConstantData r;
  r.dtype = x.dtype;
  r.dims = dims;
  if (r.numel() > max_elements) return std::nullopt;
  for (double e : v)
    if (!store(r.bytes, r.dtype, e)) return std::nullopt;
  return r;
}

}  // namespace mx::aten_onnx::passes
