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
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "modelexport/modelexport.h"
#include "modelexport/plugin.h"
#include "mx/common/zip_directory.hpp"

namespace {

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

char* copy_text(const mx_host_api& h, const std::string& s, size_t* size = nullptr) {
  char* p = static_cast<char*>(h.alloc(s.size() + 1));
  if (!p) return nullptr;
  std::memcpy(p, s.data(), s.size() + 1);
  if (size) *size = s.size();
  return p;
}

// A zip with a data.pkl (at the top or in the archive's folder) and no
// archive_format (that is a .pt2): what torch.jit.save writes. Only the
// central directory's pages of the mapping are read.
bool looks_like_torchscript(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  void* map = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return false;
  bool pickle = false, pt2 = false;
  try {
    for (const auto& e : mx::common::read_zip_directory(static_cast<const unsigned char*>(map),
                                                        static_cast<uint64_t>(st.st_size))) {
      auto ends_with = [&](const std::string& tail) {
        return e.name == tail ||
               (e.name.size() > tail.size() &&
                e.name.compare(e.name.size() - tail.size() - 1, std::string::npos, "/" + tail) == 0);
      };
      pickle |= ends_with("data.pkl");
      pt2 |= ends_with("archive_format");
    }
  } catch (const mx::common::ZipError&) {
    pickle = false;
  }
  ::munmap(map, static_cast<size_t>(st.st_size));
  return pickle && !pt2;
}

std::string frontend_path() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&looks_like_torchscript), &info) || !info.dli_fname)
    return kFrontendLibrary;
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
  if (!host || !state || !host->alloc) return MX_ERR_INVALID_ARGUMENT;
  if (host->abi_major != MX_PLUGIN_ABI_MAJOR) {
    if (error) error->error = copy_text(*host, "torchscript: host plugin ABI major mismatch");
    return MX_ERR_PLUGIN;
  }
  try {
    auto* s = new State{};
    // The host's table as far as both know it: a newer host's extra fields
    // are not copied, so struct_size must say what this copy holds.
    std::memcpy(&s->host, host, std::min<size_t>(sizeof(mx_host_api), host->struct_size));
    s->host.struct_size = static_cast<uint32_t>(std::min<size_t>(sizeof(mx_host_api), host->struct_size));
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
      const bool yes = looks_like_torchscript(req["model_path"].get<std::string>());
      out->json = copy_text(s.host, yes ? "{\"accepts\":true}" : "{\"accepts\":false}", &out->json_size);
      return out->json ? MX_OK : MX_ERR_INTERNAL;
    }
    std::call_once(s.opened, open_frontend, std::ref(s));
    if (!s.frontend.descriptor) {
      out->error = copy_text(s.host, s.frontend.error);
      return MX_ERR_PLUGIN;
    }
    return s.frontend.descriptor->run(s.frontend.state, request, size, out);
  } catch (...) {
    out->error = copy_text(s.host, "torchscript: unexpected failure opening its LibTorch part");
    return MX_ERR_INTERNAL;
  }
}

}  // namespace

MX_PLUGIN_ENTRY {
  static const mx_plugin_descriptor d = {
      MX_PLUGIN_ABI_MAJOR,
      MX_PLUGIN_ABI_MINOR,
      sizeof(mx_plugin_descriptor),
      MX_PLUGIN_FRONTEND,
      MX_PLUGIN_FLAG_THREAD_SAFE,
      "torchscript",
      MXTS_VERSION,
      "TorchScript (.pt) to ONNX through LibTorch, every node tagged with its module",
      lazy_create,
      lazy_destroy,
      lazy_run};
  return &d;
}
