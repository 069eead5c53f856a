// `modelexport inspect FILE.onnx [--json]`: what is in an ONNX file — graph
// summary, and the module tree with node counts when it has a hierarchy.
#include <cstdio>
#include <iostream>
#include <map>

#include "cli.hpp"
#include "modelexport/modelexport.hpp"

namespace modelexport::cli {
namespace {

using nlohmann::json;

std::string shape_text(const json& v) {
  std::string s = v["dtype"].is_string() ? v["dtype"].get<std::string>() : "?";
  if (!v["shape"].is_array()) return s;
  s += "[";
  for (size_t i = 0; i < v["shape"].size(); ++i) {
    const json& d = v["shape"][i];
    s += (i ? "," : "") + (d.is_string() ? d.get<std::string>() : d.is_null() ? "?" : d.dump());
  }
  return s + "]";
}

json op_histogram(const json& graph) {
  std::map<std::string, int> counts;
  for (const auto& n : graph["nodes"]) {
    const std::string domain = n["domain"];
    counts[(domain.empty() ? "" : domain + "::") + n["op_type"].get<std::string>()]++;
  }
  return counts;
}

json io_list(const json& values) {
  json out = json::array();
  for (const auto& v : values) out.push_back({{"name", v["name"]}, {"type", shape_text(v)}});
  return out;
}

json graph_summary(const std::string& path, const json& graph) {
  json s;
  s["file"] = path;
  s["ir_version"] = graph["ir_version"];
  s["opset_import"] = graph["opset_import"];
  s["producer"] = graph["producer_name"].get<std::string>() + " " +
                  graph["producer_version"].get<std::string>();
  s["nodes"] = graph["nodes"].size();
  s["initializers"] = graph["initializers"].size();
  s["ops"] = op_histogram(graph);
  s["inputs"] = io_list(graph["inputs"]);
  s["outputs"] = io_list(graph["outputs"]);
  return s;
}

// Module rows in document order with own (records naming the module) and
// total (own + descendants') node counts.
json module_rows(const json& hierarchy) {
  std::map<std::string, int> own;
  for (const auto& r : hierarchy["nodes"]) own[r["module"].get<std::string>()]++;
  std::map<std::string, int> total;
  for (const auto& [module, count] : own) {
    // Credit every ancestor prefix ("a.b.c" -> "a.b", "a", "").
    std::string path = module;
    while (true) {
      total[path] += count;
      if (path.empty()) break;
      auto dot = path.rfind('.');
      path = dot == std::string::npos ? "" : path.substr(0, dot);
    }
  }
  json rows = json::array();
  for (const auto& m : hierarchy["modules"]) {
    const std::string path = m["path"];
    rows.push_back({{"path", path}, {"class", m["class"]}, {"tag", m.value("tag", "")},
                    {"own_nodes", own[path]}, {"total_nodes", total[path]}});
  }
  return rows;
}

int depth_of(const std::string& path) {
  if (path.empty()) return 0;
  int depth = 1;
  for (char c : path) depth += c == '.';
  return depth;
}

void print_text(const json& s, const json* hierarchy) {
  std::printf("file:         %s\n", s["file"].get<std::string>().c_str());
  std::printf("ir_version:   %s\n", s["ir_version"].dump().c_str());
  std::string opsets;
  for (const auto& [domain, v] : s["opset_import"].items())
    opsets += (opsets.empty() ? "" : ", ") + (domain.empty() ? "ai.onnx" : domain) + " " + v.dump();
  std::printf("opsets:       %s\n", opsets.c_str());
  std::printf("producer:     %s\n", s["producer"].get<std::string>().c_str());
  std::printf("nodes:        %zu (%zu initializers)\n", s["nodes"].get<size_t>(),
              s["initializers"].get<size_t>());
  std::printf("ops:\n");
  for (const auto& [op, n] : s["ops"].items()) std::printf("  %-24s %d\n", op.c_str(), n.get<int>());
  for (const char* kind : {"inputs", "outputs"}) {
    std::printf("%s:\n", kind);
    for (const auto& v : s[kind])
      std::printf("  %-24s %s\n", v["name"].get<std::string>().c_str(),
                  v["type"].get<std::string>().c_str());
  }
  if (!hierarchy) {
    std::printf("hierarchy:    none\n");
    return;
  }
  std::printf("hierarchy:    %zu records; evidence: %s\n", (*hierarchy)["nodes"].size(),
              evidence_mix((*hierarchy)["statistics"]).c_str());
  std::printf("modules:      (own / total nodes)\n");
  for (const auto& row : module_rows(*hierarchy)) {
    const std::string path = row["path"];
    const std::string label = std::string(2 * depth_of(path), ' ') +
                              (path.empty() ? "(root)" : path) + "  " +
                              row["class"].get<std::string>();
    std::printf("  %-56s %5d / %5d\n", label.c_str(), row["own_nodes"].get<int>(),
                row["total_nodes"].get<int>());
  }
}

}  // namespace

int cmd_inspect(const std::vector<std::string>& argv) {
  Args args(argv, {"--json"}, {});
  args.expect_positionals(1, "FILE.onnx");
  const std::string path = args.positionals()[0];
  const Model model = Model::load_file(path);
  const json summary = graph_summary(path, json::parse(model.graph_json()));
  json hierarchy;
  if (model.has_hierarchy()) hierarchy = json::parse(model.hierarchy_json());
  if (args.flag("--json")) {
    json out = summary;
    if (!hierarchy.is_null())
      out["hierarchy"] = {{"statistics", hierarchy["statistics"]},
                          {"modules", module_rows(hierarchy)}};
    std::cout << out.dump(2) << "\n";
  } else {
    print_text(summary, hierarchy.is_null() ? nullptr : &hierarchy);
  }
  return 0;
}

}  // namespace modelexport::cli
