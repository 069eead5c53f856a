// A user's TorchScript custom op, registered the way C++ extensions do
// (TORCH_LIBRARY): mylib::scaled_add(x, y, alpha) = x + alpha * y, the op
// the C lowering plugin of examples/plugins/lowering_custom_op lowers. The
// TorchScript tests load it into the tracing interpreter
// (torch.ops.load_library) and into the frontend's process
// (MODELEXPORT_TORCH_OP_LIBRARIES). One kernel for every backend written
// with ATen ops, so that the walk can run it on meta tensors for shapes.
#include <torch/library.h>

#include <ATen/ATen.h>

namespace {

at::Tensor scaled_add(const at::Tensor& x, const at::Tensor& y, double alpha) {
  return x + alpha * y;
}

}  // namespace

TORCH_LIBRARY(mylib, m) {
  m.def("scaled_add(Tensor x, Tensor y, float alpha) -> Tensor");
}

TORCH_LIBRARY_IMPL(mylib, CompositeExplicitAutograd, m) {
  m.impl("scaled_add", scaled_add);
}
