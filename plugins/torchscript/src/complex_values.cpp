#include "complex_values.hpp"

#include <set>

namespace mx::torchscript {
namespace {

bool holds_complex(const VP& v, int depth = 0) {
  const c10::IValue& iv = v->iv;
  if (iv.isTensor()) return iv.toTensor().is_complex();
  if (iv.isComplexDouble()) return true;  // a Python complex number: `2j - x` traces as rsub(x, 2j)
  if (depth > 8) return false;
  for (const auto& e : v->elems)
    if (holds_complex(e, depth + 1)) return true;
  if (iv.isTensorList())
    for (const at::Tensor& t : iv.toTensorVector())
      if (t.is_complex()) return true;
  return false;
}

}  // namespace

bool is_complex_onnx(int32_t onnx_type) {
  return onnx_type == onnx::TensorProto::COMPLEX64 || onnx_type == onnx::TensorProto::COMPLEX128;
}

int32_t pair_component(int32_t onnx_type) {
  if (onnx_type == onnx::TensorProto::COMPLEX64) return onnx::TensorProto::FLOAT;
  if (onnx_type == onnx::TensorProto::COMPLEX128) return onnx::TensorProto::DOUBLE;
  return onnx_type;
}

at::Tensor as_pairs(const at::Tensor& t) {
  // resolve_conj: a lazily conjugated tensor's storage holds the unconjugated values
  return t.is_complex() ? at::view_as_real(t.resolve_conj()) : t;
}

bool reads_complex(const std::vector<VP>& inputs) {
  for (const auto& v : inputs)
    if (!v->is_module && holds_complex(v)) return true;
  return false;
}

bool own_lowering_reads_pairs(const std::string& kind) {
  static const std::set<std::string> pass_along = {
      // lists and tuples of values, refinements: the values as they are
      "prim::ListConstruct", "prim::TupleConstruct", "prim::ListUnpack", "prim::TupleUnpack",
      "prim::TupleIndex", "aten::__getitem__", "prim::ListIndex", "prim::unchecked_cast", "prim::data",
      // facts of the example value, which keeps PyTorch's shape and dtype
      "aten::dim", "prim::dtype", "prim::device", "prim::is_cuda", "aten::len", "aten::__is__",
      "aten::__isnot__", "prim::layout", "aten::is_floating_point", "prim::requires_grad",
      // sizes: PyTorch's dims (lower/scalars.cpp reads torch_shape)
      "aten::size", "aten::numel"};
  return pass_along.count(kind) > 0;
}

void refuse_complex(const Ctx& cx) {
  cx.unsupported(
      "a complex tensor as input (complex values are lowered for the FFTs, stft/istft, abs, angle, "
      "real/imag, view_as_real, add/sub/mul/div, neg, reciprocal, pow, exp, log, sqrt, "
      "sin/cos/sinh/cosh/tanh, sigmoid, sum/mean/prod, var/std, vector norms, matrix products and view "
      "ops only)");
}

std::string torch_shape(Ctx& cx, const VP& v) {
  const std::string shape = cx.shape_of(cx.tensor(v));
  if (!is_complex_onnx(cx.onnx_type(v))) return shape;
  const int64_t rank = v->iv.toTensor().dim();
  return cx.emit1("Slice", {shape, cx.ci64({0}), cx.ci64({rank})});
}

}  // namespace mx::torchscript
