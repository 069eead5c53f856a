// Small helpers the graph passes share: who reads a value (subgraphs
// included) and renaming reads.
#pragma once
#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>

namespace mx::aten_onnx::passes {

// Values read inside some node's subgraph (If/Loop/Scan bodies), at any depth.
std::set<std::string> subgraph_reads(const onnx::GraphProto& g);

// Names of the graph's outputs.
std::set<std::string> graph_outputs(const onnx::GraphProto& g);

// Rewrites every read of a key of `renames` (top level and subgraphs) to its
// value.
void rename_reads(onnx::GraphProto& g, const std::map<std::string, std::string>& renames);

// Removes the nodes named in `names`.
void remove_nodes(onnx::GraphProto& g, const std::set<std::string>& names);

bool has_subgraph(const onnx::NodeProto& n);

}  // namespace mx::aten_onnx::passes
