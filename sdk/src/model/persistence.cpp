#include "model/persistence.hpp"

#include <optional>

#include "hierarchy/parse.hpp"
#include "hierarchy/serialize.hpp"
#include "model/check.hpp"
#include "model/onnx_io.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/options.hpp"

namespace modelexport::model {
namespace {

std::optional<hierarchy::Document> read_sidecar(const std::string& model_path) {
  const std::string path = sidecar_path(model_path);
  if (!file_exists(path)) return std::nullopt;
  return hierarchy::parse_document_text(read_file(path), path);
}

std::unique_ptr<mx_model> build(onnx::ModelProto proto, std::string source_path,
                                const std::optional<hierarchy::Document>& sidecar) {
  auto model = std::make_unique<mx_model>();
  model->proto = std::move(proto);
  model->source_path = std::move(source_path);
  const std::string where = display_name(*model);
  set_hierarchy(*model, load_hierarchy(model->proto, sidecar, where), where);
  return model;
}

// The proto as it goes to disk: hierarchy stored as asked, then checked.
std::string encode(const mx_model& model, const SaveOptions& options,
                   const std::string& where) {
  onnx::ModelProto out = model.proto;
  store_hierarchy(out, model.hierarchy, options.tag_storage);
  if (options.check) check_onnx(out, where);
  return serialize_onnx(out, where);
}

}  // namespace

SaveOptions parse_save_options(const char* options_json) {
  auto json = parse_options(options_json, "save options", {"tag_storage", "sidecar", "check"});
  SaveOptions options;
  options.tag_storage = tag_storage_from_name(option_string(json, "tag_storage", "metadata"));
  options.sidecar = option_bool(json, "sidecar", true);
  options.check = option_bool(json, "check", true);
  return options;
}

std::string sidecar_path(const std::string& model_path) {
  const std::string ext = ".onnx";
  std::string stem = model_path;
  if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0)
    stem.resize(stem.size() - ext.size());
  return stem + ".hierarchy.json";
}

std::unique_ptr<mx_model> load_model_file(const std::string& path) {
  const std::string bytes = read_file(path);
  return build(parse_onnx(bytes, path), path, read_sidecar(path));
}

std::unique_ptr<mx_model> load_model_bytes(std::string_view bytes) {
  return build(parse_onnx(bytes, "bytes"), "", std::nullopt);
}

std::string save_model_bytes(const mx_model& model, const SaveOptions& options) {
  return encode(model, options, display_name(model));
}

void save_model_file(const mx_model& model, const std::string& path,
                     const SaveOptions& options) {
  const std::string onnx_bytes = encode(model, options, path);
  // Stage both files before renaming either, so an I/O error on the second
  // does not leave a model without its sidecar.
  StagedFile onnx_file(path, onnx_bytes);
  std::optional<StagedFile> sidecar;
  if (options.sidecar)
    sidecar.emplace(sidecar_path(path), hierarchy::document_to_json(model.hierarchy).dump(2) + "\n");
  onnx_file.commit();
  if (sidecar) sidecar->commit();
}

}  // namespace modelexport::model
