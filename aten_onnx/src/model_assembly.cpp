#include "mx/aten_onnx/model_assembly.hpp"

#include "mx/onnx_proto.hpp"
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdio>
#include <unordered_set>

#include "modelexport/modelexport.h"
#include "mx/aten_onnx/checkable_copy.hpp"
#include "mx/aten_onnx/error.hpp"

namespace mx::aten_onnx {
namespace {

// Renames a value of `g`, the reads of it in nested graphs (If branches,
// Loop/Scan bodies read outer values by name) included: a cond's result
// that is a program output and also feeds a later cond.
void rename_value(onnx::GraphProto& g, const std::string& from, const std::string& to) {
  for (auto& n : *g.mutable_node()) {
    for (auto& i : *n.mutable_input())
      if (i == from) i = to;
    for (auto& o : *n.mutable_output())
      if (o == from) o = to;
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rename_value(*a.mutable_g(), from, to);
      for (auto& sg : *a.mutable_graphs()) rename_value(sg, from, to);
    }
  }
  for (auto& o : *g.mutable_output())
    if (o.name() == from) o.set_name(to);
}

std::string gigabytes(uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(n) / 1e9);
  return buf;
}

// Shape inference adds value_info; the outputs get their inferred types.
void infer_and_check(onnx::ModelProto& model, bool external) {
  // External initializers are graph inputs in the checked copy (which holds
  // no weight); inline models are checked as they are.
  onnx::ModelProto copy;
  if (external) copy = checkable_copy(model);
  onnx::ModelProto& checked = external ? copy : model;
  try {
    onnx::shape_inference::InferShapes(checked);
  } catch (const std::exception& e) {
    throw Error(MX_ERR_INTERNAL,
                std::string("ONNX shape inference failed on the exported graph: ") + e.what());
  }
  auto* g = checked.mutable_graph();
  for (auto& o : *g->mutable_output())
    for (const auto& vi : g->value_info())
      if (vi.name() == o.name() && vi.type().tensor_type().has_shape()) *o.mutable_type() = vi.type();
  if (external) {
    *model.mutable_graph()->mutable_value_info() = g->value_info();
    *model.mutable_graph()->mutable_output() = g->output();
  }
  try {
    onnx::checker::check_model(checked);
  } catch (const std::exception& e) {
    throw Error(MX_ERR_INTERNAL, std::string("exported model fails the ONNX checker: ") + e.what());
  }
}

}  // namespace

std::string output_name(size_t k, size_t n) {
  return n == 1 ? "output" : "output_" + std::to_string(k);
}

std::string add_graph_output(OnnxEmitter& e, const std::string& src, const std::string& name,
                             int32_t elem_type, int64_t rank) {
  auto& g = e.graph;
  bool special = false;
  for (const auto& i : g.input()) special |= i.name() == src;
  for (const auto& t : g.initializer()) special |= t.name() == src;
  for (const auto& o : g.output()) special |= o.name() == src;
  bool produced = false;
  for (const auto& n : g.node())
    for (const auto& o : n.output()) produced |= o == src;
  const bool renamed = !special && produced;
  if (renamed) {
    rename_value(g, src, name);
  } else {
    std::string id = e.emit1("Identity", {src});
    rename_value(g, id, name);
  }
  auto* vi = g.add_output();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* sh = tt->mutable_shape();
  for (int64_t d = 0; d < rank; ++d) sh->add_dim();
  return renamed ? name : src;
}

namespace {

// Every name the subgraphs of `n` (If branches, Loop bodies) read, nested
// ones included: a node's outer-scope reads are as live as its inputs.
void subgraph_reads(const onnx::NodeProto& n, std::unordered_set<std::string>& live) {
  for (const auto& a : n.attribute()) {
    std::vector<const onnx::GraphProto*> graphs;
    if (a.has_g()) graphs.push_back(&a.g());
    for (const auto& g : a.graphs()) graphs.push_back(&g);
    for (const auto* g : graphs)
      for (const auto& inner : g->node()) {
        for (const auto& in : inner.input()) live.insert(in);
        subgraph_reads(inner, live);
      }
  }
}

}  // namespace

std::set<std::string> eliminate_dead_nodes(onnx::GraphProto& g) {
  std::unordered_set<std::string> live;
  for (const auto& o : g.output()) live.insert(o.name());
  std::vector<bool> keep(g.node_size(), false);
  for (int i = g.node_size() - 1; i >= 0; --i) {
    const auto& n = g.node(i);
    bool used = false;
    for (const auto& o : n.output()) used |= live.count(o) > 0;
    if (!used) continue;
    keep[i] = true;
    for (const auto& in : n.input()) live.insert(in);
    subgraph_reads(n, live);
  }
  std::set<std::string> removed;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < g.node_size(); ++i) {
    if (keep[i]) *kept.Add() = g.node(i);
    else removed.insert(g.node(i).name());
  }
  g.mutable_node()->Swap(&kept);
  // An initializer of a graph input is the input's default value: part of
  // the interface whether a node reads the input or not.
  for (const auto& i : g.input()) live.insert(i.name());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  for (auto& t : *g.mutable_initializer())
    if (live.count(t.name())) inits.Add()->Swap(&t);
  g.mutable_initializer()->Swap(&inits);
  return removed;
}

namespace {

// Where an answer by reference points the weights: the source file, and
// for weights the passes derived, the host's own derivation when it takes
// "derived_references", else output_dir when it takes references there.
ReferenceTargets reference_targets(const AssemblyOptions& o) {
  ReferenceTargets t;
  t.source_location = o.weights_source;
  if (o.output_dir_references && !o.output_dir.empty()) t.derived_path = o.output_dir + "/permuted.data";
  t.derived_references = o.derived_references;
  return t;
}

// Whether what an answer by reference carries inline (small, computed and
// unreferred derived weights) fits protobuf's limit.
bool fits_by_reference(const onnx::ModelProto& model, const WeightMap& weights, const ReferenceTargets& to) {
  uint64_t inline_bytes = model.ByteSizeLong();
  for (const auto& t : model.graph().initializer()) {
    auto it = weights.find(t.name());
    if (it == weights.end()) continue;  // refer_to_source names it
    if (!referred(it->second, to)) inline_bytes += it->second.size;
  }
  return inline_bytes <= kInlineLimit;
}

// Bytes of derived weights (graph passes) an answer by reference would
// carry inline, in memory: over this budget the model is written as
// external data instead (when the host gave an output_dir), streamed a
// chunk at a time.
constexpr uint64_t kDerivedInlineBudget = 64ull << 20;

uint64_t inline_derived_bytes(const WeightMap& weights, const ReferenceTargets& to) {
  uint64_t n = 0;
  for (const auto& [name, w] : weights)
    if (w.derived() && !referred(w, to)) n += w.size;
  return n;
}

// An answer by reference: stored weights named in the source file (with
// their derivation, for a host that derives), other derived ones streamed
// into output_dir when the host accepts that.
AssembledModel assemble_by_reference(onnx::ModelProto& model, const WeightMap& weights,
                                     const AssemblyOptions& o, const ReferenceTargets& to) {
  refer_to_source(*model.mutable_graph(), weights, to);
  struct RemoveOnError {  // a failed export leaves nothing in output_dir
    std::string path;
    bool armed = true;
    ~RemoveOnError() {
      if (armed && !path.empty()) std::remove(path.c_str());
    }
  } cleanup{to.derived_path};
  if (o.check) infer_and_check(model, true);
  AssembledModel out;
  if (!model.SerializeToString(&out.onnx_bytes))
    throw Error(MX_ERR_INTERNAL, "cannot serialize the ONNX model");
  cleanup.armed = false;
  return out;
}

}  // namespace

AssembledModel assemble_model(onnx::GraphProto&& graph, const WeightMap& weights, const AssemblyOptions& o) {
  onnx::ModelProto model;
  model.set_ir_version(ir_version_for(o.opset));
  model.set_producer_name("modelexport");
  model.set_producer_version(o.producer_version);
  auto* os = model.add_opset_import();
  os->set_domain("");
  os->set_version(o.opset);
  *model.mutable_graph() = std::move(graph);
  model.mutable_graph()->set_name(o.graph_name);

  // Derived weights are referred to with their derivation when the host
  // derives, else go to output_dir when it accepts references there; else
  // many of them make the whole model external data, streamed, rather than
  // inline copies in an answer by reference.
  const bool by_reference = !o.weights_source.empty();
  const ReferenceTargets to = reference_targets(o);
  const bool derived_heavy = !o.output_dir.empty() && o.external_data != ExternalData::no &&
                             inline_derived_bytes(weights, to) > kDerivedInlineBudget;
  if (by_reference && fits_by_reference(model, weights, to) && !derived_heavy)
    return assemble_by_reference(model, weights, o, to);
  const uint64_t wbytes = weight_bytes(model.graph(), weights);
  const uint64_t inline_size = wbytes + model.ByteSizeLong();
  const bool over_limit = inline_size > kInlineLimit;
  const bool external = o.external_data == ExternalData::yes ||
                        (o.external_data == ExternalData::automatic && (over_limit || derived_heavy));
  if (!external && over_limit)
    throw Error(MX_ERR_INVALID_ARGUMENT, "the exported model (" + gigabytes(inline_size) + ", weights " +
                                             gigabytes(wbytes) +
                                             ") exceeds protobuf's 2 GB limit; export it with external data "
                                             "(leave \"external_data\" unset or true; CLI: --external-data)");
  if (external && o.output_dir.empty())
    throw Error(MX_ERR_UNSUPPORTED,
                std::string(o.external_data == ExternalData::yes
                                ? "external data was asked for"
                                : "the model's weights (" + gigabytes(wbytes) + ") need ONNX external data") +
                    ", but the host gave no \"output_dir\" to write it to (a modelexport host "
                    "older than the external-data protocol?)");
  struct RemoveOnError {  // a failed export leaves nothing in output_dir
    std::vector<std::string> paths;
    bool armed = true;
    ~RemoveOnError() {
      if (armed)
        for (const auto& p : paths) std::remove(p.c_str());
    }
  } cleanup;
  AssembledModel out;
  if (external) {
    out.onnx_file = o.output_dir + "/model.onnx";
    cleanup.paths = {out.onnx_file + ".data", out.onnx_file};
    write_external_weights(*model.mutable_graph(), weights, out.onnx_file + ".data", "model.onnx.data");
  } else {
    inline_weights(*model.mutable_graph(), weights);
  }
  if (o.check) infer_and_check(model, external);
  if (!model.SerializeToString(&out.onnx_bytes))
    throw Error(MX_ERR_INTERNAL, "cannot serialize the ONNX model");
  if (external) {
    write_file(out.onnx_file, out.onnx_bytes);
    out.onnx_bytes.clear();
  }
  cleanup.armed = false;
  return out;
}

}  // namespace mx::aten_onnx
