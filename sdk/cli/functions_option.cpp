#include "functions_option.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace mx::cli {
namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

bool looks_like_file(const std::string& s) {
  return s.find('/') != std::string::npos || ends_with(s, ".pt") || ends_with(s, ".pt2") ||
         ends_with(s, ".pth") || ends_with(s, ".onnx");
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

void apply_functions(Model& model, const std::vector<std::string>& classes, ProgressBar* progress) {
  nlohmann::json options = nlohmann::json::object();
  if (!classes.empty()) options["classes"] = classes;
  const auto report =
      nlohmann::json::parse(model.to_functions(options.dump(), progress ? progress->listener() : nullptr));
  if (progress) progress->clear();
  std::printf("functions: %zu definitions, %zu calls, %zu top-level nodes\n",
              report["functions"].get<size_t>(), report["calls"].get<size_t>(),
              report["top_level_nodes"].get<size_t>());
  for (const auto& d : report["definitions"])
    std::printf("  %-28s %-24s %4zu nodes  x%zu\n", d["name"].get<std::string>().c_str(),
                d["class"].get<std::string>().c_str(), d["body_nodes"].get<size_t>(), d["instances"].size());
  for (const auto& s : report["skipped"])
    std::printf("  skipped %s: %s\n", s["module"].get<std::string>().c_str(),
                s["reason"].get<std::string>().c_str());
  if (report["record_mismatches"].get<size_t>() > 0)
    std::printf("  note: %zu instance(s) share a function although their inner records differ\n",
                report["record_mismatches"].get<size_t>());
}

}  // namespace mx::cli
