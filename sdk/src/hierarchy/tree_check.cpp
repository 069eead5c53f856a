#include "hierarchy/tree_check.hpp"

#include <algorithm>
#include <unordered_map>

#include "mx/common/module_path.hpp"
#include "util/utf8.hpp"

namespace mx::hierarchy {
using mx::common::is_valid_module_path;
namespace {

std::string q(std::string_view s) {
  return "'" + printable(s) + "'";
}

class Problems {
 public:
  explicit Problems(size_t limit) : limit_(limit) {}
  bool full() const { return out_.size() >= limit_; }
  void add(const std::string& module, std::string message) {
    if (!full()) out_.push_back({module, std::move(message)});
  }
  std::vector<TreeProblem> take() { return std::move(out_); }

 private:
  size_t limit_;
  std::vector<TreeProblem> out_;
};

void check_links(const Module& m, const std::unordered_map<std::string_view, const Module*>& by_path,
                 Problems& p) {
  if (const auto parent = stated_parent(m)) {
    auto it = by_path.find(*parent);
    if (it == by_path.end()) {
      p.add(m.path, "module " + q(m.path) + ": parent " + q(*parent) + " is not a module");
    } else {
      const auto& siblings = it->second->children;
      if (std::find(siblings.begin(), siblings.end(), m.path) == siblings.end())
        p.add(m.path, "module " + q(m.path) + " is not among the children of its parent " + q(*parent));
    }
  }
  for (const auto& c : m.children) {
    auto it = by_path.find(c);
    if (it == by_path.end()) p.add(m.path, "module " + q(m.path) + ": child " + q(c) + " is not a module");
    else if (stated_parent(*it->second) != std::optional<std::string_view>(m.path))
      p.add(m.path, "module " + q(m.path) + " lists child " + q(c) + " whose parent is different");
  }
}

}  // namespace

std::vector<TreeProblem> module_tree_problems(const std::vector<Module>& modules, size_t limit) {
  Problems p(limit);
  if (modules.empty()) return p.take();
  std::unordered_map<std::string_view, const Module*> by_path;
  by_path.reserve(modules.size());
  size_t roots = 0;
  for (const auto& m : modules) {
    if (!is_valid_module_path(m.path))
      p.add(m.path, "module " + q(m.path) +
                        " is not a module path (dot-separated names "
                        "without '/', spaces or control characters)");
    if (!by_path.emplace(m.path, &m).second) p.add(m.path, "module " + q(m.path) + " appears twice");
    if (!stated_parent(m)) {
      ++roots;
      if (!m.path.empty()) p.add(m.path, "module " + q(m.path) + " has no parent but is not the root");
    }
  }
  for (const auto& m : modules) {
    if (p.full()) break;
    check_links(m, by_path, p);
  }
  if (roots != 1) p.add("", "the tree has " + std::to_string(roots) + " roots (expected 1)");
  return p.take();
}

}  // namespace mx::hierarchy
