#include "request_graph.hpp"

namespace mx::usage {
namespace {

template <typename Item>
std::vector<std::string> strings(size_t count, Item item) {
  std::vector<std::string> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) out.emplace_back(item(i));
  return out;
}

}  // namespace

GraphView usage_view(const mx_strategy::Graph& graph) {
  GraphView view;
  view.nodes.resize(graph.node_count());
  for (size_t n = 0; n < view.nodes.size(); ++n) {
    NodeView& out = view.nodes[n];
    out.op_type = graph.op_type(n);
    out.inputs = strings(graph.input_count(n), [&](size_t i) { return graph.input(n, i); });
    out.outputs = strings(graph.output_count(n), [&](size_t i) { return graph.output(n, i); });
  }
  view.initializer_order =
      strings(graph.initializer_count(), [&](size_t i) { return graph.initializer_name(i); });
  for (size_t i = 0; i < view.initializer_order.size(); ++i) {
    const std::string& name = view.initializer_order[i];
    if (name.empty()) continue;
    view.initializers.insert(name);
    if (auto shape = graph.initializer_shape(i)) view.shapes[name] = std::move(*shape);
  }
  return view;
}

}  // namespace mx::usage
