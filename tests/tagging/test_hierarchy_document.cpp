// The tagger stores the document build_document writes without checking it
// (model::Vouched::everything, tagging/tagger.cpp): this is the promise
// that lets it. Random graphs and assignments, stored once as vouched and
// once through every check of model::set_hierarchy: both models must hold
// the same document, byte for byte, and the checks must pass.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include <mx/common/module_path.hpp>

#include "hierarchy/document_text.hpp"
#include "model/model.hpp"
#include "tagging/hierarchy_document.hpp"

using namespace mx;

namespace {

// Node names as converted files have them: unique, repeated, empty, valid
// UTF-8 beyond ASCII and bytes that are no UTF-8 at all.
std::string node_name(std::mt19937& rng, size_t i) {
  switch (rng() % 8) {
    case 0:
      return "";
    case 1:
      return "dup";
    case 2:
      return "n\xc3\xa9" + std::to_string(i);
    case 3:
      return "bad\xff\xfe" + std::to_string(i);
    case 4:
      return "cut\xe2\x82";  // a truncated sequence, repeated
    default:
      return "node" + std::to_string(i);
  }
}

std::string module_path(std::mt19937& rng) {
  static const std::vector<std::string> pieces = {"encoder", "layer", "0",        "1",    "10",   "2",  "x-y",
                                                  "p,q",     "_z",    "\xc3\xa9", "list", "dict", "k+1"};
  std::string p;
  for (int depth = static_cast<int>(rng() % 5); depth > 0; --depth)
    p += (p.empty() ? "" : ".") + pieces[rng() % pieces.size()];
  return p;
}

}  // namespace

TEST_CASE("a document build_document writes is what set_hierarchy's checks leave") {
  std::mt19937 rng(20261126);
  // Classes that drop out of tags (pure containers), unknown ones, and
  // ordinary ones: tags of every shape, including the empty tag of a
  // container right below an unknown root.
  const std::vector<std::string> classes = {"", "", "ModuleList", "ModuleDict", "Linear", "BertLayer"};
  const std::vector<std::string> evidences = {"direct",    "scope",      "metadata",
                                              "parameter", "propagated", "root"};
  for (int round = 0; round < 150; ++round) {
    CAPTURE(round);
    onnx::ModelProto proto;
    const size_t nodes = 1 + rng() % 40;
    std::vector<Assignment> assignments;
    std::map<std::string, std::string> guessed;
    for (size_t i = 0; i < nodes; ++i) {
      onnx::NodeProto* n = proto.mutable_graph()->add_node();
      n->set_name(node_name(rng, i));
      n->set_op_type("Relu");
      n->add_input(i == 0 ? "x" : "v" + std::to_string(i - 1));
      n->add_output("v" + std::to_string(i));
      std::string path = module_path(rng);
      REQUIRE(mx::common::is_valid_module_path(path));
      for (std::string p = path;; p = mx::common::parent_path(p)) {
        if (rng() % 3 == 0) guessed[p] = classes[rng() % classes.size()];
        if (p.empty()) break;
      }
      assignments.push_back({path, hierarchy::evidence_from_name(evidences[rng() % evidences.size()])});
    }
    ModuleTree tree;
    tree.add_classes(guessed);
    const TaggingProvenance provenance{"scope", {"scope"}, nlohmann::json::object()};
    hierarchy::Document doc =
        build_document(proto.graph(), graph_view_of(proto), std::move(assignments), tree, provenance);

    // Each record's hint is its module's position, and its tag the module's
    // (read there, not copied).
    for (const auto& r : doc.nodes) {
      REQUIRE(r.module_at < doc.modules.size());
      CHECK(doc.modules[r.module_at].path == r.module);
      CHECK(r.tag_from_module);
      CHECK(r.tag.empty());
      CHECK(hierarchy::record_tag(doc, r) == doc.modules[r.module_at].tag);
    }
    // Each module's parent hint is its parent's position (the root has none).
    for (const auto& m : doc.modules) {
      if (m.path.empty()) {
        CHECK(m.parent_at == hierarchy::kNoPosition);
        continue;
      }
      REQUIRE(m.parent_at < doc.modules.size());
      CHECK(doc.modules[m.parent_at].path == hierarchy::parent_view(m));
    }

    mx_model vouched, checked;
    vouched.proto() = proto;
    checked.proto() = proto;
    hierarchy::Document copy = doc;
    model::set_hierarchy(vouched, std::move(doc), "h", model::Vouched::everything);
    REQUIRE_NOTHROW(model::set_hierarchy(checked, std::move(copy), "h", model::Vouched::nothing));
    CHECK(hierarchy::document_text(vouched.hierarchy, -1) == hierarchy::document_text(checked.hierarchy, -1));
    // What set_node_record reads: an index, built on first use.
    CHECK(vouched.hierarchy.module_index() == nullptr);
    CHECK_NOTHROW(model::set_node_record(vouched, 0, vouched.hierarchy.nodes[0]));
    CHECK(vouched.hierarchy.module_index() != nullptr);
  }
}
