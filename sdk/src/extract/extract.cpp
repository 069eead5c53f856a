#include "extract/extract.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "extract/boundary_types.hpp"
#include "functions/graph_utils.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/options.hpp"

namespace mx::extract {
namespace {

using mx::common::is_ancestor_or_self;

std::vector<std::string> known_paths(const hierarchy::Document& doc) {
  std::set<std::string> s;
  for (const auto& m : doc.modules) s.insert(m.path);
  for (const auto& r : doc.nodes) s.insert(r.module);
  return {s.begin(), s.end()};
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> closest(const std::string& query, const std::vector<std::string>& candidates,
                                 size_t limit) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) scored.emplace_back(edit_distance(query, c), c);
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

ExtractOptions parse_extract_options(const char* options_json) {
  const auto j = parse_options(options_json, "extract options", {"include_constants"});
  ExtractOptions o;
  o.include_constants = option_bool(j, "include_constants", true);
  return o;
}

std::unique_ptr<mx_model> extract_module(const mx_model& model, const std::string& module,
                                         const ExtractOptions& options) {
  const std::string where = model::display_name(model);
  const auto& doc = model.hierarchy;
  if (functions::has_local_functions(model.proto()))
    fail(MX_ERR_UNSUPPORTED, where +
                                 ": extraction works on flat models; this one has "
                                 "modelexport.fn functions (extract from the flat export)");
  const auto paths = known_paths(doc);
  if (!std::count(paths.begin(), paths.end(), module)) {
    std::string msg = where + ": no module '" + module + "'";
    const auto near = closest(module, paths, 5);
    if (!near.empty()) {
      msg += "; closest:";
      for (size_t i = 0; i < near.size(); ++i) msg += (i ? ", '" : " '") + near[i] + "'";
    } else {
      msg += " (the model carries no hierarchy)";
    }
    fail(MX_ERR_NOT_FOUND, msg);
  }

  const auto& g = model.proto().graph();
  const auto lookup = functions::record_lookup(doc, model.proto());
  std::vector<char> member(static_cast<size_t>(g.node_size()), 0);
  std::unordered_set<std::string> produced;
  size_t count = 0;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto* r = lookup[static_cast<size_t>(i)];
    const std::string m = r ? r->module : "";
    if (is_ancestor_or_self(module, m)) {
      member[static_cast<size_t>(i)] = 1;
      ++count;
      for (const auto& o : g.node(i).output()) produced.insert(o);
    }
  }
  if (!count) fail(MX_ERR_NOT_FOUND, where + ": module '" + module + "' has no nodes");

  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  // Constant producers outside the module, pulled in when asked.
  std::unordered_map<std::string, int> const_producer;
  if (options.include_constants)
    for (int i = 0; i < g.node_size(); ++i)
      if (!member[static_cast<size_t>(i)] && g.node(i).op_type() == "Constant" &&
          g.node(i).domain().empty() && g.node(i).input_size() == 0 && g.node(i).output_size() == 1)
        const_producer[g.node(i).output(0)] = i;

  auto out = std::make_unique<mx_model>();
  // Initializers copied below may refer to the source's external data: the
  // part reads the same opened files (a save writes the part's own).
  out->external_files = model.external_files;
  onnx::ModelProto& p = out->proto();
  p.set_ir_version(model.proto().ir_version());
  *p.mutable_opset_import() = model.proto().opset_import();
  p.set_producer_name(model.proto().producer_name());
  p.set_producer_version(model.proto().producer_version());
  p.set_domain(model.proto().domain());
  p.set_model_version(model.proto().model_version());
  p.set_doc_string("modelexport: module '" + module + "' extracted from " + where);
  auto* og = p.mutable_graph();
  og->set_name(module.empty() ? g.name() : module);

  BoundaryTypes types(model.proto());
  auto typed = [&](const std::string& name) {
    const auto* v = types.find(name);
    if (!v)
      fail(MX_ERR_UNSUPPORTED, where + ": boundary tensor '" + name + "' of module '" + module +
                                   "' has no known type and shape (even after shape inference)");
    onnx::ValueInfoProto copy = *v;
    copy.set_name(name);
    return copy;
  };

  std::unordered_set<std::string> seen_inputs, added_consts;
  std::vector<int> pulled;
  for (int i = 0; i < g.node_size(); ++i) {
    if (!member[static_cast<size_t>(i)]) continue;
    for (const auto& in : g.node(i).input()) {
      if (in.empty() || produced.count(in) || seen_inputs.count(in)) continue;
      seen_inputs.insert(in);
      if (auto t = inits.find(in); t != inits.end()) {
        *og->add_initializer() = *t->second;
      } else if (auto c = const_producer.find(in); c != const_producer.end()) {
        if (added_consts.insert(in).second) pulled.push_back(c->second);
      } else {
        *og->add_input() = typed(in);
      }
    }
  }
  std::sort(pulled.begin(), pulled.end());
  // Source position of each node of the part, in the part's order.
  std::vector<int> source_of;
  for (int i : pulled) {
    *og->add_node() = g.node(i);
    source_of.push_back(i);
  }
  for (int i = 0; i < g.node_size(); ++i)
    if (member[static_cast<size_t>(i)]) {
      *og->add_node() = g.node(i);
      source_of.push_back(i);
    }

  std::unordered_set<std::string> used_outside, graph_outputs;
  for (int i = 0; i < g.node_size(); ++i)
    if (!member[static_cast<size_t>(i)])
      for (const auto& in : g.node(i).input()) used_outside.insert(in);
  for (const auto& o : g.output()) graph_outputs.insert(o.name());
  std::unordered_set<std::string> added_outputs;
  for (int i = 0; i < g.node_size(); ++i) {
    if (!member[static_cast<size_t>(i)]) continue;
    for (const auto& o : g.node(i).output())
      if (!o.empty() && (used_outside.count(o) || graph_outputs.count(o)) && added_outputs.insert(o).second)
        *og->add_output() = typed(o);
  }
  if (og->output_size() == 0)
    fail(MX_ERR_NOT_FOUND, where + ": module '" + module + "' produces nothing used outside it");
  // Keep intermediate types the source knew.
  std::unordered_set<std::string> io;
  for (const auto& v : og->input()) io.insert(v.name());
  for (const auto& v : og->output()) io.insert(v.name());
  for (const auto& v : g.value_info())
    if (produced.count(v.name()) && !io.count(v.name())) *og->add_value_info() = v;
  // Local functions (foreign domains) used by the nodes stay available.
  *p.mutable_functions() = model.proto().functions();

  hierarchy::Document d;
  d.producer = doc.producer;
  d.model = doc.model.is_null() ? hierarchy::Json::object() : doc.model;
  d.model["extracted_module"] = module;
  d.modules = doc.modules;
  d.extra = doc.extra;
  // Records move with their nodes: the key is the node's new position.
  for (size_t k = 0; k < source_of.size(); ++k)
    if (const auto* r = lookup[static_cast<size_t>(source_of[k])]) {
      d.nodes.push_back(*r);
      d.nodes.back().index = static_cast<int64_t>(k);
    }
  out->source_path = "";
  model::set_hierarchy(*out, std::move(d), where + " (extracted '" + module + "')");
  return out;
}

}  // namespace mx::extract
