// The integers of a program's JSON (sizes, dtype codes, int arguments),
// read so that a hostile file cannot reach undefined behaviour: nlohmann's
// get<int64_t>() on a floating-point value outside int64's range is one (the
// pt2_program fuzzer found `"as_int": 5.5e67`). Only JSON integers that fit
// are accepted; anything else is an error naming the value, which the
// program reader and the lowering report with the file and node.
#pragma once
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_excerpt.hpp"

namespace mx::torch_export {

inline int64_t as_int64(const nlohmann::json& v) {
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw std::runtime_error("integer " + brief(v) + " is out of the int64 range");
  if (!v.is_number_integer()) throw std::runtime_error("expected an integer, found " + brief(v));
  return v.get<int64_t>();
}

inline std::vector<int64_t> as_int64s(const nlohmann::json& v) {
  if (!v.is_array()) throw std::runtime_error("expected a list of integers, found " + brief(v));
  std::vector<int64_t> out;
  out.reserve(v.size());
  for (const auto& e : v) out.push_back(as_int64(e));
  return out;
}

}  // namespace mx::torch_export
