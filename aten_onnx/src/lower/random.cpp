// Random tensors: rand / randn (and _like) -> RandomUniformLike /
// RandomNormalLike over a tensor of the requested shape; randperm(n) ->
// the order of n uniform draws (TopK of RandomUniformLike), a uniformly
// random permutation. The ONNX file draws its own numbers: they are not
// PyTorch's stream, whatever seed the program used.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

void lower_rand(OpContext& cx) {
  const int32_t dt = cx.out_dtype();
  if (!mx::aten_onnx::is_floating(dt)) cx.unsupported("rand/randn of an integer dtype");
  if (cx.has("generator")) cx.unsupported("rand/randn with an explicit generator");
  const std::string shape = cx.has("size") ? cx.int_list("size") : cx.shape_of(cx.tensor("self"));
  const std::string like = cx.emit1("Expand", {cx.cscalar(0, dt), shape});
  const bool normal = cx.target().find("randn") != std::string::npos;
  cx.out(0, cx.emit1(normal ? "RandomNormalLike" : "RandomUniformLike", {like},
                     {attr("dtype", static_cast<int64_t>(dt))}));
}
MX_ATEN_LOWER(lower_rand, "aten.rand", "aten.randn", "aten.rand_like", "aten.randn_like");

void lower_randperm(OpContext& cx) {
  if (cx.has("generator")) cx.unsupported("randperm with an explicit generator");
  const std::string n = cx.unsqueeze(cx.sym_int("n"), {0});
  const std::string draws =
      cx.emit1("RandomUniformLike", {cx.emit1("Expand", {cx.cscalar(0, onnx::TensorProto::FLOAT), n})});
  const auto top = cx.emit("TopK", {draws, n}, {attr("axis", int64_t{0})}, 2);
  cx.out(0, cx.cast(top[1], onnx::TensorProto::INT64, cx.out_dtype()));
}
MX_ATEN_LOWER(lower_randperm, "aten.randperm");

}  // namespace
}  // namespace mx::aten_onnx
