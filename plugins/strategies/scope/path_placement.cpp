#include "path_placement.hpp"

#include <string>

#include "file_modules.hpp"
#include "scope_name.hpp"

namespace mx::scope {
namespace {

// A name's scope path depends only on what comes before its last '/' (the
// op's own name is no scope), so consecutive names of one module
// ("/encoder/layer.3/attention/MatMul", ".../Add") find it once.
class PathOfScopes {
 public:
  // The path `name` shows ("" for none), valid until the next call.
  std::string_view of(std::string_view name) {
    const size_t slash = name.rfind('/');
    if (slash == std::string_view::npos) return {};  // "Constant_12": scope_steps wants a leading '/'
    const std::string_view scopes = name.substr(0, slash);
    if (known_ && scopes == scopes_) return path_;
    known_ = true;
    scopes_ = scopes;
    if (!scope_path_of(name, steps_, path_)) path_.clear();
    return path_;
  }

 private:
  bool known_ = false;
  std::string_view scopes_;  // of the last name with a '/' (the graph keeps it valid)
  std::vector<std::string_view> steps_;
  std::string path_;
};

}  // namespace

PathPlacement place_at_scope_paths(const mx_strategy::Graph& graph) {
  PathPlacement placed;
  placed.answer.assignments.reserve(graph.node_count());
  placed.paths.reserve(graph.node_count());  // pages are touched only as used
  PathOfScopes path_of;
  const size_t count = graph.node_count();  // a call through the host each time
  for (size_t i = 0; i < count; ++i) {
    const std::string_view name = graph.name(i);
    const std::string_view path = path_of.of(name);
    if (!path.empty()) {
      placed.answer.place(i, path, "scope");
      const std::string_view own = placed.answer.assignments.back().module;
      if (placed.paths.empty() || placed.paths.back().data() != own.data()) placed.paths.push_back(own);
    } else if (is_root_scope_name(name)) {
      // "/Mul": computed by the root module's own forward (BERT's mask).
      placed.answer.place(i, "", "scope");
    }
  }
  return placed;
}

}  // namespace mx::scope
