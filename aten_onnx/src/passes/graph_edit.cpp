#include "graph_edit.hpp"

#include <algorithm>
#include <cstring>

#include "mx/aten_onnx/attributes.hpp"

namespace mx::aten_onnx::passes {
namespace {

template <class F>
void for_each_subgraph(onnx::NodeProto& n, F&& f) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.has_g()) f(*a.mutable_g());
    for (auto& sg : *a.mutable_graphs()) f(sg);
  }
}

void collect_reads(const onnx::GraphProto& g, std::set<std::string>& out) {
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) out.insert(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_reads(a.g(), out);
      for (const auto& sg : a.graphs()) collect_reads(sg, out);
    }
  }
  for (const auto& o : g.output()) out.insert(o.name());
}

void rename_in(onnx::GraphProto& g, const std::map<std::string, std::string>& renames) {
  for (auto& n : *g.mutable_node()) {
    for (auto& i : *n.mutable_input()) {
      auto it = renames.find(i);
      if (it != renames.end()) i = it->second;
    }
    for_each_subgraph(n, [&](onnx::GraphProto& sg) { rename_in(sg, renames); });
  }
}

}  // namespace

bool has_subgraph(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

std::set<std::string> subgraph_reads(const onnx::GraphProto& g) {
  std::set<std::string> out;
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_reads(a.g(), out);
      for (const auto& sg : a.graphs()) collect_reads(sg, out);
    }
  return out;
}

std::set<std::string> graph_outputs(const onnx::GraphProto& g) {
  std::set<std::string> out;
  for (const auto& o : g.output()) out.insert(o.name());
  return out;
}

std::map<std::string, int> read_counts(const onnx::GraphProto& g) {
  std::map<std::string, int> reads;
  for (const auto& n : g.node())
    for (const auto& i : n.input()) ++reads[i];
  for (const auto& v : subgraph_reads(g)) ++reads[v];
  for (const auto& v : graph_outputs(g)) ++reads[v];
  return reads;
}

void rename_reads(onnx::GraphProto& g, const std::map<std::string, std::string>& renames) {
  if (!renames.empty()) rename_in(g, renames);
}

void remove_nodes(onnx::GraphProto& g, const std::set<std::string>& names) {
  if (names.empty()) return;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (auto& n : *g.mutable_node())
    if (!names.count(n.name())) kept.Add()->Swap(&n);
  g.mutable_node()->Swap(&kept);
}

void drop_passed_through(onnx::GraphProto& g, PassReport& report, const PassedThrough& source_of) {
  const auto outputs = graph_outputs(g);
  std::map<std::string, std::string> renames;
  std::set<std::string> removed;
  for (int i = 0; i < g.node_size(); ++i) {
    auto& n = *g.mutable_node(i);
    for (auto& in : *n.mutable_input()) {  // reads of earlier dropped nodes, in graph order
      auto it = renames.find(in);
      if (it != renames.end()) in = it->second;
    }
    std::optional<std::string> source = source_of(n);
    if (!source || n.output_size() != 1 || outputs.count(n.output(0))) continue;
    renames[n.output(0)] = *source;
    removed.insert(n.name());
  }
  rename_reads(g, renames);  // subgraph reads
  remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

void hand_outputs_back(onnx::GraphProto& g, PassReport& report, const PassedThrough& source_of) {
  const auto outputs = graph_outputs(g);
  const auto reads = read_counts(g);
  std::map<std::string, onnx::NodeProto*> producer;
  std::map<std::string, std::string> renames;  // the source's name -> the graph output's
  std::set<std::string> removed;
  for (auto& n : *g.mutable_node()) {
    for (const auto& o : n.output()) producer[o] = &n;
    if (n.output_size() != 1 || !outputs.count(n.output(0)) || has_subgraph(n)) continue;
    const auto source = source_of(n);
    if (!source || outputs.count(*source) || !producer.count(*source)) continue;
    if (auto r = reads.find(*source); r == reads.end() || r->second != 1) continue;
    for (auto& o : *producer[*source]->mutable_output())
      if (o == *source) o = n.output(0);
    renames[*source] = n.output(0);
    removed.insert(n.name());
  }
  // The graph output's value_info is the output's own; the source's goes.
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> infos;
  for (auto& vi : *g.mutable_value_info())
    if (!renames.count(vi.name())) infos.Add()->Swap(&vi);
  g.mutable_value_info()->Swap(&infos);
  remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

bool same_dim(const SymbolicDim& a, const SymbolicDim& b) {
  if (a.size || b.size) return a.size == b.size;
  return !a.symbol.empty() && a.symbol == b.symbol;
}

bool stored_as_is(const onnx::TensorProto& t, const WeightBytes& w, int64_t max_elements) {
  const size_t es = element_size(t.data_type());
  int64_t numel = 1;
  for (auto d : t.dims()) numel *= d;
  return es != 0 && w.data && !w.derived() && numel <= max_elements && w.size == static_cast<uint64_t>(numel) * es;
}

onnx::TensorProto with_weight_bytes(const onnx::TensorProto& t, const WeightBytes& w) {
  onnx::TensorProto view = t;
  view.set_raw_data(std::string(w.data, w.size));
  return view;
}

std::pair<int64_t, int64_t> shape_range(const onnx::NodeProto& shape, int64_t rank) {
  auto clamp = [rank](int64_t v, int64_t lo) { return std::clamp(v < 0 ? v + rank : v, lo, rank); };
  const int64_t start = clamp(int_attr(shape, "start", 0), 0);
  return {start, clamp(int_attr(shape, "end", rank), start)};
}

InitializerDims float_initializer_dims(const onnx::GraphProto& g) {
  InitializerDims dims;
  for (const auto& t : g.initializer()) {
    if (t.data_type() != onnx::TensorProto::FLOAT && t.data_type() != onnx::TensorProto::DOUBLE) continue;
    auto& d = dims[t.name()];
    for (auto v : t.dims()) d.push_back(SymbolicDim{v, {}});
  }
  return dims;
}

const std::vector<SymbolicDim>* stored_dims(const std::string& name, const SymbolicShapes& shapes,
                                            const InitializerDims& initializers) {
  if (auto it = initializers.find(name); it != initializers.end()) return &it->second;
  auto it = shapes.find(name);
  return it == shapes.end() ? nullptr : &it->second;
}

bool same_dims(const std::vector<SymbolicDim>& a, const std::vector<SymbolicDim>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!same_dim(a[k], b[k])) return false;
  return true;
}

std::optional<Int64Constant> int64_constant(const onnx::NodeProto& n) {
  if (n.op_type() != "Constant" || !n.domain().empty() || n.attribute_size() != 1) return std::nullopt;
  const auto& a = n.attribute(0);
  if (a.name() != "value" || a.t().data_type() != onnx::TensorProto::INT64 || a.t().dims_size() > 1)
    return std::nullopt;
  const auto& t = a.t();
  Int64Constant c;
  c.rank = t.dims_size();
  const int64_t numel = c.rank == 0 ? 1 : t.dims(0);
  if (numel < 0 || numel > 64) return std::nullopt;
  if (t.has_raw_data()) {
    if (t.raw_data().size() != static_cast<size_t>(numel) * 8) return std::nullopt;
    c.values.resize(static_cast<size_t>(numel));
    std::memcpy(c.values.data(), t.raw_data().data(), t.raw_data().size());
  } else {
    c.values.assign(t.int64_data().begin(), t.int64_data().end());
  }
  if (c.values.size() != static_cast<size_t>(numel)) return std::nullopt;
  return c;
}

bool is_op(const onnx::NodeProto* n, const char* op) {
  return n && n->op_type() == op && n->domain().empty();
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t int_attr(const onnx::NodeProto& n, const char* name, int64_t fallback) {
  const auto* a = find_attr(n, name);
  return a ? a->i() : fallback;
}

bool normalize_axis(int64_t& axis, int64_t rank) {
  if (axis < 0) axis += rank;
  return axis >= 0 && axis < rank;
}

void make_int64_constant(onnx::NodeProto& n, const std::vector<int64_t>& values, bool scalar) {
  n.clear_input();
  n.clear_attribute();
  n.set_op_type("Constant");
  n.clear_domain();
  *n.add_attribute() = attr("value", int64_tensor(values, scalar));
}

}  // namespace mx::aten_onnx::passes
