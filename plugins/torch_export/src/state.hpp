// State the program writes: buffers (a StaticCache's keys and values, a
// step counter), parameters, lifted constants and user inputs that a call
// changes. Core ATen programs list them in the signature
// (buffer_mutation, parameter_mutation, user_input_mutation); TRAINING
// programs write them in place, and their signature may omit the write
// (a parameter renormalised through a detach): there, an input that an
// in-place op rebound (mutation.cpp) is state too. A runtime calls the
// ONNX file again and again and must carry that state from one call to
// the next, so it is part of the file's interface:
//   - a written buffer, parameter or constant is a graph input named by its
//     fully qualified name that keeps its initializer of the same name
//     (the value saved with the program: the file runs as it is, the first
//     call from the saved state);
//   - its value after the call is a graph output named "<name>.updated",
//     after the model outputs, in the order of the program's inputs (a
//     written user input's too: "<input>.updated").
// Feeding every "<name>.updated" back as "<name>" runs the program as
// PyTorch runs the module, call after call. Inputs that are one tensor (a
// constant lifted beside the buffer it is, exporter.cpp bind_stored) are
// one state, named after the buffer.
#pragma once
#include <string>

#include "lower_ctx.hpp"
#include "program.hpp"

namespace mx::torch_export {

// "<name>.updated": the graph output of a written input.
std::string updated_name(const std::string& name);

// After the program's nodes are lowered and the model outputs named: the
// graph inputs of the written buffers, parameters and constants, and the
// "<name>.updated" graph outputs. With `outputs` false (the export option
// "state_outputs": false) written state stays an initializer (or a plain
// user input) and its writes are dropped, as a file without state runs.
// Returns the sidecar's "state": {"outputs": bool, "written": [{"name",
// "kind", "updated": output name or null}]}; null when nothing is written.
json add_state(LowerCtx& cx, const Program& program, bool outputs = true);

// The warning that a file drops the writes `state` (add_state's answer)
// lists; "" when it keeps them or nothing is written.
std::string dropped_updates_warning(const std::string& file, const json& state);

// Makes ONNX value `src` the graph output `name` (model_assembly's
// add_graph_output) and, when that renamed it, rebinds the program's
// values that named it, so a later output of the same value finds it.
void bind_graph_output(LowerCtx& cx, std::string src, const std::string& name, int32_t dtype, int64_t rank);

}  // namespace mx::torch_export
