// Drawings of the graph with operators nested in their modules:
// Graphviz DOT (clusters) and GraphML (nested graphs, for yEd and Gephi).
// The top-level graph is drawn; calls to local functions appear as nodes of
// the module they stand for.
#pragma once
#include <string>

#include "model/model.hpp"

namespace mx::inspect {

// format: "dot" | "graphml"; MX_ERR_INVALID_ARGUMENT otherwise.
std::string render(const mx_model& model, const std::string& format);

}  // namespace mx::inspect
