#include "tagging/model_access.hpp"
#include "util/json_text.hpp"

#include <memory>

#include "model/check.hpp"
#include "model/model.hpp"
#include "util/error.hpp"

namespace modelexport {

void throw_if_error(mx_status* status) {
  if (!status) return;
  std::unique_ptr<mx_status, void (*)(mx_status*)> owned(status, mx_status_release);
  fail(mx_status_code(status), mx_status_message(status));
}

void set_model_hierarchy(mx_model* model, const nlohmann::json& document) {
  const std::string text = dump_text(document);
  throw_if_error(mx_model_set_hierarchy_json(model, text.c_str(), text.size()));
}

const onnx::ModelProto& model_proto(const mx_model& model) { return model.proto; }

void check_model_structure(const mx_model& model) {
  model::check_graph_structure(model.proto, model::display_name(model));
}

void store_hierarchy(mx_model& model, hierarchy::Document doc) {
  model::set_hierarchy(model, std::move(doc), "hierarchy");
}

}  // namespace modelexport
