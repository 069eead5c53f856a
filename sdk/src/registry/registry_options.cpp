#include "registry/registry_options.hpp"
#include "util/json_text.hpp"

#include "util/error.hpp"

namespace mx {

using json = nlohmann::json;

json parse_options_json(const char* options_json, const char* what) {
  if (!options_json || !*options_json) return json::object();
  // Options travel on into plugin requests (copied and dumped, recursively).
  check_json_limits(options_json, what);
  json options;
  try {
    options = json::parse(options_json);
  } catch (const json::exception& e) {
    fail(MX_ERR_INVALID_ARGUMENT, std::string(what) + " are not valid JSON: " + e.what());
  }
  if (!options.is_object()) fail(MX_ERR_INVALID_ARGUMENT, std::string(what) + " must be a JSON object");
  return options;
}

RegistryOptions parse_registry_options(const char* options_json) {
  RegistryOptions out;
  // Named, not iterated as a temporary: items() would dangle.
  const json options = parse_options_json(options_json, "registry options");
  for (const auto& [key, value] : options.items()) {
    if (key == "discover") {
      if (!value.is_boolean()) fail(MX_ERR_INVALID_ARGUMENT, "\"discover\" must be true or false");
      out.discover = value.get<bool>();
    } else if (key == "plugin_dirs") {
      if (!value.is_array()) fail(MX_ERR_INVALID_ARGUMENT, "\"plugin_dirs\" must be an array of strings");
      for (const auto& dir : value) {
        if (!dir.is_string()) fail(MX_ERR_INVALID_ARGUMENT, "\"plugin_dirs\" must be an array of strings");
        out.plugin_dirs.push_back(dir.get<std::string>());
      }
    } else if (key == "graph_reader") {
      if (!value.is_boolean()) fail(MX_ERR_INVALID_ARGUMENT, "\"graph_reader\" must be true or false");
      out.graph_reader = value.get<bool>();
    } else {
      fail(MX_ERR_INVALID_ARGUMENT, "unknown registry option '" + key + "'");
    }
  }
  return out;
}

}  // namespace mx
