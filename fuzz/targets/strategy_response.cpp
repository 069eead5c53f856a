// A strategy plugin's JSON answer, through the tagging core exactly as
// mx_registry_tag runs it after the plugin returned (sdk/src/tagging/
// tagger.cpp, tag_model): graph view from the proto, validation, "auto"
// combination, propagation, module tree, build_document, and storing the
// document (model::set_hierarchy, the setter behind mx_model_set_hierarchy_json;
// and unchecked, as the tagger stores it: both must hold the same document),
// then saved and reloaded through the C API. Oracle: an answer the
// validation accepts must give a document the model accepts and a file that
// loads again; a refused answer must be MX_ERR_PLUGIN.
//
// Input: byte 0 picks the graph (even: TinyNet; odd: a graph with a cycle,
// dangling inputs and a Constant chain), the rest is the response JSON.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mx/onnx_proto.hpp"

#include "fixture_model.hpp"
#include "hierarchy/document_text.hpp"
#include "model/model.hpp"
#include "fuzz_common.hpp"
#include "tagging/graph_topology.hpp"
#include "tagging/hierarchy_document.hpp"
#include "tagging/rebuilt_tree.hpp"
#include "tagging/propagation.hpp"
#include "tagging/strategy_response.hpp"
#include "util/error.hpp"

using namespace mx;
using nlohmann::json;

namespace {

std::string cyclic_bytes() {
  onnx::ModelProto m = testing::tiny_net();
  auto* g = m.mutable_graph();
  auto add = [&](const char* name, const char* op, std::initializer_list<const char*> in,
                 std::initializer_list<const char*> out) {
    auto* n = g->add_node();
    n->set_name(name);
    n->set_op_type(op);
    for (auto* i : in) n->add_input(i);
    for (auto* o : out) n->add_output(o);
  };
  add("/c/Constant", "Constant", {}, {"k"});
  add("/c/Shape", "Shape", {"k"}, {"s"});
  add("/loop/A", "Add", {"s", "b_out"}, {"a_out"});        // A <-> B: a cycle
  add("/loop/B", "Add", {"a_out", "nowhere"}, {"b_out"});  // dangling input
  add("", "Identity", {"a_out"}, {"id"});                  // unnamed
  return m.SerializeAsString();
}

mx_model* load(const std::string& bytes) {
  mx_model* m = nullptr;
  if (!mxfuzz::ok(mx_model_load_bytes(bytes.data(), bytes.size(), &m), "load"))
    mxfuzz::finding("setup", "graph does not load");
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > mxfuzz::kMaxInput) return 0;
  static const std::string graphs[2] = {testing::tiny_net_bytes(), cyclic_bytes()};
  mx_model* model = load(graphs[data[0] & 1]);
  json response;
  try {
    response = json::parse(data + 1, data + size);
  } catch (const json::exception&) {
    mx_model_release(model);
    return 0;  // the registry refuses non-JSON before this point
  }
  const bool cyclic = data[0] & 1;
  hierarchy::Document document;
  try {
    GraphView view = graph_view_of(model->proto());
    const size_t n = view.nodes.size();
    // Once alone, once combined after an empty first answer ("auto").
    StrategyAnswer answer = parse_strategy_response("fuzz", response, n);
    StrategyAnswer empty;
    empty.assignments.resize(n);
    StrategyAnswer combined = combine_answers({empty, answer}, n);
    std::vector<Assignment> assignments = propagate(view, std::move(combined.assignments), json::array());
    ModuleTree tree(combined.classes);
    for (const auto& a : assignments) tree.add_path(a.module);
    document = build_document(model->proto().graph(), std::move(view), std::move(assignments), tree,
                              {"fuzz", {"fuzz"}, json::object()});
  } catch (const Error& e) {
    if (e.code() != MX_ERR_PLUGIN) mxfuzz::finding("tagging core", e.what());
    mx_model_release(model);
    return 0;
  } catch (const std::exception& e) {
    mxfuzz::finding("tagging core", std::string("unexpected exception: ") + e.what());
  }
  // The tagger stores its document unchecked (model::Vouched::everything):
  // it must be what the checks leave.
  hierarchy::Document unchecked = document;
  try {
    mx::model::set_hierarchy(*model, std::move(document), "hierarchy");
    mx_model* vouched = load(graphs[data[0] & 1]);
    mx::model::set_hierarchy(*vouched, std::move(unchecked), "hierarchy", mx::model::Vouched::everything);
    if (hierarchy::document_text(vouched->hierarchy, -1) != hierarchy::document_text(model->hierarchy, -1))
      mxfuzz::finding("build_document", "the document stored unchecked differs from the checked one");
    mx_model_release(vouched);
  } catch (const Error& e) {
    // Documented refusal: a graph whose node names cannot key records.
    if (!cyclic || e.code() != MX_ERR_SCHEMA) mxfuzz::finding("accepted answer, refused document", e.what());
  } catch (const std::exception& e) {
    mxfuzz::finding("set_hierarchy", std::string("unexpected exception: ") + e.what());
  }
  void* saved = nullptr;
  size_t saved_size = 0;
  if (mxfuzz::ok(mx_model_save_bytes(model, "{\"check\":false}", &saved, &saved_size), "save")) {
    mx_model* again = nullptr;
    mx_status* st = mx_model_load_bytes(saved, saved_size, &again);
    if (st) mxfuzz::finding("tagged model does not reload", mx_status_message(st));
    mx_model_release(again);
    mx_free(saved);
  }
  mx_model_release(model);
  return 0;
}
