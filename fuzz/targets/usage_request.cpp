// The `usage` strategy on a hostile request: the graph (node inputs and
// outputs, initializers and their shapes) and the supplied modules (parameter
// counts, forward outlines that call themselves or fan out exponentially)
// are file and user content. Decoding must not throw, and every assignment
// must name a node of the graph and a module (renamed weights are matched
// against the supplied modules, anonymous_weights.hpp).
//
// Input: a JSON object {"graph": {...}, "modules": [...]}; anything else is
// skipped.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "request_graph.hpp"
#include "module_outlines.hpp"
#include "usage_strategy.hpp"

using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  json request = json::parse(data, data + size, nullptr, false);
  if (request.is_discarded() || !request.is_object()) return 0;
  try {
    auto graph = mx::usage::usage_view(mx_strategy::JsonGraph(request.value("graph", json())));
    mx::usage::UsageOptions options;
    const json modules = request.value("modules", json());
    options.outlines = mx::usage::ModuleOutlines(mx_strategy::JsonModules(modules));
    for (bool shared : {false, true}) {
      options.use_shared_parameters = shared;
      for (const auto& a : mx::usage::assign_by_usage(graph, options))
        if (a.node >= graph.nodes.size())
          mxfuzz::finding("usage_request", "assignment to node " + std::to_string(a.node) + " of " +
                                               std::to_string(graph.nodes.size()));
    }
  } catch (const std::exception& e) {
    mxfuzz::finding("usage_request", std::string("exception: ") + e.what());
  }
  return 0;
}
