#include "inspect/validate.hpp"

#include <map>
#include <optional>
#include <set>

#include "functions/graph_utils.hpp"
#include "hierarchy/parse.hpp"
#include "hierarchy/tags.hpp"
#include "model/check.hpp"
#include "model/onnx_io.hpp"
#include "model/persistence.hpp"
#include "model/tag_storage.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

namespace modelexport::inspect {
namespace {

using Json = nlohmann::ordered_json;

class Report {
 public:
  void add(const std::string& kind, const std::string& message, Json extra = Json::object()) {
    Json i = {{"kind", kind}, {"message", message}};
    for (auto& [k, v] : extra.items()) i[k] = v;
    issues_.push_back(std::move(i));
  }
  Json issues() const { return issues_; }
  size_t size() const { return issues_.size(); }

 private:
  Json issues_ = Json::array();
};

}  // namespace

Json validate_file(const std::string& path) {
  Report rep;
  const onnx::ModelProto proto = model::parse_onnx(read_file(path), path);
  const auto& g = proto.graph();

  // 1. The ONNX checker (with strict shape inference).
  bool checker_ok = true;
  try {
    model::check_onnx(proto, path);
  } catch (const Error& e) {
    checker_ok = false;
    rep.add("checker", e.what());
  }

  // 2. What the file itself carries, and the sidecar, read separately.
  hierarchy::Document embedded;
  try {
    embedded = model::load_hierarchy(proto, std::nullopt, path);
  } catch (const Error& e) {
    rep.add("embedded_records", e.what());
  }
  std::optional<hierarchy::Document> sidecar;
  const std::string sidecar_file = model::sidecar_path(path);
  if (file_exists(sidecar_file)) {
    try {
      sidecar = hierarchy::parse_document_text(read_file(sidecar_file), sidecar_file);
    } catch (const Error& e) {
      rep.add("sidecar", e.what());
    }
  }

  // 3. The module tree: the file's, else the sidecar's.
  std::vector<hierarchy::Module> tree = embedded.modules;
  if (tree.empty() && sidecar) tree = sidecar->modules;
  hierarchy::Document tree_doc;
  tree_doc.modules = tree;
  std::map<std::string, const hierarchy::Module*> modules;
  for (const auto& m : tree_doc.modules) {
    if (modules.count(m.path)) rep.add("module_tree", "module '" + m.path + "' appears twice", {{"module", m.path}});
    modules[m.path] = &m;
  }
  size_t roots = 0;
  for (const auto& m : tree_doc.modules) {
    if (!m.parent) {
      ++roots;
      if (!m.path.empty()) rep.add("module_tree", "module '" + m.path + "' has no parent but is not the root", {{"module", m.path}});
      continue;
    }
    auto p = modules.find(*m.parent);
    if (p == modules.end()) {
      rep.add("module_tree", "module '" + m.path + "': parent '" + *m.parent + "' is not a module", {{"module", m.path}});
    } else {
      const auto& ch = p->second->children;
      if (std::find(ch.begin(), ch.end(), m.path) == ch.end())
        rep.add("module_tree", "module '" + m.path + "' is not among the children of its parent '" + *m.parent + "'", {{"module", m.path}});
    }
    for (const auto& c : m.children) {
      auto cm = modules.find(c);
      if (cm == modules.end()) rep.add("module_tree", "module '" + m.path + "': child '" + c + "' is not a module", {{"module", m.path}});
      else if (cm->second->parent.value_or("\x01") != m.path)
        rep.add("module_tree", "module '" + m.path + "' lists child '" + c + "' whose parent is different", {{"module", m.path}});
    }
  }
  if (!tree.empty() && roots != 1) rep.add("module_tree", "the tree has " + std::to_string(roots) + " roots (expected 1)");
  // Tags as the tree derives them.
  std::map<std::string, std::string> tags;
  if (!tree.empty()) {
    hierarchy::Document d = tree_doc;
    for (auto& m : d.modules) m.tag.clear();
    try {
      hierarchy::derive_tags(d, {});
      for (const auto& m : d.modules) tags[m.path] = m.tag;
    } catch (const Error& e) {
      rep.add("module_tree", e.what());
    }
    // A tree written with drop_builtin_tags stores other tags; accept the stored ones too.
    for (const auto& m : tree_doc.modules)
      if (!m.tag.empty()) tags[m.path + "\x01stored"] = m.tag;
  }
  auto tag_ok = [&](const std::string& module, const std::string& tag) {
    if (tags.empty() || tag.empty()) return true;
    auto a = tags.find(module), b = tags.find(module + "\x01stored");
    return (a != tags.end() && a->second == tag) || (b != tags.end() && b->second == tag);
  };

  // 4. Records on the top-level nodes.
  std::set<std::string> names;
  std::map<std::string, const hierarchy::NodeRecord*> emb, side;
  for (const auto& r : embedded.nodes) emb[r.name] = &r;
  if (sidecar)
    for (const auto& r : sidecar->nodes) side[r.name] = &r;
  size_t missing = 0;
  for (const auto& n : g.node()) {
    if (!names.insert(n.name()).second)
      rep.add("duplicate_name", "two nodes are named '" + n.name() + "' (records are keyed by name)", {{"node", n.name()}});
    const hierarchy::NodeRecord* r = emb.count(n.name()) ? emb[n.name()] : nullptr;
    const hierarchy::NodeRecord* s = side.count(n.name()) ? side[n.name()] : nullptr;
    if (!r && !s) {
      ++missing;
      rep.add("missing_record", "node '" + n.name() + "' (" + n.op_type() + ") carries no record", {{"node", n.name()}});
      continue;
    }
    const auto* rec = r ? r : s;
    if (!modules.empty() && !modules.count(rec->module))
      rep.add("unknown_module", "node '" + n.name() + "': module '" + rec->module + "' is not in the module tree", {{"node", n.name()}});
    else if (!tag_ok(rec->module, rec->tag))
      rep.add("tag_mismatch", "node '" + n.name() + "': tag '" + rec->tag + "' does not match module '" + rec->module + "' (" + tags[rec->module] + ")", {{"node", n.name()}});
    if (r && s) {
      if (r->module != s->module || r->evidence != s->evidence || (!r->tag.empty() && !s->tag.empty() && r->tag != s->tag))
        rep.add("sidecar_mismatch", "node '" + n.name() + "': file says module '" + r->module + "' (" +
                    hierarchy::evidence_name(r->evidence) + "), sidecar says '" + s->module + "' (" +
                    hierarchy::evidence_name(s->evidence) + ")", {{"node", n.name()}});
    }
  }
  if (sidecar) {
    for (const auto& r : sidecar->nodes)
      if (!names.count(r.name))
        rep.add("sidecar_mismatch", "sidecar has a record for '" + r.name + "', which is not a node of the file", {{"node", r.name}});
    if (!embedded.modules.empty()) {
      std::map<std::string, std::string> a, b;
      for (const auto& m : embedded.modules) a[m.path] = m.class_name;
      for (const auto& m : sidecar->modules) b[m.path] = m.class_name;
      for (const auto& [p, c] : a)
        if (!b.count(p)) rep.add("sidecar_mismatch", "module '" + p + "' is in the file's tree, not in the sidecar's", {{"module", p}});
        else if (b[p] != c) rep.add("sidecar_mismatch", "module '" + p + "': class '" + c + "' in the file, '" + b[p] + "' in the sidecar", {{"module", p}});
      for (const auto& [p, c] : b)
        if (!a.count(p)) rep.add("sidecar_mismatch", "module '" + p + "' is in the sidecar's tree, not in the file's", {{"module", p}});
    }
  }

  // 5. Local functions: every call resolves, every body node has a
  // (relative) record whose absolute module exists.
  size_t function_nodes = 0;
  std::set<std::pair<std::string, std::string>> defined;
  for (const auto& f : proto.functions()) defined.insert({f.domain(), f.name()});
  for (const auto& f : proto.functions()) {
    if (f.domain() != functions::kFunctionDomain) continue;
    for (const auto& n : f.node()) {
      ++function_nodes;
      if (!functions::read_body_record(n).present)
        rep.add("missing_record", "function " + f.name() + ": node '" + n.name() + "' (" + n.op_type() + ") carries no record", {{"function", f.name()}, {"node", n.name()}});
    }
  }
  auto check_calls = [&](const auto& nodes, const std::string& where) {
    for (const auto& n : nodes)
      if (n.domain() == functions::kFunctionDomain && !defined.count({n.domain(), n.op_type()}))
        rep.add("missing_function", where + ": node '" + n.name() + "' calls undefined function " + n.op_type(), {{"node", n.name()}});
  };
  check_calls(g.node(), "graph");
  for (const auto& f : proto.functions()) check_calls(f.node(), "function " + f.name());
  if (!modules.empty() && functions::has_local_functions(proto)) {
    hierarchy::Document d = embedded.nodes.empty() && sidecar ? *sidecar : embedded;
    std::set<std::string> reported;
    for (const auto& leaf : functions::expand(proto, d)) {
      if (leaf.call_chain.empty() || modules.count(leaf.module) || !reported.insert(leaf.module).second) continue;
      rep.add("unknown_module", "function " + leaf.function + " called from '" + leaf.call_chain.back() +
                                    "': its node '" + leaf.node->name() + "' resolves to module '" + leaf.module +
                                    "', which is not in the module tree", {{"module", leaf.module}});
    }
  }
  (void)missing;
  Json out;
  out["file"] = path;
  out["ok"] = rep.size() == 0;
  out["checked"] = {{"nodes", g.node_size()},
                    {"function_nodes", function_nodes},
                    {"modules", tree.size()},
                    {"sidecar", sidecar ? Json(sidecar_file) : Json(nullptr)},
                    {"checker", checker_ok}};
  out["issues"] = rep.issues();
  return out;
}

}  // namespace modelexport::inspect
