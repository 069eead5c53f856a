#include "model/persistence.hpp"
#include "util/json_text.hpp"

#include <climits>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>

#include <google/protobuf/arena.h>

#include "hierarchy/parse.hpp"
#include "model/check.hpp"
#include "model/external_data.hpp"
#include "model/onnx_io.hpp"
#include "model/sidecar_file.hpp"
#include "model/streamed_write.hpp"
#include "model/tagged_bytes.hpp"
#include "util/prefault.hpp"
#include "model/tensor_data.hpp"
#include "mx/common/copy_out.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/output_set.hpp"
#include "util/warn.hpp"
#include "util/options.hpp"

namespace mx::model {
namespace {

// Every node carries its own record and the file has its module tree: the
// sidecar adds nothing.
bool fully_tagged(const onnx::ModelProto& proto, const std::string& where) {
  try {
    const hierarchy::Document own = load_hierarchy(proto, std::nullopt, where);
    return !own.modules.empty() && own.nodes.size() == static_cast<size_t>(proto.graph().node_size());
  } catch (const Error&) {
    return false;
  }
}

// The sidecar is implicit (found by name, not asked for): a malformed one
// next to a model that carries everything itself is stale, and skipped
// with a warning naming it; otherwise it is an error.
std::optional<hierarchy::Document> read_sidecar(const onnx::ModelProto& proto,
                                                const std::string& model_path) {
  const std::string path = sidecar_path(model_path);
  if (path_kind(path) == PathKind::missing) return std::nullopt;
  try {
    return hierarchy::parse_document_text(read_file(path), path);
  } catch (const Error& e) {
    if (!fully_tagged(proto, model_path)) throw;
    warn(std::string("ignoring the sidecar, the model carries its own records: ") + e.what());
    return std::nullopt;
  }
}

// A model with nothing but its proto parsed from `bytes`.
std::unique_ptr<mx_model> parsed(std::string_view bytes, const std::string& where) {
  auto model = std::make_unique<mx_model>();
  parse_onnx_into(bytes, where, model->proto());
  return model;
}

std::unique_ptr<mx_model> build(std::unique_ptr<mx_model> model, std::string source_path,
                                std::optional<hierarchy::Document> sidecar, DataFiles external_files = {}) {
  model->source_path = std::move(source_path);
  model->external_files = std::move(external_files);
  const std::string where = display_name(*model);
  // A sidecar's modules were checked when it was read (parse_document_text):
  // only the records composed from it and the file are checked again.
  bool sidecar_modules = false;
  hierarchy::Document doc = load_hierarchy(model->proto(), std::move(sidecar), where, &sidecar_modules);
  set_hierarchy(*model, std::move(doc), where, sidecar_modules ? Vouched::modules : Vouched::nothing);
  return model;
}

// Protobuf refuses messages over 2 GB; keep a margin for the hierarchy.
constexpr size_t kInlineLimit = static_cast<size_t>(INT_MAX) - (64u << 20);

// The proto as it goes to disk, for what needs one (the checker; external
// data inlined here for bytes or a file saved without external data, or
// externalized after for a file saved with it): the model tagged the one
// way a save tags it (model/tagged_bytes) and parsed back. It lives in an
// arena, which frees its small objects at once instead of one by one.
struct Prepared {
  google::protobuf::Arena arena;
  onnx::ModelProto& proto;
  // The encoder's bytes `proto` was parsed from, which are what serializing
  // it gives until it changes (external data inlined): written as they
  // are, the proto is not serialized again. Nullopt once it changed.
  std::optional<std::string> bytes;
  Prepared() : proto(*google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena)) {}
};

std::unique_ptr<Prepared> prepared(const mx_model& model, const SaveOptions& options,
                                   const std::string& where, bool inline_external,
                                   Progress& progress = Progress::none()) {
  auto copy = std::make_unique<Prepared>();
  {
    const TaggedBytes tagged(model, options.tag_storage);
    if (tagged.size() > static_cast<size_t>(INT_MAX))
      fail(MX_ERR_UNSUPPORTED, where +
                                   ": the tagged model is larger than protobuf's 2 GB limit; a "
                                   "model this large must keep its weights in external data");
    copy->bytes.emplace(tagged.size(), '\0');
    tagged.write_to(copy->bytes->data());
    parse_onnx_into(*copy->bytes, where, copy->proto);
  }
  onnx::ModelProto& out = copy->proto;
  if (options.check) {
    progress.report("check", "", 0, 0);
    check_onnx(out, where);
  }
  if (inline_external && has_external_data(out)) {
    inline_external_data(out, model.external_files, where);
    copy->bytes.reset();
  }
  return copy;
}

// The tagged bytes are written straight from the model (no proto to parse
// them into) unless something needs the proto: the checker runs on one,
// and external data is inlined or externalized into one.
bool writes_directly(const mx_model& model, const SaveOptions& options) {
  return !options.check && options.external_data != ExternalData::yes && !has_external_data(model.proto());
}

std::string base_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A model's own external data stays external; bytes borrowed from an
// export's source file go inline unless the result would be too large.
bool has_own_external_data(const onnx::ModelProto& proto, const DataFiles& files) {
  for (const auto* t : all_tensors(proto)) {
    if (!is_external(*t)) continue;
    const std::string* location = nullptr;
    for (const auto& e : t->external_data())
      if (e.key() == "location") location = &e.value();
    auto it = location ? files.find(*location) : files.end();
    if (it == files.end() || !it->second->borrowed()) return true;
  }
  return false;
}

// Decided on the prepared copy, whose sizes are computed for its own
// serialization anyway (computing them on the shared model would be safe
// too: protobuf's size cache is a relaxed atomic, see model/tagged_bytes).
bool wants_external(const onnx::ModelProto& out, const DataFiles& files, const SaveOptions& options) {
  switch (options.external_data) {
    case ExternalData::yes:
      return true;
    case ExternalData::no:
      return false;
    case ExternalData::automatic:
      break;
  }
  const uint64_t size = out.ByteSizeLong() + borrowed_bytes(out, files);
  return has_own_external_data(out, files) || size > kInlineLimit ||
         (options.external_over > 0 && size > options.external_over);
}

// The serialized model, in pieces so that a large inline model shows its
// progress (and can be cancelled) while it goes to disk.
// The same for a model written straight from its tagged bytes, a piece at
// a time: never the whole file in memory. The pieces are smaller, as the
// buffer protobuf writes them into is fresh memory, which costs more to
// touch than the writes it saves.
void write_reporting(StagedWriter& out, const TaggedBytes& bytes, Progress& progress) {
  constexpr size_t kPiece = 1u << 20;
  const size_t total = bytes.size();
  progress.report("write", "bytes", 0, total);
  bytes.write_in_pieces(
      [&](std::string_view piece) {
        out.write(piece);
        progress.report("write", "bytes", out.written(), total);
      },
      kPiece);
}

void write_reporting(StagedWriter& out, std::string_view bytes, Progress& progress) {
  constexpr size_t kPiece = 8u << 20;
  progress.report("write", "bytes", 0, bytes.size());
  for (size_t at = 0; at < bytes.size(); at += kPiece) {
    out.write(bytes.substr(at, kPiece));
    progress.report("write", "bytes", out.written(), bytes.size());
  }
}

// The model file written from the tagged bytes, and the sidecar on a second
// thread meanwhile (its text takes about as long to make as the model's
// bytes take to size and write), started first. False, with nothing left
// staged, when the bytes would be too large to stay inline.
bool write_tagged_bytes(const mx_model& model, const std::string& path, const SaveOptions& options,
                        OutputSet& output, Progress& progress) {
  StagedWriter& model_file = output.add(path);
  std::optional<BackgroundSidecar> sidecar;
  if (options.sidecar) sidecar.emplace(output.add(sidecar_path(path)), model.hierarchy);
  const TaggedBytes bytes(model, options.tag_storage);
  if (bytes.size() > kInlineLimit || bytes.size() > static_cast<size_t>(INT_MAX)) {
    sidecar.reset();
    if (options.sidecar) output.discard(sidecar_path(path));
    output.discard(path);
    return false;
  }
  write_reporting(model_file, bytes, progress);
  if (sidecar) sidecar->finish();
  return true;
}

}  // namespace

SaveOptions parse_save_options(const char* options_json) {
  auto json =
      parse_options(options_json, "save options",
                    {"tag_storage", "sidecar", "check", "external_data", "external_data_over"});
  SaveOptions options;
  options.tag_storage = tag_storage_from_name(option_string(json, "tag_storage", "metadata"));
  options.sidecar = option_bool(json, "sidecar", true);
  options.check = option_bool(json, "check", true);
  if (json.contains("external_data"))
    options.external_data = option_bool(json, "external_data", false) ? ExternalData::yes : ExternalData::no;
  if (auto it = json.find("external_data_over"); it != json.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() == 0)
      fail(MX_ERR_INVALID_ARGUMENT, "save option 'external_data_over' must be a positive number of bytes");
    options.external_over = it->get<uint64_t>();
  }
  return options;
}

std::string external_data_location(const std::string& model_path) {
  return base_name(model_path) + ".data";
}

std::string sidecar_path(const std::string& model_path) {
  const std::string ext = ".onnx";
  std::string stem = model_path;
  if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0)
    stem.resize(stem.size() - ext.size());
  return stem + ".hierarchy.json";
}

std::unique_ptr<mx_model> load_model_file(const std::string& path, bool borrowed_data) {
  std::unique_ptr<mx_model> model = parsed(read_file(path), path);
  const TensorList tensors = all_tensors(std::as_const(model->proto()));
  DataFiles files = open_external_data(tensors, path, borrowed_data);
  check_tensor_data(tensors, files, path);
  auto sidecar = read_sidecar(model->proto(), path);
  return build(std::move(model), path, std::move(sidecar), std::move(files));
}

std::unique_ptr<mx_model> load_exported_bytes(std::string_view bytes, const std::string& source_path,
                                              const std::string& output_dir, bool keep_external) {
  std::unique_ptr<mx_model> model = parsed(bytes, "bytes");
  const TensorList tensors = all_tensors(std::as_const(model->proto()));
  DataFiles files = open_source_data(tensors, source_path, output_dir, "bytes", !keep_external);
  check_tensor_data(tensors, files, "bytes");
  return build(std::move(model), "", std::nullopt, std::move(files));
}

std::unique_ptr<mx_model> load_model_bytes(std::string_view bytes) {
  std::unique_ptr<mx_model> model = parsed(bytes, "bytes");
  const TensorList tensors = all_tensors(std::as_const(model->proto()));
  refuse_external_data(tensors, "bytes");
  check_tensor_data(tensors, {}, "bytes");
  return build(std::move(model), "", std::nullopt);
}

void save_model_bytes(const mx_model& model, const SaveOptions& options, void** out, size_t* out_size) {
  if (options.external_data == ExternalData::yes)
    fail(MX_ERR_INVALID_ARGUMENT,
         "save options: \"external_data\": true needs a file "
         "(mx_model_save_file), not bytes");
  if (writes_directly(model, options)) {
    const TaggedBytes tagged(model, options.tag_storage);
    // Past protobuf's limit `prepared` refuses, naming the way out.
    if (tagged.size() <= static_cast<size_t>(INT_MAX)) {
      // Written where the caller gets it: an 89 MB model is not also
      // zero-filled and copied once more.
      std::unique_ptr<char, decltype(&std::free)> buffer(static_cast<char*>(std::malloc(tagged.size() + 1)),
                                                         &std::free);
      if (!buffer) throw std::bad_alloc();
      prefault_for_writing(buffer.get(), tagged.size());
      tagged.write_to(buffer.get());
      buffer.get()[tagged.size()] = '\0';
      *out_size = tagged.size();
      *out = buffer.release();
      return;
    }
  }
  const std::string where = display_name(model);
  const auto copy = prepared(model, options, where, true);
  const std::string bytes = copy->bytes ? std::move(*copy->bytes) : serialize_onnx(copy->proto, where);
  *out = mx::common::malloc_copy(bytes);
  *out_size = bytes.size();
}

void save_model_file(const mx_model& model, const std::string& path, const SaveOptions& options,
                     Progress& progress) {
  // Every file of the output is staged before any is renamed, and the
  // renames are undone if one fails (util/output_set.hpp): a reader never
  // sees a model without its data or its sidecar, nor a mix of old and new.
  OutputSet output;
  const std::string data_path = path + ".data";
  // Written from the model itself when it can be (no copy, no buffer of the
  // whole file); otherwise, and for a model too large to stay inline, parsed
  // back (`prepared`), which externalizes.
  const bool written =
      writes_directly(model, options) && write_tagged_bytes(model, path, options, output, progress);
  if (!written) {
    const auto copy = prepared(model, options, path, false, progress);
    onnx::ModelProto& out = copy->proto;
    if (wants_external(out, model.external_files, options)) {
      // Nothing large enough: no (empty) data file; the temp file goes.
      if (externalize(out, model.external_files, external_data_location(path), kExternalDataMinBytes, path,
                      output.add(data_path), progress) == 0)
        output.discard(data_path);
      // The model file holds no weights now: "write" counted the data
      // file, and this small write is not worth a report.
      output.add(path).write(serialize_onnx(out, path));
    } else if (has_external_data(out)) {
      // The weights go from their files to the output, never held whole.
      write_inline_streamed(out, model.external_files, path, output.add(path), progress);
    } else if (copy->bytes) {
      // Nothing changed the proto: the encoder's bytes are its serialization.
      write_reporting(output.add(path), *copy->bytes, progress);
    } else {
      write_reporting(output.add(path), serialize_onnx(out, path), progress);
    }
    if (options.sidecar) write_sidecar(output.add(sidecar_path(path)), model.hierarchy);
  }
  progress.report("commit", "", 0, 0);
  output.commit();
}

}  // namespace mx::model
