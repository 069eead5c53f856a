#include "metadata_strategy.hpp"

#include <optional>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "dynamo_scope.hpp"
#include "own_record.hpp"
#include "repr_list.hpp"

namespace mx_metadata {
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
  void assign(size_t node, std::string module) {
    result_.assignments.push_back({node, std::move(module)});
  }
  void learn(const ScopeEntry& entry) {
    if (entry.qualified_class.empty() || !seen_.insert(entry.path).second) return;
    result_.modules.push_back(
        {entry.path, short_class(entry.qualified_class), entry.qualified_class});
  }
  const PathSet& known() const { return known_; }
  MetadataResult take() { return std::move(result_); }

 private:
  PathSet known_;
  PathSet seen_;
  MetadataResult result_;
};

std::string node_label(const nlohmann::json& node, size_t index) {
  auto name = node.find("name");
  if (name != node.end() && name->is_string() && !name->get<std::string>().empty())
    return name->get<std::string>();
  return "#" + std::to_string(index);
}

// A metadata value as a string, or nullopt when the key is absent.
std::optional<std::string> metadata_value(const nlohmann::json& metadata,
                                          const char* key) {
  if (!metadata.is_object()) return std::nullopt;
  auto it = metadata.find(key);
  if (it == metadata.end()) return std::nullopt;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

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

std::optional<ScopeChain> chain_from_scope_lists(const nlohmann::json& metadata,
                                                 const std::string& label,
                                                 Collector& out) {
  auto scopes_text = metadata_value(metadata, kNameScopes);
  if (!scopes_text) return std::nullopt;
  ReprList scopes = parse_repr_list(*scopes_text);
  if (!scopes.ok) {
    out.warn(label, kNameScopes, scopes.error);
    return std::nullopt;
  }
  ReprList classes;
  if (auto classes_text = metadata_value(metadata, kClassHierarchy)) {
    classes = parse_repr_list(*classes_text);
    if (!classes.ok) out.warn(label, kClassHierarchy, classes.error + " (classes ignored)");
  }
  ScopeChain chain = chain_from_lists(scopes.items, classes.ok ? classes.items
                                                               : std::vector<std::string>{});
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

std::optional<ScopeChain> chain_from_namespace_key(const nlohmann::json& metadata,
                                                   const std::string& label,
                                                   Collector& out) {
  auto text = metadata_value(metadata, kNamespace);
  if (!text) return std::nullopt;
  ScopeChain chain = chain_from_namespace(*text);
  if (!chain.ok) {
    out.warn(label, kNamespace, chain.error);
    return std::nullopt;
  }
  return chain;
}

bool assign_own_record(const nlohmann::json& node, size_t index,
                       const std::string& label, Collector& out) {
  std::string problem;
  auto doc = node.find("doc_string");
  std::string doc_string = doc != node.end() && doc->is_string() ? doc->get<std::string>() : "";
  auto record = read_own_record(node.value("metadata", nlohmann::json()), doc_string, problem);
  if (!problem.empty()) out.warn(label, "modelexport record", problem);
  if (!record) return false;
  out.assign(index, record->module);
  return true;
}

void visit_node(const nlohmann::json& node, size_t index, Collector& out) {
  if (!node.is_object()) return;
  std::string label = node_label(node, index);
  if (assign_own_record(node, index, label, out)) return;
  nlohmann::json metadata = node.value("metadata", nlohmann::json::object());
  auto chain = chain_from_scope_lists(metadata, label, out);
  if (!chain) chain = chain_from_namespace_key(metadata, label, out);
  if (!chain) return;
  resolve_paths(*chain, out.known());
  for (const auto& entry : chain->modules) out.learn(entry);
  out.assign(index, chain->modules.back().path);
}

PathSet known_paths(const nlohmann::json& module_tree) {
  PathSet known;
  if (!module_tree.is_array()) return known;
  for (const auto& module : module_tree)
    if (module.is_object() && module.contains("path") && module["path"].is_string())
      known.insert(module["path"].get<std::string>());
  return known;
}

// The protocol numbers nodes by "index"; fall back to the position.
size_t node_index(const nlohmann::json& node, size_t position) {
  if (node.is_object()) {
    auto it = node.find("index");
    if (it != node.end() && it->is_number_unsigned()) return it->get<size_t>();
  }
  return position;
}

}  // namespace

MetadataResult assign_from_metadata(const nlohmann::json& graph,
                                    const nlohmann::json& module_tree) {
  Collector out(known_paths(module_tree));
  const nlohmann::json* nodes = nullptr;
  if (graph.is_object() && graph.contains("nodes") && graph["nodes"].is_array())
    nodes = &graph["nodes"];
  if (!nodes) {
    out.warn("-", "graph.nodes", "missing or not an array");
    return out.take();
  }
  size_t position = 0;
  for (const auto& node : *nodes) {
    visit_node(node, node_index(node, position), out);
    ++position;
  }
  return out.take();
}

}  // namespace mx_metadata
