#include "inspect/modules.hpp"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "functions/graph_utils.hpp"
#include "hierarchy/document_text.hpp"
#include "mx/common/module_path.hpp"
#include "util/json_text.hpp"

namespace mx::inspect {
namespace {

using mx::common::parent_path;

int64_t elements(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  return n;
}

// Rows in tree order, then modules only records mention; the root first
// when the tree lacks it. Views into `doc` and `leaves`. The tree's paths
// are told apart by its index (a second hash set of a million paths cost
// as much as the index).
std::vector<std::string_view> row_order(const hierarchy::Document& doc, const hierarchy::ModuleIndex& index,
                                        const std::vector<functions::LeafNode>& leaves) {
  std::vector<std::string_view> order;
  order.reserve(doc.modules.size() + 1);
  for (const auto& m : doc.modules)
    if (index.find(m.path) == &m) order.push_back(m.path);  // a repeated path once
  std::unordered_set<std::string_view> others;
  for (const auto& l : leaves)
    if (!index.contains(l.module) && others.insert(l.module).second) order.push_back(l.module);
  if (!index.contains("") && !others.count("")) order.insert(order.begin(), std::string_view());
  return order;
}

// Per-path sums, credited to a module and each of its ancestors. Only the
// paths of nodes' modules and their ancestors get entries: a lookup of any
// other path is 0, without inserting it.
struct Tally {
  std::unordered_map<std::string, int64_t> own, total, own_params, total_params;
  std::unordered_map<std::string, OpCounts> ops, ops_total;
};

template <typename Map>
typename Map::mapped_type value_or_empty(const Map& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? typename Map::mapped_type{} : it->second;
}

Tally tally(const mx_model& model, const std::vector<functions::LeafNode>& leaves,
            const hierarchy::ModuleIndex& index) {
  // The tree's parent when the module has one, else the path's prefix.
  auto up = [&](const std::string& p) -> std::string {
    const hierarchy::Module* m = index.find(p);
    const auto parent = m ? hierarchy::stated_parent(*m) : std::nullopt;
    return parent ? std::string(*parent) : parent_path(p);
  };
  Tally t;
  for (const auto& l : leaves) {
    const std::string op = (l.node->domain().empty() ? "" : l.node->domain() + "::") + l.node->op_type();
    t.own[l.module]++;
    t.ops[l.module][op]++;
    std::string p = l.module;
    for (int guard = 0; guard < 256; ++guard) {
      t.total[p]++;
      t.ops_total[p][op]++;
      if (p.empty()) break;
      p = up(p);
    }
  }
  // Parameters: the tree's figures when present, else initializer
  // elements credited to the module of their first consumer (flat models).
  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& init : model.proto().graph().initializer()) inits[init.name()] = &init;
  std::unordered_set<std::string> credited;
  for (const auto& l : leaves) {
    if (!l.call_chain.empty()) continue;
    for (const auto& in : l.node->input()) {
      auto it = inits.find(in);
      if (it == inits.end() || !credited.insert(in).second) continue;
      const int64_t n = elements(*it->second);
      t.own_params[l.module] += n;
      std::string p = l.module;
      for (int guard = 0; guard < 256; ++guard) {
        t.total_params[p] += n;
        if (p.empty()) break;
        p = up(p);
      }
    }
  }
  return t;
}

// A row's values as JSON text; integers as nlohmann writes them.
void append_value(std::string& out, const std::string& text) {
  append_json_string(out, text);
}

void append_value(std::string& out, int64_t v) {
  out += std::to_string(v);
}

void append_value(std::string& out, const OpCounts& ops) {
  out += '{';
  bool first = true;
  for (const auto& [op, n] : ops) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, op);
    out += ':';
    append_value(out, n);
  }
  out += '}';
}

void append_value(std::string& out, const std::optional<std::string>& text) {
  if (text) append_json_string(out, *text);
  else out += "null";
}

// `key` is the field's name with its separator and colon (`,"tag":`).
template <typename Value>
void append_field(std::string& out, const char* key, const Value& value) {
  out += key;
  append_value(out, value);
}

void append_row(std::string& out, const ModuleRow& r) {
  append_field(out, "{\"path\":", r.path);
  append_field(out, ",\"class\":", r.class_name);
  append_field(out, ",\"tag\":", r.tag);
  append_field(out, ",\"depth\":", int64_t{r.depth});
  append_field(out, ",\"own_nodes\":", r.own_nodes);
  append_field(out, ",\"total_nodes\":", r.total_nodes);
  append_field(out, ",\"own_parameters\":", r.own_parameters);
  append_field(out, ",\"parameters\":", r.parameters);
  append_field(out, ",\"ops\":", r.ops);
  append_field(out, ",\"ops_total\":", r.ops_total);
  append_field(out, ",\"function\":", r.function);
  out += '}';
}

}  // namespace

std::string nearest_known(const std::string& path, const hierarchy::ModuleIndex& tree) {
  std::string p = path;
  while (true) {
    if (tree.contains(p)) return p;
    if (p.empty()) return "";
    p = parent_path(p);
  }
}

namespace {

// What every row is computed from, built once; rows are filled one at a
// time (streamed as text, or collected by module_stats).
struct RowSource {
  explicit RowSource(const mx_model& m)
      : model(m),
        doc(m.hierarchy),
        leaves(functions::expand(m.proto(), doc)),
        fn_of(functions::instance_functions(m.proto(), doc)),
        index(doc),
        t(tally(m, leaves, index)),
        order(row_order(doc, index, leaves)) {}

  void fill(size_t k, ModuleRow& r) const {
    r.path.assign(order[k]);
    const hierarchy::Module* m = index.find(r.path);
    r.class_name.assign(m ? m->class_name : std::string());
    r.tag.assign(m ? m->tag : std::string());
    r.depth = static_cast<int>(mx::common::path_depth(r.path));
    r.own_nodes = value_or_empty(t.own, r.path);
    r.total_nodes = value_or_empty(t.total, r.path);
    r.own_parameters = m && m->own_parameters() ? *m->own_parameters() : value_or_empty(t.own_params, r.path);
    r.parameters = m && m->parameters() ? *m->parameters() : value_or_empty(t.total_params, r.path);
    r.ops = value_or_empty(t.ops, r.path);
    r.ops_total = value_or_empty(t.ops_total, r.path);
    r.function.reset();
    if (auto f = fn_of.find(r.path); f != fn_of.end()) r.function = f->second;
  }

  std::vector<FunctionRow> functions() const {
    std::vector<FunctionRow> out;
    std::map<std::string, std::vector<std::string>> instances;
    for (const auto& [m, f] : fn_of) instances[f].push_back(m);
    for (const auto& f : model.proto().functions()) {
      if (f.domain() != functions::kFunctionDomain) continue;
      out.push_back({f.name(), f.domain(), f.node_size(), instances[f.name()]});
    }
    return out;
  }

  const mx_model& model;
  const hierarchy::Document& doc;
  const std::vector<functions::LeafNode> leaves;
  const std::map<std::string, std::string> fn_of;  // module path -> local function
  const hierarchy::ModuleIndex index;
  const Tally t;
  const std::vector<std::string_view> order;
};

}  // namespace

ModuleStats module_stats(const mx_model& model) {
  const RowSource source(model);
  ModuleStats stats;
  stats.nodes = source.leaves.size();
  stats.top_level_nodes = model.proto().graph().node_size();
  stats.modules.resize(source.order.size());
  for (size_t k = 0; k < source.order.size(); ++k) source.fill(k, stats.modules[k]);
  stats.functions = source.functions();
  return stats;
}

std::string modules_json_text(const mx_model& model, bool statistics) {
  // Rows streamed: one row filled and written at a time (a million rows
  // were a million ModuleRows first).
  const RowSource source(model);
  std::string out = "{\"nodes\":" + std::to_string(source.leaves.size()) +
                    ",\"top_level_nodes\":" + std::to_string(model.proto().graph().node_size()) +
                    ",\"functions\":";
  // A handful of entries: nlohmann writes them.
  nlohmann::ordered_json fns = nlohmann::ordered_json::array();
  for (const auto& f : source.functions())
    fns.push_back(
        {{"name", f.name}, {"domain", f.domain}, {"body_nodes", f.body_nodes}, {"instances", f.instances}});
  out += dump_text(fns);
  out += ",\"modules\":[";
  ModuleRow row;
  for (size_t k = 0; k < source.order.size(); ++k) {
    if (k) out += ',';
    source.fill(k, row);
    append_row(out, row);
  }
  out += ']';
  if (statistics) {
    out += ",\"statistics\":";
    out += dump_text(hierarchy::statistics_json(model.hierarchy));
  }
  out += '}';
  return out;
}

std::string module_counts_json_text(const mx_model& model, bool statistics) {
  std::string out = "{\"top_level_nodes\":" + std::to_string(model.proto().graph().node_size()) +
                    ",\"module_count\":" + std::to_string(model.hierarchy.modules.size());
  if (statistics) {
    out += ",\"statistics\":";
    out += dump_text(hierarchy::statistics_json(model.hierarchy));
  }
  out += '}';
  return out;
}

}  // namespace mx::inspect
