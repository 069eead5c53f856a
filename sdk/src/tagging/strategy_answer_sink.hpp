// Where a strategy that reads the graph through the host (plugin ABI 1.2)
// puts its answers: mx_strategy_answer over a StrategyAnswer, with the
// checks parse_strategy_response applies to a JSON answer (node in range
// and placed once, a valid module path, evidence a strategy may claim).
// A refused answer is kept (the first one) and reported by the tagger as
// the plugin's fault, however the plugin then ends its run.
#pragma once
#include <optional>
#include <string>

#include "modelexport/plugin.h"
#include "registry/table_slot.hpp"
#include "tagging/strategy_response.hpp"

namespace mx {

class StrategyAnswerSink {
 public:
  explicit StrategyAnswerSink(size_t node_count);
  StrategyAnswerSink(const StrategyAnswerSink&) = delete;
  StrategyAnswerSink& operator=(const StrategyAnswerSink&) = delete;

  ~StrategyAnswerSink();
  const mx_strategy_answer& table() const { return slot_->table; }
  // "" while every answer was accepted, else what was wrong with the first.
  const std::string& refusal() const { return refusal_; }
  StrategyAnswer take() { return std::move(answer_); }

  // The table's work (MX_OK, or MX_ERR_PLUGIN after recording the refusal).
  int32_t assign(uint64_t node, std::string module, const char* evidence);
  int32_t module_class(std::string path, std::string class_name);
  // Records `what` as the refusal (the first one is kept); MX_ERR_PLUGIN.
  int32_t refuse(std::string what);

 private:
  StrategyAnswer answer_;
  std::string refusal_;
  // The last placement accepted: neighbouring nodes mostly share their
  // module, and a module and evidence already checked need no second check
  // (a path check per node was a tenth of the sink at 200,000 nodes). The
  // module changes from run to run, the evidence seldom: each is kept
  // apart, the evidence as it was named and as the kind it names. None:
  // nothing accepted yet.
  std::optional<std::string> accepted_module_;
  std::string accepted_evidence_name_;
  std::optional<hierarchy::Evidence> accepted_evidence_;
  // The table handed to the plugin (registry/table_slot.hpp: a call after
  // the sink is gone is refused).
  TableSlot<mx_strategy_answer, StrategyAnswerSink>* slot_;
};

}  // namespace mx
