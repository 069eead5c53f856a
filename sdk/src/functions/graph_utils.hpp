// Small graph helpers shared by the functions pass, extraction, inspection
// and validation: stable topological order of ONNX nodes, and the
// "expanded" view of a model whose modules became local functions (every
// leaf operator with its absolute module path).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "mx/onnx_proto.hpp"

#include "hierarchy/document.hpp"

namespace mx::functions {

// Domain of the local functions written by the functions pass.
inline constexpr const char* kFunctionDomain = "modelexport.fn";

// Stable topological order of `nodes` (Kahn, ties broken by position): tensors
// produced by no node of the list count as available. Throws MX_ERR_INTERNAL
// on a cycle.
std::vector<onnx::NodeProto> topo_sorted(std::vector<onnx::NodeProto> nodes);

// A non-call operator of the model with its absolute module path, after
// expanding every call to a modelexport.fn function.
struct LeafNode {
  const onnx::NodeProto* node = nullptr;
  std::string module;    // absolute module path ("" when unknown)
  std::string evidence;  // "" when the node carries no record
  bool has_record = false;
  std::vector<std::string> call_chain;  // enclosing calls' modules, outermost first
  std::string function;                 // innermost enclosing function name ("" at top level)
};

// Record of each top-level node by position (nullptr: none), see
// hierarchy::records_by_position.
using RecordLookup = std::vector<const hierarchy::NodeRecord*>;
RecordLookup record_lookup(const hierarchy::Document& doc, const onnx::ModelProto& proto);

// Every leaf node of the model, in graph order, with calls expanded.
std::vector<LeafNode> expand(const onnx::ModelProto& proto, const hierarchy::Document& doc);

// Function instance per module path ("encoder.layer.0" -> "BertLayer"),
// found by walking the calls.
std::map<std::string, std::string> instance_functions(const onnx::ModelProto& proto,
                                                      const hierarchy::Document& doc);

// The record keys as written on function-body nodes (relative module/tag).
struct BodyRecord {
  std::string module, tag, evidence;
  bool present = false;
};
BodyRecord read_body_record(const onnx::NodeProto& node);

bool has_local_functions(const onnx::ModelProto& proto);

}  // namespace mx::functions
