// Tensor creation and dtype conversion: arange, full/ones/zeros (+ _like,
// new_*), empty*, eye, linspace, scalar_tensor, _to_copy / to / type_as.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// A real tensor made complex gains the pair axis of the complex layout
// (lower/fft.cpp) with a zero imaginary part.
void lower_to(OpContext& cx) {
  const char* in = cx.has("self") ? "self" : "input";
  const int32_t to = cx.out_dtype();
  if (to == onnx::TensorProto::COMPLEX64 || to == onnx::TensorProto::COMPLEX128) {
    const int32_t dt =
        to == onnx::TensorProto::COMPLEX128 ? onnx::TensorProto::DOUBLE : onnx::TensorProto::FLOAT;
    const int64_t r = cx.rank_of(in);
    const std::string re = cx.unsqueeze(cx.cast(cx.tensor(in), cx.dtype_of(in), dt), {r});
    return cx.out(0, cx.emit1("Concat", {re, cx.emit1("Mul", {re, cx.cscalar(0, dt)})}, {attr("axis", r)}));
  }
  cx.out(0, cx.cast(cx.tensor(in), cx.dtype_of(in), to));
}
MX_ATEN_LOWER(lower_to, "aten._to_copy", "aten.to", "aten.type_as",
              "aten._assert_tensor_metadata_passthrough");

// arange(end) / arange.start(start, end) / arange.start_step(start, end,
// step). ONNX's Range takes float, double, int16, int32 and int64 only:
// other integer and bool dtypes (core ATen's uint8 index ranges) count in
// int64 and are cast, the half floats count in float32.
void lower_arange(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  using TP = onnx::TensorProto;
  int32_t counted = dt;
  if (dt == TP::FLOAT16 || dt == TP::BFLOAT16) counted = TP::FLOAT;
  else if (dt != TP::FLOAT && dt != TP::DOUBLE && dt != TP::INT16 && dt != TP::INT32) counted = TP::INT64;
  auto bound = [&](const char* n, double fallback) {
    return cx.has(n) ? cx.operand(n, counted) : cx.cscalar(fallback, counted);
  };
  const std::string range = cx.emit1("Range", {bound("start", 0), bound("end", 0), bound("step", 1)});
  cx.out(0, cx.cast(range, counted, dt));
}
MX_ATEN_LOWER(lower_arange, "aten.arange");

void lower_full(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  double fill = 0;
  if (cx.target().rfind("aten.ones", 0) == 0 || cx.target().rfind("aten.new_ones", 0) == 0) fill = 1;
  std::string value = cx.has("fill_value") ? cx.operand("fill_value", dt) : cx.cscalar(fill, dt);
  std::string shape;
  if (cx.has("size")) shape = cx.int_list("size");
  else shape = cx.shape_of(cx.tensor("self"));  // *_like
  cx.out(0, cx.emit1("Expand", {value, shape}));
}
MX_ATEN_LOWER(lower_full, "aten.full", "aten.ones", "aten.zeros", "aten.full_like", "aten.ones_like",
              "aten.zeros_like", "aten.new_ones", "aten.new_zeros", "aten.new_full", "aten.empty",
              "aten.empty_like", "aten.new_empty", "aten.empty_permuted", "aten.empty_strided");

// eye(n) / eye.m(n, m): EyeLike of an [n, m] tensor, made in float (ONNX
// Runtime's EyeLike has no bool kernel) and cast to the result dtype.
void lower_eye(OpContext& cx) {
  const int32_t f = onnx::TensorProto::FLOAT;
  const std::string n = cx.unsqueeze(cx.sym_int("n"), {0});
  const std::string m = cx.has("m") ? cx.unsqueeze(cx.sym_int("m"), {0}) : n;
  const std::string zeros =
      cx.emit1("Expand", {cx.cscalar(0, f), cx.emit1("Concat", {n, m}, {attr("axis", int64_t{0})})});
  cx.out(0, cx.cast(cx.emit1("EyeLike", {zeros}), f, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_eye, "aten.eye");

// linspace(start, end, steps): start + k * (end - start) / (steps - 1),
// computed in double, as ATen's CPU kernel (its halves split from both ends
// round the same to float for the sizes real programs use).
void lower_linspace(OpContext& cx) {
  const int32_t d = onnx::TensorProto::DOUBLE;
  const std::string start = cx.operand("start", d), end = cx.operand("end", d);
  const std::string steps = cx.cast(cx.sym_int("steps"), onnx::TensorProto::INT64, d);
  const std::string k = cx.emit1("Range", {cx.cscalar(0, d), steps, cx.cscalar(1, d)});
  const std::string denom = cx.emit1("Max", {cx.emit1("Sub", {steps, cx.cscalar(1, d)}), cx.cscalar(1, d)});
  const std::string step = cx.emit1("Div", {cx.emit1("Sub", {end, start}), denom});
  cx.out(0, cx.cast(cx.emit1("Add", {start, cx.emit1("Mul", {k, step})}), d, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_linspace, "aten.linspace");

void lower_scalar_tensor(OpContext& cx) {
  cx.out(0, cx.operand("s", cx.out_dtype()));
}
MX_ATEN_LOWER(lower_scalar_tensor, "aten.scalar_tensor", "prims.scalar_tensor.default");

// promote_types(type1, type2) -> ScalarType: torch.tensor([...]) of
// SymInts leaves it behind; its result is not a value the program
// serializes (the output is None), so nothing reads it.
void lower_promote_types(OpContext&) {}
MX_ATEN_LOWER(lower_promote_types, "aten.promote_types");

}  // namespace
}  // namespace mx::aten_onnx
