#include "metadata_strategy.hpp"

#include <optional>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "dynamo_scope.hpp"
#include "own_record.hpp"
#include "repr_list.hpp"

namespace mx::metadata {
namespace {

const char kNameScopes[] = "pkg.torch.onnx.name_scopes";
const char kClassHierarchy[] = "pkg.torch.onnx.class_hierarchy";
const char kNamespace[] = "namespace";

using PathSet = std::unordered_set<std::string>;

// Collects the output while nodes are visited.
class Collector {
 public:
  explicit Collector(PathSet known) : known_(std::move(known)) {}

  void warn(const std::string& node, const std::string& key, const std::string& what) {
    result_.warnings.push_back("node '" + node + "': " + key + ": " + what);
  }
  void assign(size_t node, std::string module) { result_.assignments.push_back({node, std::move(module)}); }
  void learn(const ScopeEntry& entry) {
    if (entry.qualified_class.empty() || !seen_.insert(entry.path).second) return;
    result_.modules.push_back({entry.path, short_class(entry.qualified_class), entry.qualified_class});
  }
  const PathSet& known() const { return known_; }
  MetadataResult take() { return std::move(result_); }

 private:
  PathSet known_;
  PathSet seen_;
  MetadataResult result_;
};

std::string node_label(const mx_strategy::Graph& graph, size_t index) {
  std::string_view name = graph.name(index);
  return name.empty() ? "#" + std::to_string(index) : std::string(name);
}

// The node whose metadata is read: the graph and the node's number.
struct NodeRef {
  const mx_strategy::Graph& graph;
  size_t index;
  std::optional<std::string> value(const char* key) const { return graph.metadata(index, key); }
};

// Every file seen holds full paths. Should a scope hold only a last
// component (as some descriptions of the format claim), a known module tree
// tells: when `path` is not a module but parent.path is, take the latter.
void resolve_paths(ScopeChain& chain, const PathSet& known) {
  if (known.empty()) return;
  for (size_t i = 1; i < chain.modules.size(); ++i) {
    std::string& path = chain.modules[i].path;
    const std::string& parent = chain.modules[i - 1].path;
    if (known.count(path) || parent.empty()) continue;
    std::string joined = parent + "." + path;
    if (known.count(joined)) path = joined;
  }
}

std::optional<ScopeChain> chain_from_scope_lists(const NodeRef& node, const std::string& label,
                                                 Collector& out) {
  auto scopes_text = node.value(kNameScopes);
  if (!scopes_text) return std::nullopt;
  ReprList scopes = parse_repr_list(*scopes_text);
  if (!scopes.ok) {
    out.warn(label, kNameScopes, scopes.error);
    return std::nullopt;
  }
  ReprList classes;
  if (auto classes_text = node.value(kClassHierarchy)) {
    classes = parse_repr_list(*classes_text);
    if (!classes.ok) out.warn(label, kClassHierarchy, classes.error + " (classes ignored)");
  }
  ScopeChain chain = chain_from_lists(scopes.items, classes.ok ? classes.items : std::vector<std::string>{});
  if (!chain.ok && classes.ok && !classes.items.empty()) {
    // A class list that does not line up must not cost us the paths.
    out.warn(label, kClassHierarchy, chain.error + " (classes ignored)");
    chain = chain_from_lists(scopes.items, {});
  }
  if (!chain.ok) {
    out.warn(label, kNameScopes, chain.error);
    return std::nullopt;
  }
  return chain;
}

std::optional<ScopeChain> chain_from_namespace_key(const NodeRef& node, const std::string& label,
                                                   Collector& out) {
  auto text = node.value(kNamespace);
  if (!text) return std::nullopt;
  ScopeChain chain = chain_from_namespace(*text);
  if (!chain.ok) {
    out.warn(label, kNamespace, chain.error);
    return std::nullopt;
  }
  return chain;
}

bool assign_own_record(const NodeRef& node, const std::string& label, Collector& out) {
  std::string problem;
  auto record = read_own_record(node.graph, node.index, problem);
  if (!problem.empty()) out.warn(label, "modelexport record", problem);
  if (!record) return false;
  out.assign(node.index, record->module);
  return true;
}

void visit_node(const NodeRef& node, Collector& out) {
  std::string label = node_label(node.graph, node.index);
  if (assign_own_record(node, label, out)) return;
  auto chain = chain_from_scope_lists(node, label, out);
  if (!chain) chain = chain_from_namespace_key(node, label, out);
  if (!chain) return;
  resolve_paths(*chain, out.known());
  for (const auto& entry : chain->modules) out.learn(entry);
  out.assign(node.index, chain->modules.back().path);
}

PathSet known_paths(const mx_strategy::Modules& module_tree) {
  PathSet known;
  known.reserve(module_tree.count());
  for (size_t i = 0; i < module_tree.count(); ++i) known.insert(module_tree.path(i));
  return known;
}

}  // namespace

MetadataResult assign_from_metadata(const mx_strategy::Graph& graph,
                                    const mx_strategy::Modules& module_tree) {
  Collector out(known_paths(module_tree));
  for (size_t i = 0; i < graph.node_count(); ++i) visit_node(NodeRef{graph, i}, out);
  return out.take();
}

}  // namespace mx::metadata
