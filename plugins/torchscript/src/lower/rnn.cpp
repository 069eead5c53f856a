// Recurrent layers: the .input overloads nn.RNN / nn.GRU / nn.LSTM trace to
//   rnn_tanh / rnn_relu / gru (input, hx,     params, has_biases, num_layers,
//   lstm                       (input, [h, c], params,   dropout, train,
//                                                        bidirectional, batch_first)
// as one ONNX RNN / GRU / LSTM node per layer (ONNX's nodes are single-layer,
// each direction of a bidirectional layer on its own row of W/R/B).
//
// PyTorch stacks gate blocks as LSTM i,f,g,o and GRU r,z,n; ONNX wants
// i,o,f,c and z,r,h: the rows are reordered by Split/Concat at run time, so
// the initializers stay the module's own parameters, byte for byte (the
// `usage` strategy and readers of the weights see what the state_dict has).
// GRU uses linear_before_reset=1, PyTorch's formulation of the new gate.
// ONNX's recurrent ops are sequence-major ([seq, batch, ...]); batch_first
// inputs and outputs are transposed around them.
#include "list_values.h"

namespace mxts {
namespace {

struct CellKind {
  const char* onnx_op;
  std::vector<int> gate_order;  // ONNX gate k is PyTorch gate gate_order[k]
  bool two_states;              // LSTM: (h, c)
  const char* activation;       // RNN only: "Tanh" / "Relu"; nullptr = op default
};

CellKind cell_kind(const tj::Node* n) {
  const std::string kind = n->kind().toQualString();
  if (kind == "aten::lstm") return {"LSTM", {0, 3, 1, 2}, true, nullptr};
  if (kind == "aten::gru") return {"GRU", {1, 0, 2}, false, nullptr};
  if (kind == "aten::rnn_relu") return {"RNN", {0}, false, "Relu"};
  return {"RNN", {0}, false, "Tanh"};
}

struct RecurrentArgs {
  bool has_biases, bidirectional, batch_first;
  int64_t layers, directions, hidden;
  std::vector<VP> params;  // per layer, per direction: w_ih, w_hh[, b_ih, b_hh]
  size_t per_direction() const { return has_biases ? 4 : 2; }
  const VP& param(int64_t layer, int64_t dir, size_t k) const {
    return params[static_cast<size_t>(layer * directions + dir) * per_direction() + k];
  }
};

RecurrentArgs recurrent_args(Ctx& cx) {
  if (!cx.in(1)->iv.isTensor() && !cx.in(1)->iv.isList()) cx.unsupported("packed sequences");
  if (cx.rank(0) != 3) cx.unsupported("unbatched recurrent input");
  if (cx.arg_bool(6)) cx.unsupported("recurrent layer in training mode");
  RecurrentArgs a;
  a.has_biases = cx.arg_bool(3);
  a.layers = cx.arg_int(4);
  a.bidirectional = cx.arg_bool(7);
  a.batch_first = cx.arg_bool(8);
  a.directions = a.bidirectional ? 2 : 1;
  a.params = elems_of(cx, cx.in(2));
  if (static_cast<int64_t>(a.params.size()) != a.layers * a.directions * static_cast<int64_t>(a.per_direction()))
    cx.unsupported("recurrent layer with projections (proj_size)");
  a.hidden = a.params[1]->iv.toTensor().size(1);  // w_hh: [gates * H, H]
  return a;
}

// Gate blocks of a [gates * H, ...] weight or [gates * H] bias in ONNX order.
std::string onnx_gate_order(Ctx& cx, const std::string& w, int64_t hidden, const std::vector<int>& order) {
  if (order.size() == 1) return w;
  const std::vector<int64_t> sizes(order.size(), hidden);
  auto blocks = cx.emit("Split", {w, cx.ci64(sizes)}, {attr("axis", int64_t{0})}, order.size());
  std::vector<std::string> reordered;
  for (int k : order) reordered.push_back(blocks[static_cast<size_t>(k)]);
  return cx.emit1("Concat", reordered, {attr("axis", int64_t{0})});
}

std::string concat0(Ctx& cx, const std::vector<std::string>& parts) {
  return parts.size() == 1 ? parts[0] : cx.emit1("Concat", parts, {attr("axis", int64_t{0})});
}

// ONNX W [dirs, gates*H, in], R [dirs, gates*H, H], B [dirs, 2*gates*H] ("" without biases).
struct LayerWeights {
  std::string W, R, B;
};

LayerWeights layer_weights(Ctx& cx, const RecurrentArgs& a, const CellKind& cell, int64_t layer) {
  std::vector<std::string> W, R, B;
  auto gates = [&](int64_t dir, size_t k) {
    return onnx_gate_order(cx, cx.tensor(a.param(layer, dir, k)), a.hidden, cell.gate_order);
  };
  for (int64_t d = 0; d < a.directions; ++d) {
    W.push_back(cx.unsqueeze(gates(d, 0), {0}));
    R.push_back(cx.unsqueeze(gates(d, 1), {0}));
    if (a.has_biases)
      B.push_back(cx.unsqueeze(cx.emit1("Concat", {gates(d, 2), gates(d, 3)}, {attr("axis", int64_t{0})}), {0}));
  }
  return {concat0(cx, W), concat0(cx, R), a.has_biases ? concat0(cx, B) : ""};
}

std::vector<onnx::AttributeProto> cell_attributes(const RecurrentArgs& a, const CellKind& cell) {
  std::vector<onnx::AttributeProto> attrs = {
      attr("hidden_size", a.hidden),
      attr("direction", std::string(a.bidirectional ? "bidirectional" : "forward"))};
  if (std::string(cell.onnx_op) == "GRU") attrs.push_back(attr("linear_before_reset", int64_t{1}));
  if (cell.activation) {  // one activation per direction
    onnx::AttributeProto act;
    act.set_name("activations");
    act.set_type(onnx::AttributeProto::STRINGS);
    for (int64_t d = 0; d < a.directions; ++d) act.add_strings(cell.activation);
    attrs.push_back(act);
  }
  return attrs;
}

// Rows [layer * dirs, (layer + 1) * dirs) of a [layers * dirs, batch, H] state.
std::string layer_rows(Ctx& cx, const std::string& state, const RecurrentArgs& a, int64_t layer) {
  if (a.layers == 1) return state;
  return cx.emit1("Slice", {state, cx.ci64({layer * a.directions}), cx.ci64({(layer + 1) * a.directions}),
                            cx.ci64({0})});
}

void lower_recurrent(Ctx& cx, const tj::Node* n) {
  const CellKind cell = cell_kind(n);
  const RecurrentArgs a = recurrent_args(cx);
  // Initial states: [layers * dirs, batch, H] whatever batch_first says.
  std::vector<std::string> states;
  if (cell.two_states) {
    for (const auto& s : elems_of(cx, cx.in(1))) states.push_back(cx.tensor(s));
  } else {
    states.push_back(cx.tensor(1));
  }
  std::string x = cx.tensor(0);
  if (a.batch_first) x = cx.transpose(x, {1, 0, 2});
  std::vector<std::vector<std::string>> finals(states.size());  // per state, per layer
  for (int64_t l = 0; l < a.layers; ++l) {
    const LayerWeights w = layer_weights(cx, a, cell, l);
    std::vector<std::string> ins = {x, w.W, w.R, w.B, /*sequence_lens*/ ""};
    for (const auto& s : states) ins.push_back(layer_rows(cx, s, a, l));
    auto o = cx.emit(cell.onnx_op, ins, cell_attributes(a, cell), 1 + states.size());
    // Y [seq, dirs, batch, H] -> [seq, batch, dirs * H]: the next layer's input.
    x = cx.emit1("Reshape", {cx.transpose(o[0], {0, 2, 1, 3}), cx.ci64({0, 0, -1})});
    for (size_t k = 0; k < states.size(); ++k) finals[k].push_back(o[1 + k]);
  }
  if (a.batch_first) x = cx.transpose(x, {1, 0, 2});
  cx.out(0, x);
  // Each final state must be its own ONNX value (it may also be a graph
  // output): a single layer's goes through Identity.
  for (size_t k = 0; k < finals.size(); ++k)
    cx.out(1 + k, finals[k].size() == 1 ? cx.emit1("Identity", finals[k]) : concat0(cx, finals[k]));
}
MXTS_LOWER(lower_recurrent, "aten::lstm", "aten::gru", "aten::rnn_tanh", "aten::rnn_relu");

}  // namespace
}  // namespace mxts
