// `modelexport inspect FILE.onnx [--json]`: what is in an ONNX file — graph
// summary, and the module tree with node counts when it has a hierarchy.
#include <cstdio>
#include <iostream>
#include <algorithm>
#include <fstream>
#include <map>

#include <memory>
#include <optional>

#include "cli.hpp"
#include "command.hpp"
#include "module_rows.hpp"
#include "modelexport/modelexport.hpp"
#include "mx/common/module_path.hpp"

namespace mx::cli {
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
  s["producer"] =
      graph["producer_name"].get<std::string>() + " " + graph["producer_version"].get<std::string>();
  s["nodes"] = graph["nodes"].size();
  s["initializers"] = graph["initializers"].size();
  s["ops"] = op_histogram(graph);
  s["inputs"] = io_list(graph["inputs"]);
  s["outputs"] = io_list(graph["outputs"]);
  return s;
}

// Module rows from the SDK (mx_model_modules_json): own/total nodes with
// calls to local functions expanded, parameters, op histograms, function;
// with the document's statistics, the one part of the whole hierarchy
// document inspect shows (asking for that document too doubled the time
// of a million-module inspect). Rows are read into structs, not a DOM.
ModuleRows module_rows(const Model& model) {
  return parse_module_rows(model.modules_json(R"({"statistics":true})"));
}

std::string top_ops(const std::vector<std::pair<std::string, int64_t>>& ops, size_t limit) {
  std::vector<std::pair<int64_t, std::string>> v;
  for (const auto& [op, n] : ops) v.emplace_back(-n, op);
  std::sort(v.begin(), v.end());
  std::string out;
  for (size_t i = 0; i < v.size() && i < limit; ++i)
    out += (i ? " " : "") + v[i].second + ":" + std::to_string(-v[i].first);
  if (v.size() > limit) out += " ...";
  return out;
}

// `summary` plus "hierarchy" as nlohmann::json's dump(2) writes them (keys
// sorted), the rows written straight from their structs.
std::string json_text(const json& summary, const ModuleRows* modules) {
  json keys = summary;
  if (modules) keys["hierarchy"] = nullptr;  // its place in key order
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : keys.items()) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += json(key).dump() + ": ";
    if (key != "hierarchy" || !modules) {
      append_json(out, value, 2, 1);
      continue;
    }
    const json& rest = modules->rest;
    out += "{\n    \"functions\": ";
    append_json(out, rest.at("functions"), 2, 2);
    out += ",\n    \"modules\": ";
    append_rows_json(out, modules->rows, 2, 2);
    out += ",\n    \"nodes\": ";
    append_json(out, rest.at("nodes"), 2, 2);
    out += ",\n    \"statistics\": ";
    append_json(out, rest.at("statistics"), 2, 2);
    out += "\n  }";
  }
  out += first ? "}" : "\n}";
  return out;
}

void print_text(const json& s, const ModuleRows* modules) {
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
      std::printf("  %-24s %s\n", v["name"].get<std::string>().c_str(), v["type"].get<std::string>().c_str());
  }
  if (!modules) {
    std::printf("hierarchy:    none\n");
    return;
  }
  const json& stats = modules->rest;
  std::printf("hierarchy:    %zu records; evidence: %s\n", stats["statistics"]["nodes"].get<size_t>(),
              evidence_mix(stats["statistics"]).c_str());
  if (!stats["functions"].empty()) {
    std::printf("functions:    %zu (%zu top-level nodes, %s flat)\n", stats["functions"].size(),
                stats["top_level_nodes"].get<size_t>(), stats["nodes"].dump().c_str());
    for (const auto& f : stats["functions"])
      std::printf("  %-28s %4d nodes  x%zu\n", f["name"].get<std::string>().c_str(),
                  f["body_nodes"].get<int>(), f["instances"].size());
  }
  std::printf("modules:      (own / total nodes, parameters, function, own ops)\n");
  for (const auto& row : modules->rows) {
    const std::string& path = row.path;
    const std::string label = std::string(2 * mx::common::path_depth(path), ' ') +
                              (path.empty() ? "(root)" : path) + "  " + row.class_name;
    std::printf("  %-56s %5lld / %5lld  %10lld  %-16s %s\n", label.c_str(),
                static_cast<long long>(row.own_nodes), static_cast<long long>(row.total_nodes),
                static_cast<long long>(row.parameters), row.function ? row.function->c_str() : "-",
                top_ops(row.ops, 4).c_str());
  }
}

struct InspectOptions {
  std::string path, format, out_path;
  bool json = false;
};

int run_inspect(const InspectOptions& o) {
  std::string format = o.format.empty() ? (o.json ? "json" : "text") : o.format;
  if (o.json && format != "json")
    throw UsageError("--json and --format " + format + " contradict each other");
  if (format != "text" && format != "json" && format != "graphml" && format != "dot")
    throw UsageError("--format must be text, json, graphml or dot, not '" + format + "'");
  const std::string& out_path = o.out_path;
  const std::string& path = o.path;
  const Model model = Model::load_file(path);
  if (format == "graphml" || format == "dot") {
    const std::string text = model.render(format);
    if (out_path.empty()) {
      std::cout << text;
    } else {
      write_text_atomically(out_path, text);
      std::printf("wrote %s (%s, %zu bytes)\n", out_path.c_str(), format.c_str(), text.size());
    }
    return 0;
  }
  if (!out_path.empty()) throw UsageError("-o is for --format graphml|dot");
  const json summary = graph_summary(path, json::parse(model.graph_json()));
  std::optional<ModuleRows> modules;
  if (model.has_hierarchy()) modules = module_rows(model);
  const ModuleRows* rows = modules ? &*modules : nullptr;
  if (format == "json") {
    const std::string text = json_text(summary, rows);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputs("\n", stdout);
  } else {
    print_text(summary, rows);
  }
  return 0;
}

}  // namespace

Command add_inspect(CLI::App& parent) {
  auto o = std::make_shared<InspectOptions>();
  CLI::App* app =
      add_command(parent, "inspect", "graph summary and per-module statistics, or a drawing of the graph",
                  "The text and JSON reports list inputs, outputs, ops and, for a tagged\n"
                  "file, every module's own/total nodes, parameters, function and ops.\n"
                  "graphml and dot draw the nodes nested in their modules.",
                  "modelexport inspect model.onnx --format dot -o model.dot");
  add_positional(app, "FILE.onnx", o->path, "the ONNX file to inspect");
  app->add_flag("--json", o->json, "the report as JSON (same as --format json)");
  app->add_option("--format", o->format, "report format (default text)")->type_name("text|json|graphml|dot");
  add_output(app, o->out_path, "OUT", "write the graphml or dot drawing here instead of stdout");
  return {app, [o] { return run_inspect(*o); }};
}

}  // namespace mx::cli
