#include "tagging/strategy_graph.hpp"

#include "model/node_metadata.hpp"
#include "util/utf8.hpp"
#include "util/warn.hpp"

namespace mx {
namespace {

using ReaderSlot = TableSlot<mx_graph_reader, const StrategyGraph>;

// A graph of nothing: what a reader answers once its run is over (every
// index out of range: {NULL, 0}, counts 0, dims -1). Never destroyed.
const StrategyGraph& empty_graph() {
  static const StrategyGraph* empty = new StrategyGraph(*new onnx::ModelProto, *new GraphView, nullptr);
  return *empty;
}

const StrategyGraph& self(const void* graph) {
  if (const StrategyGraph* g = static_cast<const ReaderSlot*>(graph)->live.load()) return *g;
  static std::once_flag warned;
  try {
    std::call_once(warned, [] {
      warn("a strategy called the graph reader after its run had returned; it reads an empty graph");
    });
  } catch (...) {  // nothing may leave a function plugin code calls
  }
  return empty_graph();
}

mx_text none() {
  return mx_text{nullptr, 0};
}

mx_text view_text(const std::string& s) {
  return mx_text{s.c_str(), s.size()};
}
// A value name of the view: a whole string of the proto or of the view's
// own storage, so NUL-terminated like the others.
mx_text view_text(std::string_view s) {
  return mx_text{s.data(), s.size()};
}

bool in_range(uint64_t i, size_t size) {
  return i < size;
}

uint64_t node_count(const void* g) {
  return self(g).view().nodes.size();
}

mx_text node_name(const void* g, uint64_t n) {
  const auto& nodes = self(g).view().nodes;
  return in_range(n, nodes.size()) ? view_text(nodes[n].name) : none();
}

mx_text node_op_type(const void* g, uint64_t n) {
  const auto& nodes = self(g).view().nodes;
  return in_range(n, nodes.size()) ? view_text(nodes[n].op_type) : none();
}

mx_text node_domain(const void* g, uint64_t n) {
  const auto& graph = self(g).graph();
  return in_range(n, graph.node_size()) ? self(g).text(graph.node(n).domain()) : none();
}

mx_text node_doc_string(const void* g, uint64_t n) {
  const auto& graph = self(g).graph();
  return in_range(n, graph.node_size()) ? self(g).text(graph.node(n).doc_string()) : none();
}

uint64_t node_input_count(const void* g, uint64_t n) {
  const auto& view = self(g).view();
  return in_range(n, view.nodes.size()) ? view.nodes[n].input_count : 0;
}

mx_text node_input(const void* g, uint64_t n, uint64_t i) {
  const auto& view = self(g).view();
  if (!in_range(n, view.nodes.size()) || !in_range(i, view.nodes[n].input_count)) return none();
  return view_text(view.inputs(n)[i]);
}

uint64_t node_output_count(const void* g, uint64_t n) {
  const auto& view = self(g).view();
  return in_range(n, view.nodes.size()) ? view.nodes[n].output_count : 0;
}

mx_text node_output(const void* g, uint64_t n, uint64_t i) {
  const auto& view = self(g).view();
  if (!in_range(n, view.nodes.size()) || !in_range(i, view.nodes[n].output_count)) return none();
  return view_text(view.outputs(n)[i]);
}

uint64_t node_metadata_count(const void* g, uint64_t n) {
  const auto* metadata = self(g).metadata(n);
  return metadata ? metadata->size() : 0;
}

mx_text node_metadata_key(const void* g, uint64_t n, uint64_t i) {
  const auto* metadata = self(g).metadata(n);
  return metadata && in_range(i, metadata->size()) ? view_text((*metadata)[i].first) : none();
}

mx_text node_metadata_value(const void* g, uint64_t n, uint64_t i) {
  const auto* metadata = self(g).metadata(n);
  return metadata && in_range(i, metadata->size()) ? view_text((*metadata)[i].second) : none();
}

uint64_t initializer_count(const void* g) {
  return self(g).view().initializers.size();
}

mx_text initializer_name(const void* g, uint64_t i) {
  const auto& names = self(g).view().initializers;
  return in_range(i, names.size()) ? view_text(names[i]) : none();
}

uint64_t initializer_rank(const void* g, uint64_t i) {
  const auto& graph = self(g).graph();
  return in_range(i, graph.initializer_size()) ? graph.initializer(i).dims_size() : 0;
}

int64_t initializer_dim(const void* g, uint64_t i, uint64_t d) {
  const auto& graph = self(g).graph();
  if (!in_range(i, graph.initializer_size())) return -1;
  const auto& dims = graph.initializer(i).dims();
  return in_range(d, dims.size()) ? dims[d] : -1;
}

uint64_t graph_input_count(const void* g) {
  return self(g).graph().input_size();
}

mx_text graph_input(const void* g, uint64_t i) {
  const auto& graph = self(g).graph();
  return in_range(i, graph.input_size()) ? self(g).text(graph.input(i).name()) : none();
}

uint64_t graph_output_count(const void* g) {
  return self(g).graph().output_size();
}

mx_text graph_output(const void* g, uint64_t i) {
  const auto& graph = self(g).graph();
  return in_range(i, graph.output_size()) ? self(g).text(graph.output(i).name()) : none();
}

uint64_t module_count(const void* g) {
  return self(g).supplied_count();
}

mx_text module_path(const void* g, uint64_t i) {
  const auto* m = self(g).supplied_module(i);
  return m ? view_text(m->path) : none();
}

mx_text module_class(const void* g, uint64_t i) {
  const auto* m = self(g).supplied_module(i);
  return m ? view_text(m->class_name) : none();
}

int64_t module_own_parameters(const void* g, uint64_t i) {
  const auto* m = self(g).supplied_module(i);
  return m && m->own_parameters() ? *m->own_parameters() : -1;
}

int64_t module_forward_count(const void* g, uint64_t i) {
  const auto* m = self(g).supplied_module(i);
  return m && m->forward() ? static_cast<int64_t>(m->forward()->size()) : -1;
}

mx_text module_forward_step(const void* g, uint64_t i, uint64_t k, int32_t* is_call) {
  if (is_call) *is_call = 0;
  const auto* m = self(g).supplied_module(i);
  if (!m || !m->forward() || !in_range(k, m->forward()->size())) return none();
  const hierarchy::ForwardStep& step = (*m->forward())[k];
  if (is_call) *is_call = step.kind == hierarchy::ForwardStep::Kind::call;
  return view_text(step.name);
}

}  // namespace

StrategyGraph::StrategyGraph(const onnx::ModelProto& proto, const GraphView& view, const ModuleTree* supplied)
    : proto_(proto), view_(view), supplied_(supplied), slot_(SlotPool<ReaderSlot>::lease()) {
  slot_->table = mx_graph_reader{sizeof(mx_graph_reader),
                                 slot_,
                                 node_count,
                                 node_name,
                                 node_op_type,
                                 node_domain,
                                 node_doc_string,
                                 node_input_count,
                                 node_input,
                                 node_output_count,
                                 node_output,
                                 node_metadata_count,
                                 node_metadata_key,
                                 node_metadata_value,
                                 initializer_count,
                                 initializer_name,
                                 initializer_rank,
                                 initializer_dim,
                                 graph_input_count,
                                 graph_input,
                                 graph_output_count,
                                 graph_output,
                                 module_count,
                                 module_path,
                                 module_class,
                                 module_own_parameters,
                                 module_forward_count,
                                 module_forward_step};
  slot_->live.store(this);
}

StrategyGraph::~StrategyGraph() {
  SlotPool<ReaderSlot>::retire(slot_);
}

uint64_t StrategyGraph::supplied_count() const {
  return supplied_ ? supplied_->supplied_count() : 0;
}

const hierarchy::Module* StrategyGraph::supplied_module(uint64_t i) const {
  return i < supplied_count() ? &supplied_->supplied_module(static_cast<size_t>(i)) : nullptr;
}

mx_text StrategyGraph::text(const std::string& s) const {
  if (is_valid_utf8(s)) return view_text(s);
  try {  // called by plugin code: an allocation failing is an empty answer
    std::lock_guard<std::mutex> lock(replaced_mutex_);
    return view_text(replaced_.emplace_back(to_valid_utf8(s)));
  } catch (...) {
    return none();
  }
}

const StrategyGraph::Metadata* StrategyGraph::metadata(uint64_t node) const {
  const auto& graph = proto_.graph();
  if (!in_range(node, graph.node_size())) return nullptr;
  try {  // called by plugin code: an allocation failing is no metadata
    std::call_once(metadata_once_, [&] {
      std::vector<Metadata> all(graph.node_size());
      for (int i = 0; i < graph.node_size(); ++i)
        for (auto& [key, value] : model::read_node_metadata(graph.node(i)))
          all[i].emplace_back(to_valid_utf8(key), to_valid_utf8(value));
      metadata_ = std::move(all);
    });
  } catch (...) {
    return nullptr;
  }
  return &metadata_[node];
}

}  // namespace mx
