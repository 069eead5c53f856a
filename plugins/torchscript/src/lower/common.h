// Building blocks shared by several lowerings (fused ops reuse them).
#pragma once
#include "ctx.h"

namespace mxts {
// x @ w^T (+ b); b may be "". Gemm for rank-2 x, else MatMul(+Add).
std::string emit_linear(Ctx& cx, const std::string& x, int64_t x_rank, const std::string& w,
                        const std::string& b);
// Layer normalisation over the last n_axes axes; w/b may be "".
std::string emit_layer_norm(Ctx& cx, const std::string& x, int64_t x_rank, int64_t n_axes,
                            const std::string& w, const std::string& b, double eps,
                            at::ScalarType dtype);
// approximate: "none" (erf) or "tanh"
std::string emit_gelu(Ctx& cx, const std::string& x, const std::string& approximate,
                      at::ScalarType dtype);
// scaled dot-product attention on [.., L, D] tensors; mask_add may be "" (additive
// float mask) ; returns (output, probabilities)
std::pair<std::string, std::string> emit_attention(Ctx& cx, const std::string& q, const std::string& k,
                                                   const std::string& v, const std::string& mask_add,
                                                   double scale, at::ScalarType dtype);
// Elements of a list/tuple value: known elements, or the items of a folded
// (static) list; an unsupported-op error otherwise.
std::vector<VP> elems_of(Ctx& cx, const VP& list);
// Symbols whose output aliases their first input (views).
bool is_view_op(const std::string& kind);
// After an in-place op replaced `old_val` (a view) by `new_val`, rebuild the
// base tensor(s) the view was taken from and rebind them in the frame.
void write_back_view(Ctx& cx, const VP& old_val, const VP& new_val);
}  // namespace mxts
