#include "compare/compare.hpp"

#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "inspect/modules.hpp"
#include "util/error.hpp"
#include "util/options.hpp"

namespace mx::compare {
namespace {

using Json = nlohmann::ordered_json;

void require_records(const mx_model& m, const std::string& name) {
  if (m.hierarchy.nodes.empty())
    fail(MX_ERR_UNSUPPORTED, name + " carries no hierarchy records: tag it first with modelexport tag");
}

Json pair(int64_t a, int64_t b) {
  return Json{{"a", a}, {"b", b}, {"delta", b - a}};
}

// Ops whose count grows from A to B ("added", count = increase) and those
// whose count shrinks ("removed", count = decrease).
void op_delta(const inspect::OpCounts& a_ops, const inspect::OpCounts& b_ops, Json& added, Json& removed) {
  std::map<std::string, int64_t> counts;
  for (const auto& [op, n] : a_ops) counts[op] -= n;
  for (const auto& [op, n] : b_ops) counts[op] += n;
  added = Json::object();
  removed = Json::object();
  for (const auto& [op, d] : counts) {
    if (d > 0) added[op] = d;
    if (d < 0) removed[op] = -d;
  }
}

}  // namespace

CompareOptions parse_compare_options(const char* options_json) {
  const auto j = parse_options(options_json, "compare options", {"a_name", "b_name"});
  CompareOptions o;
  o.a_name = option_string(j, "a_name", o.a_name);
  o.b_name = option_string(j, "b_name", o.b_name);
  return o;
}

Json compare_models(const mx_model& a, const mx_model& b, const CompareOptions& options) {
  require_records(a, options.a_name);
  require_records(b, options.b_name);
  const inspect::ModuleStats sa = inspect::module_stats(a);
  const inspect::ModuleStats sb = inspect::module_stats(b);

  // Union of module paths: A's order, then modules only B has.
  std::vector<std::string> order;
  std::unordered_map<std::string, const inspect::ModuleRow*> ra, rb;
  for (const auto& row : sa.modules)
    if (ra.emplace(row.path, &row).second) order.push_back(row.path);
  for (const auto& row : sb.modules)
    if (rb.emplace(row.path, &row).second && !ra.count(row.path)) order.push_back(row.path);

  int64_t equal = 0, different = 0, only_a = 0, only_b = 0, below = 0;
  Json rows = Json::array();
  for (const auto& path : order) {
    const auto ia = ra.find(path), ib = rb.find(path);
    Json row;
    row["path"] = path;
    if (ib == rb.end() || ia == ra.end()) {
      const bool in_a = ib == rb.end();
      const inspect::ModuleRow& r = *(in_a ? ia->second : ib->second);
      row["status"] = in_a ? "only_in_a" : "only_in_b";
      row["class"] = r.class_name;
      row["own_nodes"] = r.own_nodes;
      row["total_nodes"] = r.total_nodes;
      row["parameters"] = r.parameters;
      row["ops"] = r.ops;
      (in_a ? only_a : only_b)++;
      rows.push_back(std::move(row));
      continue;
    }
    const inspect::ModuleRow& x = *ia->second;
    const inspect::ModuleRow& y = *ib->second;
    Json added, removed;
    op_delta(x.ops, y.ops, added, removed);
    const std::string& ca = x.class_name;
    const std::string& cb = y.class_name;
    const bool own_differs = x.own_nodes != y.own_nodes || !added.empty() || !removed.empty() ||
                             x.own_parameters != y.own_parameters || (!ca.empty() && !cb.empty() && ca != cb);
    const bool total_differs =
        x.total_nodes != y.total_nodes || x.parameters != y.parameters || x.ops_total != y.ops_total;
    row["status"] = own_differs ? "different" : "equal";
    row["descendants_differ"] = !own_differs && total_differs;
    row["class"] = ca.empty() ? cb : ca;
    if (!ca.empty() && !cb.empty() && ca != cb) row["class_b"] = cb;
    row["own_nodes"] = pair(x.own_nodes, y.own_nodes);
    row["total_nodes"] = pair(x.total_nodes, y.total_nodes);
    row["own_parameters"] = pair(x.own_parameters, y.own_parameters);
    row["parameters"] = pair(x.parameters, y.parameters);
    row["ops_added"] = added;
    row["ops_removed"] = removed;
    (own_differs ? different : equal)++;
    if (!own_differs && total_differs) below++;
    rows.push_back(std::move(row));
  }

  Json out;
  out["a"] = {{"name", options.a_name}, {"nodes", sa.nodes}, {"modules", sa.modules.size()}};
  out["b"] = {{"name", options.b_name}, {"nodes", sb.nodes}, {"modules", sb.modules.size()}};
  out["summary"] = {{"modules", order.size()},
                    {"equal", equal},
                    {"different", different},
                    {"only_in_a", only_a},
                    {"only_in_b", only_b},
                    {"equal_with_descendant_differences", below},
                    {"identical", different == 0 && only_a == 0 && only_b == 0}};
  out["modules"] = std::move(rows);
  return out;
}

}  // namespace mx::compare
