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

int64_t num(const Json& row, const char* key) {
  return row.contains(key) && row[key].is_number() ? row[key].get<int64_t>() : 0;
}

Json pair(int64_t a, int64_t b) {
  return Json{{"a", a}, {"b", b}, {"delta", b - a}};
}

// Ops whose count grows from A to B ("added", count = increase) and those
// whose count shrinks ("removed", count = decrease).
void op_delta(const Json& a_ops, const Json& b_ops, Json& added, Json& removed) {
  std::map<std::string, int64_t> counts;
  for (const auto& [op, n] : a_ops.items()) counts[op] -= n.get<int64_t>();
  for (const auto& [op, n] : b_ops.items()) counts[op] += n.get<int64_t>();
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
  const Json sa = inspect::modules_json(a);
  const Json sb = inspect::modules_json(b);

  // Union of module paths: A's order, then modules only B has.
  std::vector<std::string> order;
  std::unordered_map<std::string, const Json*> ra, rb;
  for (const auto& row : sa["modules"]) {
    const auto path = row["path"].get<std::string>();
    if (ra.emplace(path, &row).second) order.push_back(path);
  }
  for (const auto& row : sb["modules"]) {
    const auto path = row["path"].get<std::string>();
    if (rb.emplace(path, &row).second && !ra.count(path)) order.push_back(path);
  }

  int64_t equal = 0, different = 0, only_a = 0, only_b = 0, below = 0;
  Json rows = Json::array();
  for (const auto& path : order) {
    const auto ia = ra.find(path), ib = rb.find(path);
    Json row;
    row["path"] = path;
    if (ib == rb.end() || ia == ra.end()) {
      const bool in_a = ib == rb.end();
      const Json& r = *(in_a ? ia->second : ib->second);
      row["status"] = in_a ? "only_in_a" : "only_in_b";
      row["class"] = r["class"];
      row["own_nodes"] = num(r, "own_nodes");
      row["total_nodes"] = num(r, "total_nodes");
      row["parameters"] = num(r, "parameters");
      row["ops"] = r["ops"];
      (in_a ? only_a : only_b)++;
      rows.push_back(std::move(row));
      continue;
    }
    const Json& x = *ia->second;
    const Json& y = *ib->second;
    Json added, removed;
    op_delta(x["ops"], y["ops"], added, removed);
    const auto ca = x["class"].get<std::string>(), cb = y["class"].get<std::string>();
    const bool own_differs = num(x, "own_nodes") != num(y, "own_nodes") || !added.empty() ||
                             !removed.empty() || num(x, "own_parameters") != num(y, "own_parameters") ||
                             (!ca.empty() && !cb.empty() && ca != cb);
    const bool total_differs = num(x, "total_nodes") != num(y, "total_nodes") ||
                               num(x, "parameters") != num(y, "parameters") ||
                               x["ops_total"] != y["ops_total"];
    row["status"] = own_differs ? "different" : "equal";
    row["descendants_differ"] = !own_differs && total_differs;
    row["class"] = ca.empty() ? cb : ca;
    if (!ca.empty() && !cb.empty() && ca != cb) row["class_b"] = cb;
    row["own_nodes"] = pair(num(x, "own_nodes"), num(y, "own_nodes"));
    row["total_nodes"] = pair(num(x, "total_nodes"), num(y, "total_nodes"));
    row["own_parameters"] = pair(num(x, "own_parameters"), num(y, "own_parameters"));
    row["parameters"] = pair(num(x, "parameters"), num(y, "parameters"));
    row["ops_added"] = added;
    row["ops_removed"] = removed;
    (own_differs ? different : equal)++;
    if (!own_differs && total_differs) below++;
    rows.push_back(std::move(row));
  }

  Json out;
  out["a"] = {{"name", options.a_name}, {"nodes", sa["nodes"]}, {"modules", sa["modules"].size()}};
  out["b"] = {{"name", options.b_name}, {"nodes", sb["nodes"]}, {"modules", sb["modules"].size()}};
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
