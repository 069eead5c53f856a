#include "registry/plugin_output.hpp"

#include <cstring>

#include "registry/host_api.hpp"

namespace mx {

PluginOutput::~PluginOutput() {
  host_free(raw_.json);
  host_free(raw_.bytes);
  host_free(raw_.error);
}

std::string PluginOutput::json() const {
  if (!raw_.json) return {};
  // json_size is advisory; trust the NUL if the size is missing.
  size_t n = raw_.json_size ? raw_.json_size : std::strlen(raw_.json);
  return std::string(raw_.json, n);
}

std::string PluginOutput::bytes() const {
  if (!raw_.bytes) return {};
  return std::string(reinterpret_cast<const char*>(raw_.bytes), raw_.bytes_size);
}

std::string PluginOutput::error(const std::string& fallback) const {
  if (!raw_.error || !*raw_.error) return fallback;
  return raw_.error;
}

}  // namespace mx
