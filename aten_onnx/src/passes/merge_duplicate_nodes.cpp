// Common-subexpression elimination: lowerings emit the same constant, the
// same Shape read of an input dim, the same Unsqueeze of it, once per use
// (constants once per module). A node whose op, inputs and attributes
// equal an earlier node's is dropped and its outputs read from the
// earlier one; applied in graph order, so chains of duplicates collapse.
#include <map>
#include <unordered_map>

#include "graph_edit.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

bool mergeable(const onnx::NodeProto& n, const std::set<std::string>& outputs) {
  if (n.output_size() == 0 || passes::has_subgraph(n)) return false;
  if (n.op_type().rfind("Random", 0) == 0 || n.op_type() == "Multinomial" || n.op_type() == "Bernoulli" ||
      n.op_type() == "Dropout")
    return false;
  for (const auto& o : n.output())
    if (o.empty() || outputs.count(o)) return false;
  return true;
}

std::string key_of(const onnx::NodeProto& n) {
  std::string k = n.domain() + '\x1f' + n.op_type() + '\x1f' + std::to_string(n.output_size());
  for (const auto& i : n.input()) k += '\x1f' + i;
  k += '\x1e';
  std::map<std::string, std::string> attrs;  // attribute order does not matter
  for (const auto& a : n.attribute()) attrs[a.name()] = a.SerializeAsString();
  for (const auto& [name, bytes] : attrs) k += name + '\x1f' + std::to_string(bytes.size()) + '\x1f' + bytes;
  return k;
}

}  // namespace

void merge_duplicate_nodes(onnx::GraphProto& g, PassReport& report) {
  const auto outputs = passes::graph_outputs(g);
  std::map<std::string, std::string> renames;
  std::unordered_map<std::string, int> first;  // key -> node index
  std::set<std::string> removed;
  for (int i = 0; i < g.node_size(); ++i) {
    auto& n = *g.mutable_node(i);
    for (auto& in : *n.mutable_input()) {
      auto it = renames.find(in);
      if (it != renames.end()) in = it->second;
    }
    if (!mergeable(n, outputs)) continue;
    auto [it, fresh] = first.emplace(key_of(n), i);
    if (fresh) continue;
    const auto& kept = g.node(it->second);
    for (int k = 0; k < n.output_size(); ++k) renames[n.output(k)] = kept.output(k);
    removed.insert(n.name());
  }
  passes::rename_reads(g, renames);  // subgraph reads (top-level ones are renamed above)
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
