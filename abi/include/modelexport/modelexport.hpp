/**
 * @file modelexport.hpp
 * @brief modelexport — header-only C++17 wrapper over the C API (modelexport.h).
 *
 * RAII handles, std::string in and out, and errors as exceptions: every
 * failing C call becomes an mx::Error carrying the mx_code and the message.
 * Each method is the C function it names: the same parameters (options as
 * JSON text, "" for the defaults), the same errors (thrown), the same
 * thread safety (a const method is a const call). What the C API hands out
 * is owned by the returned object (std::string, Model, Registry) and freed
 * with it. The wrapper adds no behaviour of its own and depends only on
 * modelexport.h, so it works with any libmodelexport of the same ABI.
 *
 *     mx::Model m = mx::Model::load_file("bert.onnx");
 *     std::string view = m.graph_json();
 *     m.save_file("out.onnx", R"({"tag_storage":"metadata"})");
 */
#ifndef MODELEXPORT_MODELEXPORT_HPP
#define MODELEXPORT_MODELEXPORT_HPP

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

#include "modelexport/modelexport.h"

namespace mx {

/// A failed call: code() is the C API's mx_code, what() its message.
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

/// Owns an mx_status (released with it); converts it to an exception.
class Status {
 public:
  explicit Status(mx_status* status = nullptr) noexcept : status_(status) {}
  bool ok() const noexcept { return status_ == nullptr; }
  mx_code code() const noexcept { return mx_status_code(status_.get()); }
  std::string message() const { return mx_status_message(status_.get()); }
  /// @throws Error when the status holds a failure.
  void check() const {
    if (!ok()) throw Error(code(), message());
  }

 private:
  std::unique_ptr<mx_status, detail::StatusDeleter> status_;
};

/// Takes `status` (released here); @throws Error when it holds a failure.
inline void check(mx_status* status) {
  Status(status).check();
}

/// A buffer returned by the SDK, freed with mx_free() when the Buffer goes.
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

/// mx_version_string(). Thread-safe.
inline std::string version_string() {
  return mx_version_string();
}
/// mx_version(): major, minor, patch of the loaded library. Thread-safe.
inline std::tuple<uint32_t, uint32_t, uint32_t> version() {
  uint32_t major = 0, minor = 0, patch = 0;
  mx_version(&major, &minor, &patch);
  return {major, minor, patch};
}

/// An ONNX model and its hierarchy (mx_model), released with the object.
/// Movable, not copyable (like the handle). Const methods are const calls:
/// several threads may make them on one model; the others need it alone.
class Model {
 public:
  /// Takes ownership of `handle` (released with mx_model_release()).
  explicit Model(mx_model* handle) noexcept : handle_(handle) {}

  /// mx_model_load_file(). @throws Error with its codes.
  static Model load_file(const std::string& path) {
    mx_model* m = nullptr;
    check(mx_model_load_file(path.c_str(), &m));
    return Model(m);
  }
  /// mx_model_load_bytes(); the bytes are copied. @throws Error with its codes.
  static Model load_bytes(const void* data, std::size_t size) {
    mx_model* m = nullptr;
    check(mx_model_load_bytes(data, size, &m));
    return Model(m);
  }
  /// mx_model_load_bytes() of a string.
  static Model load_bytes(const std::string& bytes) { return load_bytes(bytes.data(), bytes.size()); }

  /// mx_model_save_file_with_progress(): `options_json` "" for the
  /// defaults; `progress` may be null (nobody listens). @throws Error.
  void save_file(const std::string& path, const std::string& options_json = "",
                 const mx_progress* progress = nullptr) const {
    check(mx_model_save_file_with_progress(get(), path.c_str(), detail::opt(options_json), progress));
  }
  /// mx_model_save_bytes(): the serialized model. @throws Error.
  std::string save_bytes(const std::string& options_json = "") const {
    void* out = nullptr;
    std::size_t size = 0;
    check(mx_model_save_bytes(get(), detail::opt(options_json), &out, &size));
    return Buffer(out, size).str();
  }

  /// mx_model_graph_json(). @throws Error.
  std::string graph_json() const {
    return detail::text_out([&](char** o, std::size_t* s) { return mx_model_graph_json(get(), o, s); });
  }
  /// mx_model_node_count().
  std::size_t node_count() const noexcept { return mx_model_node_count(get()); }
  /// mx_model_node_json(). @throws Error (MX_ERR_NOT_FOUND past the end).
  std::string node_json(std::size_t index) const {
    return detail::text_out([&](char** o, std::size_t* s) { return mx_model_node_json(get(), index, o, s); });
  }
  /// mx_model_check(). @throws Error (MX_ERR_SCHEMA: the checker's message).
  void check_model() const { check(mx_model_check(get())); }

  /// mx_model_node_record(). @throws Error (MX_ERR_NOT_FOUND: no record).
  std::string node_record(const std::string& node_name) const {
    return detail::text_out(
        [&](char** o, std::size_t* s) { return mx_model_node_record(get(), node_name.c_str(), o, s); });
  }
  /// mx_model_set_node_record(); the model is unchanged on error. @throws Error.
  void set_node_record(const std::string& node_name, const std::string& record_json) {
    check(mx_model_set_node_record(get(), node_name.c_str(), record_json.data(), record_json.size()));
  }
  /// mx_model_hierarchy_json(). @throws Error.
  std::string hierarchy_json() const {
    return detail::text_out([&](char** o, std::size_t* s) { return mx_model_hierarchy_json(get(), o, s); });
  }
  /// mx_model_set_hierarchy_json(); the model is unchanged on error. @throws Error.
  void set_hierarchy_json(const std::string& json) {
    check(mx_model_set_hierarchy_json(get(), json.data(), json.size()));
  }
  /// mx_model_has_hierarchy().
  bool has_hierarchy() const noexcept { return mx_model_has_hierarchy(get()) != 0; }

  /// mx_model_to_functions_with_progress(): modules as local functions;
  /// returns the report. `progress` may be null. @throws Error.
  std::string to_functions(const std::string& options_json = "", const mx_progress* progress = nullptr) {
    return detail::text_out([&](char** o, std::size_t* s) {
      return mx_model_to_functions_with_progress(get(), detail::opt(options_json), progress, o, s);
    });
  }
  /// mx_model_extract(): one module and its descendants as a standalone
  /// model. @throws Error (MX_ERR_NOT_FOUND names the closest paths).
  Model extract(const std::string& module_path, const std::string& options_json = "") const {
    mx_model* m = nullptr;
    check(mx_model_extract(get(), module_path.c_str(), detail::opt(options_json), &m));
    return Model(m);
  }
  /// mx_model_modules_json(): per-module statistics (options e.g.
  /// {"statistics": true}). @throws Error.
  std::string modules_json(const std::string& options_json = "") const {
    return detail::text_out([&](char** o, std::size_t* s) {
      return mx_model_modules_json(get(), detail::opt(options_json), o, s);
    });
  }
  /// mx_model_compare(): per-module differences from this model (A) to
  /// `other` (B); returns the report. @throws Error.
  std::string compare_json(const Model& other, const std::string& options_json = "") const {
    return detail::text_out([&](char** o, std::size_t* s) {
      return mx_model_compare(get(), other.get(), detail::opt(options_json), o, s);
    });
  }
  /// mx_model_render() in "dot" or "graphml". @throws Error.
  std::string render(const std::string& format) const {
    return detail::text_out(
        [&](char** o, std::size_t* s) { return mx_model_render(get(), format.c_str(), nullptr, o, s); });
  }

  /// The handle, still owned by this object.
  mx_model* get() const noexcept { return handle_.get(); }
  /// The handle, now the caller's: free it with mx_model_release().
  mx_model* release() noexcept { return handle_.release(); }

 private:
  std::unique_ptr<mx_model, detail::ModelDeleter> handle_;
};

/// mx_write_file(): an atomic, symlink-safe write of a whole file.
/// Thread-safe. @throws Error.
inline void write_file(const std::string& path, const std::string& data) {
  check(mx_write_file(path.c_str(), data.data(), data.size(), nullptr));
}

/// mx_validate_file(): the report (inconsistencies are data, not errors).
/// Thread-safe. @throws Error when the file cannot be read or parsed.
inline std::string validate_file(const std::string& path) {
  return detail::text_out(
      [&](char** o, std::size_t* s) { return mx_validate_file(path.c_str(), nullptr, o, s); });
}

/// The plugin registry (mx_registry: frontends and strategies), released
/// with the object. Safe to share between threads once created.
class Registry {
 public:
  /// Takes ownership of `handle` (released with mx_registry_release()).
  explicit Registry(mx_registry* handle) noexcept : handle_(handle) {}

  /// mx_registry_create(). @throws Error with its codes.
  static Registry create(const std::string& options_json = "") {
    mx_registry* r = nullptr;
    check(mx_registry_create(detail::opt(options_json), &r));
    return Registry(r);
  }

  /// mx_registry_load_plugin(). @throws Error (MX_ERR_PLUGIN: refused).
  void load_plugin(const std::string& path) { check(mx_registry_load_plugin(get(), path.c_str())); }
  /// mx_registry_plugins_json(). @throws Error.
  std::string plugins_json() const {
    return detail::text_out([&](char** o, std::size_t* s) { return mx_registry_plugins_json(get(), o, s); });
  }
  /// mx_registry_tag_with_progress(): needs `model` alone; `progress`
  /// may be null. @throws Error with its codes (the model is unchanged).
  void tag(const std::string& strategy, Model& model, const std::string& options_json = "",
           const mx_progress* progress = nullptr) const {
    check(mx_registry_tag_with_progress(get(), strategy.c_str(), model.get(), detail::opt(options_json),
                                        progress));
  }
  /// mx_registry_export_with_progress(); `progress` may be null.
  /// @throws Error with its codes.
  Model export_model(const std::string& frontend, const std::string& model_path,
                     const std::string& options_json, const mx_progress* progress = nullptr) const {
    mx_model* m = nullptr;
    check(mx_registry_export_with_progress(get(), frontend.c_str(), model_path.c_str(),
                                           detail::opt(options_json), progress, &m));
    return Model(m);
  }
  /// mx_registry_module_tree(). @throws Error.
  std::string module_tree(const std::string& frontend, const std::string& model_path) const {
    return detail::text_out([&](char** o, std::size_t* s) {
      return mx_registry_module_tree(get(), frontend.c_str(), model_path.c_str(), o, s);
    });
  }

  /// The handle, still owned by this object.
  mx_registry* get() const noexcept { return handle_.get(); }

 private:
  std::unique_ptr<mx_registry, detail::RegistryDeleter> handle_;
};

}  // namespace mx

#endif  // MODELEXPORT_MODELEXPORT_HPP
