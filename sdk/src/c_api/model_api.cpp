// modelexport.h, "Models": load, save, graph view, checker.
#include <memory>

#include "c_api/guard.hpp"
#include "util/json_text.hpp"
#include "model/check.hpp"
#include "model/graph_json.hpp"
#include "model/persistence.hpp"
#include "c_api/out_buffer.hpp"

using namespace mx;

extern "C" {

MX_API mx_status* mx_model_load_file(const char* path, mx_model** out) {
  return guard([&] {
    require(path, "path");
    require(out, "out");
    *out = nullptr;
    *out = model::load_model_file(path).release();
  });
}

MX_API mx_status* mx_model_load_bytes(const void* data, size_t size, mx_model** out) {
  return guard([&] {
    require(out, "out");
    *out = nullptr;
    if (size > 0) require(data, "data");
    std::string_view bytes(static_cast<const char*>(data), data ? size : 0);
    *out = model::load_model_bytes(bytes).release();
  });
}

MX_API void mx_model_release(mx_model* model) {
  delete model;
}

MX_API mx_status* mx_model_save_file(const mx_model* model, const char* path, const char* options_json) {
  return mx_model_save_file_with_progress(model, path, options_json, nullptr);
}

MX_API mx_status* mx_model_save_file_with_progress(const mx_model* model, const char* path,
                                                   const char* options_json, const mx_progress* progress) {
  return guard([&] {
    require(model, "model");
    require(path, "path");
    Progress reporter(progress);
    model::save_model_file(*model, path, model::parse_save_options(options_json), reporter);
  });
}

MX_API mx_status* mx_model_save_bytes(const mx_model* model, const char* options_json, void** out,
                                      size_t* out_size) {
  return guard([&] {
    require(model, "model");
    require(out, "out");
    require(out_size, "out_size");
    *out = nullptr;
    *out_size = 0;
    const auto options = model::parse_save_options(options_json);
    model::save_model_bytes(*model, options, out, out_size);
  });
}

MX_API mx_status* mx_model_graph_json(const mx_model* model, char** out_json, size_t* out_size) {
  return guard([&] {
    require(model, "model");
    copy_out_text(dump_text(model::graph_view(model->proto())), out_json, out_size);
  });
}

MX_API size_t mx_model_node_count(const mx_model* model) {
  return model ? static_cast<size_t>(model->proto().graph().node_size()) : 0;
}

MX_API mx_status* mx_model_node_json(const mx_model* model, size_t index, char** out_json, size_t* out_size) {
  return guard([&] {
    require(model, "model");
    const auto& graph = model->proto().graph();
    if (index >= static_cast<size_t>(graph.node_size()))
      fail(MX_ERR_NOT_FOUND, "node index " + std::to_string(index) + " out of range (" +
                                 model::display_name(*model) + " has " + std::to_string(graph.node_size()) +
                                 " nodes)");
    const auto view = model::node_view(graph.node(static_cast<int>(index)), index);
    copy_out_text(dump_text(view), out_json, out_size);
  });
}

MX_API mx_status* mx_model_check(const mx_model* model) {
  return guard([&] {
    require(model, "model");
    model::check_onnx(model->proto(), model::display_name(*model));
  });
}

}  // extern "C"
