#include "inspect/modules.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "functions/graph_utils.hpp"

namespace modelexport::inspect {
namespace {

using Json = nlohmann::ordered_json;

std::string parent_of(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

int64_t elements(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  return n;
}

}  // namespace

std::string nearest_known(const std::string& path, const hierarchy::ModuleIndex& tree) {
  std::string p = path;
  while (true) {
    if (tree.contains(p)) return p;
    if (p.empty()) return "";
    p = parent_of(p);
  }
}

Json modules_json(const mx_model& model) {
  const auto& doc = model.hierarchy;
  const auto leaves = functions::expand(model.proto, doc);
  const auto fn_of = functions::instance_functions(model.proto, doc);

  // Rows in tree order, then modules only records mention.
  std::vector<std::string> order;
  std::unordered_set<std::string> known;
  known.reserve(doc.modules.size());
  for (const auto& m : doc.modules)
    if (known.insert(m.path).second) order.push_back(m.path);
  for (const auto& l : leaves)
    if (known.insert(l.module).second) order.push_back(l.module);
  if (!known.count("")) order.insert(order.begin(), ""), known.insert("");

  std::unordered_map<std::string, std::string> parent;
  parent.reserve(doc.modules.size());
  for (const auto& m : doc.modules)
    if (m.parent) parent[m.path] = *m.parent;
  auto up = [&](const std::string& p) -> std::string {
    auto it = parent.find(p);
    return it != parent.end() ? it->second : parent_of(p);
  };

  std::unordered_map<std::string, int64_t> own, total;
  std::unordered_map<std::string, std::map<std::string, int64_t>> ops, ops_total;
  for (const auto& l : leaves) {
    const std::string op = (l.node->domain().empty() ? "" : l.node->domain() + "::") + l.node->op_type();
    own[l.module]++;
    ops[l.module][op]++;
    std::string p = l.module;
    for (int guard = 0; guard < 256; ++guard) {
      total[p]++;
      ops_total[p][op]++;
      if (p.empty()) break;
      p = up(p);
    }
  }

  // Parameters: the tree's figures when present, else initializer
  // elements credited to the module of their first consumer (flat models).
  std::unordered_map<std::string, int64_t> own_params, total_params;
  {
    std::unordered_map<std::string, const onnx::TensorProto*> inits;
    for (const auto& t : model.proto.graph().initializer()) inits[t.name()] = &t;
    std::set<std::string> credited;
    for (const auto& l : leaves) {
      if (!l.call_chain.empty()) continue;
      for (const auto& in : l.node->input()) {
        auto it = inits.find(in);
        if (it == inits.end() || !credited.insert(in).second) continue;
        const int64_t n = elements(*it->second);
        own_params[l.module] += n;
        std::string p = l.module;
        for (int guard = 0; guard < 256; ++guard) {
          total_params[p] += n;
          if (p.empty()) break;
          p = up(p);
        }
      }
    }
  }

  std::map<std::string, std::vector<std::string>> instances;
  for (const auto& [m, f] : fn_of) instances[f].push_back(m);

  const hierarchy::ModuleIndex index(doc);
  Json rows = Json::array();
  for (const auto& path : order) {
    const auto* m = index.find(path);
    Json row;
    row["path"] = path;
    row["class"] = m ? m->class_name : "";
    row["tag"] = m ? m->tag : "";
    row["depth"] = functions::path_depth(path);
    row["own_nodes"] = own[path];
    row["total_nodes"] = total[path];
    row["own_parameters"] = m && m->own_parameters ? *m->own_parameters : own_params[path];
    row["parameters"] = m && m->parameters ? *m->parameters : total_params[path];
    row["ops"] = ops[path];
    row["ops_total"] = ops_total[path];
    auto f = fn_of.find(path);
    row["function"] = f == fn_of.end() ? Json(nullptr) : Json(f->second);
    rows.push_back(std::move(row));
  }
  Json fns = Json::array();
  for (const auto& f : model.proto.functions()) {
    if (f.domain() != functions::kFunctionDomain) continue;
    fns.push_back({{"name", f.name()}, {"domain", f.domain()}, {"body_nodes", f.node_size()},
                   {"instances", instances[f.name()]}});
  }
  Json out;
  out["nodes"] = leaves.size();
  out["top_level_nodes"] = model.proto.graph().node_size();
  out["functions"] = fns;
  out["modules"] = rows;
  return out;
}

}  // namespace modelexport::inspect
