#include "inspect/validate.hpp"

#include <algorithm>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <unordered_map>

#include "functions/graph_utils.hpp"
#include "hierarchy/parse.hpp"
#include "hierarchy/tags.hpp"
#include "hierarchy/tree_check.hpp"
#include "model/check.hpp"
#include "model/external_data.hpp"
#include "model/onnx_io.hpp"
#include "model/persistence.hpp"
#include "model/record_keys.hpp"
#include "model/tag_storage.hpp"
#include "model/tensor_data.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/utf8.hpp"

namespace mx::inspect {
namespace {

using Json = nlohmann::ordered_json;
using hierarchy::NodeRecord;

const std::string kNoTag;

class Report {
 public:
  void add(const std::string& kind, const std::string& message, Json extra = Json::object()) {
    Json i = {{"kind", kind}, {"message", to_valid_utf8(message)}};
    for (auto& [k, v] : extra.items()) i[k] = v;
    issues_.push_back(std::move(i));
  }
  Json issues() const { return issues_; }
  size_t size() const { return issues_.size(); }

 private:
  Json issues_ = Json::array();
};

std::string q(const std::string& s) {
  return "'" + printable(s) + "'";
}

// One check of a possibly malformed file: whatever it throws becomes an
// issue of `kind` (validate reports, it never fails with an internal error
// on a bad file).
template <typename Check>
bool guarded(Report& rep, const char* kind, Check&& check) {
  try {
    check();
    return true;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    rep.add(kind, e.what());
  }
  return false;
}

// ONNX strings must be UTF-8 (util/utf8.hpp): names, op types and metadata.
void check_utf8(const onnx::ModelProto& proto, Report& rep) {
  size_t found = 0;
  auto text = [&](const std::string& s, const std::string& what) {
    const size_t at = first_invalid_utf8(s);
    if (at == std::string::npos) return;
    if (++found <= 20)
      rep.add("utf8", what + " " + q(s) + " is not valid UTF-8 (byte " + std::to_string(at) + ")");
  };
  const auto& g = proto.graph();
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    const std::string at = "node " + std::to_string(i);
    text(n.name(), at + " name");
    text(n.op_type(), at + " op_type");
    text(n.domain(), at + " domain");
    for (const auto& s : n.input()) text(s, at + " input");
    for (const auto& s : n.output()) text(s, at + " output");
    text(n.doc_string(), at + " doc_string");
  }
  for (const auto& v : g.input()) text(v.name(), "graph input");
  for (const auto& v : g.output()) text(v.name(), "graph output");
  for (const auto& t : g.initializer()) text(t.name(), "initializer");
  for (const auto& e : proto.metadata_props()) {
    text(e.key(), "model metadata key");
    text(e.value(), "model metadata value of " + q(e.key()));
  }
  if (found > 20) rep.add("utf8", std::to_string(found - 20) + " more strings are not valid UTF-8");
}

void check_tree(const std::vector<hierarchy::Module>& tree, Report& rep) {
  for (const auto& p : hierarchy::module_tree_problems(tree))
    rep.add("module_tree", p.message, {{"module", to_valid_utf8(p.module)}});
}

// Tags as the tree derives them, plus the stored ones (a tree written
// with drop_builtin_tags stores other tags: both are accepted).
class TagCheck {
 public:
  TagCheck(const std::vector<hierarchy::Module>& tree, Report& rep) {
    if (tree.empty()) return;
    hierarchy::Document d;
    d.modules = tree;
    for (auto& m : d.modules) m.tag.clear();
    guarded(rep, "module_tree", [&] {
      hierarchy::derive_tags(d, {});
      for (const auto& m : d.modules) derived_[m.path] = m.tag;
    });
    for (const auto& m : tree)
      if (!m.tag.empty()) stored_[m.path] = m.tag;
  }
  bool ok(const std::string& module, const std::string& tag) const {
    if (derived_.empty() || tag.empty()) return true;
    auto a = derived_.find(module), b = stored_.find(module);
    return (a != derived_.end() && a->second == tag) || (b != stored_.end() && b->second == tag);
  }
  std::string derived(const std::string& module) const {
    auto a = derived_.find(module);
    return a == derived_.end() ? "" : a->second;
  }

 private:
  std::unordered_map<std::string, std::string> derived_, stored_;
};

struct Sources {
  hierarchy::Document embedded;
  std::optional<hierarchy::Document> sidecar;
  std::string sidecar_file;
};

void check_records(const onnx::ModelProto& proto, const Sources& src,
                   const std::vector<hierarchy::Module>& tree, Report& rep) {
  const auto& g = proto.graph();
  const size_t n = static_cast<size_t>(g.node_size());
  const hierarchy::ModuleIndex modules(tree);
  const TagCheck tags(tree, rep);
  const auto emb = hierarchy::records_by_position(src.embedded, n);
  std::vector<const NodeRecord*> side(n, nullptr);
  if (src.sidecar) {
    const model::NodeKeys keys(g);
    for (const auto& r : src.sidecar->nodes) {
      std::string why;
      if (auto at = keys.find(r, &why)) side[*at] = &r;
      else
        rep.add("sidecar_mismatch", "sidecar record " + q(r.name) + " matches no node: " + why,
                {{"node", to_valid_utf8(r.name)}});
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& node = g.node(static_cast<int>(i));
    const std::string label = "node " + std::to_string(i) + " " + q(node.name());
    const Json at = {{"node", to_valid_utf8(node.name())}, {"index", i}};
    const NodeRecord* r = emb[i];
    const NodeRecord* s = side[i];
    if (!r && !s) {
      rep.add("missing_record", label + " (" + printable(node.op_type()) + ") carries no record", at);
      continue;
    }
    const NodeRecord* rec = r ? r : s;
    // A record's tag may be its module's (hierarchy::record_tag).
    const std::string& r_tag = r ? hierarchy::record_tag(src.embedded, *r) : kNoTag;
    const std::string& s_tag = s ? hierarchy::record_tag(*src.sidecar, *s) : kNoTag;
    const std::string& tag = r ? r_tag : s_tag;
    if (!tree.empty() && !modules.contains(rec->module))
      rep.add("unknown_module", label + ": module " + q(rec->module) + " is not in the module tree", at);
    else if (!tags.ok(rec->module, tag))
      rep.add("tag_mismatch",
              label + ": tag " + q(tag) + " does not match module " + q(rec->module) + " (" +
                  printable(tags.derived(rec->module)) + ")",
              at);
    if (r && s &&
        (r->module != s->module || r->evidence != s->evidence ||
         (!r_tag.empty() && !s_tag.empty() && r_tag != s_tag)))
      rep.add("sidecar_mismatch",
              label + ": file says module " + q(r->module) + " (" + hierarchy::evidence_name(r->evidence) +
                  "), sidecar says " + q(s->module) + " (" + hierarchy::evidence_name(s->evidence) + ")",
              at);
  }
}

void compare_trees(const Sources& src, Report& rep) {
  if (!src.sidecar || src.embedded.modules.empty()) return;
  std::map<std::string, std::string> a, b;
  for (const auto& m : src.embedded.modules) a[m.path] = m.class_name;
  for (const auto& m : src.sidecar->modules) b[m.path] = m.class_name;
  for (const auto& [p, c] : a) {
    const Json at = {{"module", to_valid_utf8(p)}};
    if (!b.count(p))
      rep.add("sidecar_mismatch", "module " + q(p) + " is in the file's tree, not in the sidecar's", at);
    else if (b[p] != c)
      rep.add("sidecar_mismatch",
              "module " + q(p) + ": class " + q(c) + " in the file, " + q(b[p]) + " in the sidecar", at);
  }
  for (const auto& [p, c] : b)
    if (!a.count(p))
      rep.add("sidecar_mismatch", "module " + q(p) + " is in the sidecar's tree, not in the file's",
              {{"module", to_valid_utf8(p)}});
}

// Local functions: every call resolves, every body node has a (relative)
// record whose absolute module exists. Returns the number of body nodes.
size_t check_functions(const onnx::ModelProto& proto, const Sources& src,
                       const std::vector<hierarchy::Module>& tree, Report& rep) {
  size_t function_nodes = 0;
  std::set<std::pair<std::string, std::string>> defined;
  for (const auto& f : proto.functions()) defined.insert({f.domain(), f.name()});
  for (const auto& f : proto.functions()) {
    if (f.domain() != functions::kFunctionDomain) continue;
    for (const auto& n : f.node()) {
      ++function_nodes;
      if (!functions::read_body_record(n).present)
        rep.add("missing_record",
                "function " + printable(f.name()) + ": node " + q(n.name()) + " (" + printable(n.op_type()) +
                    ") carries no record",
                {{"function", to_valid_utf8(f.name())}, {"node", to_valid_utf8(n.name())}});
    }
  }
  auto check_calls = [&](const auto& nodes, const std::string& where) {
    for (const auto& n : nodes)
      if (n.domain() == functions::kFunctionDomain && !defined.count({n.domain(), n.op_type()}))
        rep.add("missing_function",
                where + ": node " + q(n.name()) + " calls undefined function " + printable(n.op_type()),
                {{"node", to_valid_utf8(n.name())}});
  };
  check_calls(proto.graph().node(), "graph");
  for (const auto& f : proto.functions()) check_calls(f.node(), "function " + printable(f.name()));
  if (tree.empty() || !functions::has_local_functions(proto)) return function_nodes;
  const hierarchy::ModuleIndex modules(tree);
  const hierarchy::Document& d = src.embedded.nodes.empty() && src.sidecar ? *src.sidecar : src.embedded;
  std::set<std::string> reported;
  guarded(rep, "function", [&] {
    for (const auto& leaf : functions::expand(proto, d)) {
      if (leaf.call_chain.empty() || modules.contains(leaf.module) || !reported.insert(leaf.module).second)
        continue;
      rep.add("unknown_module",
              "function " + printable(leaf.function) + " called from " + q(leaf.call_chain.back()) +
                  ": its node " + q(leaf.node->name()) + " resolves to module " + q(leaf.module) +
                  ", which is not in the module tree",
              {{"module", to_valid_utf8(leaf.module)}});
    }
  });
  return function_nodes;
}

Sources read_sources(const onnx::ModelProto& proto, const std::string& path, Report& rep) {
  Sources src;
  guarded(rep, "embedded_records", [&] { src.embedded = model::load_hierarchy(proto, std::nullopt, path); });
  src.sidecar_file = model::sidecar_path(path);
  if (path_kind(src.sidecar_file) != PathKind::missing)
    guarded(rep, "sidecar", [&] {
      src.sidecar = hierarchy::parse_document_text(read_file(src.sidecar_file), src.sidecar_file);
    });
  return src;
}

}  // namespace

Json validate_file(const std::string& path) {
  Report rep;
  // Only an unreadable or unparsable file is an error; the rest is reported.
  const onnx::ModelProto proto = model::parse_onnx(read_file(path), path);
  check_utf8(proto, rep);
  model::TensorList tensors;
  model::DataFiles files;
  // What loading refuses: external data outside the directory, missing or
  // short; tensors whose data does not match their dims.
  const bool data_ok = guarded(rep, "external_data", [&] {
    tensors = model::all_tensors(proto);
    files = model::open_external_data(tensors, path);
  });
  if (data_ok) guarded(rep, "tensor_data", [&] { model::check_tensor_data(tensors, files, path); });
  // A file newer than the ONNX library is not checked by it, and not
  // called invalid for that: the report says why ("checker": null).
  const std::string unchecked = model::newer_than_library(proto);
  const bool checker_ok =
      unchecked.empty() && guarded(rep, "checker", [&] { model::check_onnx(proto, path); });
  const Sources src = read_sources(proto, path, rep);
  // The module tree: the file's, else the sidecar's.
  std::vector<hierarchy::Module> tree = src.embedded.modules;
  if (tree.empty() && src.sidecar) tree = src.sidecar->modules;
  check_tree(tree, rep);
  check_records(proto, src, tree, rep);
  compare_trees(src, rep);
  const size_t function_nodes = check_functions(proto, src, tree, rep);
  Json out;
  out["file"] = to_valid_utf8(path);
  out["ok"] = rep.size() == 0;
  out["checked"] = {{"nodes", proto.graph().node_size()},
                    {"function_nodes", function_nodes},
                    {"modules", tree.size()},
                    {"sidecar", src.sidecar ? Json(to_valid_utf8(src.sidecar_file)) : Json(nullptr)},
                    {"checker", unchecked.empty() ? Json(checker_ok) : Json(nullptr)}};
  if (!unchecked.empty()) out["checker_skipped"] = unchecked;
  out["issues"] = rep.issues();
  return out;
}

}  // namespace mx::inspect
