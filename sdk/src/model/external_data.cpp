#include "model/external_data.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <algorithm>

#include "model/derived_data.hpp"
#include "util/error.hpp"

namespace mx::model {
namespace {

using onnx::TensorProto;

// Const and mutable access to one field, picked by overload on constness,
// so the same walk serves both (a const walk must not call mutable_*():
// concurrent const calls on a model are documented as safe).
#define MX_FIELD(Type, name)                              \
  [[maybe_unused]] const auto& name##_of(const Type& m) { \
    return m.name();                                      \
  }                                                       \
  [[maybe_unused]] auto& name##_of(Type& m) {             \
    return *m.mutable_##name();                           \
  }
MX_FIELD(onnx::ModelProto, graph)
MX_FIELD(onnx::ModelProto, functions)
MX_FIELD(onnx::FunctionProto, node)
MX_FIELD(onnx::GraphProto, initializer)
MX_FIELD(onnx::GraphProto, sparse_initializer)
MX_FIELD(onnx::GraphProto, node)
MX_FIELD(onnx::NodeProto, attribute)
MX_FIELD(onnx::AttributeProto, t)
MX_FIELD(onnx::AttributeProto, tensors)
MX_FIELD(onnx::AttributeProto, sparse_tensor)
MX_FIELD(onnx::AttributeProto, sparse_tensors)
MX_FIELD(onnx::AttributeProto, g)
MX_FIELD(onnx::AttributeProto, graphs)
MX_FIELD(onnx::SparseTensorProto, values)
MX_FIELD(onnx::SparseTensorProto, indices)
#undef MX_FIELD

// Every tensor of a model, handed to `visit` (a walk, so that a question
// about all of them needs no list: has_external_data asks it of every save).
template <typename Tensor, typename Visit>
struct Walk {
  Visit visit;
  int depth = 0;

  template <typename Sparse>
  void sparse(Sparse& s) {
    if (s.has_values()) visit(&values_of(s));
    if (s.has_indices()) visit(&indices_of(s));
  }
  template <typename Graph>
  void graph(Graph& g) {
    // Subgraph nesting is bounded by protobuf's recursion limit (100) at
    // parse time; this guard only protects models built in memory.
    if (++depth > 200) fail(MX_ERR_UNSUPPORTED, "subgraphs nested more than 200 deep");
    for (auto& t : initializer_of(g)) visit(&t);
    for (auto& s : sparse_initializer_of(g)) sparse(s);
    for (auto& n : node_of(g)) node(n);
    --depth;
  }
  template <typename Node>
  void node(Node& n) {
    for (auto& a : attribute_of(n)) {
      if (a.has_t()) visit(&t_of(a));
      for (auto& t : tensors_of(a)) visit(&t);
      if (a.has_sparse_tensor()) sparse(sparse_tensor_of(a));
      for (auto& s : sparse_tensors_of(a)) sparse(s);
      if (a.has_g()) graph(g_of(a));
      for (auto& sub : graphs_of(a)) graph(sub);
    }
  }
  template <typename Model>
  void model(Model& m) {
    if (m.has_graph()) graph(graph_of(m));
    for (auto& f : functions_of(m))
      for (auto& n : node_of(f)) node(n);
  }
};

template <typename Tensor, typename Model, typename Visit>
void walk_tensors(Model& m, Visit visit) {
  Walk<Tensor, Visit> w{std::move(visit)};
  w.model(m);
}

std::string errno_text() {
  return std::strerror(errno);
}

const std::string* entry(const TensorProto& t, const char* key) {
  const std::string* found = nullptr;
  for (const auto& e : t.external_data())
    if (e.key() == key) found = &e.value();
  return found;
}

std::string tensor_label(const TensorProto& t, const std::string& where) {
  return where + ": tensor '" + t.name() + "' external data";
}

// The tensor's "location" entry; a tensor without one is refused.
const std::string& required_location(const TensorProto& t, const std::string& label) {
  const std::string* location = entry(t, "location");
  if (!location) fail(MX_ERR_SCHEMA, label + ": no \"location\" entry");
  return *location;
}

uint64_t parse_u64(const std::string& text, const std::string& label, const char* key) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    fail(MX_ERR_SCHEMA, label + ": \"" + key + "\" is not a non-negative integer: '" + text + "'");
  return std::strtoull(text.c_str(), nullptr, 10);
}

// The syntactic rules, checked before any file system access.
void check_location_text(const std::string& location, const std::string& label) {
  if (location.empty()) fail(MX_ERR_SCHEMA, label + ": empty \"location\"");
  if (location.find('\0') != std::string::npos)
    fail(MX_ERR_SECURITY, label + ": location contains a NUL byte");
  if (location[0] == '/')
    fail(MX_ERR_SECURITY, label + ": location '" + location +
                              "' is an absolute path; external data must stay in the "
                              "model's directory");
  size_t start = 0;
  for (;;) {
    size_t slash = location.find('/', start);
    const std::string part =
        location.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..")
      fail(MX_ERR_SECURITY, label + ": location '" + location + "' leaves the model's directory ('..')");
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
}

std::string directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string real_path(const std::string& path, const std::string& label, mx_code missing) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) fail(missing, label + ": '" + path + "': " + errno_text());
  return buf;
}

// Opens a regular file (`flags` added to O_RDONLY, e.g. O_NOFOLLOW).
std::shared_ptr<const DataFile> open_regular(const std::string& path, int flags, const std::string& label,
                                             bool borrowed, bool answer = false) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags);
  if (fd < 0) fail(MX_ERR_IO, label + ": cannot open '" + path + "': " + errno_text());
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(MX_ERR_IO, label + ": '" + path + "' is not a regular file");
  }
  return std::make_shared<DataFile>(fd, static_cast<uint64_t>(st.st_size), path, borrowed, answer);
}

std::shared_ptr<const DataFile> open_data_file(const std::string& model_dir, const std::string& location,
                                               const std::string& label, bool borrowed) {
  const std::string base = real_path(model_dir, label, MX_ERR_IO);
  const std::string canonical = real_path(model_dir + "/" + location, label, MX_ERR_IO);
  const std::string prefix = base == "/" ? base : base + "/";
  if (canonical.compare(0, prefix.size(), prefix) != 0)
    fail(MX_ERR_SECURITY, label + ": location '" + location + "' resolves to '" + canonical +
                              "', outside the model's directory '" + base +
                              "' (symlinks are followed before this check)");
  // O_NOFOLLOW: the canonical path has no symlink left; one swapped in since
  // realpath() is refused rather than followed.
  return open_regular(canonical, O_NOFOLLOW, label, borrowed);
}

}  // namespace

DataFile::~DataFile() {
  if (fd_ >= 0) ::close(fd_);
}

void DataFile::read(uint64_t offset, uint64_t length, char* out) const {
  while (length > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(length, 1u << 30));
    ssize_t n = ::pread(fd_, out, chunk, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      fail(MX_ERR_IO, path_ + ": read failed at offset " + std::to_string(offset) +
                          (n < 0 ? ": " + errno_text() : std::string(": file shrank")));
    out += n;
    offset += static_cast<uint64_t>(n);
    length -= static_cast<uint64_t>(n);
  }
}

void DataFile::copy_to(uint64_t offset, uint64_t length, StagedWriter& out) const {
  if (offset > size_ || length > size_ - offset)
    fail(MX_ERR_INTERNAL, path_ + ": copy of " + std::to_string(length) + " bytes at " +
                              std::to_string(offset) + " is past its end");
  out.copy_from(fd_, offset, length, path_);
}

TensorList all_tensors(const onnx::ModelProto& proto) {
  std::vector<const TensorProto*> out;
  walk_tensors<const TensorProto>(proto, [&out](const TensorProto* t) { out.push_back(t); });
  return out;
}

std::vector<TensorProto*> all_tensors(onnx::ModelProto& proto) {
  std::vector<TensorProto*> out;
  walk_tensors<TensorProto>(proto, [&out](TensorProto* t) { out.push_back(t); });
  return out;
}

bool is_external(const TensorProto& t) {
  return t.data_location() == TensorProto::EXTERNAL;
}

bool has_external_data(const onnx::ModelProto& proto) {
  bool found = false;
  walk_tensors<const TensorProto>(proto,
                                  [&found](const TensorProto* t) { found = found || is_external(*t); });
  return found;
}

DataFiles open_external_data(const TensorList& tensors, const std::string& model_path, bool borrowed) {
  DataFiles files;
  const std::string dir = directory_of(model_path);
  for (const auto* t : tensors) {
    if (!is_external(*t)) continue;
    const std::string label = tensor_label(*t, model_path);
    const std::string& location = required_location(*t, label);
    check_location_text(location, label);
    if (!files.count(location)) files[location] = open_data_file(dir, location, label, borrowed);
    external_ref(*t, files, model_path);  // bounds
  }
  return files;
}

namespace {

// `location` names a file directly inside `dir` ("<dir>/<name>", the name
// without '/', not "." or ".."); the file itself is checked when opened.
bool directly_inside(const std::string& location, const std::string& dir) {
  if (dir.empty() || location.size() <= dir.size() + 1 || location.compare(0, dir.size(), dir) != 0 ||
      location[dir.size()] != '/')
    return false;
  const std::string name = location.substr(dir.size() + 1);
  return name.find('/') == std::string::npos && name != "." && name != "..";
}

}  // namespace

DataFiles open_source_data(const TensorList& tensors, const std::string& source_path,
                           const std::string& output_dir, const std::string& where, bool borrowed) {
  DataFiles files;
  for (const auto* t : tensors) {
    if (!is_external(*t)) continue;
    const std::string label = tensor_label(*t, where);
    const std::string& location = required_location(*t, label);
    if (!files.count(location)) {
      if (location == source_path) {
        files[location] = open_regular(source_path, 0, label, borrowed, true);
      } else if (directly_inside(location, output_dir)) {
        // Written by the frontend in the host's private directory; a
        // symlink there is refused, not followed.
        files[location] = open_regular(location, O_NOFOLLOW, label, borrowed, true);
      } else {
        fail(MX_ERR_SECURITY,
             label + ": refers to '" + location + "'; an export may refer only to its source '" +
                 source_path + "'" +
                 (output_dir.empty() ? "" : " and to files of its output_dir '" + output_dir + "'"));
      }
    }
    external_ref(*t, files, where);  // bounds
  }
  return files;
}

uint64_t borrowed_bytes(const onnx::ModelProto& proto, const DataFiles& files) {
  uint64_t total = 0;
  for (const auto* t : all_tensors(proto)) {
    if (!is_external(*t)) continue;
    const ExternalRef ref = external_ref(*t, files, "model");
    if (files.at(ref.location)->borrowed()) total += ref.length;
  }
  return total;
}

void refuse_external_data(const TensorList& tensors, const std::string& where) {
  for (const auto* t : tensors) {
    if (!is_external(*t)) continue;
    const std::string label = tensor_label(*t, where);
    const std::string& location = required_location(*t, label);
    check_location_text(location, label);
    fail(MX_ERR_UNSUPPORTED, label + ": model bytes reference external data ('" + location +
                                 "'); load the model from its file instead");
  }
}

ExternalRef external_ref(const TensorProto& t, const DataFiles& files, const std::string& where) {
  const std::string label = tensor_label(t, where);
  const std::string& location = required_location(t, label);
  auto it = files.find(location);
  if (it == files.end())
    fail(MX_ERR_UNSUPPORTED, label + ": '" + location +
                                 "' was not opened with the model "
                                 "(a model built in memory cannot refer to external files)");
  ExternalRef ref{location, 0, 0};
  if (const auto* o = entry(t, "offset")) ref.offset = parse_u64(*o, label, "offset");
  const uint64_t size = it->second->size();
  if (ref.offset > size)
    fail(MX_ERR_SCHEMA, label + ": offset " + std::to_string(ref.offset) + " is past the end of '" +
                            location + "' (" + std::to_string(size) + " bytes)");
  if (const auto* l = entry(t, "length")) {
    ref.length = parse_u64(*l, label, "length");
    if (ref.length > size - ref.offset)
      fail(MX_ERR_SCHEMA, label + ": offset " + std::to_string(ref.offset) + " + length " +
                              std::to_string(ref.length) + " is past the end of '" + location + "' (" +
                              std::to_string(size) + " bytes)");
  } else {
    ref.length = size - ref.offset;
  }
  if (names_derivation(t)) {
    if (!it->second->answer())
      fail(MX_ERR_SCHEMA,
           label +
               ": its external_data names a derivation (modelexport_*), which only an "
               "export's answer may carry; ONNX readers would read the source bytes as they are");
    ref.derivation = derivation_of(t, ref.length, label);
  }
  return ref;
}

void write_external(const DataFiles& files, const ExternalRef& ref, StagedWriter& out,
                    const std::function<void()>& piece_done) {
  const auto& file = files.at(ref.location);
  if (!ref.derivation.empty()) {
    derive(*file, ref, [&](uint64_t, const char* p, uint64_t n) {
      out.write(std::string_view(p, static_cast<size_t>(n)));
      piece_done();
    });
    return;
  }
  for (uint64_t done = 0; done < ref.length;) {  // in pieces, so a progress bar moves
    const uint64_t n = std::min<uint64_t>(ref.length - done, 64u << 20);
    file->copy_to(ref.offset + done, n, out);
    done += n;
    piece_done();
  }
}

void inline_external_data(onnx::ModelProto& proto, const DataFiles& files, const std::string& where) {
  for (auto* t : all_tensors(proto)) {
    if (!is_external(*t)) continue;
    const ExternalRef ref = external_ref(*t, files, where);
    if (ref.length > static_cast<uint64_t>(INT_MAX))
      fail(MX_ERR_UNSUPPORTED, tensor_label(*t, where) +
                                   ": a tensor over 2 GB cannot be "
                                   "stored inside the ONNX file; save with "
                                   "{\"external_data\": true}");
    std::string bytes(static_cast<size_t>(ref.length), '\0');
    if (ref.derivation.empty()) files.at(ref.location)->read(ref.offset, ref.length, bytes.data());
    else
      derive(*files.at(ref.location), ref,
             [&bytes](uint64_t at, const char* p, uint64_t n) { std::memcpy(&bytes[at], p, n); });
    t->clear_external_data();
    t->set_data_location(TensorProto::DEFAULT);
    t->set_raw_data(std::move(bytes));
  }
}

namespace {

// What externalize() will write: the bytes of every external tensor and of
// every inline one of at least `min_bytes`.
uint64_t bytes_to_externalize(const onnx::ModelProto& proto, const DataFiles& files, size_t min_bytes,
                              const std::string& where) {
  uint64_t total = 0;
  for (const auto* t : all_tensors(proto)) {
    if (is_external(*t)) total += external_ref(*t, files, where).length;
    else if (t->has_raw_data() && t->raw_data().size() >= min_bytes) total += t->raw_data().size();
  }
  return total;
}

}  // namespace

size_t externalize(onnx::ModelProto& proto, const DataFiles& files, const std::string& location,
                   size_t min_bytes, const std::string& where, StagedWriter& out, Progress& progress) {
  const uint64_t total = progress.listening() ? bytes_to_externalize(proto, files, min_bytes, where) : 0;
  progress.report("write", "bytes", 0, total);
  size_t moved = 0;
  for (auto* t : all_tensors(proto)) {
    const uint64_t offset = out.written();
    uint64_t length = 0;
    if (is_external(*t)) {
      const ExternalRef ref = external_ref(*t, files, where);
      write_external(files, ref, out, [&] { progress.report("write", "bytes", out.written(), total); });
      length = ref.length;
    } else if (t->has_raw_data() && t->raw_data().size() >= min_bytes) {
      out.write(t->raw_data());
      progress.report("write", "bytes", out.written(), total);
      length = t->raw_data().size();
      t->clear_raw_data();
    } else {
      continue;
    }
    t->clear_external_data();
    t->set_data_location(TensorProto::EXTERNAL);
    auto add = [&](const char* k, const std::string& v) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("offset", std::to_string(offset));
    add("length", std::to_string(length));
    ++moved;
  }
  return moved;
}

}  // namespace mx::model
