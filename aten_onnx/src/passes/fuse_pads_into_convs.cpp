// A zero-padding Pad read only by a Conv is the Conv's own padding.
//
// Models that pad "same" as TensorFlow does (HF MobileNetV2, EfficientNet
// ports) call F.pad before each convolution; lowered, a Pad node per
// Conv. When the Pad is constant mode with value 0 (or none), pads neither
// the batch nor the channel dim, pads by non-negative amounts, and its
// output is read by one Conv alone (with explicit pads, not auto_pad), the
// Conv reads the Pad's input and adds the Pad's spatial amounts to its
// `pads`: the same zeros enter the same windows. The Pad dies with the
// dead-node pass (counted as folded in its module).
#include <map>

#include "constant_data.hpp"
#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

using passes::ConstantData;
using passes::is_op;

constexpr int64_t kMaxPads = 64;

// The pads of a zero-padding Pad of the spatial dims only, or nothing.
std::optional<std::vector<int64_t>> zero_spatial_pads(const onnx::NodeProto& pad,
                                                      const std::map<std::string, ConstantData>& c) {
  const auto* mode = passes::find_attr(pad, "mode");
  if (mode && mode->s() != "constant") return std::nullopt;
  if (pad.input_size() < 2 || pad.input_size() > 3) return std::nullopt;  // no `axes` input (18+)
  auto p = c.find(pad.input(1));
  if (p == c.end()) return std::nullopt;
  auto pads = passes::ints_of(&p->second);
  if (!pads || pads->size() < 6 || pads->size() % 2) return std::nullopt;
  if (pad.input_size() == 3 && !pad.input(2).empty()) {
    auto v = c.find(pad.input(2));
    if (v == c.end() || v->second.bytes.find_first_not_of('\0') != std::string::npos) return std::nullopt;
  }
  const size_t r = pads->size() / 2;
  for (size_t k = 0; k < pads->size(); ++k) {
    const bool batch_or_channel = k % r < 2;
    if ((*pads)[k] < 0 || (batch_or_channel && (*pads)[k] != 0)) return std::nullopt;
  }
  return pads;
}

}  // namespace

void fuse_pads_into_convs(onnx::GraphProto& g, PassReport&) {
  const auto constants = passes::small_constants(g, kMaxPads);
  const auto outputs = passes::graph_outputs(g);
  const auto sub_reads = passes::subgraph_reads(g);
  std::map<std::string, const onnx::NodeProto*> producer;
  auto readers = passes::read_counts(g);
  for (const auto& n : g.node())
    for (const auto& o : n.output()) producer[o] = &n;
  for (auto& conv : *g.mutable_node()) {
    if (!is_op(&conv, "Conv") || conv.input_size() < 2) continue;
    auto p = producer.find(conv.input(0));
    if (p == producer.end() || !is_op(p->second, "Pad") || readers[conv.input(0)] != 1 ||
        outputs.count(conv.input(0)) || sub_reads.count(conv.input(0)))
      continue;
    const auto* auto_pad = passes::find_attr(conv, "auto_pad");
    if (auto_pad && auto_pad->s() != "NOTSET") continue;
    const auto pads = zero_spatial_pads(*p->second, constants);
    if (!pads) continue;
    const size_t r = pads->size() / 2, spatial = r - 2;
    std::vector<int64_t> merged(2 * spatial, 0);
    if (const auto* own = passes::find_attr(conv, "pads")) {
      if (static_cast<size_t>(own->ints_size()) != merged.size()) continue;
      for (size_t k = 0; k < merged.size(); ++k) merged[k] = own->ints(static_cast<int>(k));
    }
    for (size_t d = 0; d < spatial; ++d) {
      merged[d] += (*pads)[2 + d];
      merged[spatial + d] += (*pads)[r + 2 + d];
    }
    conv.set_input(0, p->second->input(0));
    auto* attrs = conv.mutable_attribute();
    for (int k = attrs->size() - 1; k >= 0; --k)
      if (attrs->Get(k).name() == "pads" || attrs->Get(k).name() == "auto_pad") attrs->DeleteSubrange(k, 1);
    *conv.add_attribute() = attr("pads", merged);
  }
}

}  // namespace mx::aten_onnx
