// Shape arithmetic whose operands are all known at export (static dims,
// axes, scalars) is evaluated here, so the file carries its result instead
// of the nodes computing it: integer arithmetic and comparisons on integer
// tensors (Max, Min and Clip too: an index clamped into range; Abs and Neg:
// the indices of a reflection pad; ReduceSum: a relative-position index),
// and data
// movement (Slice, Concat, Expand, Gather, ...; see
// constant_data.hpp) on constants of any dtype, which copies elements and
// so folds bit-exactly; and element-wise floating-point arithmetic computed
// as the runtime computes it (constant_arithmetic.cpp). Results hold at
// most kMaxElements (a Concat of constants it alone reads: any size, see
// max_folded).
#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "constant_arithmetic.hpp"
#include "constant_data.hpp"
#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::int_attr;
using passes::normalize_axis;

constexpr int64_t kMaxElements = 1024;
// The largest constant read as the operand of a data-movement op.
constexpr int64_t kMaxDataOperand = int64_t{1} << 16;

struct IntTensor {
  int32_t dtype = onnx::TensorProto::INT64;  // INT64 or INT32 (BOOL: a comparison's result, 0 or 1)
  std::vector<int64_t> dims;
  std::vector<int64_t> v;
  int64_t numel() const { return static_cast<int64_t>(v.size()); }
};
using Known = std::map<std::string, IntTensor>;

int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::optional<IntTensor> from_tensor(const onnx::TensorProto& t) {
  const int32_t dt = t.data_type();
  if (dt != onnx::TensorProto::INT64 && dt != onnx::TensorProto::INT32) return std::nullopt;
  const auto c = passes::constant_data(t, kMaxElements);
  if (!c) return std::nullopt;
  IntTensor r;
  r.dtype = dt;
  r.dims = c->dims;
  r.v = *passes::ints_of(&*c);
  return r;
}

onnx::TensorProto to_tensor(const IntTensor& r) {
  onnx::TensorProto t;
  t.set_data_type(r.dtype);
  for (auto d : r.dims) t.add_dims(d);
  std::string raw;
  for (auto x : r.v) {
    if (r.dtype == onnx::TensorProto::BOOL) {
      raw.push_back(static_cast<char>(x != 0));
    } else if (r.dtype == onnx::TensorProto::INT64) {
      raw.append(reinterpret_cast<const char*>(&x), 8);
    } else {
      const auto y = static_cast<int32_t>(x);
      raw.append(reinterpret_cast<const char*>(&y), 4);
    }
  }
  t.set_raw_data(raw);
  return t;
}

std::optional<IntTensor> constant_value(const onnx::NodeProto& n) {
  if (n.input_size() != 0 || n.attribute_size() != 1) return std::nullopt;
  const auto& a = n.attribute(0);
  if (a.name() == "value") return from_tensor(a.t());
  IntTensor r;
  if (a.name() == "value_int") {
    r.v = {a.i()};
  } else if (a.name() == "value_ints") {
    r.v.assign(a.ints().begin(), a.ints().end());
    r.dims = {static_cast<int64_t>(r.v.size())};
  } else {
    return std::nullopt;
  }
  return r;
}

// Shape of a graph input with static dims or of an initializer.
std::optional<std::vector<int64_t>> static_dims(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return std::vector<int64_t>(t.dims().begin(), t.dims().end());
  for (const auto& i : g.input()) {
    if (i.name() != name) continue;
    if (!i.type().has_tensor_type() || !i.type().tensor_type().has_shape()) return std::nullopt;
    std::vector<int64_t> d;
    for (const auto& dim : i.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value()) return std::nullopt;
      d.push_back(dim.dim_value());
    }
    return d;
  }
  return std::nullopt;
}

// The values of `t` broadcast to `dims` (constant_data's Expand, on its
// int64 values).
std::optional<std::vector<int64_t>> broadcast_values(const IntTensor& t, const std::vector<int64_t>& dims) {
  passes::ConstantData c;
  c.dtype = onnx::TensorProto::INT64;
  c.dims = t.dims;
  c.bytes.assign(reinterpret_cast<const char*>(t.v.data()), t.v.size() * sizeof(int64_t));
  const auto e = passes::expand(c, dims, kMaxElements);
  return e ? passes::ints_of(&*e) : std::nullopt;
}

// `f` on the elements of a and b, broadcast together, into a tensor of
// `dtype`; nothing when `f` refuses an element or the result is too large.
template <typename F>
std::optional<IntTensor> elementwise(const IntTensor& a, const IntTensor& b, int32_t dtype, F f) {
  if (a.dtype != b.dtype) return std::nullopt;
  const auto dims = passes::broadcast_shape(a.dims, b.dims);
  if (!dims || count(*dims) > kMaxElements) return std::nullopt;
  IntTensor r;
  r.dtype = dtype;
  r.dims = *dims;
  const auto va = broadcast_values(a, r.dims), vb = broadcast_values(b, r.dims);
  if (!va || !vb) return std::nullopt;
  for (size_t i = 0; i < va->size(); ++i) {
    const auto v = f((*va)[i], (*vb)[i]);
    if (!v) return std::nullopt;
    r.v.push_back(*v);
  }
  return r;
}

std::optional<IntTensor> eval_binary(const std::string& op, const IntTensor& a, const IntTensor& b) {
  return elementwise(a, b, a.dtype, [&](int64_t x, int64_t y) -> std::optional<int64_t> {
    if (op == "Add") return x + y;
    if (op == "Sub") return x - y;
    if (op == "Mul") return x * y;
    if (op == "Div" && y > 0 && x >= 0) return x / y;  // truncation and floor agree here
    if (op == "Max") return std::max(x, y);
    if (op == "Min") return std::min(x, y);
    return std::nullopt;
  });
}

bool is_comparison(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual";
}

// A comparison of integer constants (a mask built from positions): a BOOL
// tensor.
std::optional<IntTensor> eval_comparison(const std::string& op, const IntTensor& a, const IntTensor& b) {
  if (a.dtype == onnx::TensorProto::BOOL) return std::nullopt;
  return elementwise(a, b, onnx::TensorProto::BOOL, [&](int64_t x, int64_t y) -> std::optional<int64_t> {
    return op == "Equal"         ? x == y
           : op == "Less"        ? x < y
           : op == "LessOrEqual" ? x <= y
           : op == "Greater"     ? x > y
                                 : x >= y;
  });
}

// ReduceSum of an integer tensor over `axes` (all when empty, unless
// noop_with_empty_axes): BEiT's relative-position index sums its two
// coordinates. Nothing when a sum overflows the dtype.
std::optional<IntTensor> reduce_sum(const onnx::NodeProto& n, const IntTensor& x, std::vector<int64_t> axes) {
  if (x.dtype == onnx::TensorProto::BOOL) return std::nullopt;
  const auto rank = static_cast<int64_t>(x.dims.size());
  if (axes.empty()) {
    if (int_attr(n, "noop_with_empty_axes", 0) != 0) return x;
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  std::vector<bool> reduced(x.dims.size(), false);
  for (int64_t& a : axes) {
    if (!normalize_axis(a, rank)) return std::nullopt;
    reduced[static_cast<size_t>(a)] = true;
  }
  const bool keep = int_attr(n, "keepdims", 1) != 0;
  IntTensor r;
  r.dtype = x.dtype;
  std::vector<int64_t> kept_dims;  // the output's dims with every reduced one 1
  for (size_t d = 0; d < x.dims.size(); ++d) {
    kept_dims.push_back(reduced[d] ? 1 : x.dims[d]);
    if (!reduced[d] || keep) r.dims.push_back(kept_dims.back());
  }
  r.v.assign(static_cast<size_t>(count(kept_dims)), 0);
  const int64_t lo = x.dtype == onnx::TensorProto::INT32 ? INT32_MIN : INT64_MIN;
  const int64_t hi = x.dtype == onnx::TensorProto::INT32 ? INT32_MAX : INT64_MAX;
  for (int64_t k = 0; k < x.numel(); ++k) {
    int64_t rest = k, out = 0, stride = 1;  // k's index with the reduced dims at 0, in kept_dims
    for (size_t d = x.dims.size(); d-- > 0;) {
      const int64_t i = rest % x.dims[d];
      rest /= x.dims[d];
      if (!reduced[d]) out += i * stride;
      stride *= kept_dims[d];
    }
    int64_t& sum = r.v[static_cast<size_t>(out)];
    if (__builtin_add_overflow(sum, x.v[static_cast<size_t>(k)], &sum) || sum < lo || sum > hi)
      return std::nullopt;
  }
  return r;
}

std::optional<IntTensor> eval(const onnx::GraphProto& g, const onnx::NodeProto& n, const Known& known) {
  const std::string& op = n.op_type();
  if (!n.domain().empty() || n.output_size() != 1) return std::nullopt;
  if (op == "Shape") {
    auto d = static_dims(g, n.input(0));
    if (!d) return std::nullopt;
    const auto [start, end] = passes::shape_range(n, static_cast<int64_t>(d->size()));
    IntTensor r;
    r.v.assign(d->begin() + start, d->begin() + end);
    r.dims = {end - start};
    return r;
  }
  std::vector<const IntTensor*> in;
  for (const auto& i : n.input()) {
    if (i.empty()) return std::nullopt;
    auto it = known.find(i);
    if (it == known.end()) return std::nullopt;
    in.push_back(&it->second);
  }
  if (in.empty()) return std::nullopt;
  const IntTensor& x = *in[0];
  if (op == "Identity" && in.size() == 1) return x;
  if (op == "Cast" && in.size() == 1) {
    const int64_t to = int_attr(n, "to", 0);
    if (to != onnx::TensorProto::INT64 && to != onnx::TensorProto::INT32) return std::nullopt;
    IntTensor r = x;
    r.dtype = static_cast<int32_t>(to);
    for (auto& v : r.v)
      if (to == onnx::TensorProto::INT32) v = static_cast<int32_t>(v);
    return r;
  }
  if ((op == "Unsqueeze" || op == "Squeeze") && in.size() <= 2) {
    IntTensor r = x;
    if (op == "Unsqueeze") {
      if (in.size() != 2) return std::nullopt;
      const auto out_rank = static_cast<int64_t>(x.dims.size() + in[1]->v.size());
      std::vector<bool> is_new(static_cast<size_t>(out_rank), false);
      for (int64_t a : in[1]->v) {
        if (!normalize_axis(a, out_rank) || is_new[static_cast<size_t>(a)]) return std::nullopt;
        is_new[static_cast<size_t>(a)] = true;
      }
      r.dims.clear();
      size_t k = 0;
      for (int64_t d = 0; d < out_rank; ++d)
        r.dims.push_back(is_new[static_cast<size_t>(d)] ? 1 : x.dims[k++]);
      return r;
    }
    std::vector<bool> drop(x.dims.size(), false);
    if (in.size() == 2) {
      for (int64_t a : in[1]->v) {
        if (!normalize_axis(a, static_cast<int64_t>(x.dims.size())) || x.dims[static_cast<size_t>(a)] != 1)
          return std::nullopt;
        drop[static_cast<size_t>(a)] = true;
      }
    } else {
      for (size_t d = 0; d < x.dims.size(); ++d) drop[d] = x.dims[d] == 1;
    }
    r.dims.clear();
    for (size_t d = 0; d < x.dims.size(); ++d)
      if (!drop[d]) r.dims.push_back(x.dims[d]);
    return r;
  }
  if (op == "Range" && in.size() == 3) {
    for (const auto* t : in)
      if (!t->dims.empty() || t->dtype != x.dtype) return std::nullopt;
    const int64_t start = x.v[0], limit = in[1]->v[0], delta = in[2]->v[0];
    if (delta == 0) return std::nullopt;
    const int64_t span = limit - start;
    const int64_t n =
        std::max<int64_t>(0, (span + delta + (delta > 0 ? -1 : 1)) / delta);  // ceil(span / delta)
    if (n > kMaxElements) return std::nullopt;
    IntTensor r;
    r.dtype = x.dtype;
    r.dims = {n};
    for (int64_t k = 0; k < n; ++k) r.v.push_back(start + k * delta);
    return r;
  }
  if (op == "Concat") {
    IntTensor r;
    r.dtype = x.dtype;
    for (const auto* t : in) {
      if (t->dims.size() != 1 || t->dtype != x.dtype) return std::nullopt;
      r.v.insert(r.v.end(), t->v.begin(), t->v.end());
    }
    r.dims = {r.numel()};
    return r;
  }
  if (op == "Gather" && in.size() == 2) {
    if (x.dims.size() != 1 || in[1]->dims.size() > 1) return std::nullopt;
    int64_t axis = int_attr(n, "axis", 0);
    if (!normalize_axis(axis, 1)) return std::nullopt;
    IntTensor r;
    r.dtype = x.dtype;
    r.dims = in[1]->dims;
    for (int64_t i : in[1]->v) {
      if (!normalize_axis(i, x.numel())) return std::nullopt;
      r.v.push_back(x.v[static_cast<size_t>(i)]);
    }
    return r;
  }
  if (op == "Clip" && in.size() == 3) {  // an index clamped into range; bounds 0-d
    if (x.dtype == onnx::TensorProto::BOOL || in[1]->numel() != 1 || in[2]->numel() != 1 ||
        in[1]->v[0] > in[2]->v[0])
      return std::nullopt;
    IntTensor r = x;
    for (auto& v : r.v) v = std::clamp(v, in[1]->v[0], in[2]->v[0]);
    return r;
  }
  if ((op == "Abs" || op == "Neg") && in.size() == 1) {  // reflected indices: n - |n - |i||
    if (x.dtype == onnx::TensorProto::BOOL) return std::nullopt;
    const int64_t lowest = x.dtype == onnx::TensorProto::INT32 ? INT32_MIN : INT64_MIN;
    IntTensor r = x;
    for (auto& v : r.v) {
      if (v == lowest) return std::nullopt;  // its negation wraps around
      v = op == "Neg" || v < 0 ? -v : v;
    }
    return r;
  }
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Max" || op == "Min") &&
      in.size() == 2) {
    if (x.dtype == onnx::TensorProto::BOOL) return std::nullopt;
    return eval_binary(op, x, *in[1]);
  }
  if (is_comparison(op) && in.size() == 2) return eval_comparison(op, x, *in[1]);
  if (op == "ReduceSum" && in.size() <= 2) {
    std::vector<int64_t> axes = in.size() == 2 ? in[1]->v : std::vector<int64_t>{};
    if (const auto* a = passes::find_attr(n, "axes")) axes.assign(a->ints().begin(), a->ints().end());
    return reduce_sum(n, x, axes);
  }
  if (op == "Reshape" && in.size() == 2) {
    if (int_attr(n, "allowzero", 0) != 0) return std::nullopt;
    auto dims = passes::reshape_dims(x.dims, x.numel(), in[1]->v);
    if (!dims) return std::nullopt;
    IntTensor r = x;
    r.dims = std::move(*dims);
    return r;
  }
  return std::nullopt;
}

// A data-movement op or floating-point arithmetic on constants (an
// omitted optional input is nullptr).
std::optional<passes::ConstantData> eval_data(const onnx::NodeProto& n,
                                              const std::map<std::string, passes::ConstantData>& data,
                                              int64_t max_elements) {
  std::vector<const passes::ConstantData*> in;
  for (const auto& i : n.input()) {
    if (i.empty()) {
      in.push_back(nullptr);
      continue;
    }
    auto it = data.find(i);
    if (it == data.end()) return std::nullopt;
    in.push_back(&it->second);
  }
  if (auto moved = passes::eval_data_movement(n, in, max_elements)) return moved;
  return passes::eval_float_arithmetic(n, in, max_elements);
}

// The most elements `n`'s folded value may have: kMaxElements, or, for a
// Concat of values read by it alone, as many as a data operand may have:
// the constant then takes the bytes its inputs took, so the file does not
// grow (the stacked indices of an im2col, GatherND's and ScatterND's).
int64_t max_folded(const onnx::NodeProto& n, const std::map<std::string, int>& reads) {
  if (n.op_type() != "Concat" || !n.domain().empty()) return kMaxElements;
  for (const auto& i : n.input()) {
    auto r = reads.find(i);
    if (i.empty() || r == reads.end() || r->second != 1) return kMaxElements;
  }
  return kMaxDataOperand;
}

// The program's integer tensor constants this small are read as constants:
// an index, a step, a loop counter's start. Parameters and buffers are not
// (a user may edit them; a state the program writes is kept as one), and
// a folded result copies at most a constant's few bytes.
constexpr int64_t kMaxWeightElements = 16;

// The small integer program constants of `g` (their bytes from
// `weights`); never one that is also a graph input (its value is the
// caller's).
std::map<std::string, onnx::TensorProto> small_integer_weights(const onnx::GraphProto& g,
                                                              const WeightMap& weights) {
  std::set<std::string> graph_inputs;
  for (const auto& i : g.input()) graph_inputs.insert(i.name());
  std::map<std::string, onnx::TensorProto> r;
  for (const auto& t : g.initializer()) {
    if (graph_inputs.count(t.name())) continue;
    const int32_t dt = t.data_type();
    if (dt != onnx::TensorProto::INT64 && dt != onnx::TensorProto::INT32) continue;
    auto w = weights.find(t.name());
    if (w == weights.end() || !w->second.program_constant || !passes::stored_as_is(t, w->second, kMaxWeightElements))
      continue;
    r[t.name()] = passes::with_weight_bytes(t, w->second);
  }
  return r;
}

}  // namespace

void fold_constants(onnx::GraphProto& g, PassReport& report, const WeightMap* weights) {
  Known known;
  std::map<std::string, passes::ConstantData> data;
  std::map<std::string, std::set<std::string>> from_weights;  // value -> the weights it was computed from
  if (weights)
    for (const auto& [name, t] : small_integer_weights(g, *weights)) {
      if (auto v = from_tensor(t)) known[name] = std::move(*v);
      if (auto d = passes::constant_data(t, kMaxDataOperand)) data[name] = std::move(*d);
      from_weights[name] = {name};
    }
  const auto reads = passes::read_counts(g);  // folding only lowers them
  for (auto& n : *g.mutable_node()) {
    if (n.op_type() == "Constant" && n.domain().empty()) {
      if (auto v = constant_value(n)) known[n.output(0)] = std::move(*v);
      if (auto d = passes::constant_node_data(n, kMaxDataOperand)) data[n.output(0)] = std::move(*d);
      continue;
    }
    if (passes::has_subgraph(n)) continue;
    auto v = eval(g, n, known);
    if (v && v->numel() > kMaxElements) v.reset();
    onnx::TensorProto value;
    if (v) value = to_tensor(*v);
    else if (auto d = eval_data(n, data, max_folded(n, reads))) value = passes::to_tensor(*d);
    else continue;
    if (!v) v = from_tensor(value);
    std::set<std::string> from;
    for (const auto& i : n.input())
      if (auto f = from_weights.find(i); f != from_weights.end()) from.insert(f->second.begin(), f->second.end());
    if (!from.empty()) {
      report.weight_constants[n.output(0)] = {from.begin(), from.end()};
      from_weights[n.output(0)] = std::move(from);
    }
    // The node becomes a Constant under its own name: its record (module,
    // source node) stays valid; the inputs it no longer reads go with the
    // dead-node pass and are counted as folded.
    n.clear_input();
    n.clear_attribute();
    n.set_op_type("Constant");
    *n.add_attribute() = attr("value", value);
    if (v) known[n.output(0)] = std::move(*v);
    if (auto d = passes::constant_data(value, kMaxDataOperand)) data[n.output(0)] = std::move(*d);
  }
}

}  // namespace mx::aten_onnx
