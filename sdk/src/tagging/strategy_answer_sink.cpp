#include "tagging/strategy_answer_sink.hpp"

#include <algorithm>
#include <climits>
#include <new>

#include "modelexport/modelexport.h"
#include "mx/common/json_limits.hpp"
#include "tagging/strategy_evidence.hpp"
#include "util/utf8.hpp"
#include "util/warn.hpp"

namespace mx {
namespace {

using AnswerSlot = TableSlot<mx_strategy_answer, StrategyAnswerSink>;

// The sink of a table, or null once its run is over.
StrategyAnswerSink* sink_of(void* answer) {
  return static_cast<AnswerSlot*>(answer)->live.load();
}

int32_t late_call(const char* what) {
  warn(std::string("a strategy called the answer table's ") + what +
       " after its run had returned; the call was refused");
  return MX_ERR_INVALID_ARGUMENT;
}

// A path or class a plugin hands over is at most as long as a string of a
// JSON answer may be (mx/common/json_limits.hpp); a longer size (SIZE_MAX)
// is refused before a byte is read.
bool too_long(size_t size) {
  return size > mx::common::kMaxJsonStringBytes;
}

std::string text_of(const char* data, size_t size) {
  return data ? std::string(data, size) : "";
}

// No exception may leave these, of any kind: they are called by plugin
// code, which may have no unwind tables.
int32_t assign_fn(void* answer, uint64_t node, const char* module, size_t module_size, const char* evidence) {
  try {
    StrategyAnswerSink* sink = sink_of(answer);
    if (!sink) return late_call("assign");
    if (too_long(module_size))
      return sink->refuse("node " + std::to_string(node) + ": a module path of " +
                          std::to_string(module_size) + " bytes (the limit is " +
                          std::to_string(mx::common::kMaxJsonStringBytes) + ")");
    return sink->assign(node, text_of(module, module_size), evidence);
  } catch (...) {  // bad_alloc included
    return MX_ERR_INTERNAL;
  }
}

int32_t module_class_fn(void* answer, const char* path, size_t path_size, const char* class_name,
                        size_t class_size) {
  try {
    StrategyAnswerSink* sink = sink_of(answer);
    if (!sink) return late_call("module_class");
    if (too_long(path_size) || too_long(class_size))
      return sink->refuse("module class: a path or class of " +
                          std::to_string(std::max(path_size, class_size)) + " bytes (the limit is " +
                          std::to_string(mx::common::kMaxJsonStringBytes) + ")");
    return sink->module_class(text_of(path, path_size), text_of(class_name, class_size));
  } catch (...) {
    return MX_ERR_INTERNAL;
  }
}

}  // namespace

StrategyAnswerSink::StrategyAnswerSink(size_t node_count) : slot_(SlotPool<AnswerSlot>::lease()) {
  slot_->table = {sizeof(mx_strategy_answer), slot_, assign_fn, module_class_fn};
  answer_.assignments.resize(node_count);
  slot_->live.store(this);
}

StrategyAnswerSink::~StrategyAnswerSink() {
  SlotPool<AnswerSlot>::retire(slot_);
}

int32_t StrategyAnswerSink::refuse(std::string what) {
  if (refusal_.empty()) refusal_ = std::move(what);
  return MX_ERR_PLUGIN;
}

int32_t StrategyAnswerSink::assign(uint64_t node, std::string module, const char* evidence) {
  // node_problem takes JSON's signed numbers; one beyond them is out of
  // range of any graph, -1 says so with the same message.
  if (node > static_cast<uint64_t>(LLONG_MAX))
    return refuse("node " + std::to_string(node) + " is out of range (graph has " +
                  std::to_string(answer_.assignments.size()) + " nodes)");
  std::string problem = node_problem(answer_.assignments, static_cast<long long>(node));
  if (!problem.empty()) return refuse(std::move(problem));
  // placement_problem's checks in its order (the path, then the evidence),
  // each only when it differs from the one last accepted.
  if (!accepted_module_ || module != *accepted_module_) {
    problem = module_path_problem(module);
    if (!problem.empty()) return refuse("node " + std::to_string(node) + ": " + problem);
    accepted_module_ = module;
  }
  const std::string_view name = evidence ? evidence : "";
  if (!accepted_evidence_ || name != accepted_evidence_name_) {
    const std::optional<hierarchy::Evidence> kind = strategy_evidence(name);
    if (!kind) return refuse("node " + std::to_string(node) + ": " + evidence_problem(name));
    accepted_evidence_name_ = name;
    accepted_evidence_ = kind;
  }
  answer_.assignments[node] = Assignment{std::move(module), accepted_evidence_};
  return MX_OK;
}

int32_t StrategyAnswerSink::module_class(std::string path, std::string class_name) {
  std::string problem = module_path_problem(path);
  if (!problem.empty()) return refuse("module class: " + problem);
  answer_.classes.emplace(std::move(path), to_valid_utf8(class_name));  // keeps the first
  return MX_OK;
}

}  // namespace mx
