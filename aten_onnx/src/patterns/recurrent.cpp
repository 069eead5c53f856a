// Recurrent layers (nn.RNN / nn.GRU / nn.LSTM, ATen's rnn_tanh / rnn_relu /
// gru / lstm .input overloads) as one ONNX RNN / GRU / LSTM node per layer
// (ONNX's nodes are single-layer, each direction of a bidirectional layer
// on its own row of W/R/B).
//
// PyTorch stacks gate blocks as LSTM i,f,g,o and GRU r,z,n; ONNX wants
// i,o,f,c and z,r,h: the rows are reordered by Split/Concat at run time, so
// the initializers stay the module's own parameters, byte for byte (the
// `usage` strategy and readers of the weights see what the state_dict has).
// GRU uses linear_before_reset=1, PyTorch's formulation of the new gate.
// ONNX's recurrent ops are sequence-major ([seq, batch, ...]); batch_first
// inputs and outputs are transposed around them.
#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

struct CellKind {
  const char* onnx_op;
  std::vector<int> gate_order;  // ONNX gate k is PyTorch gate gate_order[k]
  const char* activation;       // RNN only: "Tanh" / "Relu"; nullptr = op default
};

CellKind cell_kind(RecurrentCell c) {
  switch (c) {
    case RecurrentCell::lstm:
      return {"LSTM", {0, 3, 1, 2}, nullptr};
    case RecurrentCell::gru:
      return {"GRU", {1, 0, 2}, nullptr};
    case RecurrentCell::rnn_relu:
      return {"RNN", {0}, "Relu"};
    default:
      return {"RNN", {0}, "Tanh"};
  }
}

// Gate blocks of a [gates * H, ...] weight or [gates * H] bias in ONNX order.
std::string onnx_gate_order(OnnxEmitter& e, const std::string& w, int64_t hidden,
                            const std::vector<int>& order) {
  if (order.size() == 1) return w;
  const std::vector<int64_t> sizes(order.size(), hidden);
  auto blocks = e.emit("Split", {w, e.ci64(sizes)}, {attr("axis", int64_t{0})}, order.size());
  std::vector<std::string> reordered;
  for (int k : order) reordered.push_back(blocks[static_cast<size_t>(k)]);
  return e.emit1("Concat", reordered, {attr("axis", int64_t{0})});
}

std::string concat0(OnnxEmitter& e, const std::vector<std::string>& parts) {
  return parts.size() == 1 ? parts[0] : e.emit1("Concat", parts, {attr("axis", int64_t{0})});
}

struct LayerWeights {
  std::string W, R, B;  // [dirs, gates*H, in], [dirs, gates*H, H], [dirs, 2*gates*H] ("" without biases)
};

LayerWeights layer_weights(OnnxEmitter& e, const RecurrentLayer& a, const CellKind& cell, int64_t layer) {
  const size_t per_dir = a.has_biases ? 4 : 2;
  const int64_t dirs = a.bidirectional ? 2 : 1;
  auto gates = [&](int64_t dir, size_t k) {
    return onnx_gate_order(e, a.params[static_cast<size_t>(layer * dirs + dir) * per_dir + k], a.hidden,
                           cell.gate_order);
  };
  std::vector<std::string> W, R, B;
  for (int64_t d = 0; d < dirs; ++d) {
    W.push_back(e.unsqueeze(gates(d, 0), {0}));
    R.push_back(e.unsqueeze(gates(d, 1), {0}));
    if (a.has_biases)
      B.push_back(
          e.unsqueeze(e.emit1("Concat", {gates(d, 2), gates(d, 3)}, {attr("axis", int64_t{0})}), {0}));
  }
  return {concat0(e, W), concat0(e, R), a.has_biases ? concat0(e, B) : ""};
}

std::vector<onnx::AttributeProto> cell_attributes(const RecurrentLayer& a, const CellKind& cell) {
  std::vector<onnx::AttributeProto> attrs = {
      attr("hidden_size", a.hidden),
      attr("direction", std::string(a.bidirectional ? "bidirectional" : "forward"))};
  if (std::string(cell.onnx_op) == "GRU") attrs.push_back(attr("linear_before_reset", int64_t{1}));
  if (cell.activation) {  // one activation per direction
    onnx::AttributeProto act;
    act.set_name("activations");
    act.set_type(onnx::AttributeProto::STRINGS);
    for (int d = 0; d < (a.bidirectional ? 2 : 1); ++d) act.add_strings(cell.activation);
    attrs.push_back(act);
  }
  return attrs;
}

// Rows [layer * dirs, (layer + 1) * dirs) of a [layers * dirs, batch, H] state.
std::string layer_rows(OnnxEmitter& e, const std::string& state, const RecurrentLayer& a, int64_t layer) {
  if (a.layers == 1) return state;
  const int64_t dirs = a.bidirectional ? 2 : 1;
  return e.emit1("Slice", {state, e.ci64({layer * dirs}), e.ci64({(layer + 1) * dirs}), e.ci64({0})});
}

}  // namespace

RecurrentResult emit_recurrent(OnnxEmitter& e, const RecurrentLayer& a) {
  if (a.proj > 0) return emit_projected_lstm(e, a);
  const CellKind cell = cell_kind(a.cell);
  std::string x = a.input;
  if (a.batch_first) x = e.transpose(x, {1, 0, 2});
  std::vector<std::vector<std::string>> finals(a.states.size());  // per state, per layer
  for (int64_t l = 0; l < a.layers; ++l) {
    const LayerWeights w = layer_weights(e, a, cell, l);
    std::vector<std::string> ins = {x, w.W, w.R, w.B, /*sequence_lens*/ ""};
    for (const auto& s : a.states) ins.push_back(layer_rows(e, s, a, l));
    auto o = e.emit(cell.onnx_op, ins, cell_attributes(a, cell), 1 + a.states.size());
    // Y [seq, dirs, batch, H] -> [seq, batch, dirs * H]: the next layer's input.
    x = e.emit1("Reshape", {e.transpose(o[0], {0, 2, 1, 3}), e.ci64({0, 0, -1})});
    for (size_t k = 0; k < a.states.size(); ++k) finals[k].push_back(o[1 + k]);
  }
  if (a.batch_first) x = e.transpose(x, {1, 0, 2});
  RecurrentResult r;
  r.output = x;
  // Each final state is its own ONNX value (it may also be a graph output):
  // a single layer's goes through Identity.
  for (auto& f : finals) r.states.push_back(f.size() == 1 ? e.emit1("Identity", f) : concat0(e, f));
  return r;
}

RecurrentCell recurrent_cell(const std::string& op) {
  if (op == "lstm") return RecurrentCell::lstm;
  if (op == "gru") return RecurrentCell::gru;
  if (op == "rnn_relu") return RecurrentCell::rnn_relu;
  return RecurrentCell::rnn_tanh;
}

}  // namespace mx::aten_onnx
