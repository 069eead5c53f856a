// The graph as a strategy of this tree reads it, whichever way the host
// sends it (docs/plugin-protocol.md): through the host's reader (plugin
// ABI 1.2, mx_graph_reader — nothing parsed, nothing copied) or as the
// "graph" object of a JSON request (1.0 protocol: older hosts, tools that
// speak JSON, "graph_reader": false). Strategies are written once against
// `Graph`; both sources give them the same nodes, names and shapes.
// The supplied hierarchy's modules come the same two ways (`Modules`: the
// reader's module accessors, or the request's "modules" array).
// Header-only on purpose: plugins link neither the core nor each other.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "modelexport/plugin.h"

namespace mx_strategy {

class Graph {
 public:
  virtual ~Graph() = default;
  virtual size_t node_count() const = 0;
  virtual std::string_view name(size_t node) const = 0;  // "" when unnamed
  virtual std::string_view op_type(size_t node) const = 0;
  virtual std::string_view doc_string(size_t node) const = 0;
  virtual size_t input_count(size_t node) const = 0;
  virtual std::string_view input(size_t node, size_t i) const = 0;  // "" = omitted
  virtual size_t output_count(size_t node) const = 0;
  virtual std::string_view output(size_t node, size_t i) const = 0;
  // The node's metadata value for `key` (the last entry when the key
  // repeats), or nothing when absent.
  virtual std::optional<std::string> metadata(size_t node, std::string_view key) const = 0;
  virtual size_t initializer_count() const = 0;
  virtual std::string_view initializer_name(size_t i) const = 0;
  // Nothing when the shape is not known (an older host) or not a shape.
  virtual std::optional<std::vector<int64_t>> initializer_shape(size_t i) const = 0;
};

// Over the host's reader: every call is a call into the host.
class ReaderGraph final : public Graph {
 public:
  explicit ReaderGraph(const mx_graph_reader& r) : r_(r) {}
  size_t node_count() const override { return r_.node_count(r_.graph); }
  std::string_view name(size_t n) const override { return view(r_.node_name(r_.graph, n)); }
  std::string_view op_type(size_t n) const override { return view(r_.node_op_type(r_.graph, n)); }
  std::string_view doc_string(size_t n) const override { return view(r_.node_doc_string(r_.graph, n)); }
  size_t input_count(size_t n) const override { return r_.node_input_count(r_.graph, n); }
  std::string_view input(size_t n, size_t i) const override { return view(r_.node_input(r_.graph, n, i)); }
  size_t output_count(size_t n) const override { return r_.node_output_count(r_.graph, n); }
  std::string_view output(size_t n, size_t i) const override { return view(r_.node_output(r_.graph, n, i)); }
  std::optional<std::string> metadata(size_t n, std::string_view key) const override {
    std::optional<std::string> found;
    const uint64_t count = r_.node_metadata_count(r_.graph, n);
    for (uint64_t i = 0; i < count; ++i)
      if (view(r_.node_metadata_key(r_.graph, n, i)) == key)
        found = std::string(view(r_.node_metadata_value(r_.graph, n, i)));
    return found;
  }
  size_t initializer_count() const override { return r_.initializer_count(r_.graph); }
  std::string_view initializer_name(size_t i) const override {
    return view(r_.initializer_name(r_.graph, i));
  }
  std::optional<std::vector<int64_t>> initializer_shape(size_t i) const override {
    std::vector<int64_t> dims(r_.initializer_rank(r_.graph, i));
    for (size_t d = 0; d < dims.size(); ++d)
      if ((dims[d] = r_.initializer_dim(r_.graph, i, d)) < 0) return std::nullopt;
    return dims;
  }

 private:
  static std::string_view view(mx_text t) { return t.data ? std::string_view(t.data, t.size) : ""; }
  const mx_graph_reader& r_;
};

// Over a request's "graph" object (docs/plugin-protocol.md), read
// leniently: a missing or mistyped field reads as empty (and is listed in
// problems()), a metadata value that is not a string reads as its JSON
// text, and a node sits at its "index" when that is valid, so a sparse or
// reordered list still lines up with the host's numbering. `graph` must
// outlive this view (it points into it).
class JsonGraph final : public Graph {
 public:
  explicit JsonGraph(const nlohmann::json& graph) {
    static const nlohmann::json kNone;
    graph_ = graph.is_object() ? &graph : &kNone;
    place_nodes();
    read_initializers();
  }
  const std::vector<std::string>& problems() const { return problems_; }
  bool has_nodes() const { return has_nodes_; }

  size_t node_count() const override { return nodes_.size(); }
  std::string_view name(size_t n) const override { return string_at(n, "name"); }
  std::string_view op_type(size_t n) const override { return string_at(n, "op_type"); }
  std::string_view doc_string(size_t n) const override { return string_at(n, "doc_string"); }
  size_t input_count(size_t n) const override { return list_size(n, "inputs"); }
  std::string_view input(size_t n, size_t i) const override { return list_item(n, "inputs", i); }
  size_t output_count(size_t n) const override { return list_size(n, "outputs"); }
  std::string_view output(size_t n, size_t i) const override { return list_item(n, "outputs", i); }
  std::optional<std::string> metadata(size_t n, std::string_view key) const override {
    const nlohmann::json* metadata = field(n, "metadata");
    if (!metadata || !metadata->is_object()) return std::nullopt;
    auto it = metadata->find(std::string(key));
    if (it == metadata->end()) return std::nullopt;
    return it->is_string() ? it->get<std::string>() : it->dump();
  }
  size_t initializer_count() const override { return initializers_.size(); }
  std::string_view initializer_name(size_t i) const override {
    return i < initializers_.size() ? std::string_view(initializers_[i]) : "";
  }
  std::optional<std::vector<int64_t>> initializer_shape(size_t i) const override {
    return i < shapes_.size() ? shapes_[i] : std::nullopt;
  }

 private:
  void place_nodes() {
    auto nodes = graph_->find("nodes");
    if (nodes == graph_->end() || !nodes->is_array()) {
      problems_.push_back("graph.nodes is missing or not an array");
      return;
    }
    has_nodes_ = true;
    nodes_.assign(nodes->size(), nullptr);
    size_t position = 0;
    for (const auto& node : *nodes) {
      size_t slot = position++;
      auto index = node.is_object() ? node.find("index") : node.end();
      if (node.is_object() && index != node.end() && index->is_number_unsigned() &&
          index->get<size_t>() < nodes_.size())
        slot = index->get<size_t>();
      if (node.is_object()) nodes_[slot] = &node;
      else problems_.push_back("graph.nodes[" + std::to_string(slot) + "] is not an object");
    }
  }

  void read_initializers() {
    auto names = graph_->find("initializers");
    if (names != graph_->end() && names->is_array())
      for (const auto& n : *names) initializers_.push_back(n.is_string() ? n.get<std::string>() : "");
    shapes_.resize(initializers_.size());
    auto shapes = graph_->find("initializer_shapes");
    if (shapes == graph_->end() || !shapes->is_array()) return;
    if (shapes->size() != initializers_.size())
      problems_.push_back("graph.initializer_shapes does not match graph.initializers");
    for (size_t i = 0; i < shapes->size() && i < initializers_.size(); ++i) {
      std::vector<int64_t> dims;
      bool ok = (*shapes)[i].is_array();
      if (ok)
        for (const auto& d : (*shapes)[i]) {
          ok = ok && d.is_number_integer() && d.get<int64_t>() >= 0;
          if (ok) dims.push_back(d.get<int64_t>());
        }
      if (ok) shapes_[i] = std::move(dims);
      else problems_.push_back("graph.initializer_shapes[" + std::to_string(i) + "] is not a shape");
    }
  }

  const nlohmann::json* field(size_t n, const char* key) const {
    if (n >= nodes_.size() || !nodes_[n]) return nullptr;
    auto it = nodes_[n]->find(key);
    return it == nodes_[n]->end() ? nullptr : &*it;
  }
  std::string_view string_at(size_t n, const char* key) const {
    const nlohmann::json* v = field(n, key);
    return v && v->is_string() ? std::string_view(v->get_ref<const std::string&>()) : "";
  }
  size_t list_size(size_t n, const char* key) const {
    const nlohmann::json* v = field(n, key);
    return v && v->is_array() ? v->size() : 0;
  }
  std::string_view list_item(size_t n, const char* key, size_t i) const {
    const nlohmann::json* v = field(n, key);
    if (!v || !v->is_array() || i >= v->size() || !(*v)[i].is_string()) return "";
    return (*v)[i].get_ref<const std::string&>();
  }

  const nlohmann::json* graph_;
  std::vector<const nlohmann::json*> nodes_;  // slot → node object (null: none)
  std::vector<std::string> initializers_;
  std::vector<std::optional<std::vector<int64_t>>> shapes_;
  std::vector<std::string> problems_;
  bool has_nodes_ = false;
};

// The supplied hierarchy's modules as strategies read them.
class Modules {
 public:
  struct Step {
    bool call;  // a call of module `name`, else an op kind
    std::string name;
  };
  virtual ~Modules() = default;
  virtual size_t count() const = 0;
  virtual std::string path(size_t i) const = 0;
  virtual std::string class_name(size_t i) const = 0;    // "" when not given
  virtual long long own_parameters(size_t i) const = 0;  // -1 when not given
  // Nothing when the module has no outline.
  virtual std::optional<std::vector<Step>> forward(size_t i) const = 0;
};

// Over the host's reader (its module accessors).
class ReaderModules final : public Modules {
 public:
  explicit ReaderModules(const mx_graph_reader& r) : r_(r) {}
  size_t count() const override { return r_.module_count(r_.graph); }
  std::string path(size_t i) const override { return text(r_.module_path(r_.graph, i)); }
  std::string class_name(size_t i) const override { return text(r_.module_class(r_.graph, i)); }
  long long own_parameters(size_t i) const override { return r_.module_own_parameters(r_.graph, i); }
  std::optional<std::vector<Step>> forward(size_t i) const override {
    const int64_t n = r_.module_forward_count(r_.graph, i);
    if (n < 0) return std::nullopt;
    std::vector<Step> steps;
    steps.reserve(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      int32_t is_call = 0;
      mx_text name = r_.module_forward_step(r_.graph, i, static_cast<uint64_t>(k), &is_call);
      steps.push_back({is_call != 0, text(name)});
    }
    return steps;
  }

 private:
  static std::string text(mx_text t) { return t.data ? std::string(t.data, t.size) : std::string(); }
  const mx_graph_reader& r_;
};

// Over a request's "modules" array, read leniently: an entry that is not an
// object with a string "path" is skipped, mistyped fields read as not given.
class JsonModules final : public Modules {
 public:
  explicit JsonModules(const nlohmann::json& modules) {
    if (!modules.is_array()) return;
    for (const auto& m : modules) {
      auto path = m.is_object() ? m.find("path") : m.end();
      if (m.is_object() && path != m.end() && path->is_string()) entries_.push_back(&m);
    }
  }
  size_t count() const override { return entries_.size(); }
  std::string path(size_t i) const override { return entries_.at(i)->at("path").get<std::string>(); }
  std::string class_name(size_t i) const override {
    auto it = entries_.at(i)->find("class");
    return it != entries_.at(i)->end() && it->is_string() ? it->get<std::string>() : "";
  }
  long long own_parameters(size_t i) const override {
    auto it = entries_.at(i)->find("own_parameters");
    return it != entries_.at(i)->end() && it->is_number_integer() ? it->get<long long>() : -1;
  }
  std::optional<std::vector<Step>> forward(size_t i) const override {
    auto it = entries_.at(i)->find("forward");
    if (it == entries_.at(i)->end() || !it->is_array()) return std::nullopt;
    std::vector<Step> steps;
    for (const auto& step : *it) {
      if (!step.is_object()) continue;
      auto call = step.find("call"), op = step.find("op");
      if (call != step.end() && call->is_string()) steps.push_back({true, call->get<std::string>()});
      else if (op != step.end() && op->is_string()) steps.push_back({false, op->get<std::string>()});
    }
    return steps;
  }

 private:
  std::vector<const nlohmann::json*> entries_;  // points into the request
};

}  // namespace mx_strategy
