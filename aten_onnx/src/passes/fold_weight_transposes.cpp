// A Linear's weight [out, in] is read as Transpose(W) by MatMul: ONNX
// Runtime would transpose every such weight each time it loads the file.
// Writing the weight already permuted (its name kept, the permutation
// reported for the hierarchy document) removes that work and the node.
// A weight also read as it is (an embedding tied to the output projection)
// gets a permuted copy instead, as torch.onnx writes it: ONNX Runtime would
// otherwise fold the Transpose into such a copy at every load.
#include <map>
#include <vector>

#include "graph_edit.hpp"
#include "mx/aten_onnx/attributes.hpp"
#include "mx/aten_onnx/graph_passes.hpp"

namespace mx::aten_onnx {
namespace {

std::vector<int64_t> perm_of(const onnx::NodeProto& n, size_t rank) {
  for (const auto& a : n.attribute())
    if (a.name() == "perm") return {a.ints().begin(), a.ints().end()};
  std::vector<int64_t> rev(rank);
  for (size_t d = 0; d < rank; ++d) rev[d] = static_cast<int64_t>(rank - 1 - d);
  return rev;
}

bool valid_perm(const std::vector<int64_t>& p, size_t rank) {
  if (p.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (auto d : p) {
    if (d < 0 || static_cast<size_t>(d) >= rank || seen[static_cast<size_t>(d)]) return false;
    seen[static_cast<size_t>(d)] = true;
  }
  return true;
}

bool identity(const std::vector<int64_t>& p) {
  for (size_t d = 0; d < p.size(); ++d)
    if (p[d] != static_cast<int64_t>(d)) return false;
  return true;
}

}  // namespace

void fold_weight_transposes(onnx::GraphProto& g, WeightMap& weights, PassReport& report) {
  const auto in_subgraphs = passes::subgraph_reads(g);
  const auto outputs = passes::graph_outputs(g);
  std::set<std::string> graph_inputs;  // an initializer that is also an input can be overridden
  for (const auto& i : g.input()) graph_inputs.insert(i.name());
  std::map<std::string, std::vector<int>> readers;  // initializer -> node indices
  std::map<std::string, onnx::TensorProto*> inits;
  for (auto& t : *g.mutable_initializer()) inits[t.name()] = &t;
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& in : g.node(i).input())
      if (inits.count(in)) readers[in].push_back(i);

  std::map<std::string, std::string> renames;
  std::set<std::string> removed;
  std::vector<onnx::TensorProto> copies;
  for (auto& [name, idx] : readers) {
    if (in_subgraphs.count(name) || outputs.count(name) || graph_inputs.count(name)) continue;
    auto w = weights.find(name);
    if (w == weights.end() || w->second.permuted) continue;
    onnx::TensorProto& t = *inits[name];
    const size_t rank = static_cast<size_t>(t.dims_size()), es = element_size(t.data_type());
    if (rank < 2 || es == 0) continue;
    std::vector<int64_t> perm;
    std::vector<int> transposes;
    bool same = true;
    for (int i : idx) {
      const auto& n = g.node(i);
      if (n.op_type() != "Transpose" || !n.domain().empty() || n.input_size() != 1 ||
          outputs.count(n.output(0)))
        continue;
      auto p = perm_of(n, rank);
      if (perm.empty()) perm = p;
      same &= p == perm;
      transposes.push_back(i);
    }
    if (transposes.empty() || !same || !valid_perm(perm, rank) || identity(perm)) continue;
    uint64_t numel = 1;
    std::vector<int64_t> source_dims(t.dims().begin(), t.dims().end());
    for (auto d : source_dims) numel *= static_cast<uint64_t>(d);
    if (numel * es != w->second.size) continue;

    std::vector<int64_t> stored_dims(rank);
    for (size_t d = 0; d < rank; ++d) stored_dims[d] = source_dims[static_cast<size_t>(perm[d])];
    std::string stored = name;
    if (transposes.size() == idx.size()) {  // read only transposed: the weight itself is stored so
      w->second.permuted = Permutation{perm, source_dims, es};
      for (size_t d = 0; d < rank; ++d) t.set_dims(static_cast<int>(d), stored_dims[d]);
      report.stored_permuted[name] = perm;
    } else {  // also read as it is (a tied embedding): a permuted copy, named as the first Transpose's output
      stored = g.node(transposes.front()).output(0);
      onnx::TensorProto copy;
      copy.set_name(stored);
      copy.set_data_type(t.data_type());
      for (auto d : stored_dims) copy.add_dims(d);
      copies.push_back(std::move(copy));
      WeightBytes bytes = w->second;
      bytes.permuted = Permutation{perm, source_dims, es};
      weights[stored] = bytes;
      report.permuted_copies[stored] = {name, perm};
    }
    for (int i : transposes) {
      if (g.node(i).output(0) != stored) renames[g.node(i).output(0)] = stored;
      removed.insert(g.node(i).name());
    }
  }
  for (auto& c : copies) *g.add_initializer() = std::move(c);
  passes::rename_reads(g, renames);
  passes::remove_nodes(g, removed);
  report.removed.insert(removed.begin(), removed.end());
}

}  // namespace mx::aten_onnx
