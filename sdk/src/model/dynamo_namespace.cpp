#include "model/dynamo_namespace.hpp"

#include <string_view>
#include <vector>

namespace modelexport::model {
namespace {

const std::string& class_of(const hierarchy::Module& m) {
  return m.qualified_class.empty() ? m.class_name : m.qualified_class;
}

// Dynamo names a scope relative to the enclosing *called* module, so an
// uncalled container's name is folded into its item's: "layer.0".
std::string_view relative_name(std::string_view path, std::string_view ancestor) {
  // Documents are validated (a parent is a prefix of its child's path); the
  // check keeps this total anyway.
  if (ancestor.empty() || path.size() <= ancestor.size() || path[ancestor.size()] != '.' ||
      path.compare(0, ancestor.size(), ancestor) != 0)
    return path;
  return path.substr(ancestor.size() + 1);
}

// "relative name: class" of a module written after `scope`.
void append_part(std::string& out, const hierarchy::Module& m, std::string_view scope) {
  if (!out.empty()) out += '/';
  if (!m.path.empty()) out += relative_name(m.path, scope);
  out += ": ";
  out += class_of(m);
}

}  // namespace

DynamoNamespaces::DynamoNamespaces(const std::vector<hierarchy::Module>& modules)
    : modules_(modules), lookup_(modules) {}

// The called modules from the root down to the module at `position`, as
// they stand above a node of one of its children: an uncalled container
// (executed false) is left out; the root never is. Built from the nearest
// ancestor whose chain is kept (the text is a fold from the root down, so
// an ancestor's chain and scope continue it exactly).
const DynamoNamespaces::Chain& DynamoNamespaces::chain_above(size_t position) {
  for (const Chain& c : chains_)
    if (c.of == position) return c;
  const Chain* base = nullptr;
  std::vector<size_t>& chain = chain_scratch_;  // position .. (base or root), excluded base
  chain.clear();
  for (size_t at = position; at != ModuleLookup::kNone; at = lookup_.parent(at)) {
    if (at != position)
      for (const Chain& c : chains_)
        if (c.of == at) base = &c;
    if (base) break;
    chain.push_back(at);
    if (modules_[at].path.empty()) break;
  }
  std::string text = base ? base->text : std::string();
  std::string_view scope = base ? base->scope : std::string_view();
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const hierarchy::Module& m = modules_[*it];
    if (!m.path.empty() && m.executed == false) continue;
    append_part(text, m, scope);
    scope = m.path;
  }
  Chain& kept = chains_[next_kept_];
  next_kept_ = (next_kept_ + 1) % chains_.size();
  kept.of = position;
  kept.text = std::move(text);
  kept.scope = scope;
  return kept;
}

const std::string& DynamoNamespaces::prefix(const std::string& module_path, size_t at) {
  if (last_module_ && *last_module_ == module_path) return last_prefix_;
  last_module_ = module_path;
  last_prefix_.clear();
  const size_t position =
      at < modules_.size() && modules_[at].path == module_path ? at : lookup_.find(module_path);
  if (position == ModuleLookup::kNone) return last_prefix_;  // no module: no chain
  const hierarchy::Module& m = modules_[position];
  const size_t parent = m.path.empty() ? ModuleLookup::kNone : lookup_.parent(position);
  if (parent == ModuleLookup::kNone) {
    append_part(last_prefix_, m, std::string_view());
  } else {
    const Chain& above = chain_above(parent);
    last_prefix_ = above.text;
    append_part(last_prefix_, m, above.scope);
  }
  last_prefix_ += '/';
  return last_prefix_;
}

std::array<std::string_view, 4> DynamoNamespaces::parts(const std::string& module_path,
                                                        const std::string& node_name,
                                                        const std::string& op_type) {
  return layout(prefix(module_path), node_name, op_type);
}

void DynamoNamespaces::append(std::string& out, const std::string& module_path,
                              const std::string& node_name, const std::string& op_type) {
  const auto pieces = parts(module_path, node_name, op_type);
  size_t size = 0;
  for (std::string_view p : pieces) size += p.size();
  out.reserve(out.size() + size);
  for (std::string_view p : pieces) out += p;
}

std::string DynamoNamespaces::of(const std::string& module_path, const std::string& node_name,
                                 const std::string& op_type) {
  std::string out;
  append(out, module_path, node_name, op_type);
  return out;
}

}  // namespace modelexport::model
