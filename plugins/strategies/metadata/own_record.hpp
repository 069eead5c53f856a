// Records modelexport itself wrote on a node earlier (docs/hierarchy-schema.md,
// "Storage on the ONNX nodes"): metadata keys `modelexport.module` and
// `modelexport.evidence`, or a `doc_string` of the form
// `modelexport:{"module":…,"evidence":…}`. A file tagged once and then
// re-tagged (say after an optimizer renamed its nodes) keeps them.
#pragma once
#include <optional>
#include <string>

#include "strategy_graph.hpp"

namespace mx::metadata {

struct OwnRecord {
  std::string module;
  std::string evidence;  // "" when the file did not say
};

// nullopt when the node has no record. Records whose evidence was
// `propagated` or `root` are not returned: they were guesses of an earlier
// run, and the core's propagation pass will redo them with this run's
// evidence rather than have them masquerade as metadata.
// `problem` is set (and nullopt returned) for a record that is present but
// malformed.
std::optional<OwnRecord> read_own_record(const mx_strategy::Graph& graph, size_t node, std::string& problem);

}  // namespace mx::metadata
