#include "tagging/strategy_answer_sink.hpp"

#include <new>

#include "modelexport/modelexport.h"
#include "mx/common/module_path.hpp"
#include "tagging/strategy_evidence.hpp"
#include "util/utf8.hpp"

namespace modelexport {
namespace {

StrategyAnswerSink& self(void* answer) { return *static_cast<StrategyAnswerSink*>(answer); }

std::string text_of(const char* data, size_t size) { return data ? std::string(data, size) : ""; }

// No exception may leave these: they are called by plugin code.
int32_t assign_fn(void* answer, uint64_t node, const char* module, size_t module_size,
                  const char* evidence) {
  try {
    return self(answer).assign(node, text_of(module, module_size), evidence);
  } catch (const std::bad_alloc&) {
    return MX_ERR_INTERNAL;
  }
}

int32_t module_class_fn(void* answer, const char* path, size_t path_size, const char* class_name,
                        size_t class_size) {
  try {
    return self(answer).module_class(text_of(path, path_size), text_of(class_name, class_size));
  } catch (const std::bad_alloc&) {
    return MX_ERR_INTERNAL;
  }
}

}  // namespace

StrategyAnswerSink::StrategyAnswerSink(size_t node_count)
    : table_{sizeof(mx_strategy_answer), this, assign_fn, module_class_fn} {
  answer_.assignments.resize(node_count);
}

int32_t StrategyAnswerSink::refuse(std::string what) {
  if (refusal_.empty()) refusal_ = std::move(what);
  return MX_ERR_PLUGIN;
}

int32_t StrategyAnswerSink::assign(uint64_t node, std::string module, const char* evidence) {
  const std::string where = "node " + std::to_string(node);
  if (node >= answer_.assignments.size())
    return refuse(where + " is out of range (graph has " +
                  std::to_string(answer_.assignments.size()) + " nodes)");
  if (answer_.assignments[node]) return refuse(where + " assigned twice");
  if (!mx::common::is_valid_module_path(module))
    return refuse(where + ": invalid module path '" + printable(module) + "'");
  const std::string kind = evidence ? evidence : "";
  if (!is_strategy_evidence(kind))
    return refuse(where + ": evidence '" + printable(kind) +
                  "' is not one of direct, scope, metadata, parameter");
  answer_.assignments[node] = Assignment{std::move(module), kind};
  return MX_OK;
}

int32_t StrategyAnswerSink::module_class(std::string path, std::string class_name) {
  if (!mx::common::is_valid_module_path(path))
    return refuse("module class: invalid module path '" + printable(path) + "'");
  answer_.classes.emplace(std::move(path), to_valid_utf8(class_name));  // keeps the first
  return MX_OK;
}

}  // namespace modelexport
