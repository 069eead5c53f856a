#include "model/tagged_bytes.hpp"

#include <algorithm>
#include <climits>
#include <exception>
#include <vector>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format.h>

#include "util/error.hpp"

namespace mx::model {
namespace {

using google::protobuf::Arena;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::internal::WireFormat;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

// A message's fields in the order protobuf writes them.
std::vector<const FieldDescriptor*> fields_in_order(const Descriptor* d) {
  std::vector<const FieldDescriptor*> fields;
  for (int i = 0; i < d->field_count(); ++i) fields.push_back(d->field(i));
  std::sort(fields.begin(), fields.end(),
            [](const FieldDescriptor* a, const FieldDescriptor* b) { return a->number() < b->number(); });
  return fields;
}

bool is_set(const Message& m, const FieldDescriptor* f) {
  const auto* r = m.GetReflection();
  return f->is_repeated() ? r->FieldSize(m, f) > 0 : r->HasField(m, f);
}

uint32_t length_delimited_tag(int number) {
  return WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
}

size_t length_delimited_size(int number, size_t body) {
  return CodedOutputStream::VarintSize32(length_delimited_tag(number)) +
         CodedOutputStream::VarintSize64(body) + body;
}

void write_length_delimited_header(CodedOutputStream& out, int number, size_t body) {
  out.WriteTag(length_delimited_tag(number));
  out.WriteVarint64(body);
}

// One node as it goes into the graph's bytes: the serialized fields of the
// original (or of a tagged copy), then the metadata entries it gains
// (NodeTagWriter::write_suffix, written straight into the output).
struct NodeBytes {
  const onnx::NodeProto* fields;
  size_t fields_size;
  size_t suffix_size;
};

// The graph's bytes with every node tagged: nodes as above, every other
// field and the unknown fields serialized from the original.
class TaggedGraph {
 public:
  TaggedGraph(const onnx::GraphProto& graph, NodeTagWriter& writer, Arena& arena);
  size_t size() const { return size_; }
  void write(CodedOutputStream& out) const;

 private:
  void write_nodes(CodedOutputStream& out) const;

  const onnx::GraphProto& graph_;
  const NodeTagWriter& writer_;
  std::vector<const FieldDescriptor*> fields_;  // set ones (and node), in order
  std::vector<NodeBytes> nodes_;
  size_t size_ = 0;
};

TaggedGraph::TaggedGraph(const onnx::GraphProto& graph, NodeTagWriter& writer, Arena& arena)
    : graph_(graph), writer_(writer) {
  nodes_.reserve(static_cast<size_t>(graph.node_size()));
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    const onnx::NodeProto* fields = &node;
    std::optional<size_t> suffix = writer.plan_suffix(static_cast<size_t>(i), node);
    if (!suffix) {
      auto* copy = Arena::CreateMessage<onnx::NodeProto>(&arena);
      copy->CopyFrom(node);
      writer.write_to(static_cast<size_t>(i), *copy);
      fields = copy;
      suffix = 0;
    }
    const NodeBytes bytes{fields, fields->ByteSizeLong(), *suffix};
    size_ += length_delimited_size(onnx::GraphProto::kNodeFieldNumber, bytes.fields_size + bytes.suffix_size);
    nodes_.push_back(bytes);
  }
  for (const FieldDescriptor* f : fields_in_order(graph.GetDescriptor())) {
    if (f->number() == onnx::GraphProto::kNodeFieldNumber) {
      fields_.push_back(f);
    } else if (is_set(graph, f)) {
      fields_.push_back(f);
      size_ += WireFormat::FieldByteSize(f, graph);
    }
  }
  size_ += WireFormat::ComputeUnknownFieldsSize(graph.unknown_fields());
}

void TaggedGraph::write_nodes(CodedOutputStream& out) const {
  std::string scratch;  // for entries the stream cannot take in one piece
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeBytes& n = nodes_[i];
    write_length_delimited_header(out, onnx::GraphProto::kNodeFieldNumber, n.fields_size + n.suffix_size);
    n.fields->SerializeWithCachedSizes(&out);
    if (n.suffix_size == 0) continue;
    const onnx::NodeProto& node = graph_.node(static_cast<int>(i));
    const int size = static_cast<int>(n.suffix_size);
    if (uint8_t* at = out.GetDirectBufferForNBytesAndAdvance(size)) {
      writer_.write_suffix(i, node, reinterpret_cast<char*>(at));
    } else {
      scratch.resize(n.suffix_size);
      writer_.write_suffix(i, node, scratch.data());
      out.WriteRaw(scratch.data(), size);
    }
  }
}

void TaggedGraph::write(CodedOutputStream& out) const {
  for (const FieldDescriptor* f : fields_) {
    if (f->number() == onnx::GraphProto::kNodeFieldNumber) write_nodes(out);
    else WireFormat::SerializeFieldWithCachedSizes(f, graph_, &out);
  }
  WireFormat::SerializeUnknownFields(graph_.unknown_fields(), &out);
}

}  // namespace

// Where each of the model's fields comes from: the tagged graph, the
// metadata store_model_metadata leaves, or the original.
class TaggedModel {
 public:
  TaggedModel(const mx_model& model, TagStorage storage);
  size_t size() const { return size_; }
  void write(CodedOutputStream& out) const;

 private:
  const Message& source_of(const FieldDescriptor* f) const;

  const onnx::ModelProto& proto_;
  Arena arena_;
  NodeTagWriter writer_;
  TaggedGraph graph_;
  onnx::ModelProto& metadata_;                  // only metadata_props, as stored
  std::vector<const FieldDescriptor*> fields_;  // set ones, in order
  size_t size_ = 0;
};

TaggedModel::TaggedModel(const mx_model& model, TagStorage storage)
    : proto_(model.proto()),
      writer_(model.proto().graph(), model.hierarchy, storage),
      graph_(model.proto().graph(), writer_, arena_),
      metadata_(*Arena::CreateMessage<onnx::ModelProto>(&arena_)) {
  *metadata_.mutable_metadata_props() = proto_.metadata_props();
  store_model_metadata(metadata_, model.hierarchy, storage);
  for (const FieldDescriptor* f : fields_in_order(proto_.GetDescriptor())) {
    if (f->number() == onnx::ModelProto::kGraphFieldNumber) {
      fields_.push_back(f);
      size_ += length_delimited_size(f->number(), graph_.size());
    } else if (is_set(source_of(f), f)) {
      fields_.push_back(f);
      size_ += WireFormat::FieldByteSize(f, source_of(f));
    }
  }
  size_ += WireFormat::ComputeUnknownFieldsSize(proto_.unknown_fields());
}

const Message& TaggedModel::source_of(const FieldDescriptor* f) const {
  if (f->number() == onnx::ModelProto::kMetadataPropsFieldNumber) return metadata_;
  return proto_;
}

void TaggedModel::write(CodedOutputStream& out) const {
  for (const FieldDescriptor* f : fields_) {
    if (f->number() == onnx::ModelProto::kGraphFieldNumber) {
      write_length_delimited_header(out, f->number(), graph_.size());
      graph_.write(out);
    } else {
      WireFormat::SerializeFieldWithCachedSizes(f, source_of(f), &out);
    }
  }
  WireFormat::SerializeUnknownFields(proto_.unknown_fields(), &out);
}

TaggedBytes::TaggedBytes(const mx_model& model, TagStorage storage)
    : tagged_(std::make_unique<TaggedModel>(model, storage)) {}

TaggedBytes::~TaggedBytes() = default;

size_t TaggedBytes::size() const {
  return tagged_->size();
}

void TaggedBytes::write_to(void* out) const {
  const size_t size = tagged_->size();
  if (size > static_cast<size_t>(INT_MAX))
    fail(MX_ERR_INTERNAL,
         "saving the tagged model: " + std::to_string(size) + " bytes is past protobuf's 2 GB limit");
  google::protobuf::io::ArrayOutputStream array(out, static_cast<int>(size));
  CodedOutputStream coded(&array);
  tagged_->write(coded);
  coded.Trim();
  if (coded.HadError() || static_cast<size_t>(coded.ByteCount()) != size)
    fail(MX_ERR_INTERNAL, "saving the tagged model: wrote " + std::to_string(coded.ByteCount()) + " of the " +
                              std::to_string(size) + " bytes computed");
}

namespace {

// Hands what protobuf writes to a sink; an exception from the sink is kept
// and rethrown after protobuf has unwound (it is not thrown through it).
class SinkStream : public google::protobuf::io::CopyingOutputStream {
 public:
  explicit SinkStream(const std::function<void(std::string_view)>& sink) : sink_(sink) {}
  bool Write(const void* buffer, int size) override {
    try {
      sink_(std::string_view(static_cast<const char*>(buffer), static_cast<size_t>(size)));
      return true;
    } catch (...) {
      failure_ = std::current_exception();
      return false;
    }
  }
  void rethrow() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  const std::function<void(std::string_view)>& sink_;
  std::exception_ptr failure_;
};

}  // namespace

void TaggedBytes::write_in_pieces(const std::function<void(std::string_view)>& sink, size_t piece) const {
  const size_t size = tagged_->size();
  if (size > static_cast<size_t>(INT_MAX))
    fail(MX_ERR_INTERNAL,
         "saving the tagged model: " + std::to_string(size) + " bytes is past protobuf's 2 GB limit");
  SinkStream stream(sink);
  size_t written = 0;
  {
    google::protobuf::io::CopyingOutputStreamAdaptor adaptor(&stream, static_cast<int>(piece));
    {
      CodedOutputStream coded(&adaptor);
      tagged_->write(coded);
      coded.Trim();
      written = static_cast<size_t>(coded.ByteCount());
    }
    adaptor.Flush();
  }
  stream.rethrow();
  if (written != size)
    fail(MX_ERR_INTERNAL, "saving the tagged model: wrote " + std::to_string(written) + " of the " +
                              std::to_string(size) + " bytes computed");
}

std::optional<std::string> tagged_bytes(const mx_model& model, TagStorage storage, size_t limit) {
  const TaggedBytes tagged(model, storage);
  if (tagged.size() > limit || tagged.size() > static_cast<size_t>(INT_MAX)) return std::nullopt;
  std::string out(tagged.size(), '\0');
  tagged.write_to(out.data());
  return out;
}

}  // namespace mx::model
