#include "tagging/module_facts.hpp"

#include <algorithm>
#include <cctype>

#include "mx/common/aten_op_classes.hpp"
#include "tagging/strategy_evidence.hpp"
#include "mx/common/module_path.hpp"

namespace modelexport {
using mx::common::onnx_ops_of;
using mx::common::parent_path;
using mx::common::last_segment;
using mx::common::is_ancestor_or_self;
namespace {

bool numeric(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c); });
}

std::optional<long long> integer(const nlohmann::json& m, const char* key) {
  if (m.contains(key) && m.at(key).is_number_integer()) return m.at(key).get<long long>();
  return std::nullopt;
}

}  // namespace

ModuleFacts::ModuleFacts(const nlohmann::json& supplied, const Assignments& a) {
  if (supplied.is_array())
    for (const auto& m : supplied) {
      if (!m.is_object() || !m.contains("path") || !m.at("path").is_string()) continue;
      Facts& f = add(m.at("path").get<std::string>());
      f.cls = m.value("class", "");
      f.qualified = m.value("qualified_class", "");
      f.parameters = integer(m, "parameters");
      f.own_parameters = integer(m, "own_parameters");
      if (m.contains("forward") && m.at("forward").is_array()) {
        f.forward = read_outline(m.at("forward"));
        f.own_ops = own_ops_of(*f.forward);
      }
    }
  add_placed(a);
}

ModuleFacts::ModuleFacts(const ModuleTree& supplied, const Assignments& a) {
  // Sized once: rehashing a million nodes a dozen times touched each again.
  facts_.reserve(supplied.supplied_count() + a.size() + 1);
  for (size_t i = 0; i < supplied.supplied_count(); ++i) {
    const hierarchy::Module& m = supplied.supplied_module(i);
    Facts& f = add(m.path);
    f.cls = m.class_name;
    f.qualified = m.qualified_class;
    f.parameters = m.parameters;
    f.own_parameters = m.own_parameters;
    if (m.forward) {
      Outline outline;
      outline.reserve(m.forward->size());
      for (const auto& step : *m.forward)
        outline.push_back({step.kind == hierarchy::ForwardStep::Kind::call, step.name});
      f.forward = std::move(outline);
      f.own_ops = own_ops_of(*f.forward);
    }
  }
  add_placed(a);
}

void ModuleFacts::add_placed(const Assignments& a) {
  for (const auto& slot : a)
    if (slot) {
      Facts& f = add(slot->module);
      f.placed = true;
      if (slot->evidence == kEvidenceParameter) f.parameter_evidence = true;
    }
}

const ModuleFacts::Facts* ModuleFacts::find(const std::string& path) const {
  auto it = facts_.find(path);
  return it == facts_.end() ? nullptr : &it->second;
}

bool ModuleFacts::is_leaf(const std::string& p) const {
  const Facts* f = find(p);
  return !p.empty() && f && f->children.empty();
}

bool ModuleFacts::is_container(const std::string& p) const {
  const Facts* f = find(p);
  if (p.empty() || !f || f->children.empty()) return false;
  if (!f->cls.empty()) return f->cls == "Sequential" || f->cls == "ModuleList" || f->cls == "ModuleDict";
  return std::all_of(f->children.begin(), f->children.end(),
                     [](const std::string& c) { return numeric(last_segment(c)); });
}

bool ModuleFacts::has_parameters(const std::string& p) const {
  const Facts* f = find(p);
  if (!f) return false;
  return f->own_parameters ? *f->own_parameters > 0 : f->parameter_evidence;
}

bool ModuleFacts::parameter_free(const std::string& p) const {
  const Facts* f = find(p);
  return f && f->parameters && *f->parameters == 0;
}

bool ModuleFacts::builtin(const std::string& p) const {
  const Facts* f = find(p);
  if (!f || f->qualified.empty()) return true;
  return f->qualified.rfind("torch.nn.", 0) == 0;
}

const std::vector<std::string>& ModuleFacts::children(const std::string& p) const {
  static const std::vector<std::string> none;
  const Facts* f = find(p);
  return f ? f->children : none;
}

std::string ModuleFacts::class_of(const std::string& p) const {
  const Facts* f = find(p);
  return f ? f->cls : "";
}

const Outline* ModuleFacts::outline(const std::string& p) const {
  const Facts* f = find(p);
  return f && f->forward ? &*f->forward : nullptr;
}

ModuleFacts::Answer ModuleFacts::can_run(const std::string& p, const std::string& op_type) const {
  const Facts* f = find(p);
  if (!f || !f->forward) return Answer::unknown;
  if (f->own_ops.types.count(op_type)) return Answer::yes;
  return f->own_ops.any_unknown ? Answer::unknown : Answer::no;
}

ModuleFacts::Answer ModuleFacts::can_run_before_call(const std::string& p, const std::string& branch,
                                                     const std::string& op_type) const {
  if (branch == p) return can_run(p, op_type);
  return memoised('b', p, branch, op_type, [&](const Outline& steps) {
    return answer_before_call(steps, branch, op_type);
  });
}

ModuleFacts::Answer ModuleFacts::can_run_after(const std::string& p, const std::string& producer_op,
                                               const std::string& op_type) const {
  return memoised('a', p, producer_op, op_type, [&](const Outline& steps) {
    return answer_after(steps, producer_op, op_type);
  });
}

template <class Compute>
ModuleFacts::Answer ModuleFacts::memoised(char question, const std::string& p,
                                          const std::string& about, const std::string& op_type,
                                          Compute compute) const {
  const Outline* o = outline(p);
  if (!o) return Answer::unknown;
  std::string key = question + p + '\n' + about + '\n' + op_type;
  auto memo = slice_memo_.find(key);
  if (memo != slice_memo_.end()) return memo->second;
  return slice_memo_[std::move(key)] = compute(*o);
}

ModuleFacts::Answer ModuleFacts::answer_before_call(const Outline& steps, const std::string& branch,
                                                    const std::string& op_type) {
  auto into_branch = [&](const Step& s) {
    return s.call && (is_ancestor_or_self(s.name, branch) || is_ancestor_or_self(branch, s.name));
  };
  auto call = std::find_if(steps.begin(), steps.end(), into_branch);
  if (call == steps.end()) return Answer::unknown;
  const OwnOps before = own_ops_of(Outline(steps.begin(), call));
  if (before.types.count(op_type)) return Answer::yes;
  return before.any_unknown ? Answer::unknown : Answer::no;
}

ModuleFacts::Answer ModuleFacts::answer_after(const Outline& steps, const std::string& producer_op,
                                              const std::string& op_type) {
  size_t i = 0;
  for (; i < steps.size(); ++i) {
    if (steps[i].call) continue;
    auto ops = onnx_ops_of(steps[i].name);
    if (!ops) return Answer::unknown;
    if (std::find(ops->begin(), ops->end(), producer_op) != ops->end()) break;
  }
  if (i == steps.size()) return Answer::unknown;
  // One that lowers to a single node type (view, max_pool2d) made the
  // producer and nothing else.
  for (size_t j = i; j < steps.size(); ++j) {
    if (steps[j].call) continue;
    auto ops = onnx_ops_of(steps[j].name);
    if (!ops) return Answer::unknown;
    if (j == i && ops->size() == 1) continue;
    if (std::find(ops->begin(), ops->end(), op_type) != ops->end()) return Answer::yes;
  }
  return Answer::no;
}

bool ModuleFacts::has_nodes(const std::string& p) const {
  const Facts* f = find(p);
  return f && f->placed;
}

bool ModuleFacts::passes_through(const std::string& p) const {
  const Outline* o = outline(p);
  return !p.empty() && o && std::all_of(o->begin(), o->end(), [](const Step& s) { return s.call; });
}

bool ModuleFacts::empty_forward(const std::string& p) const {
  const Outline* o = outline(p);
  return o && o->empty();
}

std::string ModuleFacts::owning(std::string p) const {
  while (is_container(p) || passes_through(p)) p = parent_path(p);
  return p;
}

Outline ModuleFacts::read_outline(const nlohmann::json& steps) {
  Outline out;
  for (const auto& s : steps) {
    if (!s.is_object()) continue;  // validated by load_supplied_hierarchy
    if (s.contains("call") && s.at("call").is_string())
      out.push_back({true, s.at("call").get<std::string>()});
    else if (s.contains("op") && s.at("op").is_string())
      out.push_back({false, s.at("op").get<std::string>()});
  }
  return out;
}

ModuleFacts::OwnOps ModuleFacts::own_ops_of(const Outline& outline) {
  OwnOps own;
  for (const Step& s : outline) {
    if (s.call) continue;
    if (auto ops = onnx_ops_of(s.name)) own.types.insert(ops->begin(), ops->end());
    else own.any_unknown = true;
  }
  return own;
}

ModuleFacts::Facts& ModuleFacts::add(const std::string& path) {
  // One lookup per module (a million supplied modules came here five
  // times each); unordered_map references stay valid while it grows.
  auto [it, added] = facts_.try_emplace(path);
  if (added && !path.empty()) add(parent_path(path)).children.push_back(path);
  return it->second;
}

}  // namespace modelexport
