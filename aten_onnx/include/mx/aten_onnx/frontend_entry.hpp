// The plugin-ABI side of a frontend's C entry point that does not depend on
// how the frontend answers: its descriptor, the checks and the copy of the
// host's table at `create`, and text handed to the host. Header-only and
// free of ONNX and LibTorch, so that torchscript's lazy entry, which links
// nothing of aten_onnx, shares it with frontend_plugin.hpp.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"

namespace mx::aten_onnx {

// What the host lists for a frontend plugin. `name` also prefixes every
// message of the frontend ("torch_export: ..."). String literals: the
// descriptor keeps the pointers.
struct FrontendIdentity {
  const char* name;
  const char* version;
  const char* description;
};

// Every frontend is thread-safe: the host may run exports concurrently.
constexpr mx_plugin_descriptor frontend_descriptor(const FrontendIdentity& identity,
                                                   decltype(mx_plugin_descriptor::create) create,
                                                   decltype(mx_plugin_descriptor::destroy) destroy,
                                                   decltype(mx_plugin_descriptor::run) run) {
  return {MX_PLUGIN_ABI_MAJOR,
          MX_PLUGIN_ABI_MINOR,
          sizeof(mx_plugin_descriptor),
          MX_PLUGIN_FRONTEND,
          MX_PLUGIN_FLAG_THREAD_SAFE,
          identity.name,
          identity.version,
          identity.description,
          create,
          destroy,
          run};
}

// A NUL-terminated copy in host-owned memory (the host frees it); NULL when
// the host's allocation fails.
inline char* host_text(const mx_host_api& host, const std::string& text, size_t* size = nullptr) {
  char* p = static_cast<char*>(host.alloc(text.size() + 1));
  if (!p) return nullptr;
  std::memcpy(p, text.c_str(), text.size() + 1);
  if (size) *size = text.size();
  return p;
}

// What `create` checks before it makes its state: its arguments, and that
// the host speaks this plugin ABI (on a mismatch error->error says so).
// MX_OK, or the code `create` returns.
inline int32_t check_create(const char* name, const mx_host_api* host, void** state,
                            mx_plugin_output* error) {
  if (!host || !state || !host->alloc) return MX_ERR_INVALID_ARGUMENT;
  if (host->abi_major != MX_PLUGIN_ABI_MAJOR) {
    if (error) error->error = host_text(*host, std::string(name) + ": host plugin ABI major mismatch");
    return MX_ERR_PLUGIN;
  }
  return MX_OK;
}

// The host's table as far as both sides know it. A newer host's extra
// fields are not copied, so struct_size says what the copy holds: the copy
// may be handed on (the lazy torchscript entry hands it to its LibTorch
// part, which reads MX_HOST_API_HAS from it).
inline mx_host_api copy_host_api(const mx_host_api& host) {
  mx_host_api copy{};
  const size_t known = std::min<size_t>(sizeof(mx_host_api), host.struct_size);
  std::memcpy(&copy, &host, known);
  copy.struct_size = static_cast<uint32_t>(known);
  return copy;
}

}  // namespace mx::aten_onnx
