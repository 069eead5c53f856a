// The orthogonal polynomials of torch.special, P_n(x) for an integer
// degree n (a Python number or a tensor; a float n is truncated, a NaN or
// infinite one counts as -1), as ATen's kernels (ATen/native/Math.h)
// compute them:
//
//   n < 0                     0
//   chebyshev_polynomial_t/u/v/w (shifted_*: of u = 2x - 1)  at u = +-1 the
//                  closed values (1 or n + 1 or 2n + 1, signed by the parity
//                  of n at -1); for |u| < 1 above a degree (6 for T, 8 for
//                  U, V, W; shifted: 6, and 4 for W) the trigonometric forms
//                  cos(n t), sin((n+1) t) / sin t, cos((n+1/2) t) / cos(t/2),
//                  sin((n+1/2) t) / sin(t/2) of t = acos(u); otherwise the
//                  three-term recurrence r = 2u q - p.
//   hermite_polynomial_h / he  r = 2x q - 2k p / r = x q - k p; NaN above
//                  degree 128 (float) or 512 (double), as ATen.
//   laguerre_polynomial_l  r = ((2k + 1 - x) q - k p) / (k + 1); 1 at x = 0.
//   legendre_polynomial_p  r = ((2k + 1) x q - k p) / (k + 1); +-1 at x = +-1.
//
// A static degree up to kUnrolled is unrolled; a larger one or a tensor
// degree runs the recurrence in an ONNX Loop over the broadcast elements,
// each element stepping while its own degree needs it; the Loop stops when
// no element needs another step or every one still stepping is NaN (where
// ATen's loop stops too: the result is NaN either way).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cephes_series.hpp"
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int32_t kInt32 = onnx::TensorProto::INT32;
constexpr int32_t kBool = onnx::TensorProto::BOOL;
constexpr int64_t kUnrolled = 16;

enum class Family { chebyshev, hermite_h, hermite_he, laguerre, legendre };

struct Poly {
  Family family = Family::chebyshev;
  char kind = 't';       // chebyshev: t, u, v, w
  bool shifted = false;  // shifted_chebyshev: of u = 2x - 1
};

Poly poly_of(const std::string& op) {
  Poly p;
  if (op.find("chebyshev") != std::string::npos) {
    p.kind = op.back();
    p.shifted = op.find("shifted") != std::string::npos;
  } else if (op.find("hermite_polynomial_he") != std::string::npos) {
    p.family = Family::hermite_he;
  } else if (op.find("hermite") != std::string::npos) {
    p.family = Family::hermite_h;
  } else if (op.find("laguerre") != std::string::npos) {
    p.family = Family::laguerre;
  } else {
    p.family = Family::legendre;
  }
  return p;
}

// The degree-1 polynomial, and the recurrence's first term.
std::string first(OpContext& cx, const Poly& f, const std::string& x, const std::string& u, int32_t dt) {
  const std::string one = cx.cscalar(1, dt);
  switch (f.family) {
    case Family::hermite_h:
      return cx.emit1("Add", {x, x});
    case Family::hermite_he:
    case Family::legendre:
      return x;
    case Family::laguerre:
      return cx.emit1("Sub", {one, x});
    case Family::chebyshev:
      break;
  }
  if (f.kind == 't') return u;
  const std::string two_u = cx.emit1("Add", {u, u});
  if (f.kind == 'u') return two_u;
  return cx.emit1(f.kind == 'v' ? "Sub" : "Add", {two_u, one});
}

// One step of the recurrence from (p, q) = (P_(k-1), P_k) for k = 1, 2,
// ... (`k` of dtype dt): P_(k+1), in ATen's order of operations.
std::string step(OpContext& cx, const Poly& f, const std::string& x, const std::string& u,
                 const std::string& k, const std::string& p, const std::string& q, int32_t dt) {
  const std::string one = cx.cscalar(1, dt);
  switch (f.family) {
    case Family::chebyshev:
      return cx.emit1("Sub", {cx.emit1("Mul", {cx.emit1("Add", {u, u}), q}), p});
    case Family::hermite_h:  // (x + x) q - 2k p
      return cx.emit1("Sub", {cx.emit1("Mul", {cx.emit1("Add", {x, x}), q}),
                              cx.emit1("Mul", {cx.emit1("Add", {k, k}), p})});
    case Family::hermite_he:
      return cx.emit1("Sub", {cx.emit1("Mul", {x, q}), cx.emit1("Mul", {k, p})});
    case Family::laguerre: {  // ((k + k) + (1 - x)) q - k p, over k + 1
      const std::string a = cx.emit1("Add", {cx.emit1("Add", {k, k}), cx.emit1("Sub", {one, x})});
      return cx.emit1("Div", {cx.emit1("Sub", {cx.emit1("Mul", {a, q}), cx.emit1("Mul", {k, p})}),
                              cx.emit1("Add", {k, one})});
    }
    case Family::legendre: {  // (k + k + 1) x q - k p, over k + 1
      const std::string a = cx.emit1("Add", {cx.emit1("Add", {k, k}), one});
      return cx.emit1(
          "Div", {cx.emit1("Sub", {cx.emit1("Mul", {cx.emit1("Mul", {a, x}), q}), cx.emit1("Mul", {k, p})}),
                  cx.emit1("Add", {k, one})});
    }
  }
  return q;
}

// P_n for n >= 2 by n - 1 steps, n static.
std::string unrolled(OpContext& cx, const Poly& f, const std::string& x, const std::string& u, int64_t n,
                     int32_t dt) {
  std::string p = cx.cscalar(1, dt), q = first(cx, f, x, u, dt);
  for (int64_t k = 1; k < n; ++k) {
    const std::string r = step(cx, f, x, u, cx.cscalar(static_cast<double>(k), dt), p, q, dt);
    p = q;
    q = r;
  }
  return q;
}

// P_n by an ONNX Loop: each element takes n - 1 steps where `stepping`
// (its value comes from the recurrence), none elsewhere. x, u, n are
// carried (at the broadcast shape) rather than read from the outer graph.
std::string looped(OpContext& cx, const Poly& f, const std::string& x, const std::string& u,
                   const std::string& n, const std::string& stepping, int32_t dt) {
  const std::string shape = cx.shape_of(cx.emit1("Add", {cx.emit1("Add", {x, u}), cx.cast(n, kInt64, dt)}));
  const std::string xb = cx.emit1("Expand", {x, shape}), ub = cx.emit1("Expand", {u, shape});
  // the degree where stepping, 0 (no step) elsewhere; the trip count the most steps
  const std::string nb = cx.emit1("Expand", {cx.emit1("Where", {stepping, n, cx.ci64s(0)}), shape});
  const std::string flat = cx.emit1("Concat", {cx.emit1("Reshape", {nb, cx.ci64({-1})}), cx.ci64({1})},
                                    {attr("axis", int64_t{0})});
  const std::string trips = cx.emit1("Sub", {emit_reduce(cx, "ReduceMax", flat, {}, false), cx.ci64s(1)});
  const std::string it = nb + "_k", cond = nb + "_cond", bx = nb + "_x", bu = nb + "_u", bn = nb + "_n",
                    bp = nb + "_p", bq = nb + "_q";
  auto carried = [](const std::string& name, int32_t type) {
    return OnnxEmitter::BodyValue{name, type, {}, false};
  };
  onnx::GraphProto body = cx.body_graph(
      "Loop", nb + "_recurrence",
      {{it, kInt64},
       {cond, kBool},
       carried(bx, dt),
       carried(bu, dt),
       carried(bn, kInt64),
       carried(bp, dt),
       carried(bq, dt)},
      [&]() -> std::vector<OnnxEmitter::BodyValue> {
        // step k = it + 1 for the elements whose degree is above it
        const std::string k = cx.emit1("Add", {it, cx.ci64s(1)});
        const std::string r = step(cx, f, bx, bu, cx.cast(k, kInt64, dt), bp, bq, dt);
        const std::string active = cx.emit1("Less", {k, bn});
        const std::string p2 = cx.emit1("Where", {active, bq, bp}), q2 = cx.emit1("Where", {active, r, bq});
        // another step: an element above k + 1 whose value is not NaN
        const std::string left = cx.emit1("Less", {cx.emit1("Add", {k, cx.ci64s(1)}), bn});
        const std::string live = cx.emit1("And", {left, cx.emit1("Not", {emit_is_nan(cx, q2, dt)})});
        const std::string any = emit_reduce(
            cx, "ReduceMax", cx.cast(cx.emit1("Reshape", {live, cx.ci64({-1})}), kBool, kInt32), {}, false);
        return {{cx.cast(any, kInt32, kBool), kBool},
                carried(bx, dt),
                carried(bu, dt),
                carried(bn, kInt64),
                carried(p2, dt),
                carried(q2, dt)};
      });
  const std::string ones = cx.emit1("Expand", {cx.cscalar(1, dt), shape});
  const std::string q0 = first(cx, f, xb, ub, dt);
  const std::string start = cx.emit1("Greater", {trips, cx.ci64s(0)});
  const auto r = cx.emit("Loop", {trips, start, xb, ub, nb, ones, q0}, {attr("body", std::move(body))}, 5);
  return r[4];
}

// The closed values of the Chebyshev polynomials at u = +1 (`plus`) and
// u = -1 (`minus`, signed by the parity of n).
struct Edges {
  std::string plus, minus;
};
Edges chebyshev_edges(OpContext& cx, char kind, const std::string& nf, const std::string& even, int32_t dt) {
  const std::string one = cx.cscalar(1, dt);
  const std::string n1 = cx.emit1("Add", {nf, one});
  const std::string n21 = cx.emit1("Add", {cx.emit1("Add", {nf, nf}), one});
  const std::string plus = kind == 'u' ? n1 : kind == 'w' ? n21 : one;
  const std::string mag = kind == 'u' ? n1 : kind == 'v' ? n21 : one;
  return {plus, cx.emit1("Where", {even, mag, cx.emit1("Neg", {mag})})};
}

// acos(u) for |u| < 1. ONNX Runtime's Acos is float-only: a double is
// atan2(sqrt((1 - u)(1 + u)), u), exact in its factors.
std::string acos_of(OpContext& cx, const std::string& u, int32_t dt) {
  if (dt != onnx::TensorProto::DOUBLE) return cx.emit1("Acos", {u});
  const std::string one = cx.cscalar(1, dt);
  const std::string s =
      cx.emit1("Sqrt", {cx.emit1("Mul", {cx.emit1("Sub", {one, u}), cx.emit1("Add", {one, u})})});
  return emit_atan2(cx, s, u, dt);
}

// The trigonometric form for |u| < 1 above the degree threshold.
std::string chebyshev_trig(OpContext& cx, const Poly& f, const std::string& x, const std::string& u,
                           const std::string& nf, const Edges& edges, int32_t dt) {
  const std::string t = acos_of(cx, u, dt);
  const std::string one = cx.cscalar(1, dt), half = cx.cscalar(0.5, dt);
  const std::string n_half = cx.emit1("Mul", {cx.emit1("Add", {nf, half}), t});
  const std::string t_half = cx.emit1("Div", {t, cx.cscalar(2, dt)});
  switch (f.kind) {
    case 't':
      return cx.emit1("Cos", {cx.emit1("Mul", {nf, t})});
    case 'u': {
      const std::string n1t = cx.emit1("Mul", {cx.emit1("Add", {nf, one}), t});
      const std::string s = cx.emit1("Sin", {t});
      const std::string main = cx.emit1("Div", {cx.emit1("Sin", {n1t}), s});
      const std::string alt =
          cx.emit1("Div", {cx.emit1("Mul", {cx.emit1("Add", {nf, one}), cx.emit1("Cos", {n1t})}), u});
      return cx.emit1("Where", {cx.emit1("Equal", {s, cx.cscalar(0, dt)}), alt, main});
    }
    case 'v': {
      const std::string main = cx.emit1("Div", {cx.emit1("Cos", {n_half}), cx.emit1("Cos", {t_half})});
      return cx.emit1("Where", {cx.emit1("Equal", {cx.emit1("Sin", {t_half}), one}), edges.minus, main});
    }
    default: {  // w; ATen's unshifted fallback checks x > 0, its shifted one only the parity
      const std::string main = cx.emit1("Div", {cx.emit1("Sin", {n_half}), cx.emit1("Sin", {t_half})});
      const std::string alt =
          f.shifted
              ? edges.minus
              : cx.emit1("Where", {cx.emit1("Greater", {x, cx.cscalar(0, dt)}), edges.plus, edges.minus});
      return cx.emit1("Where", {cx.emit1("Equal", {cx.emit1("Cos", {t_half}), one}), alt, main});
    }
  }
}

// The degree: (int64 n, n as dt), NaN and infinities as -1, a float
// truncated toward 0 (ATen's static_cast of n in the common dtype).
struct Degree {
  std::string n, nf;
  std::optional<int64_t> value;  // a Python number
};
Degree degree_of(OpContext& cx, int32_t dt) {
  const ArgKind k = cx.arg_kind("n");
  if (k == ArgKind::integer || k == ArgKind::floating) {
    const double v = k == ArgKind::integer ? static_cast<double>(cx.int_arg("n")) : cx.float_arg("n");
    const int64_t n = std::isfinite(v) ? static_cast<int64_t>(v) : -1;
    return {cx.ci64s(n), cx.cscalar(static_cast<double>(n), dt), n};
  }
  const std::string raw = cx.operand("n", dt);
  const std::string bad = cx.emit1("Or", {emit_is_nan(cx, raw, dt), emit_is_inf(cx, raw, dt)});
  const std::string n = cx.emit1("Where", {bad, cx.ci64s(-1), cx.cast(raw, dt, kInt64)});
  return {n, cx.cast(n, kInt64, dt), std::nullopt};
}

void lower_orthogonal_polynomial(OpContext& cx) {
  const Poly f = poly_of(cx.op());
  const int32_t out = cx.out_dtype(), dt = cephes::kernel_dtype(out);
  const std::string x = cx.operand("x", dt);
  const Degree d = degree_of(cx, dt);
  const std::string one = cx.cscalar(1, dt), zero = cx.cscalar(0, dt);
  const std::string u = f.shifted ? cx.emit1("Sub", {cx.emit1("Add", {x, x}), one}) : x;
  const std::string even = cx.emit1("Equal", {cx.emit1("Mod", {d.n, cx.ci64s(2)}), cx.ci64s(0)});

  // (condition, value) pairs, the first that holds wins; the recurrence last
  std::vector<std::pair<std::string, std::string>> cases;
  cases.push_back({cx.emit1("Less", {d.n, cx.ci64s(0)}), zero});
  if (f.family == Family::chebyshev) {
    const Edges e = chebyshev_edges(cx, f.kind, d.nf, even, dt);
    // the edges: x = 1 and x = 0 for the shifted ones, x = +-1 (by sign) otherwise
    const std::string at_plus = cx.emit1("Equal", {x, one});
    const std::string at_minus =
        f.shifted ? cx.emit1("Equal", {x, zero}) : cx.emit1("Equal", {x, cx.cscalar(-1, dt)});
    cases.push_back({at_plus, e.plus});
    cases.push_back({at_minus, e.minus});
    const int64_t above = f.shifted ? (f.kind == 'w' ? 4 : 6) : (f.kind == 't' ? 6 : 8);
    const std::string trig = cx.emit1(
        "And", {cx.emit1("Greater", {d.n, cx.ci64s(above)}), cx.emit1("Less", {cx.emit1("Abs", {u}), one})});
    cases.push_back({trig, chebyshev_trig(cx, f, x, u, d.nf, e, dt)});
  } else if (f.family == Family::laguerre) {
    cases.push_back({cx.emit1("Equal", {x, zero}), one});
  } else if (f.family == Family::legendre) {
    const std::string at_edge = cx.emit1("Equal", {cx.emit1("Abs", {x}), one});
    cases.push_back({at_edge, cx.emit1("Where", {cx.emit1("Or", {cx.emit1("Greater", {x, zero}), even}), one,
                                                 cx.cscalar(-1, dt)})});
  }
  cases.push_back({cx.emit1("Equal", {d.n, cx.ci64s(0)}), one});
  cases.push_back({cx.emit1("Equal", {d.n, cx.ci64s(1)}), first(cx, f, x, u, dt)});
  if (f.family == Family::hermite_h || f.family == Family::hermite_he) {
    const int64_t limit = dt == onnx::TensorProto::DOUBLE ? 512 : 128;
    cases.push_back({cx.emit1("Greater", {d.n, cx.ci64s(limit)}),
                     cx.cscalar(std::numeric_limits<double>::quiet_NaN(), dt)});
  }

  std::string y;
  if (d.value && *d.value < 2) {
    y = zero;  // one of the cases above holds for every element
  } else if (d.value && *d.value <= kUnrolled) {
    y = unrolled(cx, f, x, u, *d.value, dt);
  } else {
    // stepping: no case before the recurrence holds
    std::string decided = cases.front().first;
    for (size_t i = 1; i < cases.size(); ++i) decided = cx.emit1("Or", {decided, cases[i].first});
    y = looped(cx, f, x, u, d.n, cx.emit1("Not", {decided}), dt);
  }
  for (size_t i = cases.size(); i-- > 0;) y = cx.emit1("Where", {cases[i].first, cases[i].second, y});
  cx.out(0, cx.cast(y, dt, out));
}
MX_ATEN_LOWER(lower_orthogonal_polynomial, "aten.special_chebyshev_polynomial_t",
              "aten.special_chebyshev_polynomial_u", "aten.special_chebyshev_polynomial_v",
              "aten.special_chebyshev_polynomial_w", "aten.special_shifted_chebyshev_polynomial_t",
              "aten.special_shifted_chebyshev_polynomial_u", "aten.special_shifted_chebyshev_polynomial_v",
              "aten.special_shifted_chebyshev_polynomial_w", "aten.special_hermite_polynomial_h",
              "aten.special_hermite_polynomial_he", "aten.special_laguerre_polynomial_l",
              "aten.special_legendre_polynomial_p");

}  // namespace
}  // namespace mx::aten_onnx
