// modelexport.h, "Hierarchy": the hierarchy carried by an mx_model.
#include <string_view>

#include "c_api/guard.hpp"
#include "model/record_keys.hpp"
#include "util/utf8.hpp"
#include "util/json_text.hpp"
#include "hierarchy/document_text.hpp"
#include "hierarchy/parse.hpp"
#include "model/model.hpp"
#include "c_api/out_buffer.hpp"

using namespace mx;

namespace {
// Text with an explicit length (no NUL needed); size 0 -> strlen.
std::string_view text_arg(const char* text, size_t size, const char* what) {
  require(text, what);
  return size ? std::string_view(text, size) : std::string_view(text);
}

hierarchy::Json parse_json(std::string_view text, const std::string& where) {
  check_json_limits(text, where);
  try {
    return hierarchy::Json::parse(text.begin(), text.end());
  } catch (const hierarchy::Json::exception& e) {
    fail(MX_ERR_PARSE, where + ": not valid JSON: " + e.what());
  }
}
}  // namespace

extern "C" {

MX_API mx_status* mx_model_node_record(const mx_model* model, const char* node_name, char** out_json,
                                       size_t* out_size) {
  return guard([&] {
    require(model, "model");
    require(node_name, "node_name");
    const size_t position =
        model::NodeKeys(model->proto().graph()).by_name(node_name, model::display_name(*model));
    const auto* record = model->hierarchy.find_record_at(position);
    if (!record)
      fail(MX_ERR_NOT_FOUND,
           "node '" + printable(node_name) + "' has no hierarchy record in " + model::display_name(*model));
    copy_out_text(dump_text(hierarchy::record_to_json(model->hierarchy, *record, false)), out_json, out_size);
  });
}

MX_API mx_status* mx_model_set_node_record(mx_model* model, const char* node_name, const char* record_json,
                                           size_t record_size) {
  return guard([&] {
    require(model, "model");
    require(node_name, "node_name");
    auto text = text_arg(record_json, record_size, "record_json");
    auto record = hierarchy::parse_record(parse_json(text, "record"), "record");
    if (!record.name.empty() && record.name != node_name)
      fail(MX_ERR_INVALID_ARGUMENT,
           std::string("record.name: '") + record.name + "' does not match node_name '" + node_name + "'");
    const size_t position =
        model::NodeKeys(model->proto().graph()).by_name(node_name, model::display_name(*model));
    model::set_node_record(*model, position, std::move(record));
  });
}

MX_API mx_status* mx_model_hierarchy_json(const mx_model* model, char** out_json, size_t* out_size) {
  return guard([&] {
    require(model, "model");
    copy_out_text(hierarchy::document_text(model->hierarchy, -1), out_json, out_size);
  });
}

MX_API mx_status* mx_model_set_hierarchy_json(mx_model* model, const char* json, size_t size) {
  return guard([&] {
    require(model, "model");
    auto text = text_arg(json, size, "json");
    auto doc = hierarchy::parse_document_text(text, "hierarchy");
    model::set_hierarchy(*model, std::move(doc), "hierarchy");
  });
}

MX_API int mx_model_has_hierarchy(const mx_model* model) {
  return model && !model->hierarchy.empty() ? 1 : 0;
}

}  // extern "C"
