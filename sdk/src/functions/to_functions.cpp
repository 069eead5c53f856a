#include "functions/to_functions.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "functions/graph_utils.hpp"
#include "model/node_metadata.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/options.hpp"

namespace mx::functions {
namespace {

using Json = nlohmann::ordered_json;
using hierarchy::Evidence;
using mx::common::is_ancestor_or_self;
using mx::common::path_depth;
using mx::common::relative_path;

// One operator of the graph being rewritten, with its assignment.
struct Item {
  onnx::NodeProto node;
  std::string module;
  std::string tag;
  Evidence evidence = Evidence::root;
};

struct Definition {
  std::string name;
  std::string class_name;
  std::string structure;  // 16 hex digits of FNV-1a over the canonical form
  size_t body_nodes = 0;
  std::vector<std::string> instances;
  // Relative records of the body, to compare later instances against.
  std::vector<std::pair<std::string, std::string>> body_records;
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool is_builtin(const hierarchy::Module& m) {
  return m.qualified_class().rfind("torch.nn.", 0) == 0;
}

bool has_graph_attribute(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0) return true;
  return false;
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty()) out = "Module";
  return out;
}

// Canonical text of an attribute: everything but its doc_string and the
// names of tensors it holds.
std::string attribute_text(const onnx::AttributeProto& a) {
  onnx::AttributeProto copy = a;
  copy.clear_doc_string();
  if (copy.has_t()) copy.mutable_t()->clear_name();
  for (auto& t : *copy.mutable_tensors()) t.clear_name();
  std::string bytes;
  copy.SerializeToString(&bytes);
  return bytes;
}

std::string common_scope_prefix(const std::vector<const onnx::NodeProto*>& nodes) {
  if (nodes.empty()) return "";
  std::string p = nodes[0]->name();
  for (const auto* n : nodes) {
    size_t k = 0;
    while (k < p.size() && k < n->name().size() && p[k] == n->name()[k]) ++k;
    p.resize(k);
  }
  const auto slash = p.rfind('/');
  if (slash == std::string::npos || slash == 0) return "";
  return p.substr(0, slash + 1);  // "/encoder/layer.0/"
}

class Renamer {
 public:
  Renamer(std::string scope, std::string param_prefix)
      : scope_(std::move(scope)), param_(std::move(param_prefix)) {}
  const std::string& operator()(const std::string& name) {
    auto it = map_.find(name);
    if (it != map_.end()) return it->second;
    std::string c = name;
    if (!param_.empty() && c.rfind(param_, 0) == 0 && c.size() > param_.size()) c = c.substr(param_.size());
    else if (!scope_.empty() && c.rfind(scope_, 0) == 0 && c.size() > scope_.size())
      c = "/" + c.substr(scope_.size());
    std::string u = c;
    for (int k = 1; used_.count(u); ++k) u = c + "__" + std::to_string(k);
    used_.insert(u);
    return map_.emplace(name, u).first->second;
  }

 private:
  std::string scope_, param_;
  std::unordered_map<std::string, std::string> map_;
  std::unordered_set<std::string> used_;
};

std::string relative_tag(const std::string& tag, const std::string& base_tag) {
  if (!base_tag.empty() && tag.rfind(base_tag, 0) == 0) return tag.substr(base_tag.size());
  return tag;
}

void write_body_record(onnx::NodeProto& node, const std::string& rel_module, const std::string& rel_tag,
                       Evidence evidence) {
  model::MetadataEntries kept;
  for (auto& e : model::read_node_metadata(node))
    if (e.first.rfind("modelexport.", 0) != 0 && e.first != "namespace") kept.push_back(e);
  kept.emplace_back("modelexport.module", rel_module);
  kept.emplace_back("modelexport.tag", rel_tag);
  kept.emplace_back("modelexport.evidence", hierarchy::evidence_name(evidence));
  model::write_node_metadata(node, kept);
  if (node.doc_string().rfind("modelexport:", 0) == 0) node.clear_doc_string();
}

class Pass {
 public:
  Pass(mx_model& model, const FunctionOptions& options, Progress& progress)
      : model_(model), options_(options), progress_(progress) {}

  Json run() {
    auto& doc = model_.hierarchy;
    if (doc.modules.empty())
      fail(MX_ERR_UNSUPPORTED,
           model::display_name(model_) + ": has no module tree; tag it first (modelexport tag)");
    if (has_local_functions(model_.proto()))
      fail(MX_ERR_UNSUPPORTED, model::display_name(model_) + ": already has modelexport.fn local functions");
    for (const auto& c : options_.modules)
      if (!hierarchy::ModuleIndex(doc).find(c))
        fail(MX_ERR_NOT_FOUND, "functions: module '" + c + "' is not in the module tree");
    load_items();
    for (const auto& o : model_.proto().graph().output()) graph_outputs_.insert(o.name());
    for (const auto& f : model_.proto().functions()) taken_names_.insert(f.name());

    const auto selected = candidates();
    for (size_t k = 0; k < selected.size(); ++k) {
      progress_.report("functions", "modules", k, selected.size());
      convert(*selected[k]);
    }
    progress_.report("functions", "modules", selected.size(), selected.size());
    finish();
    return report();
  }

 private:
  void load_items() {
    const auto lookup = record_lookup(model_.hierarchy, model_.proto());
    const auto* root = hierarchy::ModuleIndex(model_.hierarchy).find("");
    const auto& nodes = model_.proto().graph().node();
    for (int i = 0; i < nodes.size(); ++i) {
      Item it;
      it.node = nodes.Get(i);
      if (const auto* r = lookup[static_cast<size_t>(i)]) {
        it.module = r->module;
        it.tag = hierarchy::record_tag(model_.hierarchy, *r);
        it.evidence = r->evidence;
      } else {
        it.tag = root ? root->tag : "/";
      }
      items_.push_back(std::move(it));
    }
  }

  size_t count_within(const std::string& path) const {
    size_t n = 0;
    for (const auto& it : items_) n += is_ancestor_or_self(path, it.module);
    return n;
  }

  std::vector<const hierarchy::Module*> candidates() {
    std::vector<const hierarchy::Module*> out;
    const std::set<std::string> classes(options_.classes.begin(), options_.classes.end());
    const std::set<std::string> modules(options_.modules.begin(), options_.modules.end());
    const bool explicit_choice = !classes.empty() || !modules.empty();
    std::set<std::string> matched_classes;
    for (const auto& m : model_.hierarchy.modules) {
      if (m.path.empty()) continue;
      bool chosen;
      if (explicit_choice) {
        const bool by_class = classes.count(m.class_name) || classes.count(m.qualified_class());
        if (by_class)
          matched_classes.insert(classes.count(m.class_name) ? m.class_name : m.qualified_class());
        chosen = by_class || modules.count(m.path);
      } else {
        chosen = m.executed().value_or(true) && (options_.include_builtin || !is_builtin(m)) &&
                 count_within(m.path) >= static_cast<size_t>(std::max(1, options_.min_nodes));
      }
      if (chosen) out.push_back(&m);
    }
    for (const auto& c : classes)
      if (!matched_classes.count(c))
        fail(MX_ERR_NOT_FOUND, "functions: no module of class '" + c + "' in the module tree");
    std::stable_sort(out.begin(), out.end(),
                     [](const auto* a, const auto* b) { return path_depth(a->path) > path_depth(b->path); });
    return out;
  }

  void skip(const std::string& module, const std::string& reason) {
    skipped_.push_back({{"module", module}, {"reason", reason}});
  }

  // True when no path leaves the member set and re-enters it.
  bool convex(const std::vector<char>& member) const {
    std::unordered_map<std::string, std::vector<size_t>> consumers;
    for (size_t i = 0; i < items_.size(); ++i)
      for (const auto& in : items_[i].node.input()) consumers[in].push_back(i);
    std::vector<char> seen(items_.size(), 0);
    std::vector<size_t> stack;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (!member[i]) continue;
      for (const auto& o : items_[i].node.output()) {
        auto c = consumers.find(o);
        if (c == consumers.end()) continue;
        for (size_t u : c->second)
          if (!member[u] && !seen[u]) seen[u] = 1, stack.push_back(u);
      }
    }
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      for (const auto& o : items_[i].node.output()) {
        auto c = consumers.find(o);
        if (c == consumers.end()) continue;
        for (size_t u : c->second) {
          if (member[u]) return false;
          if (!seen[u]) seen[u] = 1, stack.push_back(u);
        }
      }
    }
    return true;
  }

  void convert(const hierarchy::Module& m) {
    std::vector<char> member(items_.size(), 0);
    std::vector<size_t> idx;
    for (size_t i = 0; i < items_.size(); ++i)
      if (is_ancestor_or_self(m.path, items_[i].module)) member[i] = 1, idx.push_back(i);
    if (idx.empty()) return skip(m.path, "no nodes");
    for (size_t i : idx)
      if (has_graph_attribute(items_[i].node))
        return skip(m.path, "contains control flow (graph attributes)");
    if (!convex(member)) return skip(m.path, "not convex: a path leaves the module and re-enters it");

    // Body in topological order (stable w.r.t. graph order).
    std::vector<onnx::NodeProto> body_nodes;
    for (size_t i : idx) body_nodes.push_back(items_[i].node);
    // Keep item data aligned with the sorted body: sort indices the same way.
    {
      // Tag each node with its position so it can be found after sorting.
      for (size_t k = 0; k < body_nodes.size(); ++k) {
        auto* a = body_nodes[k].add_attribute();
        a->set_name("\x01pos");
        a->set_i(static_cast<int64_t>(k));
      }
      body_nodes = topo_sorted(std::move(body_nodes));
      std::vector<size_t> sorted_idx;
      for (auto& n : body_nodes) {
        const int last = n.attribute_size() - 1;
        sorted_idx.push_back(idx[static_cast<size_t>(n.attribute(last).i())]);
        n.mutable_attribute()->RemoveLast();
      }
      idx = sorted_idx;
    }

    // Boundary.
    std::unordered_map<std::string, std::pair<size_t, int>> produced;  // tensor -> (body pos, slot)
    for (size_t j = 0; j < body_nodes.size(); ++j)
      for (int o = 0; o < body_nodes[j].output_size(); ++o)
        if (!body_nodes[j].output(o).empty()) produced[body_nodes[j].output(o)] = {j, o};
    std::vector<std::string> inputs;
    std::unordered_map<std::string, size_t> input_pos;
    for (const auto& n : body_nodes)
      for (const auto& in : n.input())
        if (!in.empty() && !produced.count(in) && !input_pos.count(in)) {
          input_pos[in] = inputs.size();
          inputs.push_back(in);
        }
    std::unordered_set<std::string> used_outside;
    for (size_t i = 0; i < items_.size(); ++i)
      if (!member[i])
        for (const auto& in : items_[i].node.input()) used_outside.insert(in);
    std::vector<std::string> outputs;
    std::unordered_map<std::string, size_t> output_pos;
    for (const auto& n : body_nodes)
      for (const auto& o : n.output())
        if (!o.empty() && (used_outside.count(o) || graph_outputs_.count(o)) && !output_pos.count(o)) {
          output_pos[o] = outputs.size();
          outputs.push_back(o);
        }
    if (outputs.empty()) return skip(m.path, "no outputs used outside the module");

    // Canonical structure: ops, attributes, wiring by position, arity.
    std::string canon =
        "in=" + std::to_string(inputs.size()) + ";out=" + std::to_string(outputs.size()) + "\n";
    for (const auto& n : body_nodes) {
      canon += n.domain() + "|" + n.op_type() + "|";
      std::vector<const onnx::AttributeProto*> attrs;
      for (const auto& a : n.attribute()) attrs.push_back(&a);
      std::sort(attrs.begin(), attrs.end(), [](auto* a, auto* b) { return a->name() < b->name(); });
      for (const auto* a : attrs) {
        const std::string t = attribute_text(*a);
        canon += a->name() + "#" + std::to_string(t.size()) + ":" + t + ",";
      }
      canon += "|";
      for (const auto& in : n.input()) {
        if (in.empty()) canon += "-,";
        else if (auto p = produced.find(in); p != produced.end())
          canon += "n" + std::to_string(p->second.first) + "." + std::to_string(p->second.second) + ",";
        else canon += "i" + std::to_string(input_pos.at(in)) + ",";
      }
      canon += "|";
      for (const auto& o : n.output()) {
        if (o.empty()) canon += "-,";
        else if (auto p = output_pos.find(o); p != output_pos.end())
          canon += "o" + std::to_string(p->second) + ",";
        else canon += "t,";
      }
      canon += "\n";
    }

    std::vector<std::pair<std::string, std::string>> rel_records;
    for (size_t k = 0; k < idx.size(); ++k) {
      const Item& it = items_[idx[k]];
      rel_records.emplace_back(relative_path(it.module, m.path), hierarchy::evidence_name(it.evidence));
    }

    std::vector<const onnx::NodeProto*> originals;
    for (size_t i : idx) originals.push_back(&items_[i].node);
    const std::string scope = common_scope_prefix(originals);

    size_t def_index;
    auto found = structures_.find(canon);
    if (found == structures_.end()) {
      def_index = definitions_.size();
      structures_.emplace(canon, def_index);
      Definition d;
      d.class_name = m.class_name;
      d.name = sanitize(m.class_name);
      for (int k = 1; taken_names_.count(d.name); ++k)
        d.name = sanitize(m.class_name) + "_" + std::to_string(k);
      taken_names_.insert(d.name);
      d.structure = hex16(fnv1a(canon));
      d.body_nodes = body_nodes.size();
      d.body_records = rel_records;
      definitions_.push_back(d);
      build_function(d, m, scope, body_nodes, idx, inputs, outputs);
    } else {
      def_index = found->second;
      if (definitions_[def_index].body_records != rel_records) ++record_mismatches_;
    }
    Definition& def = definitions_[def_index];
    def.instances.push_back(m.path);

    // The call node, at the place of the first member.
    Item call;
    call.node.set_op_type(def.name);
    call.node.set_domain(kFunctionDomain);
    for (const auto& in : inputs) call.node.add_input(in);
    for (const auto& o : outputs) call.node.add_output(o);
    std::string name =
        scope.empty() ? "/" + m.path + "/" + def.name : scope.substr(0, scope.size() - 1) + "/" + def.name;
    std::unordered_set<std::string> names;
    for (size_t i = 0; i < items_.size(); ++i)
      if (!member[i]) names.insert(items_[i].node.name());
    const std::string base_name = name;
    for (int k = 1; names.count(name); ++k) name = base_name + "_" + std::to_string(k);
    call.node.set_name(name);
    call.module = m.path;
    call.tag = m.tag;
    std::map<Evidence, int> ev;
    for (size_t i : idx) ev[items_[i].evidence]++;
    call.evidence =
        std::max_element(ev.begin(), ev.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    ++calls_;

    std::vector<onnx::NodeProto> order;
    std::vector<Item> next;
    bool placed = false;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (member[i]) {
        if (!placed) next.push_back(call), placed = true;
        continue;
      }
      next.push_back(std::move(items_[i]));
    }
    items_ = sort_items(std::move(next));
  }

  static std::vector<Item> sort_items(std::vector<Item> items) {
    std::vector<onnx::NodeProto> nodes;
    for (size_t k = 0; k < items.size(); ++k) {
      nodes.push_back(items[k].node);
      auto* a = nodes.back().add_attribute();
      a->set_name("\x01pos");
      a->set_i(static_cast<int64_t>(k));
    }
    nodes = topo_sorted(std::move(nodes));
    std::vector<Item> out;
    out.reserve(items.size());
    for (auto& n : nodes)
      out.push_back(std::move(items[static_cast<size_t>(n.attribute(n.attribute_size() - 1).i())]));
    return out;
  }

  void build_function(const Definition& d, const hierarchy::Module& m, const std::string& scope,
                      const std::vector<onnx::NodeProto>& body, const std::vector<size_t>& idx,
                      const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
    onnx::FunctionProto f;
    f.set_name(d.name);
    f.set_domain(kFunctionDomain);
    f.set_doc_string("modelexport: module class " + m.class_name + " (structure " + d.structure +
                     ", first instance '" + m.path +
                     "'); node records inside are relative to the calling module");
    Renamer rename(scope, m.path + ".");
    for (const auto& in : inputs) f.add_input(rename(in));
    // Outputs may be named like inputs of nothing else; rename in body order.
    std::vector<onnx::NodeProto> nodes = body;
    for (size_t k = 0; k < nodes.size(); ++k) {
      auto& n = nodes[k];
      for (auto& in : *n.mutable_input())
        if (!in.empty()) in = rename(in);
      for (auto& o : *n.mutable_output())
        if (!o.empty()) o = rename(o);
      if (!n.name().empty()) {
        std::string nn = n.name();
        if (!scope.empty() && nn.rfind(scope, 0) == 0) nn = "/" + nn.substr(scope.size());
        n.set_name(nn);
      }
      const Item& it = items_[idx[k]];
      write_body_record(n, relative_path(it.module, m.path), relative_tag(it.tag, m.tag), it.evidence);
      *f.add_node() = std::move(n);
    }
    for (const auto& o : outputs) f.add_output(rename(o));
    for (const auto& op : model_.proto().opset_import())
      if (op.domain() != kFunctionDomain) *f.add_opset_import() = op;
    auto* own = f.add_opset_import();
    own->set_domain(kFunctionDomain);
    own->set_version(1);
    *model_.proto().add_functions() = std::move(f);
  }

  void finish() {
    auto* g = model_.proto().mutable_graph();
    g->clear_node();
    std::unordered_set<std::string> live;
    for (const auto& i : g->input()) live.insert(i.name());
    for (const auto& it : items_) {
      *g->add_node() = it.node;
      for (const auto& o : it.node.output()) live.insert(o);
    }
    // value_info of tensors that now live inside functions would dangle.
    auto* vi = g->mutable_value_info();
    for (int k = vi->size() - 1; k >= 0; --k)
      if (!live.count(vi->Get(k).name())) vi->DeleteSubrange(k, 1);
    if (!definitions_.empty()) {
      bool has = false;
      for (const auto& op : model_.proto().opset_import()) has |= op.domain() == kFunctionDomain;
      if (!has) {
        auto* op = model_.proto().add_opset_import();
        op->set_domain(kFunctionDomain);
        op->set_version(1);
      }
    }
    hierarchy::Document doc = model_.hierarchy;
    doc.nodes.clear();
    for (const auto& it : items_) {
      hierarchy::NodeRecord r;
      r.name = it.node.name();
      r.index = static_cast<int64_t>(doc.nodes.size());  // the node's new position
      r.module = it.module;
      r.tag = it.tag;
      r.evidence = it.evidence;
      doc.nodes.push_back(std::move(r));
    }
    doc.extra["functions"] = summary();
    model::set_hierarchy(model_, std::move(doc), model::display_name(model_));
  }

  Json summary() const {
    Json defs = Json::array();
    for (const auto& d : definitions_)
      defs.push_back({{"name", d.name},
                      {"domain", kFunctionDomain},
                      {"class", d.class_name},
                      {"structure", d.structure},
                      {"body_nodes", d.body_nodes},
                      {"instances", d.instances}});
    return {{"domain", kFunctionDomain}, {"definitions", defs}};
  }

  Json report() const {
    Json r;
    r["functions"] = definitions_.size();
    r["calls"] = calls_;
    r["top_level_nodes"] = items_.size();
    r["definitions"] = summary()["definitions"];
    r["skipped"] = skipped_;
    r["record_mismatches"] = record_mismatches_;
    return r;
  }

  mx_model& model_;
  const FunctionOptions& options_;
  Progress& progress_;
  std::vector<Item> items_;
  std::unordered_set<std::string> graph_outputs_;
  std::set<std::string> taken_names_;
  std::map<std::string, size_t> structures_;
  std::vector<Definition> definitions_;
  Json skipped_ = Json::array();
  size_t calls_ = 0;
  size_t record_mismatches_ = 0;
};

}  // namespace

FunctionOptions parse_function_options(const char* options_json) {
  const auto j = parse_options(options_json, "functions options",
                               {"classes", "modules", "min_nodes", "include_builtin"});
  FunctionOptions o;
  for (const char* key : {"classes", "modules"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_array())
      fail(MX_ERR_INVALID_ARGUMENT,
           std::string("functions options: ") + key + " must be an array of strings");
    for (const auto& v : j[key]) {
      if (!v.is_string())
        fail(MX_ERR_INVALID_ARGUMENT,
             std::string("functions options: ") + key + " must be an array of strings");
      (std::string(key) == "classes" ? o.classes : o.modules).push_back(v.get<std::string>());
    }
  }
  if (j.contains("min_nodes")) {
    if (!j["min_nodes"].is_number_integer() || j["min_nodes"].get<int>() < 1)
      fail(MX_ERR_INVALID_ARGUMENT, "functions options: min_nodes must be an integer >= 1");
    o.min_nodes = j["min_nodes"].get<int>();
  }
  o.include_builtin = option_bool(j, "include_builtin", false);
  return o;
}

Json to_functions(mx_model& model, const FunctionOptions& options, Progress& progress) {
  // Work on a copy so a failure leaves the model untouched.
  mx_model work;
  work.proto() = model.proto();
  work.hierarchy = model.hierarchy;
  work.source_path = model.source_path;
  Json report = Pass(work, options, progress).run();
  model.swap_proto(work);
  model.hierarchy = std::move(work.hierarchy);
  return report;
}

}  // namespace mx::functions
