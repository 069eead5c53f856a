#include "hierarchy/path_table.hpp"

#include "util/error.hpp"

namespace mx::hierarchy {

size_t PathTable::insert(std::string_view key, size_t position) {
  if (position >= UINT32_MAX) fail(MX_ERR_UNSUPPORTED, "more than 4,294,967,294 modules");
  return map_.emplace(key, static_cast<uint32_t>(position)).first->second;
}

}  // namespace mx::hierarchy
