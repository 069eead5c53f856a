// LSTM with projections (nn.LSTM(proj_size=P): ATen's lstm.input with a
// w_hr [P, H] after each direction's weights). ONNX's LSTM has no
// projection, so every layer and direction is an ONNX Scan over the time
// steps whose body is one cell, as ATen computes it:
//   gates = x_t W_ih^T + b_ih + h W_hh^T + b_hh     (blocks i, f, g, o)
//   c' = sigmoid(f) c + sigmoid(i) tanh(g)
//   h' = (sigmoid(o) tanh(c')) W_hr^T               ([batch, P])
// The input projection of every step is one MatMul before the Scan (ATen
// precomputes it too). The reverse direction scans backwards
// (scan_input_directions / scan_output_directions 1), so its outputs line
// up with the time steps as ATen's do. The sequence length is the Scan's:
// any length runs.
//
// The body's nodes are attributed through the Scan that holds them (its
// record names the LSTM's module), as the torch.export frontend's control
// flow (If, Loop, Scan) is: module records list a graph's top-level nodes.
#include "mx/onnx_proto.hpp"

#include "mx/aten_onnx/patterns.hpp"

namespace mx::aten_onnx {
namespace {

// One direction's parameters: w_ih, w_hh[, b_ih, b_hh], w_hr.
struct DirectionParams {
  std::string w_ih, w_hh, b_ih, b_hh, w_hr;
};

DirectionParams direction_params(const RecurrentLayer& a, int64_t layer, int64_t dir) {
  const size_t per = a.has_biases ? 5 : 3;
  const int64_t dirs = a.bidirectional ? 2 : 1;
  const size_t at = static_cast<size_t>(layer * dirs + dir) * per;
  DirectionParams p;
  p.w_ih = a.params[at];
  p.w_hh = a.params[at + 1];
  if (a.has_biases) {
    p.b_ih = a.params[at + 2];
    p.b_hh = a.params[at + 3];
  }
  p.w_hr = a.params[at + per - 1];
  return p;
}

// The Scan body: (h [B, P], c [B, H], gates_x_t [B, 4H]) -> (h', c', h').
// `w_hh_t` [P, 4H] and `w_hr_t` [H, P] are outer values the body reads.
// Its input names extend `prefix`, an outer value's unique name.
onnx::GraphProto cell_body(OnnxEmitter& e, const std::string& prefix, int32_t dt, int64_t hidden,
                           int64_t proj, const std::string& w_hh_t, const std::string& w_hr_t) {
  const std::string h = prefix + "_h", c = prefix + "_c", gx = prefix + "_gates_x";
  return e.body_graph(
      "Scan", prefix + "_cell", {{h, dt, {-1, proj}}, {c, dt, {-1, hidden}}, {gx, dt, {-1, 4 * hidden}}},
      [&]() -> std::vector<OnnxEmitter::BodyValue> {
        const std::string gates = e.emit1("Add", {gx, e.emit1("MatMul", {h, w_hh_t})});
        const auto g = e.emit("Split", {gates, e.ci64({hidden, hidden, hidden, hidden})},
                              {attr("axis", int64_t{-1})}, 4);  // i, f, g, o
        const std::string c_next =
            e.emit1("Add", {e.emit1("Mul", {e.emit1("Sigmoid", {g[1]}), c}),
                            e.emit1("Mul", {e.emit1("Sigmoid", {g[0]}), e.emit1("Tanh", {g[2]})})});
        const std::string h_next = e.emit1(
            "MatMul", {e.emit1("Mul", {e.emit1("Sigmoid", {g[3]}), e.emit1("Tanh", {c_next})}), w_hr_t});
        const std::string y = e.emit1("Identity", {h_next});  // the step's output, a name of its own
        return {{h_next, dt, {-1, proj}}, {c_next, dt, {-1, hidden}}, {y, dt, {-1, proj}}};
      });
}

struct DirectionResult {
  std::string y, h, c;  // [seq, batch, P], [batch, P], [batch, H]
};

// One layer's direction over x [seq, batch, in].
DirectionResult run_direction(OnnxEmitter& e, const RecurrentLayer& a, int32_t dt, const std::string& x,
                              int64_t layer, int64_t dir) {
  const DirectionParams p = direction_params(a, layer, dir);
  std::string gates_x = e.emit1("MatMul", {x, e.transpose(p.w_ih, {1, 0})});  // [seq, batch, 4H]
  if (a.has_biases) gates_x = e.emit1("Add", {gates_x, e.emit1("Add", {p.b_ih, p.b_hh})});
  const std::string row = e.ci64s(layer * (a.bidirectional ? 2 : 1) + dir);
  const std::string h0 = e.emit1("Gather", {a.states[0], row}, {attr("axis", int64_t{0})});
  const std::string c0 = e.emit1("Gather", {a.states[1], row}, {attr("axis", int64_t{0})});
  onnx::GraphProto body =
      cell_body(e, gates_x, dt, a.hidden, a.proj, e.transpose(p.w_hh, {1, 0}), e.transpose(p.w_hr, {1, 0}));
  std::vector<onnx::AttributeProto> attrs = {attr("body", std::move(body)),
                                             attr("num_scan_inputs", int64_t{1})};
  if (dir == 1) {
    attrs.push_back(attr("scan_input_directions", std::vector<int64_t>{1}));
    attrs.push_back(attr("scan_output_directions", std::vector<int64_t>{1}));
  }
  const auto o = e.emit("Scan", {h0, c0, gates_x}, attrs, 3);
  return {o[2], o[0], o[1]};
}

}  // namespace

RecurrentResult emit_projected_lstm(OnnxEmitter& e, const RecurrentLayer& a) {
  std::string x = a.input;
  if (a.batch_first) x = e.transpose(x, {1, 0, 2});
  std::vector<std::string> h_n, c_n;
  for (int64_t l = 0; l < a.layers; ++l) {
    std::vector<std::string> ys;
    for (int64_t d = 0; d < (a.bidirectional ? 2 : 1); ++d) {
      const DirectionResult r = run_direction(e, a, a.dtype, x, l, d);
      ys.push_back(r.y);
      h_n.push_back(e.unsqueeze(r.h, {0}));
      c_n.push_back(e.unsqueeze(r.c, {0}));
    }
    x = ys.size() == 1 ? ys[0]
                       : e.emit1("Concat", ys, {attr("axis", int64_t{-1})});  // [seq, batch, dirs * P]
  }
  if (a.batch_first) x = e.transpose(x, {1, 0, 2});
  auto stack = [&](const std::vector<std::string>& parts) {
    return parts.size() == 1 ? parts[0] : e.emit1("Concat", parts, {attr("axis", int64_t{0})});
  };
  return {x, {stack(h_n), stack(c_n)}};
}

}  // namespace mx::aten_onnx
