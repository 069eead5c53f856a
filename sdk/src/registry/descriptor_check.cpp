#include "registry/descriptor_check.hpp"

#include <cstddef>

namespace mx {
namespace {

std::string abi_text(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string check_abi(const mx_plugin_descriptor& d) {
  if (d.abi_major != MX_PLUGIN_ABI_MAJOR)
    return "built against plugin ABI " + abi_text(d.abi_major, d.abi_minor) + ", host supports " +
           std::to_string(MX_PLUGIN_ABI_MAJOR) + ".x";
  if (d.abi_minor > MX_PLUGIN_ABI_MINOR)
    return "built against plugin ABI " + abi_text(d.abi_major, d.abi_minor) + ", newer than host " +
           abi_text(MX_PLUGIN_ABI_MAJOR, MX_PLUGIN_ABI_MINOR);
  return {};
}

// Size of the 1.0 layout: every 1.x plugin has at least these fields. A
// later minor may append fields, so a larger struct_size is fine.
constexpr size_t kMinDescriptorSize = offsetof(mx_plugin_descriptor, run) + sizeof(void*);

}  // namespace

bool is_valid_plugin_name(const char* name) {
  if (!name || !*name) return false;
  for (const char* p = name; *p; ++p) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

const char* plugin_kind_name(uint32_t kind) {
  switch (kind) {
    case MX_PLUGIN_FRONTEND:
      return "frontend";
    case MX_PLUGIN_STRATEGY:
      return "strategy";
  }
  return "unknown";
}

std::string check_descriptor(const mx_plugin_descriptor* d) {
  if (!d) return "entry point returned no descriptor (NULL)";
  std::string reason = check_abi(*d);
  if (!reason.empty()) return reason;
  if (d->struct_size < kMinDescriptorSize)
    return "descriptor struct_size " + std::to_string(d->struct_size) +
           " is smaller than the ABI 1.0 layout (" + std::to_string(kMinDescriptorSize) + ")";
  if (d->kind != MX_PLUGIN_FRONTEND && d->kind != MX_PLUGIN_STRATEGY)
    return "unknown plugin kind " + std::to_string(d->kind);
  if (!is_valid_plugin_name(d->name))
    return std::string("invalid plugin name '") + (d->name ? d->name : "(null)") +
           "': must match [a-z0-9_-]+";
  if (!d->run) return "descriptor has no run function";
  return {};
}

}  // namespace mx
