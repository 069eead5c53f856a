#include "tagging/supplied_hierarchy.hpp"
#include "util/json_text.hpp"

#include "hierarchy/parse.hpp"
#include "hierarchy/tree_check.hpp"
#include "tagging/rebuilt_tree.hpp"
#include "mx/common/module_path.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

namespace mx {
using mx::common::is_valid_module_path;
namespace {

using json = nlohmann::json;

json read_json_file(const std::string& path) {
  // read_file: regular files only (a FIFO given as --hierarchy used to
  // block forever), errors naming the file.
  std::string text;
  try {
    text = read_file(path);
  } catch (const Error& e) {
    fail(e.code(), std::string("hierarchy file: ") + e.what());
  }
  check_json_limits(text, "hierarchy file '" + path + "'");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    fail(MX_ERR_PARSE, "hierarchy file '" + path + "' is not JSON: " + e.what());
  }
}

// Tagging places nodes in these paths and builds tags from them: a '/' or a
// space would make tags and scoped names ambiguous (found by
// fuzz/targets/supplied_hierarchy.cpp: a module "pooler.ac/Net/t"). Module
// paths themselves are held to that by parse_document; calls in forward
// outlines are checked here.
void check_forward_calls(const hierarchy::Document& doc, const std::string& where) {
  for (size_t i = 0; i < doc.modules.size(); ++i) {
    const auto& m = doc.modules[i];
    const auto& forward = m.forward();
    if (!forward) continue;
    for (size_t k = 0; k < forward->size(); ++k) {
      const auto& step = (*forward)[k];
      if (step.kind == hierarchy::ForwardStep::Kind::call && !is_valid_module_path(step.name))
        fail(MX_ERR_SCHEMA, where + ": modules[" + std::to_string(i) + "].forward[" + std::to_string(k) +
                                "].call: '" + step.name +
                                "' is not a module path (dot-separated names without '/', "
                                "spaces or control characters)");
    }
  }
}

// The tree as tagging will write it (ModuleTree completes missing parents
// and children) must pass the checks `validate` applies to it: refused
// here, naming the first problems, rather than written and reported later.
// The tree is built once, for this and for tagging; the list of problems
// (a copy of the tree) only when it is not plainly consistent.
void check_completed_tree(const ModuleTree& tree, const std::string& where) {
  if (tree.plainly_consistent()) return;
  // Tags are not checked: the tree leaves them out.
  const auto problems = hierarchy::module_tree_problems(tree.to_modules(false), 3);
  if (problems.empty()) return;
  std::string message = where + ": the module tree is inconsistent: " + problems[0].message;
  for (size_t i = 1; i < problems.size(); ++i) message += "; " + problems[i].message;
  fail(MX_ERR_SCHEMA, message);
}

}  // namespace

SuppliedHierarchy load_supplied_hierarchy(const json& option) {
  if (option.is_null()) return {};
  json doc;
  std::string where = "supplied hierarchy";
  if (option.is_string()) {
    where = "hierarchy file '" + option.get<std::string>() + "'";
    doc = read_json_file(option.get<std::string>());
  } else if (option.is_object()) {
    // Text is held to the depth limit when read; a value handed over
    // already parsed is held to it here (the document built from it is
    // copied and destroyed recursively).
    check_json_value_depth(option, where);
    doc = option;
  } else {
    fail(MX_ERR_INVALID_ARGUMENT, "option \"hierarchy\" must be an object or a file path");
  }
  // The whole document is checked once here, so that a wrong field is an
  // error naming it (modules[3].class: must be string) rather than a JSON
  // type error deep in propagation or the module tree.
  hierarchy::Document parsed = hierarchy::parse_document(doc, where);
  check_forward_calls(parsed, where);
  ModuleTree tree(doc.at("modules"), std::move(parsed.modules));
  check_completed_tree(tree, where);
  return {std::move(doc), std::move(tree)};
}

}  // namespace mx
