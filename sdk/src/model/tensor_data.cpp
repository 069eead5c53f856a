#include "model/tensor_data.hpp"

#include <cstdint>
#include <optional>

#include "mx/common/onnx_element_size.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

namespace mx::model {
namespace {

using onnx::TensorProto;

// Bytes per element in raw_data; nullopt for types without a fixed size
// (STRING, UNDEFINED, packed sub-byte types).
std::optional<uint64_t> element_bytes(int type) {
  const size_t n = mx::common::onnx_element_size(type);
  return n ? std::optional<uint64_t>(n) : std::nullopt;
}

// Values the typed field holds per element (complex numbers take two).
uint64_t typed_count(const TensorProto& t) {
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      return static_cast<uint64_t>(t.float_data_size());
    case TensorProto::COMPLEX64:
      return static_cast<uint64_t>(t.float_data_size()) / 2;
    case TensorProto::DOUBLE:
      return static_cast<uint64_t>(t.double_data_size());
    case TensorProto::COMPLEX128:
      return static_cast<uint64_t>(t.double_data_size()) / 2;
    case TensorProto::INT64:
      return static_cast<uint64_t>(t.int64_data_size());
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      return static_cast<uint64_t>(t.uint64_data_size());
    case TensorProto::STRING:
      return static_cast<uint64_t>(t.string_data_size());
    default:
      return static_cast<uint64_t>(t.int32_data_size());
  }
}

bool has_typed_data(const TensorProto& t) {
  return t.float_data_size() || t.double_data_size() || t.int64_data_size() || t.uint64_data_size() ||
         t.int32_data_size() || t.string_data_size();
}

std::string label(const TensorProto& t, const std::string& where) {
  return where + ": tensor '" + printable(t.name()) + "'";
}

uint64_t element_count(const TensorProto& t, const std::string& where) {
  uint64_t n = 1;
  for (int i = 0; i < t.dims_size(); ++i) {
    const int64_t d = t.dims(i);
    if (d < 0)
      fail(MX_ERR_SCHEMA, label(t, where) + ": dims[" + std::to_string(i) + "] is " + std::to_string(d) +
                              " (a tensor's dims cannot be negative)");
    if (d != 0 && n > (UINT64_C(1) << 62) / static_cast<uint64_t>(d))
      fail(MX_ERR_SCHEMA, label(t, where) + ": dims claim more than 2^62 elements");
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

void mismatch(const TensorProto& t, const std::string& where, uint64_t elements, const std::string& holds) {
  std::string dims;
  for (int i = 0; i < t.dims_size(); ++i) dims += (i ? "," : "") + std::to_string(t.dims(i));
  fail(MX_ERR_SCHEMA, label(t, where) + ": dims [" + dims + "] claim " + std::to_string(elements) +
                          " elements but its data " + holds);
}

void check_one(const TensorProto& t, const DataFiles& files, const std::string& where) {
  if (t.has_segment()) return;  // one segment of a larger tensor: no whole-tensor dims
  const uint64_t elements = element_count(t, where);
  const auto size = element_bytes(t.data_type());
  if (is_external(t)) {
    if (!size || files.empty()) return;  // bytes models refuse external data elsewhere
    const ExternalRef ref = external_ref(t, files, where);
    if (ref.length / *size != elements || ref.length % *size != 0)
      mismatch(t, where, elements, "in external data is " + std::to_string(ref.length) + " bytes");
    return;
  }
  if (t.has_raw_data()) {
    if (!size) return;  // STRING cannot use raw_data: the ONNX checker says so
    const uint64_t bytes = t.raw_data().size();
    if (bytes / *size != elements || bytes % *size != 0)
      mismatch(
          t, where, elements,
          "is " + std::to_string(bytes) + " bytes of raw_data (" + std::to_string(*size) + " per element)");
    return;
  }
  if (!has_typed_data(t)) {
    if (elements != 0 && (size || t.data_type() == TensorProto::STRING))
      mismatch(t, where, elements, "is empty");
    return;
  }
  if (t.data_type() != TensorProto::STRING && !size) return;
  const uint64_t count = typed_count(t);
  if (count != elements) mismatch(t, where, elements, "holds " + std::to_string(count) + " values");
}

}  // namespace

void check_tensor_data(const TensorList& tensors, const DataFiles& files, const std::string& where) {
  for (const TensorProto* t : tensors) check_one(*t, files, where);
}

}  // namespace mx::model
