// mx_write_file: the SDK's atomic writer (util/output_set.hpp) for files an
// embedder produces itself, e.g. a render saved next to a model.
#include "c_api/guard.hpp"
#include "util/files.hpp"
#include "util/options.hpp"

extern "C" {

MX_API mx_status* mx_write_file(const char* path, const void* data, size_t size,
                                const char* options_json) {
  return modelexport::guard([&] {
    modelexport::require(path, "path");
    if (size > 0) modelexport::require(data, "data");
    modelexport::parse_options(options_json, "write options", {});
    modelexport::write_file_atomically(
        path, std::string_view(static_cast<const char*>(data), size));
  });
}

}  // extern "C"
