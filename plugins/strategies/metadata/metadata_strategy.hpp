// The metadata strategy: reads, per node, the module the exporter recorded.
//
// Per node, the first source that is present and well-formed wins:
//  1. modelexport's own record (own_record.hpp) — written by us, exact;
//  2. `pkg.torch.onnx.name_scopes` (+ `pkg.torch.onnx.class_hierarchy` for
//     classes) — structured lists, so preferred over
//  3. `namespace` — the same pairs in one string.
// A malformed value yields a warning naming the node and the key, and the
// next source is tried; a node with no usable source is left out (the core
// propagates to it).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "strategy_graph.hpp"

namespace mx::metadata {

struct Assignment {
  size_t node;
  std::string module;
};

struct LearnedModule {
  std::string path;
  std::string class_name;       // "Conv2d"
  std::string qualified_class;  // "torch.nn.modules.conv.Conv2d"
};

struct MetadataResult {
  std::vector<Assignment> assignments;
  std::vector<LearnedModule> modules;  // each path once, in order of first sight
  std::vector<std::string> warnings;
};

// `module_tree` is the supplied hierarchy's modules (maybe none), used only
// to repair scopes that hold a last component instead of a full path (see
// resolve_path in the .cpp).
MetadataResult assign_from_metadata(const mx_strategy::Graph& graph, const mx_strategy::Modules& module_tree);

}  // namespace mx::metadata
