#include "model/check.hpp"

#include <new>

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "mx/aten_onnx/checkable_copy.hpp"
#include "model/external_data.hpp"
#include "util/error.hpp"

namespace modelexport::model {

void check_onnx(const onnx::ModelProto& proto, const std::string& where) {
  try {
    // External initializers become typed graph inputs for the checker (it
    // would look for their files relative to the working directory); the
    // copy is cheap because their bytes are not in the proto.
    const bool external = has_external_data(proto);
    onnx::ModelProto copy = external ? mx::aten_onnx::checkable_copy(proto) : proto;
    onnx::checker::check_model(copy);
    // Inference writes value_info; it runs on the copy, the model is const.
    onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*error_mode=*/1);
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const onnx::checker::ValidationError& e) {
    fail(MX_ERR_SCHEMA, where + ": ONNX checker: " + e.what());
  } catch (const onnx::InferenceError& e) {
    fail(MX_ERR_SCHEMA, where + ": ONNX shape inference: " + e.what());
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // libonnx also throws plain standard exceptions on malformed content,
    // e.g. std::invalid_argument "Invalid tensor data type 17" for a
    // bit-flipped data_type (found by tests/hostile's bit-flip sweep): the
    // file's fault, not ours.
    fail(MX_ERR_SCHEMA, where + ": ONNX checker: " + e.what());
  }
}

}  // namespace modelexport::model
