// The order of the passes: weights first (BatchNormalization into Conv;
// a folded Transpose frees its consumers for CSE; data movement on the
// weights left as they are), then constants (so duplicates of folded glue
// are equal Constants; the program's static dims read by Shape are
// constants before that; then the weights' data movement once more, for a
// weight read by indices the constants computed: core ATen's bicubic
// upsample gathers a position table by them), then a per-channel Mul /
// Add of such constants into the Conv before it (before CSE shares the
// constants), then CSE, and
// CSE's result folded once more (a shared Shape read may now be foldable
// input of the same expression); the Unsqueeze collapse runs on shared
// reads, no-ops (x + 0, whole Slices, Transpose pairs; an Expand or
// Reshape to its input's own dims) go once their operands are folded, a
// batched MatMul's flatten/restore Reshapes with them, Slices that tile an
// axis become a Split (after CSE: duplicate Slices are one), and CSE once
// more; then a Reshape's one dynamic dim is left to the Reshape (its glue
// dies), and a dim read both whole and sliced is read sliced only.
#include "mx/aten_onnx/graph_passes.hpp"

#include <set>
#include <unordered_map>

#include "mx/aten_onnx/frontend_plugin.hpp"
#include "mx/aten_onnx/model_assembly.hpp"

namespace mx::aten_onnx {

namespace {

// A constant computed from weights and then folded further (or read by
// nothing) is not in the file: the sidecar names only those that are.
void drop_unwritten_weight_constants(const onnx::GraphProto& g, PassReport& report) {
  std::set<std::string> written;
  for (const auto& t : g.initializer()) written.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) written.insert(o);
  for (auto it = report.weight_constants.begin(); it != report.weight_constants.end();)
    it = written.count(it->first) ? std::next(it) : report.weight_constants.erase(it);
}

}  // namespace

PassReport lean_graph(onnx::GraphProto& g, WeightMap& weights, int opset, const SymbolicShapes& shapes,
                      bool fused_ops, bool fold_bns) {
  PassReport report;
  if (fused_ops && opset >= 23) fuse_rms_norms(g, shapes);
  if (fold_bns) fold_batch_norms(g, weights, report);
  fold_weight_transposes(g, weights, report);
  fold_weight_data(g, weights, report);
  fold_static_dims(g, shapes);
  fold_constants(g, report, &weights);
  fold_weight_data(g, weights, report);  // what reads a weight by indices fold_constants computed
  if (fold_bns) fold_channel_affines(g, weights, report);
  merge_duplicate_nodes(g, report);
  collapse_unsqueezes(g, opset, report);
  fold_constants(g, report);
  drop_noops(g, report);
  fold_constants(g, report);  // what a dropped fix-up of negative indices read: a constant index
  merge_clamps(g, report);
  fuse_pads_into_convs(g, report);
  drop_shape_noops(g, report, shapes);
  unflatten_batched_matmuls(g, report, shapes);
  merge_slices_to_split(g, report, shapes);
  merge_duplicate_nodes(g, report);
  infer_reshape_dim(g, report, shapes);
  share_dim_reads(g);
  constants_to_initializers(g, report);
  auto dead = eliminate_dead_nodes(g);
  report.removed.insert(dead.begin(), dead.end());
  drop_unwritten_weight_constants(g, report);
  return report;
}

namespace {

// A node a pass added takes the record of the node it stands for.
void record_inserted(std::vector<NodeRecord>& records, const std::vector<InsertedNode>& added) {
  std::unordered_map<std::string, size_t> at;
  for (size_t k = 0; k < records.size(); ++k) at[records[k].name] = k;
  for (const auto& n : added) {
    auto it = at.find(n.like);
    if (it == at.end()) continue;
    NodeRecord r = records[it->second];
    r.name = n.name;
    records.push_back(std::move(r));
  }
}

}  // namespace

ExportPasses run_export_passes(onnx::GraphProto& g, WeightMap& weights, const ExportRequest& request,
                               const SymbolicShapes& shapes, std::vector<NodeRecord>& records) {
  ExportPasses done;
  done.removed = eliminate_dead_nodes(g);
  const auto report =
      lean_graph(g, weights, request.opset, shapes, request.fused_ops, request.fold_batch_norms);
  done.removed.insert(report.removed.begin(), report.removed.end());
  if (request.upcast_bf16) record_inserted(records, upcast_bf16(g, request.opset));
  done.summary = pass_summary(records, report);
  return done;
}

}  // namespace mx::aten_onnx

namespace mx::aten_onnx {

nlohmann::json pass_summary(const std::vector<NodeRecord>& records, const PassReport& report) {
  std::map<std::string, int64_t> folded;
  size_t recorded = 0;
  for (const auto& r : records)
    if (report.removed.count(r.name)) {
      ++folded[r.module];
      ++recorded;
    }
  if (recorded < report.removed.size()) folded[""] += static_cast<int64_t>(report.removed.size() - recorded);
  nlohmann::json permuted = nlohmann::json::object();
  for (const auto& [name, perm] : report.stored_permuted) permuted[name] = perm;
  nlohmann::json folded_bns = nlohmann::json::object();
  for (const auto& [weight, bn] : report.folded_batch_norms) {
    std::string module;
    for (const auto& r : records)
      if (r.name == bn.node) module = r.module;
    folded_bns[weight] = {
        {"module", module}, {"parameters", bn.parameters}, {"bias", bn.bias}, {"epsilon", bn.epsilon}};
  }
  nlohmann::json copies = nlohmann::json::object();
  for (const auto& [name, copy] : report.permuted_copies)
    copies[name] = {{"of", copy.of}, {"perm", copy.perm}};
  nlohmann::json affines = nlohmann::json::object();
  for (const auto& [weight, a] : report.folded_channel_affines) {
    std::string module;
    for (const auto& r : records)
      if (r.name == a.node) module = r.module;
    affines[weight] = {{"module", module},
                       {"scale_from", a.scale_from},
                       {"shift_from", a.shift_from},
                       {"bias", a.bias.empty() ? nlohmann::json() : nlohmann::json(a.bias)}};
  }
  nlohmann::json weight_constants = nlohmann::json::object();
  for (const auto& [name, of] : report.weight_constants) weight_constants[name] = of;
  return {{"folded_nodes", folded},
          {"weight_constants", weight_constants},
          {"stored_permuted", permuted},
          {"permuted_copies", copies},
          {"folded_batch_norms", folded_bns},
          {"folded_channel_affines", affines}};
}

}  // namespace mx::aten_onnx
