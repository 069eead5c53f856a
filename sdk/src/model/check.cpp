#include "model/check.hpp"

#include <algorithm>
#include <new>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mx/onnx_proto.hpp"
#include <onnx/checker.h>
#include <onnx/common/version.h>
#include <onnx/shape_inference/implementation.h>

#include "mx/aten_onnx/checkable_copy.hpp"
#include "mx/aten_onnx/opset.hpp"
#include "model/external_data.hpp"
#include "model/value_table.hpp"
#include "util/error.hpp"

namespace mx::model {
namespace {

// ---------------------------------------------------------------- structure
// Names are views into the (const, unchanging) proto, interned once per
// graph (model/value_table.hpp): no string copies on graphs of hundreds of
// thousands of nodes, and each name hashed once.
using Name = std::string_view;
// Writer of a read: a node index, or kDeclared for graph inputs,
// initializers and values of enclosing graphs.
constexpr int kDeclared = ValueTable::kDeclared;
// A read of a value no scope defines (none at all in a checked graph).
constexpr int kUndefined = -2;
using Scopes = std::vector<const ValueTable*>;  // enclosing graphs, innermost last
// What each node reads: values[begin[i] .. begin[i+1]) for node i, with
// each value's id in this graph's table (kNone when it names none of its
// values: read from an enclosing graph).
struct Reads {
  std::vector<uint32_t> begin;
  std::vector<Name> values;
  std::vector<uint32_t> ids;
};
// How many undefined inputs one message lists.
constexpr size_t kListed = 5;

std::string node_label(const onnx::NodeProto& n, int index) {
  std::string label = n.name().empty() ? "#" + std::to_string(index) : "'" + n.name() + "'";
  label += " (";
  if (!n.domain().empty() && n.domain() != "ai.onnx") label += n.domain() + ".";
  return label + n.op_type() + ")";
}

class StructureCheck {
 public:
  explicit StructureCheck(std::string where) : where_(std::move(where)) {}

  // Checks `g` (its values interned in `values`) and, recursively, its
  // subgraphs; returns the names `g` reads from the enclosing graphs (a
  // subgraph's implicit inputs: for the DAG of the enclosing graph they are
  // inputs of the node owning the subgraph).
  std::unordered_set<Name> check(const onnx::GraphProto& g, const ValueTable& values, const Scopes& enclosing,
                                 const std::string& scope) {
    if (values.two_writers) name_two_writers(g, scope);
    Scopes inner = enclosing;
    inner.push_back(&values);
    const Reads reads = graph_reads(g, values, inner, scope);

    std::unordered_set<Name> from_outside;
    std::vector<std::string> undefined;
    // Each read's writing node in this graph (kDeclared: an input or
    // initializer, or a value of an enclosing graph), found once for this
    // check and the cycle check.
    std::vector<int> writer(reads.values.size(), kUndefined);
    for (int i = 0; i < g.node_size(); ++i)
      for (uint32_t k = reads.begin[i]; k < reads.begin[i + 1]; ++k) {
        if (const uint32_t id = reads.ids[k];
            id != ValueTable::kNone && values.writer[id] != ValueTable::kUnwritten) {
          writer[k] = values.writer[id];
          continue;
        }
        const Name r = reads.values[k];
        if (defined_in(enclosing, r)) {
          writer[k] = kDeclared;
          from_outside.insert(r);
        } else if (undefined.size() < kListed + 1) {
          undefined.push_back("node " + node_label(g.node(i), i) + " reads '" + std::string(r) + "'");
        }
      }
    if (!undefined.empty()) report_undefined(undefined, scope);
    check_acyclic(g, values, reads, writer, scope);
    return from_outside;
  }

 private:
  [[noreturn]] void error(const std::string& scope, const std::string& what) const {
    fail(MX_ERR_SCHEMA, where_ + ": " + scope + what);
  }

  // The first value written twice, in the order declarations, then node
  // outputs by node: the table only knows that one is.
  [[noreturn]] void name_two_writers(const onnx::GraphProto& g, const std::string& scope) const {
    std::unordered_map<Name, int> w;
    for (const auto& v : g.input()) w.emplace(v.name(), kDeclared);
    for (const auto& t : g.initializer()) w.emplace(t.name(), kDeclared);
    for (const auto& s : g.sparse_initializer()) w.emplace(s.values().name(), kDeclared);
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& out : g.node(i).output()) {
        if (out.empty()) continue;  // an omitted optional output
        auto [it, fresh] = w.emplace(out, i);
        if (fresh) continue;
        const std::string first = it->second == kDeclared
                                      ? "is a graph input or initializer"
                                      : "is written by node " + node_label(g.node(it->second), it->second);
        error(scope, "value '" + out + "' " + first + " and also by node " + node_label(g.node(i), i) +
                         " (every value must have exactly one writer)");
      }
    error(scope, "a value has two writers");  // unreachable: the table found one
  }

  // Every node's explicit inputs, then what its subgraphs read from outside
  // them, in one array (no vector per node: graphs have 10^5+ nodes). The
  // names and ids come from the table (no walk of the graph's strings);
  // only nodes holding subgraphs are read from the graph.
  Reads graph_reads(const onnx::GraphProto& g, const ValueTable& values, const Scopes& scopes,
                    const std::string& scope) {
    Reads reads;
    const size_t n = static_cast<size_t>(g.node_size());
    reads.begin.reserve(n + 1);
    reads.values.reserve(values.inputs.size());
    reads.ids.reserve(values.inputs.size());
    auto with_subgraphs = values.subgraph_nodes.begin();
    for (size_t i = 0; i < n; ++i) {
      reads.begin.push_back(static_cast<uint32_t>(reads.values.size()));
      for (uint32_t k = values.input_begin[i]; k < values.input_begin[i + 1]; ++k) {
        const Name in = values.slot_names.inputs[k];
        if (in.empty()) continue;  // an omitted optional input
        reads.values.push_back(in);
        reads.ids.push_back(values.inputs[k]);
      }
      if (with_subgraphs == values.subgraph_nodes.end() || *with_subgraphs != i) continue;
      ++with_subgraphs;
      add_subgraph_reads(g, values, static_cast<int>(i), scopes, scope, reads);
    }
    reads.begin.push_back(static_cast<uint32_t>(reads.values.size()));
    return reads;
  }

  // What node `i`'s subgraphs read from the graphs enclosing them.
  void add_subgraph_reads(const onnx::GraphProto& g, const ValueTable& values, int i, const Scopes& scopes,
                          const std::string& scope, Reads& reads) {
    const auto& n = g.node(i);
    for (const auto& a : n.attribute()) {
      std::vector<const onnx::GraphProto*> subgraphs;
      if (a.has_g()) subgraphs.push_back(&a.g());
      for (const auto& sg : a.graphs()) subgraphs.push_back(&sg);
      for (const auto* sg : subgraphs) {
        const std::string inner = scope + "subgraph '" + a.name() + "' of node " + node_label(n, i) + ": ";
        const ValueTable sub = intern_values(*sg);
        for (Name r : check(*sg, sub, scopes, inner)) {
          reads.values.push_back(r);
          reads.ids.push_back(values.find(r));
        }
      }
    }
  }

  static bool defined_in(const Scopes& scopes, Name n) {
    return std::any_of(scopes.begin(), scopes.end(), [&](const ValueTable* t) { return t->defines(n); });
  }

  [[noreturn]] void report_undefined(const std::vector<std::string>& undefined,
                                     const std::string& scope) const {
    std::string msg = "undefined input" + std::string(undefined.size() > 1 ? "s" : "") + ": ";
    for (size_t k = 0; k < undefined.size() && k < kListed; ++k) msg += (k ? "; " : "") + undefined[k];
    if (undefined.size() > kListed) msg += "; ...";
    error(scope, msg + " (no node, graph input or initializer defines it)");
  }

  // Kahn's algorithm; the nodes it cannot order lie on or after a cycle,
  // and one cycle among them is named.
  void check_acyclic(const onnx::GraphProto& g, const ValueTable& values, const Reads& reads,
                     const std::vector<int>& writer, const std::string& scope) const {
    const size_t n = reads.begin.size() - 1;
    // Consumers of each node as one array.
    std::vector<uint32_t> consumer_begin(n + 1, 0);
    std::vector<size_t> pending(n, 0);
    for (size_t i = 0; i < n; ++i)
      for (uint32_t k = reads.begin[i]; k < reads.begin[i + 1]; ++k) {
        if (writer[k] < 0) continue;  // declared, or from an enclosing graph
        ++consumer_begin[static_cast<size_t>(writer[k]) + 1];
        ++pending[i];
      }
    for (size_t i = 0; i < n; ++i) consumer_begin[i + 1] += consumer_begin[i];
    std::vector<int> consumers(consumer_begin[n]);
    std::vector<uint32_t> fill(consumer_begin.begin(), consumer_begin.end() - 1);
    for (size_t i = 0; i < n; ++i)
      for (uint32_t k = reads.begin[i]; k < reads.begin[i + 1]; ++k)
        if (writer[k] >= 0) consumers[fill[static_cast<size_t>(writer[k])]++] = static_cast<int>(i);
    std::vector<int> ready;
    for (size_t i = 0; i < n; ++i)
      if (!pending[i]) ready.push_back(static_cast<int>(i));
    size_t ordered = 0;
    while (!ready.empty()) {
      const size_t u = static_cast<size_t>(ready.back());
      ready.pop_back();
      ++ordered;
      for (uint32_t k = consumer_begin[u]; k < consumer_begin[u + 1]; ++k)
        if (!--pending[static_cast<size_t>(consumers[k])]) ready.push_back(consumers[k]);
    }
    if (ordered == n) return;
    error(scope, "the nodes form a cycle: " + describe_cycle(g, values, reads, pending) + " (" +
                     std::to_string(n - ordered) + " node(s) lie on or after a cycle)");
  }

  // Every unordered node has an unordered writer among its inputs, so
  // walking writers backwards from one of them must revisit a node.
  static std::string describe_cycle(const onnx::GraphProto& g, const ValueTable& values, const Reads& reads,
                                    const std::vector<size_t>& pending) {
    struct Step {
      int node;
      Name value;
    };  // `node` reads `value`
    std::vector<Step> path;
    std::unordered_map<int, size_t> at;
    int u = static_cast<int>(std::find_if(pending.begin(), pending.end(), [](size_t p) { return p > 0; }) -
                             pending.begin());
    while (!at.count(u)) {
      at[u] = path.size();
      const size_t before = path.size();
      for (uint32_t k = reads.begin[static_cast<size_t>(u)]; k < reads.begin[static_cast<size_t>(u) + 1];
           ++k) {
        const uint32_t id = reads.ids[k];
        const int w = id == ValueTable::kNone ? kDeclared : values.writer[id];
        if (w >= 0 && pending[static_cast<size_t>(w)]) {
          path.push_back({u, reads.values[k]});
          u = w;
          break;
        }
      }
      if (path.size() == before) return node_label(g.node(u), u);  // cannot happen; never loop
    }
    // path[at[u]..] walks the cycle backwards: print it forwards.
    std::string text = node_label(g.node(u), u);
    for (size_t k = path.size(); k-- > at[u];)
      text += " -[" + std::string(path[k].value) + "]-> " + node_label(g.node(path[k].node), path[k].node);
    return text;
  }

  std::string where_;
};

}  // namespace

void check_graph_structure(const onnx::ModelProto& proto, const std::string& where) {
  check_graph_structure(proto, intern_values(proto.graph()), where);
}

void check_graph_structure(const onnx::ModelProto& proto, const ValueTable& values,
                           const std::string& where) {
  // A table whose slot names went to a graph view cannot name what it finds.
  if (values.slot_names.inputs.size() != values.inputs.size()) return check_graph_structure(proto, where);
  StructureCheck(where).check(proto.graph(), values, {}, "");
}

std::string newer_than_library(const onnx::ModelProto& proto) {
  const int64_t max_opset = mx::aten_onnx::max_opset();
  int64_t opset = 0;
  for (const auto& o : proto.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = std::max<int64_t>(opset, o.version());
  const bool ir_newer = proto.ir_version() > onnx::Version::IR_VERSION;
  if (!ir_newer && opset <= max_opset) return {};
  return "the file has IR version " + std::to_string(proto.ir_version()) + " and opset " +
         std::to_string(opset) +
         "; this build's ONNX library " ONNX_VERSION_STRING " knows IR versions up to " +
         std::to_string(onnx::Version::IR_VERSION) + " and opsets up to " + std::to_string(max_opset) +
         ": it cannot check the file (a newer modelexport can)";
}

void check_onnx(const onnx::ModelProto& proto, const std::string& where) {
  if (const std::string newer = newer_than_library(proto); !newer.empty())
    fail(MX_ERR_UNSUPPORTED, where + ": " + newer);
  // First, so a cycle or a dangling input is named as such rather than as
  // libonnx's "nodes must be topologically sorted".
  check_graph_structure(proto, where);
  try {
    // External initializers become typed graph inputs for the checker (it
    // would look for their files relative to the working directory); the
    // copy is cheap because their bytes are not in the proto.
    const bool external = has_external_data(proto);
    onnx::ModelProto copy = external ? mx::aten_onnx::checkable_copy(proto) : proto;
    onnx::checker::check_model(copy);
    // Inference writes value_info; it runs on the copy, the model is const.
    onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*error_mode=*/1);
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const onnx::checker::ValidationError& e) {
    fail(MX_ERR_SCHEMA, where + ": ONNX checker: " + e.what());
  } catch (const onnx::InferenceError& e) {
    fail(MX_ERR_SCHEMA, where + ": ONNX shape inference: " + e.what());
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // libonnx also throws plain standard exceptions on malformed content,
    // e.g. std::invalid_argument "Invalid tensor data type 17" for a
    // bit-flipped data_type (found by tests/hostile's bit-flip sweep): the
    // file's fault, not ours.
    fail(MX_ERR_SCHEMA, where + ": ONNX checker: " + e.what());
  }
}

}  // namespace mx::model
