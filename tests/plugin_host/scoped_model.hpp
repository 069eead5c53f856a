// A small ONNX model named the way the TorchScript exporter names nodes,
// with scope-less Constant/Cast glue, built with the onnx protobuf API.
#pragma once
#include "modelexport/modelexport.h"

// Nodes, in order (expected module / evidence after tagging with "scope"):
//  Constant_12                                   → encoder.layer.0.attention.self  propagated
//  Cast_3                                        → encoder.layer.0.attention.self  propagated
//  /encoder/layer.0/attention/self/query/MatMul  → ….self.query                    scope
//  /encoder/layer.0/attention/self/query/Add     → ….self.query                    scope
//  /encoder/layer.0/attention/self/key/Mul       → ….self.key                      scope
//  Add_7                                         → encoder.layer.0.attention.self  propagated
//  MatMul_9                                      → encoder.layer.0.attention.self  propagated
//  /Constant                                     → ""                              root
mx_model* make_scoped_model();
