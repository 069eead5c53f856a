// special_zeta(x, q): the Hurwitz zeta function sum_k (q + k)^-x, as ATen's
// kernel (ATen/native/Math.h, Cephes' zeta) computes it, in double for
// float and double inputs alike (its accumulate type) and in its order of
// operations:
//
//   the direct sum q^-x + (q + 1)^-x + ... over at least 9 terms and until
//   q + i > 9 (more terms only for q < 0), then the Euler-Maclaurin tail
//   w^(1-x) / (x - 1) - w^-x / 2 + sum_j B_2j / (2j)! x (x+1) ... w^(-x-2j+1)
//   at w = q + i over up to 12 terms; each element stops where the kernel
//   stops: a direct term below 1.1e-16 of the sum (no tail then), or a tail
//   term below 1.1e-16 of the sum.
//   x = 1: inf; x < 1: NaN; q a non-positive integer: inf; q <= 0 and x not
//   an integer: NaN.
//
// The first 9 terms are unrolled; the terms a negative q needs beyond them
// run in an ONNX Loop that steps while some element still has q + i <= 9
// (none for q > 0: the Loop then takes no step).
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>
#include <string>

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kDouble = onnx::TensorProto::DOUBLE;
constexpr int32_t kBool = onnx::TensorProto::BOOL;
constexpr int32_t kInt32 = onnx::TensorProto::INT32;
constexpr double kMachEp = 1.11022302462515654042E-16;

// (2j)! / B_2j, Cephes' table
constexpr double kA[] = {12.0,
                         -720.0,
                         30240.0,
                         -1209600.0,
                         47900160.0,
                         -1.8924375803183791606e9,
                         7.47242496e10,
                         -2.950130727918164224e12,
                         1.1646782814350067249e14,
                         -4.5979787224074726105e15,
                         1.8152105401943546773e17,
                         -7.1661652561756670113e18};

// The direct sum's state per element: the last base a = q + i, term b,
// sum s, and whether the element's kernel has returned.
struct Sum {
  std::string a, b, s, done;
};

// One more direct term where not done (and `go`, unless empty).
Sum direct_step(OnnxEmitter& e, const std::string& x, const Sum& in, const std::string& go = "") {
  std::string step = e.emit1("Not", {in.done});
  if (!go.empty()) step = e.emit1("And", {go, step});
  const std::string a = e.emit1("Add", {in.a, e.cscalar(1, kDouble)});
  const std::string b = e.emit1("Pow", {a, e.emit1("Neg", {x})});
  const std::string s = e.emit1("Add", {in.s, b});
  const std::string bound = e.emit1("Mul", {e.cscalar(kMachEp, kDouble), s});
  const std::string small =
      e.emit1("And", {e.emit1("Less", {e.emit1("Neg", {bound}), b}), e.emit1("Less", {b, bound})});
  return {e.emit1("Where", {step, a, in.a}), e.emit1("Where", {step, b, in.b}),
          e.emit1("Where", {step, s, in.s}), e.emit1("Or", {in.done, e.emit1("And", {step, small})})};
}

// Whether some element still needs a direct term: not done and a <= 9.
std::string needs_term(OnnxEmitter& e, const Sum& st) {
  const std::string need =
      e.emit1("And", {e.emit1("Not", {st.done}), e.emit1("LessOrEqual", {st.a, e.cscalar(9, kDouble)})});
  const std::string any =
      emit_reduce(e, "ReduceMax", e.cast(e.emit1("Reshape", {need, e.ci64({-1})}), kBool, kInt32), {}, false);
  return e.cast(any, kInt32, kBool);
}

// The terms beyond the 9th while q + i <= 9, in a Loop (no trip count: the
// condition ends it). x and the state are carried at the broadcast shape.
Sum direct_rest(OpContext& cx, const std::string& x, const Sum& st) {
  auto v = [](const std::string& n, int32_t t) { return OnnxEmitter::BodyValue{n, t, {}, false}; };
  const std::string p = st.s;
  const Sum b{p + "_a", p + "_b", p + "_s", p + "_done"};
  onnx::GraphProto body =
      cx.body_graph("Loop", p + "_terms",
                    {{p + "_i", onnx::TensorProto::INT64},
                     {p + "_cond", kBool},
                     v(p + "_x", kDouble),
                     v(b.a, kDouble),
                     v(b.b, kDouble),
                     v(b.s, kDouble),
                     v(b.done, kBool)},
                    [&]() -> std::vector<OnnxEmitter::BodyValue> {
                      const std::string go = cx.emit1("LessOrEqual", {b.a, cx.cscalar(9, kDouble)});
                      const Sum n = direct_step(cx, p + "_x", b, go);
                      return {{needs_term(cx, n), kBool},
                              v(p + "_x", kDouble),
                              v(n.a, kDouble),
                              v(n.b, kDouble),
                              v(n.s, kDouble),
                              v(n.done, kBool)};
                    });
  const auto r = cx.emit(
      "Loop",
      {cx.ci64s(std::numeric_limits<int64_t>::max()), needs_term(cx, st), x, st.a, st.b, st.s, st.done},
      {attr("body", std::move(body))}, 5);
  return {r[1], r[2], r[3], r[4]};
}

// The Euler-Maclaurin tail at w = a, for the elements not done.
std::string with_tail(OnnxEmitter& e, const std::string& x, const Sum& st) {
  const std::string one = e.cscalar(1, kDouble);
  const std::string w = st.a;
  std::string done = st.done, b = st.b;
  std::string s = e.emit1("Add", {st.s, e.emit1("Div", {e.emit1("Mul", {b, w}), e.emit1("Sub", {x, one})})});
  s = e.emit1("Sub", {s, e.emit1("Mul", {e.cscalar(0.5, kDouble), b})});
  s = e.emit1("Where", {done, st.s, s});
  std::string a = one;
  for (size_t i = 0; i < std::size(kA); ++i) {
    a = e.emit1("Mul", {a, e.emit1("Add", {x, e.cscalar(2.0 * i, kDouble)})});
    b = e.emit1("Div", {b, w});
    const std::string t = e.emit1("Div", {e.emit1("Mul", {a, b}), e.cscalar(kA[i], kDouble)});
    const std::string s2 = e.emit1("Add", {s, t});
    s = e.emit1("Where", {done, s, s2});
    const std::string small =
        e.emit1("Less", {e.emit1("Abs", {e.emit1("Div", {t, s2})}), e.cscalar(kMachEp, kDouble)});
    done = e.emit1("Or", {done, small});
    a = e.emit1("Mul", {a, e.emit1("Add", {x, e.cscalar(2.0 * i + 1, kDouble)})});
    b = e.emit1("Div", {b, w});
  }
  return s;
}

void lower_zeta(OpContext& cx) {
  const int32_t out = cx.out_dtype();
  const std::string x0 = cx.operand("self", kDouble), q0 = cx.operand("other", kDouble);
  const std::string shape = cx.shape_of(cx.emit1("Add", {x0, q0}));
  const std::string x = cx.emit1("Expand", {x0, shape}), q = cx.emit1("Expand", {q0, shape});
  const std::string zero = cx.cscalar(0, kDouble), one = cx.cscalar(1, kDouble);
  const std::string inf = cx.cscalar(std::numeric_limits<double>::infinity(), kDouble);
  const std::string nan = cx.cscalar(std::numeric_limits<double>::quiet_NaN(), kDouble);
  const std::string q_nonpos = cx.emit1("LessOrEqual", {q, zero});
  const std::string pole = cx.emit1("And", {q_nonpos, cx.emit1("Equal", {q, cx.emit1("Floor", {q})})});
  const std::string undefined =
      cx.emit1("And", {q_nonpos, cx.emit1("Not", {cx.emit1("Equal", {x, cx.emit1("Floor", {x})})})});
  const std::string at_one = cx.emit1("Equal", {x, one}), below_one = cx.emit1("Less", {x, one});
  // the elements the kernel returns before summing never step (the Loop
  // would not end for q = -inf)
  const std::string early =
      cx.emit1("Or", {cx.emit1("Or", {at_one, below_one}), cx.emit1("Or", {pole, undefined})});
  Sum st{q, zero, cx.emit1("Pow", {q, cx.emit1("Neg", {x})}), early};
  st.b = cx.emit1("Expand", {zero, shape});
  for (int i = 0; i < 9; ++i) st = direct_step(cx, x, st);
  st = direct_rest(cx, x, st);
  std::string y = with_tail(cx, x, st);
  y = cx.emit1("Where", {undefined, nan, y});
  y = cx.emit1("Where", {pole, inf, y});
  y = cx.emit1("Where", {below_one, nan, y});
  y = cx.emit1("Where", {at_one, inf, y});
  cx.out(0, cx.cast(y, kDouble, out));
}
MX_ATEN_LOWER(lower_zeta, "aten.special_zeta");

}  // namespace
}  // namespace mx::aten_onnx
