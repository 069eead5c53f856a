#include "mx/aten_onnx/weights.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "mapped_pages.hpp"
#include "modelexport/modelexport.h"
#include "mx/aten_onnx/error.hpp"
#include "mx/common/derivation_text.hpp"

namespace mx::aten_onnx {
namespace {

const WeightBytes& bytes_of(const WeightMap& data, const onnx::TensorProto& t) {
  auto it = data.find(t.name());
  if (it == data.end())
    throw Error(MX_ERR_INTERNAL, "internal: no weight for initializer '" + t.name() + "'");
  return it->second;
}

// An initializer that carries its own bytes (a constant the graph passes
// made one), not a weight of the WeightMap: written as it is.
bool carries_bytes(const WeightMap& data, const onnx::TensorProto& t) {
  if (data.find(t.name()) != data.end()) return false;
  int64_t numel = 1;
  for (auto d : t.dims()) numel *= d;
  return t.has_raw_data() || numel == 0 || t.float_data_size() > 0 || t.int32_data_size() > 0 ||
         t.int64_data_size() > 0 || t.double_data_size() > 0 || t.uint64_data_size() > 0 ||
         t.string_data_size() > 0;
}

void set_raw(onnx::TensorProto& p, const WeightBytes& w) {
  if (!w.derived()) return p.set_raw_data(std::string(w.data, w.size));
  std::string raw(w.size, '\0');
  for_each_output_piece(w, [&](uint64_t at, const char* d, uint64_t n) { std::memcpy(&raw[at], d, n); });
  p.set_raw_data(std::move(raw));
}

void add_entry(onnx::TensorProto& t, const char* key, const std::string& value) {
  auto* e = t.add_external_data();
  e->set_key(key);
  e->set_value(value);
}

void set_external(onnx::TensorProto& t, const std::string& location, uint64_t offset, uint64_t length) {
  t.clear_raw_data();
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  add_entry(t, "location", location);
  add_entry(t, "offset", std::to_string(offset));
  add_entry(t, "length", std::to_string(length));
}

// A derived weight referred to in its source, with what the host derives
// it by.
void set_derived_external(onnx::TensorProto& t, const std::string& location, const WeightBytes& w) {
  set_external(t, location, w.source_offset, w.size);
  if (w.permuted) add_entry(t, mx::common::kPermutationKey, mx::common::permutation_text(w.permuted->perm));
  if (w.scaled) add_entry(t, mx::common::kChannelScaleKey, mx::common::channel_scale_text(w.scaled->scale));
}

bool in_source(const WeightBytes& w) {
  return w.size >= kExternalMinBytes && w.source_offset != kNotInSource;
}

// An output file that removes itself unless closed successfully.
class OutFile {
 public:
  explicit OutFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("cannot create");
  }
  ~OutFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!done_) ::unlink(path_.c_str());
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  void write(const char* p, uint64_t n) { write_at(written_, p, n); }
  // Writes at `offset` (a weight's pieces come in any order); the file
  // ends at the furthest byte written.
  void write_at(uint64_t offset, const char* p, uint64_t n) {
    while (n > 0) {
      ssize_t w =
          ::pwrite(fd_, p, static_cast<size_t>(std::min<uint64_t>(n, 1u << 30)), static_cast<off_t>(offset));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail("cannot write");
      p += w;
      n -= static_cast<uint64_t>(w);
      offset += static_cast<uint64_t>(w);
    }
    written_ = std::max(written_, offset);
  }
  // Writes `w`'s output bytes at the end; returns where they start.
  uint64_t append(const WeightBytes& w) {
    const uint64_t base = written_;
    for_each_output_piece(w, [&](uint64_t at, const char* d, uint64_t n) { write_at(base + at, d, n); });
    if (written_ != base + w.size)
      throw Error(MX_ERR_INTERNAL, "internal: a weight's pieces do not cover it");
    return base;
  }
  void close() {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("cannot write");
    done_ = true;
  }
  uint64_t written() const { return written_; }

 private:
  [[noreturn]] void fail(const char* what) {
    throw Error(MX_ERR_IO, std::string(what) + " '" + path_ + "': " + std::strerror(errno));
  }
  std::string path_;
  int fd_ = -1;
  bool done_ = false;
  uint64_t written_ = 0;
};

}  // namespace

uint64_t weight_bytes(const onnx::GraphProto& g, const WeightMap& data) {
  uint64_t total = 0;
  for (const auto& t : g.initializer())
    if (!carries_bytes(data, t)) total += bytes_of(data, t).size;
  return total;
}

void inline_weights(onnx::GraphProto& g, const WeightMap& data) {
  for (auto& t : *g.mutable_initializer())
    if (!carries_bytes(data, t)) set_raw(t, bytes_of(data, t));
}

uint64_t write_external_weights(onnx::GraphProto& g, const WeightMap& data, const std::string& data_path,
                                const std::string& location) {
  OutFile out(data_path);
  for (auto& t : *g.mutable_initializer()) {
    if (carries_bytes(data, t)) continue;
    const WeightBytes& w = bytes_of(data, t);
    if (w.size < kExternalMinBytes) {
      set_raw(t, w);
      continue;
    }
    set_external(t, location, out.append(w), w.size);
  }
  out.close();
  return out.written();
}

void for_each_output_piece(const WeightBytes& w, const OutputPiece& put) {
  try {
    mx::common::for_each_derived_piece(w.data, w.size, w.derivation(), put,
                                       [&w](uint64_t at, uint64_t n) { release_mapped_pages(w, at, n); });
  } catch (const std::invalid_argument& e) {
    throw Error(MX_ERR_INTERNAL, std::string("internal: a weight's ") + e.what());
  }
}

bool referred(const WeightBytes& w, const ReferenceTargets& targets) {
  if (!w.derived()) return in_source(w);
  return (targets.derived_references && in_source(w)) ||
         (w.size >= kExternalMinBytes && !targets.derived_path.empty());
}

uint64_t refer_to_source(onnx::GraphProto& g, const WeightMap& data, const ReferenceTargets& targets) {
  std::optional<OutFile> derived;  // created on the first weight written there
  uint64_t left_inline = 0;
  for (auto& t : *g.mutable_initializer()) {
    if (carries_bytes(data, t)) continue;
    const WeightBytes& w = bytes_of(data, t);
    if (!referred(w, targets)) {
      set_raw(t, w);
      left_inline += w.size;
    } else if (!w.derived()) {
      set_external(t, targets.source_location, w.source_offset, w.size);
    } else if (targets.derived_references && in_source(w)) {
      set_derived_external(t, targets.source_location, w);
    } else {
      if (!derived) derived.emplace(targets.derived_path);
      set_external(t, targets.derived_path, derived->append(w), w.size);
    }
  }
  if (derived) derived->close();
  return left_inline;
}

void write_file(const std::string& path, const std::string& bytes) {
  OutFile out(path);
  out.write(bytes.data(), bytes.size());
  out.close();
}

}  // namespace mx::aten_onnx
