#include "util/options.hpp"
#include "util/json_text.hpp"

#include <cstring>

#include "util/error.hpp"

namespace mx {

nlohmann::json parse_options(const char* json, const char* what, std::initializer_list<const char*> allowed) {
  if (!json || !*json) return nlohmann::json::object();
  check_json_limits(json, what);
  nlohmann::json options;
  try {
    options = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    fail(MX_ERR_INVALID_ARGUMENT, std::string(what) + ": malformed JSON: " + e.what());
  }
  if (!options.is_object()) fail(MX_ERR_INVALID_ARGUMENT, std::string(what) + ": must be a JSON object");
  for (const auto& item : options.items()) {
    bool known = false;
    for (const char* key : allowed) known = known || item.key() == key;
    if (!known) {
      std::string list;
      for (const char* key : allowed) list += (list.empty() ? "" : ", ") + std::string(key);
      fail(MX_ERR_INVALID_ARGUMENT,
           std::string(what) + ": unknown option '" + item.key() + "' (known: " + list + ")");
    }
  }
  return options;
}

bool option_bool(const nlohmann::json& options, const char* key, bool fallback) {
  auto it = options.find(key);
  if (it == options.end()) return fallback;
  if (!it->is_boolean())
    fail(MX_ERR_INVALID_ARGUMENT, std::string("option '") + key + "' must be true or false");
  return it->get<bool>();
}

std::string option_string(const nlohmann::json& options, const char* key, const std::string& fallback) {
  auto it = options.find(key);
  if (it == options.end()) return fallback;
  if (!it->is_string()) fail(MX_ERR_INVALID_ARGUMENT, std::string("option '") + key + "' must be a string");
  return it->get<std::string>();
}

}  // namespace mx
