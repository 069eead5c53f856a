#include "inspect/render.hpp"

#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "functions/graph_utils.hpp"
#include "inspect/modules.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/utf8.hpp"

namespace mx::inspect {
namespace {

using mx::common::parent_path;

struct Cluster {
  std::string path;
  std::string label;
  std::vector<std::string> children;  // module paths
  std::vector<int> nodes;             // graph node indices
};

struct Layout {
  std::map<std::string, Cluster> clusters;                 // by module path, "" = root
  std::vector<std::pair<std::string, std::string>> edges;  // node ids
  std::vector<std::string> inputs, outputs;
};

Layout layout(const mx_model& model) {
  Layout L;
  const auto& doc = model.hierarchy;
  const auto& g = model.proto().graph();
  const auto lookup = functions::record_lookup(doc, model.proto());
  const hierarchy::ModuleIndex modules(doc);
  std::map<std::string, std::string> parent;
  for (const auto& m : doc.modules)
    if (const auto p = hierarchy::stated_parent(m)) parent[m.path] = std::string(*p);

  auto ensure = [&](const std::string& path, auto&& self) -> Cluster& {
    auto it = L.clusters.find(path);
    if (it != L.clusters.end()) return it->second;
    Cluster c;
    c.path = path;
    const auto* m = modules.find(path);
    c.label = (path.empty() ? std::string("(root)") : path) + (m ? "\n" + m->class_name : "");
    L.clusters.emplace(path, c);
    if (!path.empty()) {
      auto p = parent.count(path) ? parent[path] : parent_path(path);
      self(p, self).children.push_back(path);
    }
    return L.clusters.at(path);
  };
  ensure("", ensure);
  std::unordered_map<std::string, std::string> producer;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto* r = lookup[static_cast<size_t>(i)];
    std::string m = r ? r->module : "";
    if (!doc.modules.empty()) m = nearest_known(m, modules);
    ensure(m, ensure).nodes.push_back(i);
    for (const auto& o : g.node(i).output()) producer[o] = "n" + std::to_string(i);
  }
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  for (size_t k = 0; k < static_cast<size_t>(g.input_size()); ++k) {
    const auto& name = g.input(static_cast<int>(k)).name();
    if (inits.count(name)) continue;
    producer[name] = "in" + std::to_string(k);
    L.inputs.push_back(name);
  }
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& in : g.node(i).input()) {
      auto p = producer.find(in);
      if (p != producer.end()) L.edges.emplace_back(p->second, "n" + std::to_string(i));
    }
  for (int k = 0; k < g.output_size(); ++k) {
    L.outputs.push_back(g.output(k).name());
    auto p = producer.find(g.output(k).name());
    if (p != producer.end()) L.edges.emplace_back(p->second, "out" + std::to_string(k));
  }
  return L;
}

// Outside text is made valid UTF-8 first (util/utf8.hpp).
std::string dot_quote(const std::string& raw) {
  const std::string s = to_valid_utf8(raw);
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (c == '\n') o += "\\n";
    else o += c;
  }
  return o + "\"";
}

std::string xml_escape(const std::string& raw) {
  const std::string s = to_valid_utf8(raw);
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&apos;";
        break;
      case '\n':
        o += "&#10;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') break;  // not allowed in XML 1.0
        o += c;
    }
  }
  return o;
}

std::string node_label(const onnx::NodeProto& n) {
  std::string op = n.op_type();
  if (n.domain() == functions::kFunctionDomain) op = "fn " + op;
  return op + "\n" + n.name();
}

void dot_cluster(std::ostringstream& os, const Layout& L, const mx_model& model, const Cluster& c, int depth,
                 int& counter) {
  const std::string pad(static_cast<size_t>(2 * depth), ' ');
  const auto& g = model.proto().graph();
  if (depth > 0) {
    os << pad << "subgraph \"cluster_" << counter++ << "\" {\n";
    os << pad << "  label=" << dot_quote(c.label) << "; style=rounded; color=gray50;\n";
  }
  for (int i : c.nodes) {
    const auto& n = g.node(i);
    os << pad << "  n" << i << " [label=" << dot_quote(node_label(n)) << ", tooltip=" << dot_quote(c.path)
       << (n.domain() == functions::kFunctionDomain ? ", shape=box3d, style=filled, fillcolor=lightyellow"
                                                    : "")
       << "];\n";
  }
  for (const auto& child : c.children) dot_cluster(os, L, model, L.clusters.at(child), depth + 1, counter);
  if (depth > 0) os << pad << "}\n";
}

std::string to_dot(const mx_model& model) {
  const Layout L = layout(model);
  std::ostringstream os;
  os << "digraph " << dot_quote(model.proto().graph().name().empty() ? "model" : model.proto().graph().name())
     << " {\n  rankdir=TB; compound=true;\n  node [shape=box, fontsize=10];\n";
  for (size_t k = 0; k < L.inputs.size(); ++k)
    os << "  in" << k << " [shape=ellipse, label=" << dot_quote(L.inputs[k]) << "];\n";
  for (size_t k = 0; k < L.outputs.size(); ++k)
    os << "  out" << k << " [shape=ellipse, label=" << dot_quote(L.outputs[k]) << "];\n";
  int counter = 0;
  dot_cluster(os, L, model, L.clusters.at(""), 0, counter);
  for (const auto& [a, b] : L.edges) os << "  " << a << " -> " << b << ";\n";
  os << "}\n";
  return os.str();
}

void graphml_cluster(std::ostringstream& os, const Layout& L, const mx_model& model,
                     const hierarchy::ModuleIndex& modules, const Cluster& c, int depth, int& counter) {
  const std::string pad(static_cast<size_t>(2 * depth), ' ');
  const auto& g = model.proto().graph();
  const auto lookup = functions::record_lookup(model.hierarchy, model.proto());
  for (int i : c.nodes) {
    const auto& n = g.node(i);
    const auto* r = lookup[static_cast<size_t>(i)];
    os << pad << "<node id=\"n" << i << "\">"
       << "<data key=\"label\">" << xml_escape(n.op_type()) << "</data>"
       << "<data key=\"kind\">" << (n.domain() == functions::kFunctionDomain ? "call" : "op") << "</data>"
       << "<data key=\"name\">" << xml_escape(n.name()) << "</data>"
       << "<data key=\"op_type\">" << xml_escape(n.op_type()) << "</data>"
       << "<data key=\"module\">" << xml_escape(c.path) << "</data>"
       << "<data key=\"tag\">" << xml_escape(r ? hierarchy::record_tag(model.hierarchy, *r) : "") << "</data>"
       << "</node>\n";
  }
  for (const auto& child : c.children) {
    const Cluster& cc = L.clusters.at(child);
    const int id = counter++;
    const auto* m = modules.find(child);
    os << pad << "<node id=\"m" << id << "\">"
       << "<data key=\"label\">" << xml_escape(child) << "</data>"
       << "<data key=\"kind\">module</data>"
       << "<data key=\"module\">" << xml_escape(child) << "</data>"
       << "<data key=\"class\">" << xml_escape(m ? m->class_name : "") << "</data>\n";
    os << pad << "  <graph id=\"m" << id << ":\" edgedefault=\"directed\">\n";
    graphml_cluster(os, L, model, modules, cc, depth + 2, counter);
    os << pad << "  </graph>\n" << pad << "</node>\n";
  }
}

std::string to_graphml(const mx_model& model) {
  const Layout L = layout(model);
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" "
        "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
        "xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns "
        "http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n";
  for (const char* k : {"label", "kind", "name", "op_type", "module", "tag", "class"})
    os << "  <key id=\"" << k << "\" for=\"node\" attr.name=\"" << k << "\" attr.type=\"string\"/>\n";
  os << "  <key id=\"tensor\" for=\"edge\" attr.name=\"tensor\" attr.type=\"string\"/>\n";
  os << "  <graph id=\"G\" edgedefault=\"directed\">\n";
  for (size_t k = 0; k < L.inputs.size(); ++k)
    os << "    <node id=\"in" << k << "\"><data key=\"label\">" << xml_escape(L.inputs[k])
       << "</data><data key=\"kind\">input</data></node>\n";
  for (size_t k = 0; k < L.outputs.size(); ++k)
    os << "    <node id=\"out" << k << "\"><data key=\"label\">" << xml_escape(L.outputs[k])
       << "</data><data key=\"kind\">output</data></node>\n";
  int counter = 0;
  const hierarchy::ModuleIndex modules(model.hierarchy);
  graphml_cluster(os, L, model, modules, L.clusters.at(""), 2, counter);
  size_t e = 0;
  for (const auto& [a, b] : L.edges)
    os << "    <edge id=\"e" << e++ << "\" source=\"" << a << "\" target=\"" << b << "\"/>\n";
  os << "  </graph>\n</graphml>\n";
  return os.str();
}

}  // namespace

std::string render(const mx_model& model, const std::string& format) {
  if (format == "dot") return to_dot(model);
  if (format == "graphml") return to_graphml(model);
  fail(MX_ERR_INVALID_ARGUMENT, "render: format '" + format + "' is not one of dot|graphml");
}

}  // namespace mx::inspect
