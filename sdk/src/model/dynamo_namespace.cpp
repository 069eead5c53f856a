#include "model/dynamo_namespace.hpp"

#include <string_view>
#include <vector>

namespace mx::model {
namespace {

const std::string& class_of(const hierarchy::Module& m) {
  return m.qualified_class().empty() ? m.class_name : m.qualified_class();
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

// A module's part of a namespace, "relative name: class", written after
// `scope` (the chains above a module and each module's own part: one
// spelling for both).
void append_named(std::string& out, const hierarchy::Module& m, std::string_view scope) {
  out += relative_name(m.path, scope);
  out += ": ";
  out += class_of(m);
}

}  // namespace

DynamoNamespaces::DynamoNamespaces(const std::vector<hierarchy::Module>& modules,
                                   const hierarchy::ModuleIndex* kept)
    : modules_(modules), kept_(kept) {}

const hierarchy::ModuleIndex& DynamoNamespaces::index() {
  if (kept_) return *kept_;
  if (!own_) own_.emplace(modules_);
  return *own_;
}

size_t DynamoNamespaces::position_of(std::string_view path, size_t hint) {
  if (hint < modules_.size() && modules_[hint].path == path) return hint;
  const hierarchy::Module* m = index().find(path);
  return m ? index().position(*m) : kNone;
}

size_t DynamoNamespaces::parent_of(size_t position) {
  const hierarchy::Module& m = modules_[position];
  if (m.path.empty()) return kNone;  // the root ends every walk
  const std::string_view parent = hierarchy::parent_view(m);
  if (m.parent_at < modules_.size() && modules_[m.parent_at].path == parent) return m.parent_at;
  return index().parents()[position];
}

// The called modules from the root down to the module at `position`, as
// they stand above a node of one of its children: an uncalled container
// (executed false) is left out; the root never is. Built from the nearest
// ancestor whose chain is kept (the text is a fold from the root down, so
// an ancestor's chain and scope continue it exactly), at the end of
// chain_text_.
const DynamoNamespaces::Chain& DynamoNamespaces::chain_above(size_t position) {
  for (const Chain& c : chains_)
    if (c.of == position) return c;
  const Chain* base = nullptr;
  std::vector<size_t>& chain = chain_scratch_;  // position .. (base or root), excluded base
  chain.clear();
  for (size_t at = position; at != kNone; at = parent_of(at)) {
    if (at != position)
      for (const Chain& c : chains_)
        if (c.of == at) base = &c;
    if (base) break;
    chain.push_back(at);
    if (modules_[at].path.empty()) break;
  }
  const size_t begin = chain_text_.size();
  std::string_view scope;
  if (base) {
    // Reserved first: the copy reads from chain_text_ itself.
    chain_text_.reserve(begin + base->size);
    chain_text_.append(chain_text_, base->begin, base->size);
    scope = base->scope;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const hierarchy::Module& m = modules_[*it];
    if (!m.path.empty() && m.executed() == false) continue;
    if (chain_text_.size() > begin) chain_text_ += '/';
    append_named(chain_text_, m, scope);
    scope = m.path;
  }
  Chain& kept = chains_[next_kept_];
  next_kept_ = (next_kept_ + 1) % chains_.size();
  kept.of = position;
  kept.begin = begin;
  kept.size = chain_text_.size() - begin;
  kept.scope = scope;
  return kept;
}

DynamoNamespaces::PrefixRef DynamoNamespaces::prefix_ref(const std::string& module_path, size_t at) {
  PrefixRef ref;
  const size_t position = position_of(module_path, at);
  if (position == kNone) return ref;  // no module: no chain
  const hierarchy::Module& m = modules_[position];
  const size_t parent = parent_of(position);
  std::string_view scope;
  if (parent != kNone) {
    const Chain& above = chain_above(parent);
    ref.chain_begin = above.begin;
    ref.chain_size = above.size;
    scope = above.scope;
  }
  ref.own_begin = own_text_.size();
  if (ref.chain_size > 0) own_text_ += '/';
  append_named(own_text_, m, scope);
  own_text_ += '/';
  ref.own_size = own_text_.size() - ref.own_begin;
  return ref;
}

DynamoNamespaces::PrefixParts DynamoNamespaces::parts_of(const PrefixRef& ref) const {
  return {std::string_view(chain_text_.data() + ref.chain_begin, ref.chain_size),
          std::string_view(own_text_.data() + ref.own_begin, ref.own_size)};
}

std::string DynamoNamespaces::prefix(const std::string& module_path, size_t at) {
  std::string out;
  for (std::string_view piece : parts_of(prefix_ref(module_path, at))) out += piece;
  return out;
}

std::string DynamoNamespaces::of(const std::string& module_path, const std::string& node_name,
                                 const std::string& op_type) {
  std::string out;
  for (std::string_view piece : layout(parts_of(prefix_ref(module_path)), node_name, op_type)) out += piece;
  return out;
}

}  // namespace mx::model
