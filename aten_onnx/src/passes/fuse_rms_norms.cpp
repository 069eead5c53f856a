// RMSNorm as ONNX RMSNormalization (opset 23). LLaMA-family models write
// their RMSNorm in Python (transformers' LlamaRMSNorm), so the program
// holds its arithmetic, not one op; lowered, it is
//   w * (x * Reciprocal(Sqrt(ReduceMean(x^2, [-1], keepdims) + eps)))
// with x^2 as Pow(x, 2) or Mul(x, x), the mean over axis -1 or, when the
// frontend knows x's rank, its last axis by number. That chain, all of it in one module,
// becomes one RMSNormalization(x, w, axis=-1, epsilon=eps) node that keeps
// the last Mul's name and module record; the rest is left dead (removed
// and counted by the dead-node pass). A chain with a Cast in it (half
// precision models compute the norm in float32) is left as it is.
#include <cmath>
#include <cstring>
#include <map>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using Writers = std::map<std::string, const onnx::NodeProto*>;

std::string scope_of(const onnx::NodeProto& n) {
  return n.name().substr(0, n.name().rfind('/'));
}

const onnx::NodeProto* writer(const Writers& w, const std::string& value, const char* op) {
  auto it = w.find(value);
  return it != w.end() && it->second->op_type() == op ? it->second : nullptr;
}

// The float value of a Constant node holding one float32 element.
std::optional<float> float_scalar(const onnx::NodeProto* n) {
  if (!n || n->op_type() != "Constant" || n->attribute_size() != 1 || !n->attribute(0).has_t())
    return std::nullopt;
  const onnx::TensorProto& t = n->attribute(0).t();
  if (t.data_type() != onnx::TensorProto::FLOAT) return std::nullopt;
  if (t.float_data_size() == 1) return t.float_data(0);
  if (t.raw_data().size() != sizeof(float)) return std::nullopt;
  float f;
  std::memcpy(&f, t.raw_data().data(), sizeof f);
  return f;
}

// x^2 as Pow(x, 2) or Mul(x, x): x, or "".
std::string squared(const Writers& w, const std::string& value) {
  if (auto* mul = writer(w, value, "Mul"); mul && mul->input(0) == mul->input(1)) return mul->input(0);
  auto* pow = writer(w, value, "Pow");
  if (!pow) return {};
  auto two = float_scalar(writer(w, pow->input(1), "Constant"));
  return two && *two == 2.f ? pow->input(0) : std::string();
}

bool mean_over_last_axis(const Writers& w, const onnx::NodeProto& mean, int64_t x_rank) {
  bool keep = true;
  for (const auto& a : mean.attribute())
    if (a.name() == "keepdims") keep = a.i() != 0;
  if (!keep || mean.input_size() != 2) return false;  // opset 18+: axes as an input
  auto* axes = writer(w, mean.input(1), "Constant");
  auto values = axes ? passes::int64_constant(*axes) : std::nullopt;
  return values && values->values.size() == 1 &&
         (values->values[0] == -1 || (x_rank > 0 && values->values[0] == x_rank - 1));
}

struct Match {
  std::string x, weight;
  float eps = 0;
};

// `n` = Mul(w, Mul(x, Reciprocal(Sqrt(Add(ReduceMean(x^2), eps))))), either
// operand order at each Mul and Add, every node in n's module.
std::optional<Match> match(const Writers& w, const onnx::NodeProto& n, const SymbolicShapes& shapes) {
  if (n.op_type() != "Mul" || n.input_size() != 2) return std::nullopt;
  const std::string scope = scope_of(n);
  auto same_scope = [&](const onnx::NodeProto* p) { return p && scope_of(*p) == scope; };
  for (int side = 0; side < 2; ++side) {
    const onnx::NodeProto* normed = writer(w, n.input(side), "Mul");
    if (!same_scope(normed)) continue;
    for (int xs = 0; xs < 2; ++xs) {
      const std::string& x = normed->input(xs);
      const onnx::NodeProto* recip = writer(w, normed->input(1 - xs), "Reciprocal");
      const onnx::NodeProto* root = same_scope(recip) ? writer(w, recip->input(0), "Sqrt") : nullptr;
      const onnx::NodeProto* add = same_scope(root) ? writer(w, root->input(0), "Add") : nullptr;
      if (!same_scope(add)) continue;
      for (int ms = 0; ms < 2; ++ms) {
        const onnx::NodeProto* mean = writer(w, add->input(ms), "ReduceMean");
        auto eps = float_scalar(writer(w, add->input(1 - ms), "Constant"));
        auto shape = shapes.find(x);
        const int64_t rank = shape == shapes.end() ? -1 : static_cast<int64_t>(shape->second.size());
        if (!same_scope(mean) || !eps || !mean_over_last_axis(w, *mean, rank)) continue;
        if (squared(w, mean->input(0)) == x) return Match{x, n.input(1 - side), *eps};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

void fuse_rms_norms(onnx::GraphProto& g, const SymbolicShapes& shapes) {
  Writers w;
  for (const auto& n : g.node())
    for (const auto& o : n.output()) w[o] = &n;
  std::vector<std::pair<int, Match>> found;
  for (int i = 0; i < g.node_size(); ++i)
    if (auto m = match(w, g.node(i), shapes)) found.emplace_back(i, *m);
  for (auto& [i, m] : found) {
    onnx::NodeProto& n = *g.mutable_node(i);
    n.set_op_type("RMSNormalization");
    n.clear_input();
    n.add_input(m.x);
    n.add_input(m.weight);
    n.clear_attribute();
    *n.add_attribute() = attr("axis", int64_t{-1});
    *n.add_attribute() = attr("epsilon", m.eps);
    *n.add_attribute() = attr("stash_type", int64_t{1});
  }
}

}  // namespace mx::aten_onnx
