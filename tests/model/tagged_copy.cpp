#include "tagged_copy.hpp"

#include "model/onnx_io.hpp"

namespace mx::testing {

std::string tagged_copy_bytes(const mx_model& model, model::TagStorage storage) {
  onnx::ModelProto copy = model.proto();
  model::NodeTagWriter writer(copy.graph(), model.hierarchy, storage);
  auto* nodes = copy.mutable_graph()->mutable_node();
  for (int i = 0; i < nodes->size(); ++i) writer.write_to(static_cast<size_t>(i), *nodes->Mutable(i));
  model::store_model_metadata(copy, model.hierarchy, storage);
  return model::serialize_onnx(copy, "copy");
}

}  // namespace mx::testing
