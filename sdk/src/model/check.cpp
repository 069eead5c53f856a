#include "model/check.hpp"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "util/error.hpp"

namespace modelexport::model {

void check_onnx(const onnx::ModelProto& proto, const std::string& where) {
  try {
    onnx::checker::check_model(proto);
    // Inference writes value_info; run it on a copy, the model is const.
    onnx::ModelProto copy = proto;
    onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*error_mode=*/1);
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const onnx::checker::ValidationError& e) {
    fail(MX_ERR_SCHEMA, where + ": ONNX checker: " + e.what());
  } catch (const onnx::InferenceError& e) {
    fail(MX_ERR_SCHEMA, where + ": ONNX shape inference: " + e.what());
  }
}

}  // namespace modelexport::model
