// Nodes that compute nothing: x + 0 and x * 1 of a scalar constant (a
// rotary scaling of 1.0, a position offset of 0), the Abs of a size list
// that holds no -1 (an `expand` to sym sizes; its constant -1s are written
// as 1s first), a Slice that keeps every
// element, an Expand to an empty shape or to ones no longer than its input's
// rank (a buffer expanded to [1, 1]), an Identity, a Transpose by the
// identity perm, a Where whose constant condition picks one operand of the
// result's dims (constant indices' negative-index fix-up), and a Transpose
// of a Transpose (one Transpose of the composed perm, or none). ONNX Runtime
// removes them itself while it creates a session, but each rewrite it
// makes costs it a pass over the whole graph again (its level-1
// transformers run a second round whenever one of them changed the graph),
// so a file without them loads measurably faster. A dropped node's readers
// read its input; a rewritten Transpose keeps its name and record. A no-op
// writing a graph output goes when nothing else reads its input: the
// input's producer writes the output under its name.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "constant_data.hpp"
#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

constexpr int64_t kSliceToEnd = int64_t{1} << 62;  // an `end` at least this large keeps the rest
// The largest constant whose elements are read to prove indices non-negative.
constexpr int64_t kMaxIndexConstant = int64_t{1} << 16;

struct Values {
  std::map<std::string, const onnx::TensorProto*>
      constants;                        // Constant nodes' and inline initializers' tensors
  std::map<std::string, int> producer;  // value -> node index
  std::map<std::string, int> rank;      // initializers', graph inputs' and constants' ranks
};

Values index_values(const onnx::GraphProto& g) {
  Values v;
  for (const auto& t : g.initializer()) {
    if (t.has_raw_data()) v.constants[t.name()] = &t;
    v.rank[t.name()] = t.dims_size();
  }
  for (const auto& i : g.input()) {
    v.constants.erase(i.name());  // an input may override its initializer
    v.rank.erase(i.name());
    if (i.type().has_tensor_type() && i.type().tensor_type().has_shape())
      v.rank[i.name()] = i.type().tensor_type().shape().dim_size();
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    for (const auto& o : n.output()) v.producer[o] = i;
    if (n.op_type() == "Constant" && n.domain().empty() && n.attribute_size() == 1 &&
        n.attribute(0).name() == "value" && n.attribute(0).has_t() && n.attribute(0).t().has_raw_data())
      v.constants[n.output(0)] = &n.attribute(0).t();
  }
  for (const auto& [name, t] : v.constants) v.rank[name] = t->dims_size();
  return v;
}

const onnx::TensorProto* constant(const Values& v, const std::string& name) {
  auto it = v.constants.find(name);
  return it == v.constants.end() ? nullptr : it->second;
}

// A 0-d constant equal to `value` (its bytes those of `value` in its type,
// or of -0 for a zero).
bool scalar_equal(const onnx::TensorProto* t, double value) {
  if (!t || t->dims_size() != 0 || element_size(t->data_type()) == 0) return false;
  if (t->raw_data() == filled_tensor(t->data_type(), {}, value).raw_data()) return true;
  return value == 0.0 && is_floating(t->data_type()) &&
         t->raw_data() == filled_tensor(t->data_type(), {}, -0.0).raw_data();
}

// The values of an int64 constant of rank <= 1 (constants are raw: see above).
std::optional<std::vector<int64_t>> int64_values(const onnx::TensorProto* t) {
  if (!t || t->data_type() != onnx::TensorProto::INT64 || t->dims_size() > 1) return std::nullopt;
  const size_t n = t->raw_data().size() / 8;
  std::vector<int64_t> out(n);
  if (n > 0) std::memcpy(out.data(), t->raw_data().data(), n * 8);
  return out;
}

// Slice(x, starts, ends[, axes[, steps]]) with every start 0, every end
// past any dim and every step 1.
bool slice_keeps_all(const onnx::NodeProto& n, const Values& v) {
  if (n.input_size() < 3) return false;
  const auto starts = int64_values(constant(v, n.input(1)));
  const auto ends = int64_values(constant(v, n.input(2)));
  if (!starts || !ends || starts->size() != ends->size()) return false;
  for (auto s : *starts)
    if (s != 0) return false;
  for (auto e : *ends)
    if (e < kSliceToEnd) return false;
  if (n.input_size() >= 5 && !n.input(4).empty()) {
    const auto steps = int64_values(constant(v, n.input(4)));
    if (!steps) return false;
    for (auto s : *steps)
      if (s != 1) return false;
  }
  return true;
}

// An int64 value no element of which is negative: a Shape's or NonZero's
// output, a constant of non-negative values, a Range from such a start by a
// positive step, their sums and products, a Concat of such values (the
// size list of an `expand` built from sym sizes and static dims), or one
// rearranged (Squeeze, Split, Transpose, Gather, ...: NonZero's indices
// split per dim).
bool non_negative_ints(const onnx::GraphProto& g, const std::string& name, const Values& v) {
  if (const auto* t = constant(v, name)) {  // any rank ([[0], [1]]: window offsets)
    if (t->data_type() != onnx::TensorProto::INT64) return false;
    const auto data = passes::constant_data(*t, kMaxIndexConstant);
    const auto values = passes::ints_of(data ? &*data : nullptr);
    return values && std::all_of(values->begin(), values->end(), [](int64_t x) { return x >= 0; });
  }
  auto p = v.producer.find(name);
  if (p == v.producer.end()) return false;
  const auto& n = g.node(p->second);
  if (!n.domain().empty()) return false;
  const std::string& op = n.op_type();
  if (op == "Shape" || op == "NonZero") return true;
  if (op == "Range" && n.input_size() == 3) {  // from a start >= 0 up by a step > 0
    const auto step = int64_values(constant(v, n.input(2)));
    return step && step->size() == 1 && (*step)[0] > 0 && non_negative_ints(g, n.input(0), v);
  }
  if ((op == "Add" || op == "Mul") && n.input_size() == 2)  // index arithmetic: no overflow
    return non_negative_ints(g, n.input(0), v) && non_negative_ints(g, n.input(1), v);
  // data movement of such values: their elements, rearranged
  if (op == "Squeeze" || op == "Unsqueeze" || op == "Reshape" || op == "Transpose" || op == "Split" ||
      op == "Slice" || op == "Flatten" || op == "Expand" || op == "Gather")
    return n.input_size() > 0 && non_negative_ints(g, n.input(0), v);
  if (op != "Concat") return false;
  for (const auto& in : n.input())
    if (!non_negative_ints(g, in, v)) return false;
  return n.input_size() > 0;
}

// A 0-d value: a 0-d constant or input, or a dim read as Gather(Shape(x), k)
// with a 0-d k.
bool is_scalar(const onnx::GraphProto& g, const std::string& name, const Values& v) {
  if (auto r = v.rank.find(name); r != v.rank.end()) return r->second == 0;
  auto p = v.producer.find(name);
  if (p == v.producer.end()) return false;
  const auto& n = g.node(p->second);
  if (!passes::is_op(&n, "Gather") || n.input_size() != 2) return false;
  const auto* k = constant(v, n.input(1));
  auto shape = v.producer.find(n.input(0));
  return k && k->dims_size() == 0 && shape != v.producer.end() && passes::is_op(&g.node(shape->second), "Shape");
}

// `chosen` when `other` is it combined element-wise with a 0-d value (i + n):
// a Where between them has chosen's dims when its condition has them too.
std::optional<std::string> other_has_dims_of(const onnx::GraphProto& g, const std::string& other,
                                             const std::string& chosen, const Values& v) {
  auto p = v.producer.find(other);
  if (p == v.producer.end()) return std::nullopt;
  const auto& o = g.node(p->second);
  if (!(passes::is_op(&o, "Add") || passes::is_op(&o, "Sub") || passes::is_op(&o, "Mul")) || o.input_size() != 2)
    return std::nullopt;
  const int k = o.input(0) == chosen ? 1 : o.input(1) == chosen ? 0 : -1;
  if (k < 0 || !is_scalar(g, o.input(k), v)) return std::nullopt;
  return chosen;
}

// Where(i < 0, a, i) with `i < 0` a Less of i and a 0-d zero, i never
// negative (NonZero's indices): the test is all false, of i's dims.
bool never_negative_test(const onnx::GraphProto& g, const onnx::NodeProto& n, const Values& v) {
  auto p = v.producer.find(n.input(0));
  if (p == v.producer.end()) return false;
  const auto& less = g.node(p->second);
  return passes::is_op(&less, "Less") && less.input_size() == 2 && less.input(0) == n.input(2) &&
         scalar_equal(constant(v, less.input(1)), 0.0) && non_negative_ints(g, n.input(2), v);
}

// Where(c, a, b) whose condition is a constant of one value passes the
// chosen operand through when it is a constant of c's dims and the other
// operand is it combined element-wise with a 0-d value: the result has its
// dims. That is a negative index's fix-up `Where(i < 0, i + n, i)` of
// constant indices i, whose condition folded to all false; and the same
// fix-up of indices never negative.
std::optional<std::string> where_selected(const onnx::GraphProto& g, const onnx::NodeProto& n,
                                          const Values& v) {
  if (never_negative_test(g, n, v)) return other_has_dims_of(g, n.input(1), n.input(2), v);
  const auto* c = constant(v, n.input(0));
  if (!c || c->data_type() != onnx::TensorProto::BOOL || c->raw_data().empty()) return std::nullopt;
  const std::string& bits = c->raw_data();
  const bool all_false = bits.find_first_not_of('\0') == std::string::npos;
  const bool all_true = !all_false && bits.find('\0') == std::string::npos;
  if (!all_false && !all_true) return std::nullopt;
  const std::string& chosen = n.input(all_true ? 1 : 2);
  const std::string& other = n.input(all_true ? 2 : 1);
  const auto* x = constant(v, chosen);
  if (!x || x->dims().size() != c->dims().size() ||
      !std::equal(x->dims().begin(), x->dims().end(), c->dims().begin()))
    return std::nullopt;
  return other_has_dims_of(g, other, chosen, v);
}

// The input a no-op node passes through, or nothing.
std::optional<std::string> passed_through(const onnx::GraphProto& g, const onnx::NodeProto& n,
                                          const Values& v) {
  if (!n.domain().empty() || n.output_size() != 1 || n.input_size() == 0) return std::nullopt;
  const std::string& op = n.op_type();
  if (op == "Identity") return n.input(0);
  if (op == "Abs" && non_negative_ints(g, n.input(0), v)) return n.input(0);
  if (op == "Slice" && slice_keeps_all(n, v)) return n.input(0);
  if (op == "Expand" && n.input_size() == 2) {
    const auto shape = int64_values(constant(v, n.input(1)));
    const auto rank = v.rank.find(n.input(0));
    const bool ones = shape && std::all_of(shape->begin(), shape->end(), [](int64_t d) { return d == 1; });
    if (shape && (shape->empty() ||
                  (ones && rank != v.rank.end() && static_cast<size_t>(rank->second) >= shape->size())))
      return n.input(0);
  }
  if (op == "Where" && n.input_size() == 3) return where_selected(g, n, v);
  if (n.input_size() != 2) return std::nullopt;
  const auto* a = constant(v, n.input(0));
  const auto* b = constant(v, n.input(1));
  if ((op == "Add" || op == "Sub") && scalar_equal(b, 0.0)) return n.input(0);
  if ((op == "Mul" || op == "Div") && scalar_equal(b, 1.0)) return n.input(0);
  if (op == "Add" && scalar_equal(a, 0.0)) return n.input(1);
  if (op == "Mul" && scalar_equal(a, 1.0)) return n.input(1);
  return std::nullopt;
}

std::optional<std::vector<int64_t>> perm_attr(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (a.name() == "perm") return std::vector<int64_t>(a.ints().begin(), a.ints().end());
  return std::nullopt;
}

// A Transpose by the identity perm (a permute to the dims' own order,
// which an index_put over leading dims or an unfold writes).
bool identity_transpose(const onnx::NodeProto& n) {
  if (n.op_type() != "Transpose" || !n.domain().empty() || n.input_size() != 1) return false;
  const auto p = perm_attr(n);  // none: reversed dims
  if (!p) return false;
  for (size_t i = 0; i < p->size(); ++i)
    if ((*p)[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// Transpose(Transpose(x, p1), p2) reads x with perm p1[p2[i]]; returns
// whether the composed perm is the identity.
std::optional<bool> compose_transposes(onnx::GraphProto& g, const Values& v, onnx::NodeProto& n) {
  if (n.op_type() != "Transpose" || !n.domain().empty() || n.input_size() != 1) return std::nullopt;
  auto p = v.producer.find(n.input(0));
  if (p == v.producer.end()) return std::nullopt;
  const auto& inner = g.node(p->second);
  if (inner.op_type() != "Transpose" || !inner.domain().empty() || inner.input_size() != 1)
    return std::nullopt;
  const auto p1 = perm_attr(inner), p2 = perm_attr(n);
  if (!p1 || !p2 || p1->size() != p2->size()) return std::nullopt;
  std::vector<int64_t> q;
  bool identity = true;
  for (auto i : *p2) {
    if (i < 0 || static_cast<size_t>(i) >= p1->size()) return std::nullopt;
    q.push_back((*p1)[static_cast<size_t>(i)]);
    identity &= q.back() == static_cast<int64_t>(q.size() - 1);
  }
  n.set_input(0, inner.input(0));
  n.clear_attribute();
  *n.add_attribute() = attr("perm", q);
  return identity;
}

// An `expand` to sym sizes and -1s (a class token expanded to [batch, -1,
// -1]) is lowered as Abs(Concat(dims, [-1, -1])), -1 -> 1. When every other
// part of the Concat is a non-negative dim and the Abs alone reads it, its
// constant parts are written as their absolute values (a new initializer:
// the constant may have other readers), so the Abs is a no-op and goes.
void make_size_list_parts_non_negative(onnx::GraphProto& g, const Values& v) {
  auto readers = passes::read_counts(g);
  std::set<std::string> names;
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (auto& abs : *g.mutable_node()) {
    if (abs.op_type() != "Abs" || !abs.domain().empty() || abs.input_size() != 1) continue;
    auto p = v.producer.find(abs.input(0));
    if (p == v.producer.end() || readers[abs.input(0)] != 1) continue;
    auto& concat = *g.mutable_node(p->second);
    if (concat.op_type() != "Concat" || !concat.domain().empty()) continue;
    std::map<int, std::vector<int64_t>> made;  // input index -> its absolute values
    bool ok = true;
    for (int k = 0; k < concat.input_size() && ok; ++k) {
      if (non_negative_ints(g, concat.input(k), v)) continue;
      const auto* t = constant(v, concat.input(k));
      auto values = t && t->dims_size() == 1 ? int64_values(t) : std::nullopt;  // int64 only
      ok = values && std::none_of(values->begin(), values->end(), [](int64_t x) { return x == INT64_MIN; });
      if (!ok) break;
      for (auto& x : *values) x = x < 0 ? -x : x;
      made[k] = *values;
    }
    if (!ok || made.empty()) continue;
    for (const auto& [k, values] : made) {
      std::string name = concat.input(k) + "_abs";
      while (names.count(name) || v.producer.count(name)) name += "_";
      names.insert(name);
      auto* t = g.add_initializer();
      *t = int64_tensor(values);
      t->set_name(name);
      concat.set_input(k, name);
    }
  }
}

}  // namespace

void drop_noops(onnx::GraphProto& g, PassReport& report) {
  const auto outputs = passes::graph_outputs(g);
  make_size_list_parts_non_negative(g, index_values(g));
  Values v = index_values(g);
  passes::drop_passed_through(g, report, [&](onnx::NodeProto& n) -> std::optional<std::string> {
    // Checked here too: a Transpose writing a graph output is not rewritten.
    if (n.output_size() != 1 || outputs.count(n.output(0)) || passes::has_subgraph(n)) return std::nullopt;
    if (auto source = passed_through(g, n, v)) return source;
    if (identity_transpose(n)) return n.input(0);
    const auto identity = compose_transposes(g, v, n);
    if (identity && *identity) return n.input(0);
    return std::nullopt;
  });
  // A no-op writing a graph output: its input's producer writes it instead
  // (node indices have moved: read the graph again).
  v = index_values(g);
  passes::hand_outputs_back(g, report, [&](onnx::NodeProto& n) -> std::optional<std::string> {
    if (auto source = passed_through(g, n, v)) return source;
    if (identity_transpose(n)) return n.input(0);
    return std::nullopt;
  });
}

}  // namespace mx::aten_onnx
