#include "model/streamed_write.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include <google/protobuf/io/coded_stream.h>

#include "util/error.hpp"

namespace mx::model {
namespace {

using google::protobuf::io::CodedOutputStream;

// Wire-format keys (field number << 3 | length-delimited).
constexpr uint32_t kModelGraph = (7u << 3) | 2u;
constexpr uint32_t kGraphInitializer = (5u << 3) | 2u;
constexpr uint32_t kTensorRawData = (9u << 3) | 2u;

std::string varint(uint64_t v) {
  std::string out;
  do {
    out.push_back(static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    v >>= 7;
  } while (v);
  return out;
}

uint64_t framed_size(uint64_t payload) {
  return 1 + CodedOutputStream::VarintSize64(payload) + payload;
}

// One initializer as it goes out: its message without data, and where the
// data comes from (nothing when it is inline already).
struct Initializer {
  std::string head;  // serialized TensorProto without raw_data/external_data
  bool external = false;
  ExternalRef ref;
  uint64_t size() const { return external ? head.size() + framed_size(ref.length) : head.size(); }
};

std::vector<Initializer> take_initializers(onnx::GraphProto& graph, const DataFiles& files,
                                           const std::string& where) {
  std::vector<Initializer> out;
  for (auto& t : *graph.mutable_initializer()) {
    Initializer i;
    if (is_external(t)) {
      i.ref = external_ref(t, files, where);
      i.external = true;
      t.clear_external_data();
      t.set_data_location(onnx::TensorProto::DEFAULT);
    }
    i.head = t.SerializeAsString();
    out.push_back(std::move(i));
  }
  graph.clear_initializer();
  return out;
}

}  // namespace

void write_inline_streamed(const onnx::ModelProto& proto, const DataFiles& files, const std::string& where,
                           StagedWriter& out, Progress& progress) {
  onnx::ModelProto model = proto;  // small: the initializers' data is elsewhere
  onnx::GraphProto graph;
  graph.Swap(model.mutable_graph());
  model.clear_graph();
  std::vector<Initializer> inits = take_initializers(graph, files, where);
  *model.mutable_graph() = graph;  // what is left external outside the initializers
  inline_external_data(model, files, where);
  graph.Swap(model.mutable_graph());
  model.clear_graph();

  const std::string head = model.SerializeAsString();
  const std::string rest = graph.SerializeAsString();
  uint64_t graph_size = rest.size();
  for (const auto& i : inits) graph_size += framed_size(i.size());
  const uint64_t total = head.size() + framed_size(graph_size);
  if (total > static_cast<uint64_t>(INT_MAX))
    fail(MX_ERR_UNSUPPORTED, where +
                                 ": model exceeds protobuf's 2 GB limit; save it with "
                                 "{\"external_data\": true} (CLI: --external-data)");

  progress.report("write", "bytes", 0, total);
  out.write(head);
  out.write(varint(kModelGraph) + varint(graph_size));
  out.write(rest);
  for (const auto& i : inits) {
    out.write(varint(kGraphInitializer) + varint(i.size()));
    out.write(i.head);
    if (!i.external) continue;
    out.write(varint(kTensorRawData) + varint(i.ref.length));
    write_external(files, i.ref, out, [&] { progress.report("write", "bytes", out.written(), total); });
  }
  progress.report("write", "bytes", out.written(), total);
}

}  // namespace mx::model
