// Recurrent layers: the .input overloads nn.RNN / nn.GRU / nn.LSTM trace to
//   rnn_tanh / rnn_relu / gru (input, hx,     params, has_biases, num_layers,
//   lstm                       (input, [h, c], params,   dropout, train,
//                                                        bidirectional, batch_first)
// read from the TorchScript node; the ONNX form is the shared pattern
// (aten_onnx/src/patterns/recurrent.cpp), as the torch.export frontend's.
#include "list_values.h"

namespace mxts {
namespace {

void lower_recurrent(Ctx& cx, const tj::Node* n) {
  const std::string kind = n->kind().toUnqualString();
  if (!cx.in(1)->iv.isTensor() && !cx.in(1)->iv.isList()) cx.unsupported("packed sequences");
  if (cx.rank(0) != 3) cx.unsupported("unbatched recurrent input");
  if (cx.arg_bool(6)) cx.unsupported("recurrent layer in training mode");
  mx::aten_onnx::RecurrentLayer a;
  a.cell = mx::aten_onnx::recurrent_cell(kind);
  a.has_biases = cx.arg_bool(3);
  a.layers = cx.arg_int(4);
  a.bidirectional = cx.arg_bool(7);
  a.batch_first = cx.arg_bool(8);
  const auto params = elems_of(cx, cx.in(2));
  const int64_t per = (a.has_biases ? 4 : 2) * (a.bidirectional ? 2 : 1);
  if (static_cast<int64_t>(params.size()) != a.layers * per) cx.unsupported("recurrent layer with projections (proj_size)");
  a.hidden = params[1]->iv.toTensor().size(1);  // w_hh: [gates * H, H]
  for (const auto& p : params) a.params.push_back(cx.tensor(p));
  a.input = cx.tensor(0);
  if (a.cell == mx::aten_onnx::RecurrentCell::lstm) {
    for (const auto& s : elems_of(cx, cx.in(1))) a.states.push_back(cx.tensor(s));
  } else {
    a.states.push_back(cx.tensor(1));
  }
  const auto r = mx::aten_onnx::emit_recurrent(cx, a);
  cx.out(0, r.output);
  for (size_t k = 0; k < r.states.size(); ++k) cx.out(1 + k, r.states[k]);
}
MXTS_LOWER(lower_recurrent, "aten::lstm", "aten::gru", "aten::rnn_tanh", "aten::rnn_relu");

}  // namespace
}  // namespace mxts
