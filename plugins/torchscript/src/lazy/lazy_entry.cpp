// The "torchscript" plugin as the host discovers it: a small library that
// does not link LibTorch. Loading LibTorch costs about a second and 150 MB
// of mappings, and most processes that open a registry never export a
// TorchScript file (tagging, inspecting, exporting a .pt2). So this entry
// answers `probe` itself (is the file a TorchScript zip?) and opens the
// LibTorch part — <plugin dir>/torchscript/libmodelexport_torchscript_frontend.so,
// the full plugin, which the host never sees because discovery does not
// descend into folders — on the first request that needs it, then forwards
// every request to it. Without LibTorch installed the plugin still lists,
// and an export says which library could not be opened and why.
#include <dlfcn.h>

#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"
#include "mx/aten_onnx/frontend_entry.hpp"
#include "plugin/identity.hpp"
#include "probe.hpp"

namespace {

using mx::aten_onnx::host_text;

constexpr const char* kFrontendLibrary = "torchscript/libmodelexport_torchscript_frontend.so";

struct Frontend {  // the LibTorch part, once opened
  const mx_plugin_descriptor* descriptor = nullptr;
  void* state = nullptr;
  std::string error;  // why it could not be opened
};

struct State {
  mx_host_api host;
  std::once_flag opened;
  Frontend frontend;
};

std::string frontend_path() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&frontend_path), &info) || !info.dli_fname) return kFrontendLibrary;
  std::string self = info.dli_fname;
  const auto slash = self.find_last_of('/');
  return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) + kFrontendLibrary;
}

// Opens the LibTorch part and creates its state; never unloaded (LibTorch
// does not support being unloaded).
void open_frontend(State& s) {
  const std::string path = frontend_path();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    s.frontend.error =
        "torchscript: cannot load its LibTorch part '" + path + "': " + (why ? why : "unknown error");
    return;
  }
  auto entry = reinterpret_cast<mx_plugin_entry_fn>(::dlsym(handle, MX_PLUGIN_ENTRY_SYMBOL));
  const mx_plugin_descriptor* d = entry ? entry() : nullptr;
  if (!d || d->abi_major != MX_PLUGIN_ABI_MAJOR || d->abi_minor > MX_PLUGIN_ABI_MINOR || !d->create ||
      !d->run) {
    s.frontend.error =
        "torchscript: '" + path + "' is not a matching torchscript frontend (rebuild and reinstall)";
    return;
  }
  mx_plugin_output err{};
  if (int32_t rc = d->create(&s.host, &s.frontend.state, &err); rc != MX_OK) {
    s.frontend.error =
        "torchscript: its LibTorch part failed to start: " + std::string(err.error ? err.error : "?");
    if (err.error) s.host.free(err.error);
    return;
  }
  s.frontend.descriptor = d;
}

int32_t lazy_create(const mx_host_api* host, void** state, mx_plugin_output* error) {
  if (int32_t rc = mx::aten_onnx::check_create(mx::torchscript::kIdentity.name, host, state, error);
      rc != MX_OK)
    return rc;
  try {
    auto* s = new State{};
    s->host = mx::aten_onnx::copy_host_api(*host);
    *state = s;
    return MX_OK;
  } catch (...) {
    return MX_ERR_INTERNAL;
  }
}

void lazy_destroy(void* state) {
  auto* s = static_cast<State*>(state);
  if (s && s->frontend.descriptor && s->frontend.descriptor->destroy)
    s->frontend.descriptor->destroy(s->frontend.state);
  delete s;
}

int32_t lazy_run(void* state, const char* request, size_t size, mx_plugin_output* out) {
  if (!state || !out) return MX_ERR_INVALID_ARGUMENT;
  auto& s = *static_cast<State*>(state);
  try {
    const auto req =
        nlohmann::json::parse(std::string_view(request ? request : "", request ? size : 0), nullptr, false);
    if (req.is_object() && req.value("operation", "") == "probe" && req.value("model_path", "") != "") {
      const bool yes = mx::torchscript::looks_like_torchscript(req["model_path"].get<std::string>());
      out->json = host_text(s.host, yes ? "{\"accepts\":true}" : "{\"accepts\":false}", &out->json_size);
      return out->json ? MX_OK : MX_ERR_INTERNAL;
    }
    std::call_once(s.opened, open_frontend, std::ref(s));
    if (!s.frontend.descriptor) {
      out->error = host_text(s.host, s.frontend.error);
      return MX_ERR_PLUGIN;
    }
    return s.frontend.descriptor->run(s.frontend.state, request, size, out);
  } catch (...) {
    out->error = host_text(s.host, "torchscript: unexpected failure opening its LibTorch part");
    return MX_ERR_INTERNAL;
  }
}

}  // namespace

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor d =
      mx::aten_onnx::frontend_descriptor(mx::torchscript::kIdentity, lazy_create, lazy_destroy, lazy_run);
  return &d;
}
