// Tensors a frontend answers as derived references (docs/plugin-protocol.md,
// "derived_references"): an external reference to source bytes plus how
// the tensor is derived from them (transposed, scaled per channel), which
// the save applies as it writes the output, so the derived bytes are
// written once. Only an export's answer may carry them: a model file that
// does is refused, since no other reader of ONNX would derive anything.
#pragma once
#include <string>

#include "mx/common/derived_bytes.hpp"
#include "mx/onnx_proto.hpp"

namespace mx::model {

class DataFile;
struct ExternalRef;

// Whether `t`'s external_data names a derivation.
bool names_derivation(const onnx::TensorProto& t);

// The derivation `t` names, checked against its type, dims and the
// `length` of its source bytes (MX_ERR_SCHEMA naming `label`).
mx::common::Derivation derivation_of(const onnx::TensorProto& t, uint64_t length, const std::string& label);

// Hands the derived bytes of `ref` to `put`, in order, a few MiB at a
// time: the source range is mapped and its pages dropped as they are read,
// so neither the source nor the result is ever resident whole.
void derive(const DataFile& file, const ExternalRef& ref, const mx::common::BytePiece& put);

}  // namespace mx::model
