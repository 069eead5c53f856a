// The dynamo exporter's node metadata values, as the metadata strategy
// reads them (plugins/strategies/metadata): Python-repr lists
// (pkg.torch.onnx.name_scopes / class_hierarchy) and the `namespace`
// string, each parser alone and then the whole strategy on a one-node
// graph carrying them. The parsers are documented never to throw; every
// module path the strategy assigns must pass the host's path rule.
//
// Input: up to three values separated by 0x01: name_scopes, class_hierarchy,
// namespace.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dynamo_scope.hpp"
#include "fuzz_common.hpp"
#include "metadata_strategy.hpp"
#include "repr_list.hpp"
#include "mx/common/module_path.hpp"

using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0x01 && parts.size() < 3) parts.emplace_back();
    else parts.back().push_back(static_cast<char>(data[i]));
  }
  parts.resize(3);
  try {
    auto scopes = mx::metadata::parse_repr_list(parts[0]);
    auto classes = mx::metadata::parse_repr_list(parts[1]);
    if (scopes.ok && classes.ok) mx::metadata::chain_from_lists(scopes.items, classes.items);
    if (scopes.ok) mx::metadata::chain_from_lists(scopes.items, {});
    auto chain = mx::metadata::chain_from_namespace(parts[2]);
    for (const auto& e : chain.modules) mx::metadata::short_class(e.qualified_class);

    // The strategy on a one-node graph; nlohmann refuses invalid UTF-8 at
    // dump time, which the host would never send, so skip such values.
    json metadata = {{"pkg.torch.onnx.name_scopes", parts[0]},
                     {"pkg.torch.onnx.class_hierarchy", parts[1]},
                     {"namespace", parts[2]}};
    try {
      (void)metadata.dump();
    } catch (const json::type_error&) {
      return 0;
    }
    json graph = {{"nodes", json::array({{{"index", 0},
                                          {"name", "n"},
                                          {"op_type", "MatMul"},
                                          {"domain", ""},
                                          {"inputs", json::array()},
                                          {"outputs", json::array()},
                                          {"metadata", metadata},
                                          {"doc_string", ""}}})},
                  {"initializers", json::array()},
                  {"inputs", json::array()},
                  {"outputs", json::array()}};
    auto result = mx::metadata::assign_from_metadata(mx_strategy::JsonGraph(graph),
                                                     mx_strategy::JsonModules(json::array()));
    for (const auto& a : result.assignments)
      if (!mx::common::is_valid_module_path(a.module))
        mxfuzz::finding("metadata strategy", "assigned invalid module path '" + a.module + "'");
    for (const auto& m : result.modules)
      if (!mx::common::is_valid_module_path(m.path))
        mxfuzz::finding("metadata strategy", "learned invalid module path '" + m.path + "'");
  } catch (const std::exception& e) {
    mxfuzz::finding("dynamo metadata", std::string("exception: ") + e.what());
  }
  return 0;
}
