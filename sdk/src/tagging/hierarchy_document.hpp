// Assembles the hierarchy document (docs/hierarchy-schema.md) that tagging
// stores on the model: module tree and one record per node (the model
// derives the statistics).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "mx/onnx_proto.hpp"

#include "hierarchy/document.hpp"
#include "tagging/assignment.hpp"
#include "tagging/graph_topology.hpp"
#include "tagging/rebuilt_tree.hpp"

namespace mx {

struct TaggingProvenance {
  std::string strategy;                             // as requested: "scope", "auto", …
  std::vector<std::string> strategies;              // the plugins actually run, in order
  nlohmann::json model = nlohmann::json::object();  // kept from a supplied document
};

// The document in the hierarchy layer's form (what hierarchy::parse_document
// gives for its JSON text, statistics aside: they are derived data the model
// recomputes on every write), built without the JSON. Record i is node i of
// `graph` (the view of `proto`), with its index as the extra key "index"
// and the node's name as valid UTF-8. Adds every assignment's module to the
// tree (its classes must be added already), then consumes the names and
// assignments (moved into the records) and the tree's modules. `graph` and
// `assignments` are left empty, their storage freed before the modules
// are built (which then reuse it: 5,700 fewer page faults at 200,000 nodes
// in a fresh process, tagging and saving).
// Tagging stores it with model::set_hierarchy (tagging/tagger.cpp): without
// a supplied tree, as model::Vouched::everything (nothing to check: the
// tree is consistent by construction and every record is as the checks
// would leave it; tests/tagging/test_hierarchy_document.cpp holds that).
hierarchy::Document build_document(const onnx::GraphProto& proto, GraphView&& graph,
                                   std::vector<Assignment>&& assignments, ModuleTree& tree,
                                   const TaggingProvenance& provenance);

}  // namespace mx
