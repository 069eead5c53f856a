// Loading and saving whole models: ONNX bytes + hierarchy (+ the sidecar
// `<model>.hierarchy.json` for files).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "model/model.hpp"
#include "model/tag_storage.hpp"
#include "progress/progress.hpp"

namespace mx::model {

// "external_data": true | false | absent (auto: external when the model
// already has external data, would exceed protobuf's 2 GB limit, or is
// larger than "external_data_over" bytes when that is given).
enum class ExternalData { automatic, yes, no };

struct SaveOptions {
  TagStorage tag_storage = TagStorage::metadata;
  bool sidecar = true;  // files only
  bool check = true;
  ExternalData external_data = ExternalData::automatic;  // files only
  uint64_t external_over = 0;  // automatic: external past this many bytes (0: past the 2 GB limit only)
};

// Raw tensors at least this large go to the data file when saving with
// external data; smaller ones stay inline (as onnx's own converter does).
inline constexpr size_t kExternalDataMinBytes = 1024;

// "<model file name>.data", next to the model.
std::string external_data_location(const std::string& model_path);

// Parses mx_model_save_* options strictly (unknown key -> error).
SaveOptions parse_save_options(const char* options_json);

// "out.onnx" -> "out.hierarchy.json"; "out" -> "out.hierarchy.json".
std::string sidecar_path(const std::string& model_path);

// `borrowed_data`: its external data files are a frontend's scratch output
// (an export answered as a file): saves write them inline unless the model
// would exceed protobuf's limit, as for weights borrowed from a source file.
std::unique_ptr<mx_model> load_model_file(const std::string& path, bool borrowed_data = false);
std::unique_ptr<mx_model> load_model_bytes(std::string_view bytes);
// A frontend's answer whose weights refer to the file it exported from or
// to files it wrote in `output_dir` (model/external_data.hpp,
// open_source_data). `keep_external`: saving with "external_data"
// automatic writes the weights to a data file.
std::unique_ptr<mx_model> load_exported_bytes(std::string_view bytes, const std::string& source_path,
                                              const std::string& output_dir, bool keep_external);

// The saved model in a malloc'd buffer (NUL after the last byte, not
// counted in *out_size), as mx_model_save_bytes hands it out.
void save_model_bytes(const mx_model& model, const SaveOptions& options, void** out, size_t* out_size);
// Reports "check", "write" (bytes of the model file, or with external data
// of the data file) and "commit" to `progress`; cancelled, nothing is
// written (the staged temporaries go).
void save_model_file(const mx_model& model, const std::string& path, const SaveOptions& options,
                     Progress& progress = Progress::none());

}  // namespace mx::model
