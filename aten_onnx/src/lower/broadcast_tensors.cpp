// broadcast_tensors(tensors) -> Tensor[]: each tensor expanded to the
// shape all of them broadcast to (torch.export keeps it at the training
// level; the losses' Python code calls it).
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_broadcast_tensors(OpContext& cx) {
  const std::vector<const Value*> in = cx.tensor_list("tensors");
  if (in.empty()) return cx.out_list(0, {});
  // The broadcast shape: each tensor expanded by the shape so far.
  std::string shape;
  for (const Value* v : in)
    shape = shape.empty() ? cx.shape_of(v->onnx) : cx.shape_of(cx.emit1("Expand", {v->onnx, shape}));
  std::vector<std::string> out;
  for (size_t k = 0; k < in.size(); ++k)
    out.push_back(same_shape(in[k]->shape, cx.list_item_shape(0, k))
                      ? cx.emit1("Identity", {in[k]->onnx})
                      : cx.emit1("Expand", {in[k]->onnx, shape}));
  cx.out_list(0, out);
}
MX_ATEN_LOWER(lower_broadcast_tensors, "aten.broadcast_tensors");

}  // namespace
}  // namespace mx::aten_onnx
