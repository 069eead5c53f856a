// How the hierarchy checks word a problem: "<where>: <field>: <problem>",
// outside text quoted through printable(). The cross-checks
// (consistency.cpp) and their test oracle (tests/hierarchy) write the same
// messages from here.
#pragma once
#include <string>
#include <string_view>

#include "util/error.hpp"
#include "util/utf8.hpp"

namespace mx::hierarchy {

[[noreturn]] inline void schema_error(const std::string& where, const std::string& field,
                                      const std::string& problem) {
  fail(MX_ERR_SCHEMA, where + ": " + field + ": " + problem);
}

inline std::string quoted(std::string_view s) {
  return "'" + printable(s) + "'";
}
// (Beside std::quoted, which argument-dependent lookup finds for a string.)
inline std::string quoted(const std::string& s) {
  return quoted(std::string_view(s));
}

}  // namespace mx::hierarchy
