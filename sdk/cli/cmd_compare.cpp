// `modelexport compare A.onnx B.onnx [--json]`: per-module differences in
// nodes (own/total), own op histogram and parameters between two tagged
// files, over the union of both module trees. Differences are data: exit 0
// whenever the comparison ran.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli.hpp"
#include "command.hpp"
#include "modelexport/modelexport.hpp"

namespace mx::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string label(const Json& row) {
  const auto path = row["path"].get<std::string>();
  const auto cls = row.value("class", std::string());
  std::string s = path.empty() ? "(root)" : path;
  if (!cls.empty())
    s += " (" + cls + (row.contains("class_b") ? " -> " + row["class_b"].get<std::string>() : "") + ")";
  return s;
}

// "own nodes 3 -> 4 (+1)" or "" when equal.
std::string change(const char* what, const Json& p) {
  const auto d = p["delta"].get<int64_t>();
  if (d == 0) return "";
  return std::string(what) + " " + std::to_string(p["a"].get<int64_t>()) + " -> " +
         std::to_string(p["b"].get<int64_t>()) + " (" + (d > 0 ? "+" : "") + std::to_string(d) + ")";
}

std::string ops(const Json& m, const char* sign) {
  std::string s;
  for (const auto& [op, n] : m.items())
    s += (s.empty() ? "" : " ") + std::string(sign) + op + " x" + std::to_string(n.get<int64_t>());
  return s;
}

void print_text(const Json& r) {
  for (const char* side : {"a", "b"})
    std::printf("%s: %s (%lld nodes, %lld modules)\n", side[0] == 'a' ? "A" : "B",
                r[side]["name"].get<std::string>().c_str(), r[side]["nodes"].get<long long>(),
                r[side]["modules"].get<long long>());
  std::string below;
  for (const auto& row : r["modules"]) {
    const auto status = row["status"].get<std::string>();
    if (status == "only_in_a" || status == "only_in_b") {
      std::printf("  %-10s %s: %lld nodes (%lld own), %lld parameters\n",
                  status == "only_in_a" ? "only in A" : "only in B", label(row).c_str(),
                  row["total_nodes"].get<long long>(), row["own_nodes"].get<long long>(),
                  row["parameters"].get<long long>());
      continue;
    }
    if (status == "equal") {
      if (row["descendants_differ"].get<bool>())
        below +=
            (below.empty() ? "" : ", ") +
            std::string(row["path"].get<std::string>().empty() ? "(root)" : row["path"].get<std::string>());
      continue;
    }
    std::string parts;
    for (const auto& s :
         {change("own nodes", row["own_nodes"]), change("total nodes", row["total_nodes"]),
          change("own parameters", row["own_parameters"]), change("parameters", row["parameters"]),
          ops(row["ops_added"], "+"), ops(row["ops_removed"], "-")})
      if (!s.empty()) parts += (parts.empty() ? "" : "; ") + s;
    if (row.contains("class_b") && parts.empty()) parts = "class differs";
    std::printf("  %-10s %s: %s\n", "different", label(row).c_str(), parts.c_str());
  }
  if (!below.empty()) std::printf("  totals differ only in descendants: %s\n", below.c_str());
  const auto& s = r["summary"];
  std::printf("summary: %lld modules: %lld equal, %lld different, %lld only in A, %lld only in B\n",
              s["modules"].get<long long>(), s["equal"].get<long long>(), s["different"].get<long long>(),
              s["only_in_a"].get<long long>(), s["only_in_b"].get<long long>());
}

struct CompareOptions {
  std::string a, b;
  bool json = false;
};

int run_compare(const CompareOptions& o) {
  const std::string& pa = o.a;
  const std::string& pb = o.b;
  const Model a = Model::load_file(pa);
  const Model b = Model::load_file(pb);
  const Json options{{"a_name", pa}, {"b_name", pb}};
  const Json report = Json::parse(a.compare_json(b, options.dump()));
  if (o.json) std::cout << report.dump(2) << "\n";
  else print_text(report);
  return 0;
}

}  // namespace

Command add_compare(CLI::App& parent) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* app = add_command(parent, "compare",
                              "per-module differences (nodes, ops, parameters) between two tagged files",
                              "Compares over the union of both module trees. Differences are data: the\n"
                              "exit code is 0 whenever the comparison ran.",
                              "modelexport compare before.onnx after.onnx --json");
  add_positional(app, "A.onnx", o->a, "the first tagged ONNX file");
  add_positional(app, "B.onnx", o->b, "the second tagged ONNX file");
  app->add_flag("--json", o->json, "the report as JSON");
  return {app, [o] { return run_compare(*o); }};
}

}  // namespace mx::cli
