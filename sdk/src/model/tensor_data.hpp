// The one check of tensor sizes against their data: every tensor of the
// model (initializers, Constant-style attributes, sparse parts, subgraphs,
// functions) must hold exactly as many elements as its dims claim — in
// raw_data, in its typed field, or in external data. A tensor whose dims
// claim 2^40 elements over 4 bytes of data is refused (ONNX Runtime
// refuses it too; before, it was tagged and validated as fine), as are
// negative dims and dims whose product overflows.
//
// Run at load (mx_model_load_file/_bytes) and by validate; MX_ERR_SCHEMA
// naming the file, the tensor and both sizes.
#pragma once
#include <string>

#include "mx/onnx_proto.hpp"

#include "model/external_data.hpp"

namespace mx::model {

// `tensors`: the model's (all_tensors). `files`: the model's open external
// data (external lengths are checked against what each reference resolves
// to); empty for bytes.
void check_tensor_data(const TensorList& tensors, const DataFiles& files, const std::string& where);

}  // namespace mx::model
