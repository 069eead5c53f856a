// Small helpers for tests written against the public C API.
#pragma once
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"

// Takes ownership of a status and returns "<code>: <message>" ("ok" for NULL).
inline std::string status_text(mx_status* s) {
  std::string text = s ? std::string(mx_code_name(mx_status_code(s))) + ": " + mx_status_message(s) : "ok";
  mx_status_release(s);
  return text;
}

#define REQUIRE_OK(expr) REQUIRE(status_text(expr) == "ok")

inline nlohmann::json take_json(char* text, size_t size) {
  nlohmann::json j = nlohmann::json::parse(text, text + size);
  mx_free(text);
  return j;
}

inline nlohmann::json plugins_listing(const mx_registry* r) {
  char* text = nullptr;
  size_t size = 0;
  REQUIRE_OK(mx_registry_plugins_json(r, &text, &size));
  return take_json(text, size);
}

inline nlohmann::json hierarchy_of(const mx_model* m) {
  char* text = nullptr;
  size_t size = 0;
  REQUIRE_OK(mx_model_hierarchy_json(m, &text, &size));
  return take_json(text, size);
}

// The registry's listing entry whose path ends with `file`, or null.
inline nlohmann::json entry_for(const nlohmann::json& listing, const std::string& file) {
  for (const auto& e : listing["plugins"]) {
    std::string path = e["path"];
    if (path.size() >= file.size() && path.compare(path.size() - file.size(), file.size(), file) == 0)
      return e;
  }
  return nullptr;
}

inline mx_registry* registry_with(const nlohmann::json& options) {
  mx_registry* r = nullptr;
  REQUIRE_OK(mx_registry_create(options.dump().c_str(), &r));
  return r;
}

inline const std::string kScopePlugin = std::string(MX_TEST_PLUGIN_DIR) + "/libmodelexport_strategy_scope.so";
inline const std::string kGoodPlugin = std::string(MX_TEST_GOOD_DIR) + "/libmx_test_good.so";
