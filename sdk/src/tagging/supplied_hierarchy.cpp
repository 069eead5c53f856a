#include "tagging/supplied_hierarchy.hpp"
#include "util/json_text.hpp"

#include <fstream>
#include <sstream>

#include "hierarchy/parse.hpp"
#include "tagging/module_path.hpp"
#include "util/error.hpp"

namespace modelexport {
namespace {

using json = nlohmann::json;

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(MX_ERR_IO, "cannot read hierarchy file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  check_json_depth(text.str(), "hierarchy file '" + path + "'");
  try {
    return json::parse(text.str());
  } catch (const json::exception& e) {
    fail(MX_ERR_PARSE, "hierarchy file '" + path + "' is not JSON: " + e.what());
  }
}

// Tagging places nodes in these paths and builds tags from them: a '/' or a
// space would make tags and scoped names ambiguous (found by
// fuzz/targets/supplied_hierarchy.cpp: a module "pooler.ac/Net/t").
void check_module_paths(const hierarchy::Document& doc, const std::string& where) {
  auto check = [&](const std::string& path, const std::string& field) {
    if (!is_valid_module_path(path))
      fail(MX_ERR_SCHEMA, where + ": " + field + ": '" + path + "' is not a module path "
                          "(dot-separated names without '/', spaces or control characters)");
  };
  for (size_t i = 0; i < doc.modules.size(); ++i) {
    const auto& m = doc.modules[i];
    const std::string at = "modules[" + std::to_string(i) + "]";
    check(m.path, at + ".path");
    if (!m.forward) continue;
    for (size_t k = 0; k < m.forward->size(); ++k)
      if ((*m.forward)[k].kind == hierarchy::ForwardStep::Kind::call)
        check((*m.forward)[k].name, at + ".forward[" + std::to_string(k) + "].call");
  }
}

}  // namespace

json load_supplied_hierarchy(const json& option) {
  if (option.is_null()) return option;
  json doc;
  std::string where = "supplied hierarchy";
  if (option.is_string()) {
    where = "hierarchy file '" + option.get<std::string>() + "'";
    doc = read_json_file(option.get<std::string>());
  } else if (option.is_object()) {
    doc = option;
  } else {
    fail(MX_ERR_INVALID_ARGUMENT, "option \"hierarchy\" must be an object or a file path");
  }
  // The whole document is checked once here, so that a wrong field is an
  // error naming it (modules[3].class: must be string) rather than a JSON
  // type error deep in propagation or the module tree.
  const hierarchy::Document parsed = hierarchy::parse_document(hierarchy::Json(doc), where);
  check_module_paths(parsed, where);
  return doc;
}

}  // namespace modelexport
