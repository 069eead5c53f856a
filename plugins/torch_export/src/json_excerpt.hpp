// A value of the program quoted in an error message: at most a line of its
// JSON text. The whole value may be megabytes (a hostile archive puts them
// where a dtype code belongs); its depth is bounded by the limits the
// program's text was checked against before parsing (program.cpp).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "mx/common/json_limits.hpp"

namespace mx::torch_export {

inline std::string brief(const nlohmann::json& v) {
  if (v.is_structured() && v.size() > 8) return v.is_array() ? "[...]" : "{...}";
  return mx::common::excerpt(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace mx::torch_export
