// Writing a model whose weights live in files (external data, or the
// source a frontend exported from) as ONE self-contained ONNX file, without
// holding the weights in memory: the bytes of each external initializer of
// the main graph go from its file straight into the output
// (StagedWriter::copy_from, inside the kernel).
//
// Protobuf cannot stream a bytes field, so the message is framed by hand at
// two levels only: ModelProto.graph (field 7) and GraphProto.initializer
// (field 5), each initializer written as its TensorProto without data plus
// a raw_data field (9) whose bytes are copied. Everything else is
// serialized by protobuf. The graph field comes after the model's other
// fields and the initializers after the graph's: protobuf readers accept
// fields in any order (onnx, onnxruntime do), so the file parses to the
// same ModelProto as SerializeToString would produce.
#pragma once
#include "mx/onnx_proto.hpp"

#include <string>

#include "model/external_data.hpp"
#include "progress/progress.hpp"
#include "util/files.hpp"

namespace mx::model {

// Writes `proto` with every external tensor made inline; external tensors
// outside the main graph's initializers (Constant attributes, functions,
// subgraphs: small in practice) are read into memory first. MX_ERR_UNSUPPORTED
// when the result would exceed protobuf's 2 GB limit. Reports "write" in
// bytes of the file.
void write_inline_streamed(const onnx::ModelProto& proto, const DataFiles& files, const std::string& where,
                           StagedWriter& out, Progress& progress);

}  // namespace mx::model
