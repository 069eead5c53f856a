// gcd and lcm of integer tensors, as ATen's calc_gcd / calc_lcm:
//
//   gcd(a, b)   Euclid on |a|, |b| (broadcast): an ONNX Loop whose body
//               takes (a, b) to (b, a mod b) where b != 0, and stops when
//               every b is 0 - at most 93 steps for int64 (the Fibonacci
//               worst case), 47 for int32, the trip count given. gcd(0, 0)
//               is 0; gcd(a, 0) is |a|.
//   lcm(a, b)   |a / gcd * b|, 0 where the gcd is 0.
//
// int32 stays int32, the other integer types compute in int64. |min| of a
// type overflows as it does in ATen.
//
// The Loop body's nodes are attributed through the Loop node that holds
// them (its record names the op's module), as other control flow is.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int32_t kInt32 = onnx::TensorProto::INT32;
constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

// The body: (iteration, cond, a, b) -> (any b' != 0, b or a, a mod b or 0).
onnx::GraphProto euclid_body(OpContext& cx, const std::string& prefix, int32_t dt) {
  const std::string it = prefix + "_step", cond = prefix + "_cond", a = prefix + "_a", b = prefix + "_b";
  return cx.body_graph(
      "Loop", prefix + "_euclid", {{it, kInt64}, {cond, kBool}, {a, dt, {}, false}, {b, dt, {}, false}},
      [&]() -> std::vector<OnnxEmitter::BodyValue> {
        const std::string zero = cx.cscalar(0, dt);
        const std::string nz = cx.emit1("Not", {cx.emit1("Equal", {b, zero})});
        const std::string r = cx.emit1("Mod", {a, cx.emit1("Where", {nz, b, cx.cscalar(1, dt)})});
        const std::string a_next = cx.emit1("Where", {nz, b, a});
        const std::string b_next = cx.emit1("Where", {nz, r, zero});
        const std::string more =
            cx.cast(emit_reduce(cx, "ReduceMax",
                                cx.cast(cx.emit1("Not", {cx.emit1("Equal", {b_next, zero})}), kBool, kInt32),
                                {}, false),
                    kInt32, kBool);
        return {{more, kBool}, {a_next, dt, {}, false}, {b_next, dt, {}, false}};
      });
}

std::string gcd_of(OpContext& cx, const std::string& x, const std::string& y, int32_t dt) {
  const std::string ax = cx.emit1("Abs", {x}), ay = cx.emit1("Abs", {y});
  // both at the broadcast shape: a Loop's carried values keep theirs
  const std::string a = cx.emit1("Add", {ax, cx.emit1("Sub", {ay, ay})});
  const std::string b = cx.emit1("Add", {ay, cx.emit1("Sub", {ax, ax})});
  onnx::GraphProto body = euclid_body(cx, a, dt);
  const std::string start = cx.cast(
      emit_reduce(cx, "ReduceMax",
                  cx.cast(cx.emit1("Not", {cx.emit1("Equal", {b, cx.cscalar(0, dt)})}), kBool, kInt32), {},
                  false),
      kInt32, kBool);
  const auto r =
      cx.emit("Loop", {cx.ci64s(dt == kInt32 ? 47 : 93), start, a, b}, {attr("body", std::move(body))}, 2);
  return r[0];
}

int32_t work_dtype(int32_t out) {
  return out == kInt32 ? kInt32 : kInt64;
}

void lower_gcd_lcm(OpContext& cx) {
  const int32_t out = cx.out_dtype(), dt = work_dtype(out);
  if (is_floating(out)) cx.unsupported(cx.op() + " of floating-point tensors (ATen defines it on integers)");
  const std::string x = cx.operand("self", dt), y = cx.operand("other", dt);
  const std::string g = gcd_of(cx, x, y, dt);
  if (cx.op() == "gcd") return cx.out(0, cx.cast(g, dt, out));
  const std::string zero = cx.cscalar(0, dt);
  const std::string none = cx.emit1("Equal", {g, zero});
  const std::string q = cx.emit1("Div", {x, cx.emit1("Where", {none, cx.cscalar(1, dt), g})});
  const std::string l = cx.emit1("Where", {none, zero, cx.emit1("Abs", {cx.emit1("Mul", {q, y})})});
  cx.out(0, cx.cast(l, dt, out));
}
MX_ATEN_LOWER(lower_gcd_lcm, "aten.gcd", "aten.gcd_", "aten.lcm", "aten.lcm_");

}  // namespace
}  // namespace mx::aten_onnx
