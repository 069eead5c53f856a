// tag_and_print_tree in C++: load an ONNX file, tag it with a strategy
// plugin, print the module tree with node counts (format: ../README.md).
// Uses the header-only RAII wrapper modelexport/modelexport.hpp.
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.hpp"

namespace {

using json = nlohmann::json;

bool is_root(const json& m) {
  return m.value("path", "").empty() || !m.contains("parent") || !m["parent"].is_string();
}

struct Tree {
  std::map<std::string, int> own;
  std::map<std::string, std::vector<const json*>> children;

  int own_of(const std::string& p) const {
    auto it = own.find(p);
    return it == own.end() ? 0 : it->second;
  }
  const std::vector<const json*>& kids(const std::string& p) const {
    static const std::vector<const json*> none;
    auto it = children.find(p);
    return it == children.end() ? none : it->second;
  }
  int total(const std::string& p) const {
    int n = own_of(p);
    for (const json* k : kids(p)) n += total(k->value("path", ""));
    return n;
  }
  void print(const json& m, int depth) const {
    const std::string path = m.value("path", "");
    std::cout << std::string(2 * depth, ' ') << (path.empty() ? "(root)" : path) << " ["
              << m.value("class", "") << "] nodes=" << own_of(path) << " total=" << total(path) << "\n";
    for (const json* k : kids(path)) print(*k, depth + 1);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: tag_and_print_tree MODEL.onnx STRATEGY [OPTIONS_JSON]\n";
    return 2;
  }
  try {
    auto model = mx::Model::load_file(argv[1]);
    auto registry = mx::Registry::create();
    registry.tag(argv[2], model, argc == 4 ? argv[3] : "");
    const json doc = json::parse(model.hierarchy_json());

    Tree tree;
    for (const json& n : doc["nodes"]) tree.own[n.value("module", "")]++;
    for (const json& m : doc["modules"])
      if (!is_root(m)) tree.children[m["parent"].get<std::string>()].push_back(&m);
    std::cout << "modules=" << doc["modules"].size() << " nodes=" << doc["nodes"].size() << "\n";
    for (const json& m : doc["modules"])
      if (is_root(m)) tree.print(m, 0);
    return 0;
  } catch (const mx::Error& e) {
    std::cerr << "tag_and_print_tree: " << e.code_name() << " error: " << e.what() << "\n";
    return 1;
  } catch (const json::exception& e) {
    std::cerr << "tag_and_print_tree: parse error: " << e.what() << "\n";
    return 1;
  }
}
