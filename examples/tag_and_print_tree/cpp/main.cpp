// tag_and_print_tree in C++: load an ONNX file, tag it with a strategy
// plugin, print the module tree with node counts (format: ../README.md).
//
// Uses the C API through small RAII holders; when the header-only wrapper
// modelexport/modelexport.hpp is installed it can replace them one for one.
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"

namespace {

struct StatusError {
  std::string what;
};

void check(mx_status* st) {
  if (!st) return;
  std::string what = std::string(mx_code_name(mx_status_code(st))) + " error: " + mx_status_message(st);
  mx_status_release(st);
  throw StatusError{what};
}

using ModelPtr = std::unique_ptr<mx_model, decltype(&mx_model_release)>;
using RegistryPtr = std::unique_ptr<mx_registry, decltype(&mx_registry_release)>;

using json = nlohmann::json;

struct Tree {
  std::map<std::string, int> own;
  std::map<std::string, std::vector<const json*>> children;

  static bool is_root(const json& m) {
    return m.value("path", "").empty() || !m.contains("parent") || !m["parent"].is_string();
  }
  int own_of(const std::string& p) const {
    auto it = own.find(p);
    return it == own.end() ? 0 : it->second;
  }
  int total(const std::string& p) const {
    int n = own_of(p);
    auto it = children.find(p);
    if (it != children.end())
      for (const json* k : it->second) n += total(k->value("path", ""));
    return n;
  }
  void print(const json& m, int depth) const {
    const std::string path = m.value("path", "");
    std::cout << std::string(2 * depth, ' ') << (path.empty() ? "(root)" : path) << " ["
              << m.value("class", "") << "] nodes=" << own_of(path) << " total=" << total(path) << "\n";
    auto it = children.find(path);
    if (it != children.end())
      for (const json* k : it->second) print(*k, depth + 1);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: tag_and_print_tree MODEL.onnx STRATEGY [OPTIONS_JSON]\n";
    return 2;
  }
  try {
    mx_model* raw_model = nullptr;
    check(mx_model_load_file(argv[1], &raw_model));
    ModelPtr model(raw_model, &mx_model_release);
    mx_registry* raw_registry = nullptr;
    check(mx_registry_create(nullptr, &raw_registry));
    RegistryPtr registry(raw_registry, &mx_registry_release);
    check(mx_registry_tag(registry.get(), argv[2], model.get(), argc == 4 ? argv[3] : nullptr));

    char* text = nullptr;
    size_t size = 0;
    check(mx_model_hierarchy_json(model.get(), &text, &size));
    std::unique_ptr<char, decltype(&mx_free)> owned(text, &mx_free);
    const json doc = json::parse(text, text + size);

    Tree tree;
    for (const json& n : doc["nodes"]) tree.own[n.value("module", "")]++;
    for (const json& m : doc["modules"])
      if (!Tree::is_root(m)) tree.children[m["parent"].get<std::string>()].push_back(&m);
    std::cout << "modules=" << doc["modules"].size() << " nodes=" << doc["nodes"].size() << "\n";
    for (const json& m : doc["modules"])
      if (Tree::is_root(m)) tree.print(m, 0);
    return 0;
  } catch (const StatusError& e) {
    std::cerr << "tag_and_print_tree: " << e.what << "\n";
    return 1;
  } catch (const json::exception& e) {
    std::cerr << "tag_and_print_tree: parse error: " << e.what() << "\n";
    return 1;
  }
}
