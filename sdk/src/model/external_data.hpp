// ONNX external data (TensorProto.data_location = EXTERNAL): tensors whose
// bytes live in a file next to the model, named by the "location", "offset"
// and "length" entries of TensorProto.external_data.
//
// Loading (files only): every location is checked before anything is read.
// It must be a relative path without ".." components, and once resolved
// (symlinks included) it must stay inside the model's directory; otherwise
// MX_ERR_SECURITY. Each data file is opened once, at load time, and kept
// open by the model: later reads go through that descriptor, so swapping
// the path for a symlink after the check changes nothing, and saving over
// the same data file (tagging in place) cannot corrupt what the model still
// reads. Offsets and lengths are checked against the file size
// (MX_ERR_SCHEMA). Weights are never read at load time.
//
// Bytes (mx_model_load_bytes) have no directory: a model that references
// external data is refused (MX_ERR_SECURITY for hostile locations, else
// MX_ERR_UNSUPPORTED) and no file is ever opened.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mx/common/derived_bytes.hpp"
#include "mx/onnx_proto.hpp"

#include "progress/progress.hpp"
#include "util/files.hpp"

namespace mx::model {

// An open, validated external data file. A borrowed one is not the model's
// own data file but the source model a frontend exported from (a .pt2
// archive whose stored weights the export refers to): saving with
// "external_data" automatic keeps a model's own data external, and writes
// borrowed bytes inline unless they exceed protobuf's limit.
class DataFile {
 public:
  // `answer`: a file an export's answer refers to (its source, a file of
  // its output_dir), whose tensors may be derived references.
  DataFile(int fd, uint64_t size, std::string path, bool borrowed = false, bool answer = false)
      : fd_(fd), size_(size), path_(std::move(path)), borrowed_(borrowed), answer_(answer) {}
  ~DataFile();
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // pread()s exactly `length` bytes at `offset` into `out` (MX_ERR_IO).
  void read(uint64_t offset, uint64_t length, char* out) const;
  // Appends `length` bytes at `offset` to `out`, without holding them.
  void copy_to(uint64_t offset, uint64_t length, StagedWriter& out) const;
  bool borrowed() const { return borrowed_; }
  bool answer() const { return answer_; }
  int fd() const { return fd_; }

 private:
  int fd_;
  uint64_t size_;
  std::string path_;
  bool borrowed_;
  bool answer_;
};

// location (as written in the model) -> open file.
using DataFiles = std::map<std::string, std::shared_ptr<const DataFile>>;

struct ExternalRef {
  std::string location;
  uint64_t offset = 0;
  uint64_t length = 0;  // resolved: the rest of the file when absent
  // How the tensor is derived from those bytes (model/derived_data.hpp);
  // empty for a plain reference. `length` is the tensor's size either way.
  mx::common::Derivation derivation;
};

// Every tensor of the model that can hold data (initializers, sparse
// initializers, Constant-style attributes, subgraphs, local functions).
// Listing them visits every node: a load lists them once for all its
// checks.
using TensorList = std::vector<const onnx::TensorProto*>;
TensorList all_tensors(const onnx::ModelProto& proto);
std::vector<onnx::TensorProto*> all_tensors(onnx::ModelProto& proto);

bool is_external(const onnx::TensorProto& t);
bool has_external_data(const onnx::ModelProto& proto);

// Validates every external reference of a model loaded from `model_path`
// and opens the data files (see the header comment). `tensors`: the
// model's (all_tensors). `borrowed`: the files are a frontend's scratch
// output, saved inline unless too large (as bytes borrowed from a source).
DataFiles open_external_data(const TensorList& tensors, const std::string& model_path, bool borrowed = false);

// A frontend's answer (docs/plugin-protocol.md, "weights_by_reference"):
// every external tensor must name exactly `source_path`, the model file the
// frontend was asked to export, or a regular file directly inside
// `output_dir` ("<output_dir>/<name>", the request's private directory;
// empty: none), else MX_ERR_SECURITY. Each file is opened once (a symlink
// in output_dir is refused), borrowed unless `borrowed` is false (an
// export asked for external data: its saves then keep the weights
// external), and every reference is bounds-checked.
DataFiles open_source_data(const TensorList& tensors, const std::string& source_path,
                           const std::string& output_dir, const std::string& where, bool borrowed);

// Bytes of borrowed files the model's tensors refer to (what saving inline
// adds to the message).
uint64_t borrowed_bytes(const onnx::ModelProto& proto, const DataFiles& files);

// For models loaded from bytes: refuses any external reference among the
// model's `tensors`.
void refuse_external_data(const TensorList& tensors, const std::string& where);

// The checked reference of an external tensor (bounds against its file).
ExternalRef external_ref(const onnx::TensorProto& t, const DataFiles& files, const std::string& where);

// Appends the tensor bytes of `ref` (derived if it says so) to `out`, a
// bounded piece at a time, calling `piece_done` after each piece.
void write_external(const DataFiles& files, const ExternalRef& ref, StagedWriter& out,
                    const std::function<void()>& piece_done);

// Replaces every external tensor's reference by its bytes (raw_data).
void inline_external_data(onnx::ModelProto& proto, const DataFiles& files, const std::string& where);

// Streams the data of external tensors (read from `files`) and of inline
// raw_data tensors of at least `min_bytes` into `out`, rewriting each
// tensor's reference to `location` (the data file's name relative to the
// model) at the offset it was written to. One tensor at a time, so memory
// holds at most one chunk of an external tensor. Returns how many tensors
// went to `out`. Reports "write" (bytes written / to write) to `progress`.
size_t externalize(onnx::ModelProto& proto, const DataFiles& files, const std::string& location,
                   size_t min_bytes, const std::string& where, StagedWriter& out,
                   Progress& progress = Progress::none());

}  // namespace mx::model
