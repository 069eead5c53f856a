#include "tagging/tagger.hpp"

#include "tagging/graph_view.hpp"
#include "tagging/hierarchy_document.hpp"
#include "tagging/model_access.hpp"
#include "tagging/propagation.hpp"
#include "tagging/strategy_response.hpp"
#include "tagging/strategy_selection.hpp"
#include "tagging/supplied_hierarchy.hpp"
#include "util/error.hpp"

namespace modelexport {
namespace {

using json = nlohmann::json;

struct TagOptions {
  json hierarchy;  // supplied document or null
  json strategy_options = json::object();
};

TagOptions parse_tag_options(const json& options) {
  TagOptions out;
  if (options.is_null()) return out;
  if (!options.is_object()) fail(MX_ERR_INVALID_ARGUMENT, "tag options must be a JSON object");
  for (const auto& [key, value] : options.items()) {
    if (key == "hierarchy") {
      out.hierarchy = load_supplied_hierarchy(value);
    } else if (key == "strategy_options") {
      if (!value.is_object()) fail(MX_ERR_INVALID_ARGUMENT, "\"strategy_options\" must be an object");
      out.strategy_options = value;
    } else {
      fail(MX_ERR_INVALID_ARGUMENT, "unknown tag option '" + key + "'");
    }
  }
  return out;
}

json supplied_modules(const TagOptions& options) {
  return options.hierarchy.is_null() ? json::array() : options.hierarchy.at("modules");
}

json strategy_request(const json& graph, const TagOptions& options) {
  return {{"schema", "modelexport.strategy-request/1"},
          {"operation", "assign"},
          {"options", options.strategy_options},
          {"graph", strategy_graph(graph)},
          {"modules", supplied_modules(options)}};
}

}  // namespace

json tag_graph(const Registry& registry, const std::string& strategy, const json& graph,
               const json& options_json) {
  TagOptions options = parse_tag_options(options_json);
  GraphView view = parse_graph_view(graph);
  std::vector<const Plugin*> plugins = select_strategies(registry, strategy);
  const json request = strategy_request(graph, options);

  std::vector<StrategyAnswer> answers;
  TaggingProvenance provenance{strategy, {}, json::object()};
  for (const Plugin* plugin : plugins) {
    answers.push_back(parse_strategy_response(plugin->name(), plugin->run_json(request),
                                              view.nodes.size()));
    provenance.strategies.push_back(plugin->name());
  }
  StrategyAnswer combined = combine_answers(answers, view.nodes.size());
  std::vector<Assignment> assignments =
      propagate(view, std::move(combined.assignments), supplied_modules(options));

  ModuleTree tree(supplied_modules(options), combined.classes);
  for (const auto& a : assignments) tree.add_path(a.module);
  if (!options.hierarchy.is_null()) provenance.model = options.hierarchy.value("model", json::object());
  return hierarchy_document(view, assignments, tree, provenance);
}

void tag_model(const Registry& registry, const std::string& strategy, mx_model* model,
               const json& options) {
  json document = tag_graph(registry, strategy, model_graph(model), options);
  set_model_hierarchy(model, document);
}

}  // namespace modelexport
