// Strict JSON options: every C entry point that takes `options_json` parses
// it here, so an unknown key (a typo) is an error instead of being ignored.
#pragma once
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace mx {

// NULL or "" -> {}. Not an object, malformed JSON, or a key outside
// `allowed` -> MX_ERR_INVALID_ARGUMENT naming `what` and the key.
nlohmann::json parse_options(const char* json, const char* what, std::initializer_list<const char*> allowed);

// Typed getters that name the key on a type mismatch.
bool option_bool(const nlohmann::json& options, const char* key, bool fallback);
std::string option_string(const nlohmann::json& options, const char* key, const std::string& fallback);

}  // namespace mx
