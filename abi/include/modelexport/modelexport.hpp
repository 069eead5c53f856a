// modelexport — header-only C++17 wrapper over the C API (modelexport.h).
//
// RAII handles, std::string in and out, and errors as exceptions: every
// failing C call becomes a mx::Error carrying the mx_code and the
// message. The wrapper adds no behaviour of its own; it depends only on
// modelexport.h, so it works with any libmodelexport of the same ABI.
//
//   mx::Model m = mx::Model::load_file("bert.onnx");
//   std::string view = m.graph_json();
//   m.save_file("out.onnx", R"({"tag_storage":"metadata"})");
#ifndef MODELEXPORT_MODELEXPORT_HPP
#define MODELEXPORT_MODELEXPORT_HPP

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

#include "modelexport/modelexport.h"

namespace mx {

// A failed call: code() is the C API's mx_code, what() its message.
class Error : public std::runtime_error {
 public:
  Error(mx_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  mx_code code() const noexcept { return code_; }
  const char* code_name() const noexcept { return mx_code_name(code_); }

 private:
  mx_code code_;
};

namespace detail {
struct StatusDeleter {
  void operator()(mx_status* s) const noexcept { mx_status_release(s); }
};
struct ModelDeleter {
  void operator()(mx_model* m) const noexcept { mx_model_release(m); }
};
struct RegistryDeleter {
  void operator()(mx_registry* r) const noexcept { mx_registry_release(r); }
};
struct FreeDeleter {
  void operator()(void* p) const noexcept { mx_free(p); }
};
}  // namespace detail

// Owns an mx_status; converts it to an exception with check().
class Status {
 public:
  explicit Status(mx_status* status = nullptr) noexcept : status_(status) {}
  bool ok() const noexcept { return status_ == nullptr; }
  mx_code code() const noexcept { return mx_status_code(status_.get()); }
  std::string message() const { return mx_status_message(status_.get()); }
  // Throws Error when the status holds a failure.
  void check() const {
    if (!ok()) throw Error(code(), message());
  }

 private:
  std::unique_ptr<mx_status, detail::StatusDeleter> status_;
};

inline void check(mx_status* status) {
  Status(status).check();
}

// A buffer returned by the SDK (freed with mx_free).
class Buffer {
 public:
  Buffer() = default;
  Buffer(void* data, std::size_t size) noexcept : data_(data), size_(size) {}
  const void* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  std::string str() const {
    return data_ ? std::string(static_cast<const char*>(data_.get()), size_) : std::string();
  }

 private:
  std::unique_ptr<void, detail::FreeDeleter> data_;
  std::size_t size_ = 0;
};

namespace detail {
// Calls a C function producing (char**, size_t*) and returns the text.
template <typename Fn>
std::string text_out(Fn&& fn) {
  char* out = nullptr;
  std::size_t size = 0;
  check(fn(&out, &size));
  return Buffer(out, size).str();
}
inline const char* opt(const std::string& s) {
  return s.empty() ? nullptr : s.c_str();
}
}  // namespace detail

inline std::string version_string() {
  return mx_version_string();
}
inline std::tuple<uint32_t, uint32_t, uint32_t> version() {
  uint32_t major = 0, minor = 0, patch = 0;
  mx_version(&major, &minor, &patch);
  return {major, minor, patch};
}

// An ONNX model and its hierarchy. Movable, not copyable (like the handle).
class Model {
 public:
  explicit Model(mx_model* handle) noexcept : handle_(handle) {}

  static Model load_file(const std::string& path) {
    mx_model* m = nullptr;
    check(mx_model_load_file(path.c_str(), &m));
    return Model(m);
  }
  static Model load_bytes(const void* data, std::size_t size) {
    mx_model* m = nullptr;
    check(mx_model_load_bytes(data, size, &m));
    return Model(m);
  }
  static Model load_bytes(const std::string& bytes) { return load_bytes(bytes.data(), bytes.size()); }

  // options_json: "" for defaults (see mx_model_save_file); `progress`
  // (may be null) hears how the save goes (mx_model_save_file_with_progress).
  void save_file(const std::string& path, const std::string& options_json = "",
                 const mx_progress* progress = nullptr) const {
    check(mx_model_save_file_with_progress(get(), path.c_str(), detail::opt(options_json), progress));
  }
  std::string save_bytes(const std::string& options_json = "") const {
    void* out = nullptr;
    std::size_t size = 0;
    check(mx_model_save_bytes(get(), detail::opt(options_json), &out, &size));
    return Buffer(out, size).str();
  }

  std::string graph_json() const {
    return detail::text_out([&](char** o, std::size_t* s) { return mx_model_graph_json(get(), o, s); });
  }
  std::size_t node_count() const noexcept { return mx_model_node_count(get()); }
  std::string node_json(std::size_t index) const {
    return detail::text_out([&](char** o, std::size_t* s) { return mx_model_node_json(get(), index, o, s); });
  }
  void check_model() const { check(mx_model_check(get())); }

  std::string node_record(const std::string& node_name) const {
    return detail::text_out(
        [&](char** o, std::size_t* s) { return mx_model_node_record(get(), node_name.c_str(), o, s); });
  }
  void set_node_record(const std::string& node_name, const std::string& record_json) {
    check(mx_model_set_node_record(get(), node_name.c_str(), record_json.data(), record_json.size()));
  }
  std::string hierarchy_json() const {
    return detail::text_out([&](char** o, std::size_t* s) { return mx_model_hierarchy_json(get(), o, s); });
  }
  void set_hierarchy_json(const std::string& json) {
    check(mx_model_set_hierarchy_json(get(), json.data(), json.size()));
  }
  bool has_hierarchy() const noexcept { return mx_model_has_hierarchy(get()) != 0; }

  // Modules as local functions (see mx_model_to_functions); returns the report.
  std::string to_functions(const std::string& options_json = "", const mx_progress* progress = nullptr) {
    return detail::text_out([&](char** o, std::size_t* s) {
      return mx_model_to_functions_with_progress(get(), detail::opt(options_json), progress, o, s);
    });
  }
  // One module and its descendants as a standalone model (mx_model_extract).
  Model extract(const std::string& module_path, const std::string& options_json = "") const {
    mx_model* m = nullptr;
    check(mx_model_extract(get(), module_path.c_str(), detail::opt(options_json), &m));
    return Model(m);
  }
  // Per-module statistics (mx_model_modules_json; options e.g.
  // {"statistics": true}).
  std::string modules_json(const std::string& options_json = "") const {
    return detail::text_out([&](char** o, std::size_t* s) {
      return mx_model_modules_json(get(), detail::opt(options_json), o, s);
    });
  }
  // Per-module differences from this model (A) to `other` (B)
  // (mx_model_compare); returns the report.
  std::string compare_json(const Model& other, const std::string& options_json = "") const {
    return detail::text_out([&](char** o, std::size_t* s) {
      return mx_model_compare(get(), other.get(), detail::opt(options_json), o, s);
    });
  }
  // "dot" or "graphml" (mx_model_render).
  std::string render(const std::string& format) const {
    return detail::text_out(
        [&](char** o, std::size_t* s) { return mx_model_render(get(), format.c_str(), nullptr, o, s); });
  }

  mx_model* get() const noexcept { return handle_.get(); }
  mx_model* release() noexcept { return handle_.release(); }

 private:
  std::unique_ptr<mx_model, detail::ModelDeleter> handle_;
};

// Validation report of a file (mx_validate_file); inconsistencies are data.
// mx_write_file: atomic, symlink-safe write of a whole file.
inline void write_file(const std::string& path, const std::string& data) {
  check(mx_write_file(path.c_str(), data.data(), data.size(), nullptr));
}

inline std::string validate_file(const std::string& path) {
  return detail::text_out(
      [&](char** o, std::size_t* s) { return mx_validate_file(path.c_str(), nullptr, o, s); });
}

// The plugin registry (frontends and strategies). Thread-safe once created.
class Registry {
 public:
  explicit Registry(mx_registry* handle) noexcept : handle_(handle) {}

  static Registry create(const std::string& options_json = "") {
    mx_registry* r = nullptr;
    check(mx_registry_create(detail::opt(options_json), &r));
    return Registry(r);
  }

  void load_plugin(const std::string& path) { check(mx_registry_load_plugin(get(), path.c_str())); }
  std::string plugins_json() const {
    return detail::text_out([&](char** o, std::size_t* s) { return mx_registry_plugins_json(get(), o, s); });
  }
  // `progress` (may be null) hears how the call goes (mx_progress).
  void tag(const std::string& strategy, Model& model, const std::string& options_json = "",
           const mx_progress* progress = nullptr) const {
    check(mx_registry_tag_with_progress(get(), strategy.c_str(), model.get(), detail::opt(options_json),
                                        progress));
  }
  Model export_model(const std::string& frontend, const std::string& model_path,
                     const std::string& options_json, const mx_progress* progress = nullptr) const {
    mx_model* m = nullptr;
    check(mx_registry_export_with_progress(get(), frontend.c_str(), model_path.c_str(),
                                           detail::opt(options_json), progress, &m));
    return Model(m);
  }
  std::string module_tree(const std::string& frontend, const std::string& model_path) const {
    return detail::text_out([&](char** o, std::size_t* s) {
      return mx_registry_module_tree(get(), frontend.c_str(), model_path.c_str(), o, s);
    });
  }

  mx_registry* get() const noexcept { return handle_.get(); }

 private:
  std::unique_ptr<mx_registry, detail::RegistryDeleter> handle_;
};

}  // namespace mx

#endif  // MODELEXPORT_MODELEXPORT_HPP
