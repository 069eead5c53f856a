// Matrix products: linear, matmul/bmm/mm, addmm/baddbmm, outer/ger,
// einsum; embedding.
#include "ctx.h"
#include "list_values.h"

namespace mxts {
namespace {

void lower_linear(Ctx& cx, const tj::Node*) {
  std::string b = cx.n_in() >= 3 && !cx.is_none(2) ? cx.tensor(2) : "";
  cx.out(0, emit_linear(cx, cx.tensor(0), cx.rank(0), cx.tensor(1), b));
}
MXTS_LOWER(lower_linear, "aten::linear");

void lower_matmul(Ctx& cx, const tj::Node*) { cx.out(0, cx.emit1("MatMul", {cx.tensor(0), cx.tensor(1)})); }
MXTS_LOWER(lower_matmul, "aten::matmul", "aten::bmm", "aten::mm");

void lower_addmm(Ctx& cx, const tj::Node*) {  // beta*input + alpha*(m1 @ m2)
  float beta = cx.n_in() > 3 ? static_cast<float>(cx.arg_double(3)) : 1.f;
  float alpha = cx.n_in() > 4 ? static_cast<float>(cx.arg_double(4)) : 1.f;
  cx.out(0, cx.emit1("Gemm", {cx.tensor(1), cx.tensor(2), cx.tensor(0)}, {attr("alpha", alpha), attr("beta", beta)}));
}
MXTS_LOWER(lower_addmm, "aten::addmm");

void lower_baddbmm(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_st();
  double beta = cx.n_in() > 3 ? cx.arg_double(3) : 1.0, alpha = cx.n_in() > 4 ? cx.arg_double(4) : 1.0;
  std::string p = cx.emit1("MatMul", {cx.tensor(1), cx.tensor(2)});
  if (alpha != 1.0) p = cx.emit1("Mul", {p, cx.cscalar(alpha, dt)});
  if (beta == 0.0) { cx.out(0, p); return; }
  std::string i = cx.tensor(0);
  if (beta != 1.0) i = cx.emit1("Mul", {i, cx.cscalar(beta, dt)});
  cx.out(0, cx.emit1("Add", {i, p}));
}
MXTS_LOWER(lower_baddbmm, "aten::baddbmm");

void lower_embedding(Ctx& cx, const tj::Node*) {
  cx.out(0, cx.emit1("Gather", {cx.tensor(0), cx.tensor(1)}, {attr("axis", int64_t{0})}));
}
MXTS_LOWER(lower_embedding, "aten::embedding");

void lower_outer(Ctx& cx, const tj::Node*) {
  auto dt = cx.out_st();
  cx.out(0, cx.emit1("Mul", {cx.unsqueeze(cx.tensor_as(0, dt), {1}), cx.unsqueeze(cx.tensor_as(1, dt), {0})}));
}
MXTS_LOWER(lower_outer, "aten::outer", "aten::ger");

void lower_einsum(Ctx& cx, const tj::Node*) {
  std::string eq;
  for (char c : cx.arg_string(0)) if (c != ' ') eq += c;
  auto dt = cx.out_st();
  std::vector<std::string> ins;
  for (auto& e : elems_of(cx, cx.in(1))) ins.push_back(cx.tensor_as(e, dt));
  cx.out(0, cx.emit1("Einsum", ins, {attr("equation", eq)}));
}
MXTS_LOWER(lower_einsum, "aten::einsum");

}  // namespace
}  // namespace mxts
