#include "tagging/supplied_hierarchy.hpp"
#include "util/json_text.hpp"

#include <fstream>
#include <sstream>

#include "hierarchy/parse.hpp"
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
  hierarchy::parse_document(hierarchy::Json(doc), where);
  return doc;
}

}  // namespace modelexport
