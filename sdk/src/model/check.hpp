// Model checks.
//
// check_graph_structure: the SDK's own check of what every consumer of a
// graph relies on — each node input is defined (graph input, initializer,
// a node output, or inside a subgraph a value of an enclosing graph), no
// value has two writers, and the nodes form a DAG. It needs no operator
// schema, so it runs on every file, including those newer than the
// ONNX library's checker understands. Node order is not checked (ONNX wants it
// topological; libonnx checks that where it can): ONNX Runtime and our own
// passes sort for themselves, a cycle no one can sort.
//
// check_onnx: check_graph_structure, then the ONNX library's checker plus
// strict shape inference (what onnx.checker.check_model(full_check=True)
// does). A file newer than the library (IR or default-domain opset above
// what it knows) is refused with MX_ERR_UNSUPPORTED naming both versions:
// the library cannot judge it, which is not the same as invalid.
//
// Errors are MX_ERR_SCHEMA; messages name the nodes (name and op, or
// `#index` for unnamed nodes) and the values involved.
#pragma once
#include <string>

#include "mx/onnx_proto.hpp"

#include "model/value_table.hpp"

namespace mx::model {

void check_graph_structure(const onnx::ModelProto& proto, const std::string& where);
// The same with the top-level graph's values already interned (the tagger
// interns them once for this check, its graph view and propagation): the
// check reads the table's ids and slot names, and the graph itself only
// for the nodes holding subgraphs. Call it before the slot names move to a
// view (without them the graph is interned again).
void check_graph_structure(const onnx::ModelProto& proto, const ValueTable& values, const std::string& where);

void check_onnx(const onnx::ModelProto& proto, const std::string& where);

// Why the ONNX library cannot check `proto` ("IR version 15 and opset 29;
// this build's ONNX 1.23.2 knows IR <= 14 and opset <= 28"), or "" when it can.
std::string newer_than_library(const onnx::ModelProto& proto);

}  // namespace mx::model
