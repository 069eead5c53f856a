// Recurrent layers: aten::lstm / aten::gru (the .input overloads nn.LSTM and
// nn.GRU trace to) as ONNX LSTM / GRU, one node per layer. PyTorch's gate
// blocks (LSTM i,f,g,o; GRU r,z,n) are reordered to ONNX's (i,o,f,c; z,r,h);
// GRU uses linear_before_reset=1 (PyTorch's formulation).
#include "lower/common.h"

namespace mxts {
namespace {

std::string reorder_rows(Ctx& cx, const std::string& w, int64_t hidden, const std::vector<int>& order) {
  std::vector<int64_t> sizes(order.size(), hidden);
  auto p = cx.emit("Split", {w, cx.ci64(sizes)}, {attr("axis", int64_t{0})}, order.size());
  std::vector<std::string> q;
  for (int k : order) q.push_back(p[k]);
  return cx.emit1("Concat", q, {attr("axis", int64_t{0})});
}

void lower_rnn(Ctx& cx, const tj::Node* n) {
  bool lstm = std::string(n->kind().toQualString()) == "aten::lstm";
  // lstm(input, hx[2], params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
  // gru (input, hx,    params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
  if (!cx.in(1)->iv.isTensor() && !cx.in(1)->iv.isList()) cx.unsupported("packed sequences");
  if (cx.rank(0) != 3) cx.unsupported("unbatched recurrent input");
  bool has_b = cx.b(3), bidir = cx.b(7), batch_first = cx.b(8);
  int64_t layers = cx.i(4);
  if (cx.b(6)) cx.unsupported("recurrent layer in training mode");
  int64_t nd = bidir ? 2 : 1;
  auto params = elems_of(cx, cx.in(2));
  int64_t per = has_b ? 4 : 2;
  if (static_cast<int64_t>(params.size()) != layers * nd * per) cx.unsupported("recurrent layer with projections");
  int64_t hidden = params[1]->iv.toTensor().size(1);
  int64_t gates = lstm ? 4 : 3;
  std::vector<int> order = lstm ? std::vector<int>{0, 3, 1, 2} : std::vector<int>{1, 0, 2};
  auto dt = cx.out_dtype(0);
  std::string x = cx.t(0);
  if (batch_first) x = cx.transpose(x, {1, 0, 2});
  std::string h0, c0;
  if (lstm) {
    auto hx = elems_of(cx, cx.in(1));
    h0 = cx.t(hx[0]);
    c0 = cx.t(hx[1]);
  } else {
    h0 = cx.t(1);
  }
  std::vector<std::string> hs, cs;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<std::string> W, R, B;
    for (int64_t d = 0; d < nd; ++d) {
      size_t base = static_cast<size_t>((l * nd + d) * per);
      W.push_back(cx.unsqueeze(reorder_rows(cx, cx.t(params[base]), hidden, order), {0}));
      R.push_back(cx.unsqueeze(reorder_rows(cx, cx.t(params[base + 1]), hidden, order), {0}));
      if (has_b) {
        std::string bi = reorder_rows(cx, cx.t(params[base + 2]), hidden, order);
        std::string bh = reorder_rows(cx, cx.t(params[base + 3]), hidden, order);
        B.push_back(cx.unsqueeze(cx.emit1("Concat", {bi, bh}, {attr("axis", int64_t{0})}), {0}));
      }
    }
    auto cat0 = [&](const std::vector<std::string>& v) {
      return v.size() == 1 ? v[0] : cx.emit1("Concat", v, {attr("axis", int64_t{0})});
    };
    std::vector<std::string> ins = {x, cat0(W), cat0(R), has_b ? cat0(B) : "", ""};
    auto rows = [&](const std::string& s) {
      return cx.emit1("Slice", {s, cx.ci64({l * nd}), cx.ci64({(l + 1) * nd}), cx.ci64({0})});
    };
    ins.push_back(rows(h0));
    if (lstm) ins.push_back(rows(c0));
    std::vector<onnx::AttributeProto> a = {attr("hidden_size", hidden),
                                           attr("direction", std::string(bidir ? "bidirectional" : "forward"))};
    if (!lstm) a.push_back(attr("linear_before_reset", int64_t{1}));
    auto o = cx.emit(lstm ? "LSTM" : "GRU", ins, a, lstm ? 3 : 2);
    // Y [seq, nd, batch, H] -> [seq, batch, nd*H]
    x = cx.emit1("Reshape", {cx.transpose(o[0], {0, 2, 1, 3}), cx.ci64({0, 0, -1})});
    hs.push_back(o[1]);
    if (lstm) cs.push_back(o[2]);
    (void)gates;
  }
  if (batch_first) x = cx.transpose(x, {1, 0, 2});
  auto cat0 = [&](const std::vector<std::string>& v) {
    return v.size() == 1 ? cx.emit1("Identity", v) : cx.emit1("Concat", v, {attr("axis", int64_t{0})});
  };
  (void)dt;
  cx.out(0, x);
  cx.out(1, cat0(hs));
  if (lstm) cx.out(2, cat0(cs));
}
MXTS_LOWER(lower_rnn, "aten::lstm", "aten::gru");

}  // namespace
}  // namespace mxts
