#include "anonymous_weights.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "parameter_name.hpp"

namespace mx::usage {
namespace {

long long element_count(const std::vector<int64_t>& dims) {
  long long n = 1;
  for (int64_t d : dims) {
    if (d != 0 && n > (1LL << 62) / d) return -1;  // absurd: no match
    n *= d;
  }
  return n;
}

// The anonymous initializers reaching node `i`'s inputs: read directly or
// through chain nodes (a Transpose of the weight, a DequantizeLinear).
std::vector<std::string> anonymous_inputs(const GraphView& graph, const ParameterFlow& flow,
                                          const std::unordered_map<std::string, size_t>& producer, size_t i) {
  std::vector<std::string> found, pending(graph.nodes[i].inputs);
  std::unordered_set<std::string> seen;
  while (!pending.empty()) {
    std::string value = std::move(pending.back());
    pending.pop_back();
    if (value.empty() || !seen.insert(value).second) continue;
    if (graph.initializers.count(value)) {
      if (!module_of_parameter(value)) found.push_back(value);
      continue;
    }
    auto p = producer.find(value);
    if (p != producer.end() && flow.is_chain[p->second])
      for (const auto& in : graph.nodes[p->second].inputs) pending.push_back(in);
  }
  return found;
}

// Ops that read a layer's weight. Anything else reading an anonymous
// initializer (a Slice of a folded position-id buffer, an Add of a folded
// constant) is no layer, whatever its size.
bool reads_weights(const std::string& op) {
  static const std::unordered_set<std::string> ops = {
      "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "Gemm", "MatMul", "MatMulInteger",
      "QLinearMatMul", "Gather", "Einsum", "LSTM", "GRU", "RNN",
      // ONNX Runtime's fusions (com.microsoft)
      "FusedConv", "FusedGemm", "FusedMatMul", "NhwcConv", "QGemm"};
  return ops.count(op) != 0;
}

// The standard ops a module's code must lower to for its weights to be read
// by one of those: a BatchNorm folded into the Conv before it (its own code
// lowers to BatchNormalization) is no candidate, so its size does not spoil
// the size class of a depthwise Conv.
const std::vector<std::string>& layer_ops() {
  static const std::vector<std::string> ops = {"Conv",   "ConvTranspose", "Gemm", "MatMul", "Gather",
                                               "Einsum", "LSTM",          "GRU",  "RNN"};
  return ops;
}

// Which dimension of the weight counts the op's output channels: a bias
// has that many elements. -1: none known.
int output_dim(const std::string& op, size_t rank) {
  static const std::unordered_set<std::string> in_out = {
      // weight [in, out]: MatMul's B
      "MatMul", "FusedMatMul", "MatMulInteger", "QLinearMatMul"};
  static const std::unordered_set<std::string> out_in = {
      // weight [out, in, ...]
      "Conv",        "FusedConv", "NhwcConv",  "ConvInteger",
      "QLinearConv", "Gemm",      "FusedGemm", "QGemm"};  // torch writes Gemm with transB=1
  if (in_out.count(op)) return static_cast<int>(rank) - 1;
  if (out_in.count(op)) return 0;
  if (op == "ConvTranspose") return 1;  // [in, out/groups, ...]
  return -1;
}

// The sizes a module whose weights node reads could have: every anonymous
// initializer it reads; the weight alone (largest, rank >= 2); the weight
// plus a bias the file no longer names after the module (a de-duplicated
// zero bias), one element per output channel.
std::vector<long long> sizes_of(const GraphView& graph, const std::string& op,
                                const std::vector<std::string>& inputs) {
  long long all = 0, largest = 0;
  const std::vector<int64_t>* weight = nullptr;
  for (const auto& name : inputs) {
    auto it = graph.shapes.find(name);
    if (it == graph.shapes.end()) return {};  // an older host: no shapes
    long long n = element_count(it->second);
    if (n < 0) return {};
    all += n;
    if (it->second.size() >= 2 && n > largest) largest = n, weight = &it->second;
  }
  if (!weight || largest <= 1) return {};
  std::vector<long long> sizes = {all, largest};
  int out = output_dim(op, weight->size());
  if (out >= 0) sizes.push_back(largest + (*weight)[out]);
  return sizes;
}

// Own parameter count minus what the file's named initializers of the
// module explain.
std::map<std::string, long long> unexplained_sizes(const GraphView& graph, const ModuleOutlines& modules,
                                                   const std::vector<std::string>& order) {
  std::map<std::string, long long> left;
  for (const auto& m : order) left[m] = modules.own_parameters(m);
  for (const auto& name : graph.initializer_order) {
    auto owner = module_of_parameter(name);
    auto shape = graph.shapes.find(name);
    if (!owner || shape == graph.shapes.end()) continue;
    auto it = left.find(*owner);
    if (it != left.end()) it->second -= element_count(shape->second);
  }
  return left;
}

// The one module every reader of node `n` was placed in by name, if any.
std::optional<std::string> named_consumer_module(
    const GraphView& graph, const std::unordered_map<std::string, std::vector<size_t>>& readers,
    const std::vector<std::optional<std::string>>& placed_modules, size_t n) {
  std::optional<std::string> module;
  for (const auto& o : graph.nodes[n].outputs) {
    auto r = readers.find(o);
    if (r == readers.end()) continue;
    for (size_t c : r->second) {
      const auto& m = placed_modules[c];
      if (!m || (module && *module != *m)) return std::nullopt;
      module = m;
    }
  }
  return module;
}

// Which size each node is read as. A node that fits one size only takes it
// first; a node that fits several (a folded Conv: weight + new bias, or the
// weight alone) then takes the first whose class still has a module free
// (MNASNet: 1x1 Conv 1,728 + bias 72 = 1,800 = a 5x5 depthwise Conv), else
// its first (that class is then unbalanced and left alone). Nodes in file
// order within each class.
std::map<long long, std::vector<size_t>> size_classes(
    const std::vector<std::pair<size_t, std::vector<long long>>>& weight_readers,
    const std::map<long long, std::vector<std::string>>& modules_of_size) {
  std::map<long long, size_t> free;
  for (const auto& [size, modules] : modules_of_size) free[size] = modules.size();
  std::map<long long, std::vector<size_t>> classes;
  auto take = [&](size_t node, long long size) {
    classes[size].push_back(node);
    if (free[size] > 0) --free[size];
  };
  for (const auto& [node, sizes] : weight_readers)
    if (sizes.size() == 1) take(node, sizes[0]);
  for (const auto& [node, sizes] : weight_readers) {
    if (sizes.size() == 1) continue;
    auto open = std::find_if(sizes.begin(), sizes.end(), [&](long long s) { return free[s] > 0; });
    take(node, open != sizes.end() ? *open : sizes.front());
  }
  for (auto& [size, nodes] : classes) std::sort(nodes.begin(), nodes.end());
  return classes;
}

}  // namespace

std::vector<UsageAssignment> match_anonymous_weights(
    const GraphView& graph, const ParameterFlow& flow, const ModuleOutlines& modules,
    const std::vector<std::optional<std::string>>& placed_modules) {
  std::vector<UsageAssignment> out;
  const std::vector<std::string> calls = modules.parameter_modules_in_call_order();
  if (calls.empty() || graph.shapes.empty()) return out;

  // Modules by unexplained size, in call order.
  const auto left = unexplained_sizes(graph, modules, calls);
  std::map<long long, std::vector<std::string>> modules_of_size;
  for (const auto& m : calls)
    if (left.at(m) > 0 && modules.may_run_any(m, layer_ops())) modules_of_size[left.at(m)].push_back(m);

  // Nodes by size, in file order.
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& o : graph.nodes[i].outputs)
      if (!o.empty()) producer.emplace(o, i);
  std::vector<std::pair<size_t, std::vector<long long>>> weight_readers;  // node, sizes a module has
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (placed_modules[i] || flow.is_chain[i] || flow.is_constant[i] ||
        !reads_weights(graph.nodes[i].op_type))
      continue;
    std::vector<long long> viable;
    for (long long size : sizes_of(graph, graph.nodes[i].op_type, anonymous_inputs(graph, flow, producer, i)))
      if (modules_of_size.count(size) && std::find(viable.begin(), viable.end(), size) == viable.end())
        viable.push_back(size);
    if (!viable.empty()) weight_readers.push_back({i, std::move(viable)});
  }
  const auto nodes_of_size = size_classes(weight_readers, modules_of_size);

  std::unordered_map<std::string, std::vector<size_t>> readers_of_value;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& in : graph.nodes[i].inputs)
      if (!in.empty()) readers_of_value[in].push_back(i);
  for (const auto& [size, nodes] : nodes_of_size) {
    std::vector<std::string> candidates = modules_of_size.at(size);
    if (nodes.size() != candidates.size()) continue;  // ambiguous: no evidence
    // Anchored first: the MatMul whose result the Add of `key.bias` reads is
    // `key`'s, whatever the order (ONNX Runtime re-sorts q, k, v).
    std::vector<size_t> rest;
    for (size_t n : nodes) {
      auto anchor = named_consumer_module(graph, readers_of_value, placed_modules, n);
      auto c = anchor ? std::find(candidates.begin(), candidates.end(), *anchor) : candidates.end();
      if (c == candidates.end()) {
        rest.push_back(n);
        continue;
      }
      out.push_back({n, *c, true});
      candidates.erase(c);
    }
    for (size_t k = 0; k < rest.size(); ++k) out.push_back({rest[k], candidates[k], true});
  }
  return out;
}

}  // namespace mx::usage
