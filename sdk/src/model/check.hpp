// Model checks.
//
// check_graph_structure: the SDK's own check of what every consumer of a
// graph relies on — each node input is defined (graph input, initializer,
// a node output, or inside a subgraph a value of an enclosing graph), no
// value has two writers, and the nodes form a DAG. It needs no operator
// schema, so it runs on every file, including those newer than the
// bundled libonnx 1.12 checker understands (IR > 8, opset > 17), where
// check_onnx can only warn. Node order is not checked (ONNX wants it
// topological; libonnx checks that where it can): ONNX Runtime and our own
// passes sort for themselves, a cycle no one can sort.
//
// check_onnx: check_graph_structure, then the libonnx checker plus strict
// shape inference (onnx 1.12 has no full_check flag; this is what
// onnx.checker.check_model(full_check=True) does).
//
// Errors are MX_ERR_SCHEMA; messages name the nodes (name and op, or
// `#index` for unnamed nodes) and the values involved.
#pragma once
#include <string>

#include <onnx/onnx_pb.h>

#include "model/value_table.hpp"

namespace modelexport::model {

void check_graph_structure(const onnx::ModelProto& proto, const std::string& where);
// The same with the top-level graph's values already interned (the tagger
// interns them once for this check, its graph view and propagation): the
// check reads the table's ids and slot names, and the graph itself only
// for the nodes holding subgraphs. Call it before the slot names move to a
// view (without them the graph is interned again).
void check_graph_structure(const onnx::ModelProto& proto, const ValueTable& values, const std::string& where);

void check_onnx(const onnx::ModelProto& proto, const std::string& where);

}  // namespace modelexport::model
