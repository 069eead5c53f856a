// Tensor creation: arange, zeros/ones/full (+ _like, new_*), empty*.
#include "ctx.h"

namespace mxts {
namespace {

void lower_arange(Ctx& cx, const tj::Node* n) {
  auto dt = cx.out_st();
  std::string start = cx.cscalar(0, dt), end, step = cx.cscalar(1, dt);
  const auto& args = n->schema().arguments();
  for (size_t k = 0; k < args.size() && k < cx.n_in(); ++k) {
    if (args[k].name() == "start") start = cx.tensor_as(k, dt);
    else if (args[k].name() == "end") end = cx.tensor_as(k, dt);
    else if (args[k].name() == "step") step = cx.tensor_as(k, dt);
  }
  if (end.empty()) cx.unsupported("arange overload");
  auto scalar = [&](std::string s) {  // Range wants 0-d inputs
    return cx.emit1("Reshape", {s, cx.ci64({})});
  };
  cx.out(0, cx.emit1("Range", {scalar(start), scalar(end), scalar(step)}));
}
MXTS_LOWER(lower_arange, "aten::arange");

std::string fill_of(Ctx& cx, const std::string& shape, double v, at::ScalarType dt) {
  return cx.emit1("ConstantOfShape", {shape},
                  {attr("value", to_tensor_proto(at::full({1}, v, at::TensorOptions().dtype(dt)), ""))});
}

void lower_zeros_ones(Ctx& cx, const tj::Node* n) {
  std::string k = n->kind().toUnqualString();
  bool like = k.find("_like") != std::string::npos, isnew = k.rfind("new_", 0) == 0;
  bool full = k.find("full") != std::string::npos;
  auto dt = cx.out_st();
  std::string shape = like ? cx.shape_of(cx.tensor(0)) : cx.shape_list(isnew ? 1 : 0);
  size_t fill_idx = isnew ? 2 : 1;
  if (full) {
    VP f = cx.in(fill_idx);
    if (f->is_static) { cx.out(0, fill_of(cx, shape, cx.arg_double(fill_idx), dt)); return; }
    cx.out(0, cx.emit1("Expand", {cx.tensor_as(f, dt), shape}));
    return;
  }
  cx.out(0, fill_of(cx, shape, k.find("ones") != std::string::npos ? 1.0 : 0.0, dt));
}
MXTS_LOWER(lower_zeros_ones, "aten::zeros", "aten::ones", "aten::full", "aten::zeros_like", "aten::ones_like",
           "aten::full_like", "aten::new_zeros", "aten::new_ones", "aten::new_full");

void lower_empty(Ctx& cx, const tj::Node* n) {  // uninitialised memory: zeros
  std::string k = n->kind().toUnqualString();
  auto dt = cx.out_st();
  std::string shape = k == "empty_like" ? cx.shape_of(cx.tensor(0)) : cx.shape_list(k == "new_empty" ? 1 : 0);
  cx.out(0, cx.emit1("ConstantOfShape", {shape},
                     {attr("value", to_tensor_proto(at::zeros({1}, at::TensorOptions().dtype(dt)), ""))}));
}
MXTS_LOWER(lower_empty, "aten::empty", "aten::empty_like", "aten::new_empty");

}  // namespace
}  // namespace mxts
