// Recurrent layers as the TRAINING dialect keeps them: lstm / gru /
// rnn_tanh / rnn_relu .input(input, hx, params, has_biases, num_layers,
// dropout, train, bidirectional, batch_first). The ONNX form is the shared
// pattern (aten_onnx/src/patterns/recurrent.cpp; an LSTM with projections,
// proj_size, is a Scan per layer and direction: patterns/projected_lstm.cpp).
// The CORE dialect unrolls
// them into matmuls over the time steps, which lower op by op.
// The single-step cells (lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell:
// nn.LSTMCell and kin, called in a user's own time loop) are one step of
// the same equations, written out: ONNX's layers want a sequence and would
// add a time axis only to drop it again.
#include "mx/onnx_proto.hpp"

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
  const int64_t dirs = a.bidirectional ? 2 : 1, plain = a.has_biases ? 4 : 2;
  // nn.LSTM(proj_size=P) adds w_hr [P, H] after each direction's weights.
  const bool projected = a.cell == mx::aten_onnx::RecurrentCell::lstm &&
                         static_cast<int64_t>(params.size()) == a.layers * dirs * (plain + 1);
  if (!projected && static_cast<int64_t>(params.size()) != a.layers * dirs * plain)
    cx.unsupported("a recurrent layer whose parameter list does not match its layers");
  if (projected) {
    const auto& w_hr = params[static_cast<size_t>(plain)]->shape;  // [P, H]
    if (w_hr.size() != 2 || !w_hr[0].is_static || !w_hr[1].is_static)
      cx.unsupported("a projection weight without static sizes");
    a.proj = w_hr[0].value;
    a.hidden = w_hr[1].value;
  } else {
    const auto& w_hh = params[1]->shape;  // [gates * H, H]
    if (w_hh.size() != 2 || !w_hh[1].is_static)
      cx.unsupported("a recurrent weight without a static hidden size");
    a.hidden = w_hh[1].value;
  }
  const int32_t dt = cx.dtype_of("input");
  a.dtype = dt;
  for (const Value* p : params) a.params.push_back(cx.cast(p->onnx, p->dtype, dt));
  a.input = cx.tensor("input");
  if (a.cell == mx::aten_onnx::RecurrentCell::lstm) {
    for (const Value* s : tensor_values(cx, "hx")) a.states.push_back(cx.cast(s->onnx, s->dtype, dt));
  } else {
    a.states.push_back(cx.operand("hx", dt));
  }
  if (a.proj > 0 && a.states.size() != 2)
    cx.unsupported("an LSTM with projections whose state is not (h, c)");
  const auto r = mx::aten_onnx::emit_recurrent(cx, a);
  cx.out(0, r.output);
  for (size_t k = 0; k < r.states.size() && 1 + k < cx.n_outputs(); ++k) cx.out(1 + k, r.states[k]);
}
MX_ATEN_LOWER(lower_recurrent, "aten.lstm", "aten.gru", "aten.rnn_tanh", "aten.rnn_relu");

// x @ w^T + b for one of a cell's two projections (b absent: none).
std::string cell_projection(OpContext& cx, const std::string& x, int64_t rank, const char* w, const char* b,
                            int32_t dt) {
  return mx::aten_onnx::emit_linear(cx, x, rank, cx.operand(w, dt), cx.has(b) ? cx.operand(b, dt) : "");
}

// The gate blocks of a [.., gates * H] projection, in ATen's order.
std::vector<std::string> gate_blocks(OpContext& cx, const std::string& x, int64_t gates, int64_t hidden) {
  return cx.emit("Split", {x, cx.ci64(std::vector<int64_t>(gates, hidden))}, {attr("axis", int64_t{-1})},
                 gates);
}

int64_t cell_hidden(OpContext& cx) {
  const Value& w_hh = cx.value_of("w_hh");  // [gates * H, H]
  if (w_hh.shape.size() != 2 || !w_hh.shape[1].is_static)
    cx.unsupported("a recurrent cell weight without a static hidden size");
  return w_hh.shape[1].value;
}

// lstm_cell(input, hx[h, c], w_ih, w_hh, b_ih=None, b_hh=None) -> (hy, cy)
void lower_lstm_cell(OpContext& cx) {
  const int32_t dt = cx.dtype_of("input");
  const int64_t rank = cx.rank_of("input"), hidden = cell_hidden(cx);
  const auto hx = tensor_values(cx, "hx");
  if (hx.size() != 2) cx.unsupported("an lstm_cell state that is not (h, c)");
  const std::string h = cx.cast(hx[0]->onnx, hx[0]->dtype, dt), c = cx.cast(hx[1]->onnx, hx[1]->dtype, dt);
  const std::string gates =
      cx.emit1("Add", {cell_projection(cx, cx.tensor("input"), rank, "w_ih", "b_ih", dt),
                       cell_projection(cx, h, rank, "w_hh", "b_hh", dt)});
  const auto g = gate_blocks(cx, gates, 4, hidden);  // input, forget, cell, output
  const std::string cy =
      cx.emit1("Add", {cx.emit1("Mul", {cx.emit1("Sigmoid", {g[1]}), c}),
                       cx.emit1("Mul", {cx.emit1("Sigmoid", {g[0]}), cx.emit1("Tanh", {g[2]})})});
  cx.out(0, cx.emit1("Mul", {cx.emit1("Sigmoid", {g[3]}), cx.emit1("Tanh", {cy})}));
  cx.out(1, cy);
}
MX_ATEN_LOWER(lower_lstm_cell, "aten.lstm_cell");

// gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None): the reset gate
// scales the hidden projection after its bias, as ATen (and ONNX GRU's
// linear_before_reset=1) do.
void lower_gru_cell(OpContext& cx) {
  const int32_t dt = cx.dtype_of("input");
  const int64_t rank = cx.rank_of("input"), hidden = cell_hidden(cx);
  const std::string h = cx.operand("hx", dt);
  const auto gi =
      gate_blocks(cx, cell_projection(cx, cx.tensor("input"), rank, "w_ih", "b_ih", dt), 3, hidden);
  const auto gh = gate_blocks(cx, cell_projection(cx, h, rank, "w_hh", "b_hh", dt), 3, hidden);
  const std::string r = cx.emit1("Sigmoid", {cx.emit1("Add", {gi[0], gh[0]})});
  const std::string z = cx.emit1("Sigmoid", {cx.emit1("Add", {gi[1], gh[1]})});
  const std::string n = cx.emit1("Tanh", {cx.emit1("Add", {gi[2], cx.emit1("Mul", {r, gh[2]})})});
  cx.out(0, cx.emit1("Add", {n, cx.emit1("Mul", {z, cx.emit1("Sub", {h, n})})}));  // (1 - z) n + z h
}
MX_ATEN_LOWER(lower_gru_cell, "aten.gru_cell");

// rnn_tanh_cell / rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)
void lower_rnn_cell(OpContext& cx) {
  const int32_t dt = cx.dtype_of("input");
  const int64_t rank = cx.rank_of("input");
  const std::string pre =
      cx.emit1("Add", {cell_projection(cx, cx.tensor("input"), rank, "w_ih", "b_ih", dt),
                       cell_projection(cx, cx.operand("hx", dt), rank, "w_hh", "b_hh", dt)});
  cx.out(0, cx.emit1(cx.op() == "rnn_relu_cell" ? "Relu" : "Tanh", {pre}));
}
MX_ATEN_LOWER(lower_rnn_cell, "aten.rnn_tanh_cell", "aten.rnn_relu_cell");

}  // namespace
}  // namespace mx::aten_onnx
