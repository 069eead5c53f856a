// Recurrent layers as the TRAINING dialect keeps them: lstm / gru /
// rnn_tanh / rnn_relu .input(input, hx, params, has_biases, num_layers,
// dropout, train, bidirectional, batch_first). The ONNX form is the shared
// pattern (aten_onnx/src/patterns/recurrent.cpp). The CORE dialect unrolls
// them into matmuls over the time steps, which lower op by op.
#include "mx/aten_onnx/lowering_registry.hpp"
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

std::vector<const Value*> tensor_values(OpContext& cx, const char* name) {
  if (cx.arg_kind(name) != ArgKind::tensors)
    cx.unsupported(std::string("'") + name + "' is not a tensor list");
  return cx.tensor_list(name);
}

void lower_recurrent(OpContext& cx) {
  const std::string op = cx.op();
  if (cx.target().find(".data") != std::string::npos) cx.unsupported("packed sequences (the .data overload)");
  if (cx.rank_of("input") != 3) cx.unsupported("an unbatched recurrent input");
  if (cx.bool_arg("train", false)) cx.unsupported("a recurrent layer in training mode");
  mx::aten_onnx::RecurrentLayer a;
  a.cell = mx::aten_onnx::recurrent_cell(op);
  a.has_biases = cx.bool_arg("has_biases", true);
  a.layers = cx.int_arg("num_layers");
  a.bidirectional = cx.bool_arg("bidirectional", false);
  a.batch_first = cx.bool_arg("batch_first", false);
  const auto params = tensor_values(cx, "params");
  const int64_t per = (a.has_biases ? 4 : 2) * (a.bidirectional ? 2 : 1);
  if (static_cast<int64_t>(params.size()) != a.layers * per)
    cx.unsupported("a recurrent layer with projections (proj_size)");
  const auto& w_hh = params[1]->shape;  // [gates * H, H]
  if (w_hh.size() != 2 || !w_hh[1].is_static)
    cx.unsupported("a recurrent weight without a static hidden size");
  a.hidden = w_hh[1].value;
  const int32_t dt = cx.dtype_of("input");
  for (const Value* p : params) a.params.push_back(cx.cast(p->onnx, p->dtype, dt));
  a.input = cx.tensor("input");
  if (a.cell == mx::aten_onnx::RecurrentCell::lstm) {
    for (const Value* s : tensor_values(cx, "hx")) a.states.push_back(cx.cast(s->onnx, s->dtype, dt));
  } else {
    a.states.push_back(cx.operand("hx", dt));
  }
  const auto r = mx::aten_onnx::emit_recurrent(cx, a);
  cx.out(0, r.output);
  for (size_t k = 0; k < r.states.size() && 1 + k < cx.n_outputs(); ++k) cx.out(1 + k, r.states[k]);
}
MX_ATEN_LOWER(lower_recurrent, "aten.lstm", "aten.gru", "aten.rnn_tanh", "aten.rnn_relu");

}  // namespace
}  // namespace mx::aten_onnx
