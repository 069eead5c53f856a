#include "functions/graph_utils.hpp"

#include <set>
#include <unordered_map>

#include "model/node_metadata.hpp"
#include "mx/common/graph_order.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"

namespace mx::functions {

using mx::common::join_path;

std::vector<onnx::NodeProto> topo_sorted(std::vector<onnx::NodeProto> nodes) {
  const size_t n = nodes.size();
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < n; ++i)
    for (const auto& o : nodes[i].output())
      if (!o.empty()) producer[o] = i;
  std::vector<std::vector<size_t>> deps(n), users(n);
  for (size_t i = 0; i < n; ++i) {
    std::set<size_t> distinct;
    for (const auto& in : nodes[i].input()) {
      auto it = producer.find(in);
      if (it != producer.end() && it->second != i) distinct.insert(it->second);
    }
    deps[i].assign(distinct.begin(), distinct.end());
    for (size_t d : distinct) users[d].push_back(i);
  }
  const std::vector<size_t> order = mx::common::stable_topological_order(deps, users);
  if (order.size() != n) fail(MX_ERR_INTERNAL, "graph has a cycle after rewriting");
  std::vector<onnx::NodeProto> out;
  out.reserve(n);
  for (size_t i : order) out.push_back(std::move(nodes[i]));
  return out;
}

RecordLookup record_lookup(const hierarchy::Document& doc, const onnx::ModelProto& proto) {
  return hierarchy::records_by_position(doc, static_cast<size_t>(proto.graph().node_size()));
}

BodyRecord read_body_record(const onnx::NodeProto& node) {
  BodyRecord r;
  for (const auto& [k, v] : model::read_node_metadata(node)) {
    if (k == "modelexport.module") r.module = v, r.present = true;
    else if (k == "modelexport.tag") r.tag = v;
    else if (k == "modelexport.evidence") r.evidence = v;
  }
  return r;
}

bool has_local_functions(const onnx::ModelProto& proto) {
  for (const auto& f : proto.functions())
    if (f.domain() == kFunctionDomain) return true;
  return false;
}

namespace {

using FunctionIndex = std::map<std::pair<std::string, std::string>, const onnx::FunctionProto*>;

FunctionIndex function_index(const onnx::ModelProto& proto) {
  FunctionIndex idx;
  for (const auto& f : proto.functions()) idx[{f.domain(), f.name()}] = &f;
  return idx;
}

void expand_nodes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, const FunctionIndex& fns,
                  const RecordLookup* top, const std::string& base, std::vector<std::string>& chain,
                  const std::string& fn_name, std::vector<LeafNode>& out, int depth) {
  if (depth > 64) fail(MX_ERR_SCHEMA, "local functions nest deeper than 64 (recursive?)");
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    std::string module;
    std::string evidence;
    bool has = false;
    if (top) {
      if (const auto* r = (*top)[static_cast<size_t>(i)])
        module = r->module, has = true, evidence = hierarchy::evidence_name(r->evidence);
    } else {
      const BodyRecord r = read_body_record(node);
      if (r.present) module = join_path(base, r.module), has = true, evidence = r.evidence;
      else module = base;
    }
    auto f = fns.find({node.domain(), node.op_type()});
    if (node.domain() == kFunctionDomain && f != fns.end()) {
      chain.push_back(module);
      expand_nodes(f->second->node(), fns, nullptr, module, chain, f->second->name(), out, depth + 1);
      chain.pop_back();
      continue;
    }
    LeafNode leaf;
    leaf.node = &node;
    leaf.module = module;
    leaf.evidence = evidence;
    leaf.has_record = has;
    leaf.call_chain = chain;
    leaf.function = fn_name;
    out.push_back(std::move(leaf));
  }
}

void walk_calls(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, const FunctionIndex& fns,
                const RecordLookup* top, const std::string& base, std::map<std::string, std::string>& out,
                int depth) {
  if (depth > 64) return;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    if (node.domain() != kFunctionDomain) continue;
    auto f = fns.find({node.domain(), node.op_type()});
    if (f == fns.end()) continue;
    std::string module = base;
    if (top) {
      if (const auto* r = (*top)[static_cast<size_t>(i)]) module = r->module;
    } else {
      const BodyRecord r = read_body_record(node);
      if (r.present) module = join_path(base, r.module);
    }
    out[module] = f->second->name();
    walk_calls(f->second->node(), fns, nullptr, module, out, depth + 1);
  }
}

}  // namespace

std::vector<LeafNode> expand(const onnx::ModelProto& proto, const hierarchy::Document& doc) {
  const auto fns = function_index(proto);
  const auto top = record_lookup(doc, proto);
  std::vector<LeafNode> out;
  std::vector<std::string> chain;
  expand_nodes(proto.graph().node(), fns, &top, "", chain, "", out, 0);
  return out;
}

std::map<std::string, std::string> instance_functions(const onnx::ModelProto& proto,
                                                      const hierarchy::Document& doc) {
  const auto fns = function_index(proto);
  const auto top = record_lookup(doc, proto);
  std::map<std::string, std::string> out;
  walk_calls(proto.graph().node(), fns, &top, "", out, 0);
  return out;
}

}  // namespace mx::functions
