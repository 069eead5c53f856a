#include "tagging/tagger.hpp"

#include <algorithm>
#include <string_view>

#include "model/check.hpp"
#include "model/model.hpp"
#include "tagging/graph_topology.hpp"
#include "tagging/hierarchy_document.hpp"
#include "tagging/propagation.hpp"
#include "tagging/strategy_call.hpp"
#include "tagging/strategy_response.hpp"
#include "tagging/strategy_selection.hpp"
#include "tagging/supplied_hierarchy.hpp"
#include "util/error.hpp"
#include "util/warn.hpp"

namespace mx {
namespace {

using json = nlohmann::json;

struct TagOptions {
  json hierarchy;                           // supplied document or null
  std::optional<ModuleTree> supplied_tree;  // its modules, checked (set with it)
  json strategy_options = json::object();
};

TagOptions parse_tag_options(const json& options) {
  TagOptions out;
  if (options.is_null()) return out;
  if (!options.is_object()) fail(MX_ERR_INVALID_ARGUMENT, "tag options must be a JSON object");
  for (const auto& [key, value] : options.items()) {
    if (key == "hierarchy") {
      SuppliedHierarchy supplied = load_supplied_hierarchy(value);
      out.hierarchy = std::move(supplied.document);
      out.supplied_tree = std::move(supplied.tree);
    } else if (key == "strategy_options") {
      if (!value.is_object()) fail(MX_ERR_INVALID_ARGUMENT, "\"strategy_options\" must be an object");
      out.strategy_options = value;
    } else {
      fail(MX_ERR_INVALID_ARGUMENT, "unknown tag option '" + key + "'");
    }
  }
  return out;
}

const json& supplied_modules(const TagOptions& options) {
  static const json none = json::array();
  return options.hierarchy.is_null() ? none : options.hierarchy.at("modules");
}

struct Tagged {
  std::vector<Assignment> assignments;
  ModuleTree tree;
  TaggingProvenance provenance;
};

// Strategies → validated assignments → propagation → classes of the module
// tree (build_document adds the modules the nodes are in).
Tagged run_strategies(const Registry& registry, const std::string& strategy, const onnx::ModelProto& proto,
                      const GraphView& view, model::ValueTable&& values, TagOptions& options,
                      Progress& progress) {
  std::vector<const Plugin*> plugins = select_strategies(registry, strategy);
  // The supplied document's modules were parsed into the tree; only a
  // strategy sent the JSON request reads them as JSON again. When none is,
  // their DOM goes now rather than live beside the tree and the document
  // being built (a million modules: about a gigabyte).
  if (!options.hierarchy.is_null() && std::none_of(plugins.begin(), plugins.end(), [&](const Plugin* p) {
        return StrategyCall::sends_json(registry, *p);
      }))
    options.hierarchy["modules"] = json::array();
  StrategyCall call(proto, view, supplied_modules(options),
                    options.supplied_tree ? &*options.supplied_tree : nullptr, options.strategy_options);
  std::vector<StrategyAnswer> answers;
  TaggingProvenance provenance{strategy, {}, json::object()};
  uint64_t ran = 0;
  for (const Plugin* plugin : plugins) {
    progress.report("tag", "strategies", ran++, plugins.size());
    try {
      answers.push_back(call.ask(registry, *plugin));
    } catch (const Error& e) {
      // Under "auto" the user named no strategy: one that fails (a broken
      // third-party plugin) is skipped, named, and the others still run.
      if (strategy != "auto") throw;
      warn("strategy '" + plugin->name() + "' skipped under --strategy auto: " + e.what());
      continue;
    }
    provenance.strategies.push_back(plugin->name());
  }
  if (answers.empty()) fail(MX_ERR_PLUGIN, "strategy 'auto': every strategy failed (see the warnings above)");
  progress.report("tag", "strategies", plugins.size(), plugins.size());
  progress.report("propagate", "", 0, 0);
  StrategyAnswer combined = combine_answers(std::move(answers), view.nodes.size());
  // The supplied tree was built (and checked) when the option was read;
  // propagation reads the supplied modules from it.
  ModuleTree tree = options.supplied_tree ? std::move(*options.supplied_tree) : ModuleTree();
  std::vector<Assignment> assignments =
      propagate(view, std::move(values), std::move(combined.assignments), tree);
  tree.add_classes(combined.classes);
  if (!options.hierarchy.is_null()) provenance.model = options.hierarchy.value("model", json::object());
  return Tagged{std::move(assignments), std::move(tree), std::move(provenance)};
}

}  // namespace

void tag_model(const Registry& registry, const std::string& strategy, mx_model* model,
               const json& options_json, Progress& progress) {
  // Reads the graph from the proto and stores the document with
  // model::set_hierarchy (what mx_model_set_hierarchy_json does after
  // parsing its text), without JSON text round trips: at 200,000 nodes
  // writing and parsing the graph view and the document were a third of
  // the tagging time.
  TagOptions options = parse_tag_options(options_json);
  // Before any strategy runs: the libonnx checker may have been skipped
  // (files newer than it), and nothing below is meaningful on a cycle.
  // A graph that is not a DAG, reads an undefined value or writes one
  // twice cannot be tagged (propagation walks producers and consumers).
  // Its value names are read once, for this check, the graph view (which
  // takes the names) and propagation (which takes the ids).
  const onnx::ModelProto& proto = model->proto();
  model::ValueTable values = model::intern_values(proto.graph());
  model::check_graph_structure(proto, values, model::display_name(*model));
  GraphView view = graph_view_of(proto, values);
  // A tree built from the strategies' paths alone is consistent by
  // construction (ModuleTree adds every ancestor of a checked path, lists
  // each path once with its parent and children: tests/tagging's
  // test_rebuilt_tree holds it to hierarchy::validate_consistency on random
  // paths), and the records build_document writes are as set_hierarchy's
  // checks would leave them (test_hierarchy_document): the document is
  // stored as it is. A supplied tree was not necessarily checked whole when
  // it was read: it is checked again, with the records.
  const model::Vouched vouched = options.supplied_tree ? model::Vouched::nothing : model::Vouched::everything;
  Tagged t = run_strategies(registry, strategy, proto, view, std::move(values), options, progress);
  hierarchy::Document doc =
      build_document(proto.graph(), std::move(view), std::move(t.assignments), t.tree, t.provenance);
  mx::model::set_hierarchy(*model, std::move(doc), "hierarchy", vouched);
}

}  // namespace mx
