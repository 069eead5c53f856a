#include "tagging/module_facts.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <tuple>

#include "mx/common/aten_op_classes.hpp"
#include "mx/common/module_path.hpp"

namespace mx {
using mx::common::is_ancestor_or_self;
using mx::common::last_view;
using mx::common::onnx_ops_of;
using mx::common::parent_view;
namespace {

bool numeric(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c); });
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
      const uint32_t id = add(m.at("path").get_ref<const std::string&>());
      Supplied& f = supplied_for(id);
      // Views into the JSON, which outlives the facts (propagate's argument).
      auto text = [&](const char* key) {
        auto it = m.find(key);
        return it != m.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                                : std::string_view();
      };
      f.cls = text("class");
      f.qualified = text("qualified_class");
      f.parameters = integer(m, "parameters");
      f.own_parameters = integer(m, "own_parameters");
      if (m.contains("forward") && m.at("forward").is_array()) {
        f.forward = std::make_unique<Outline>(read_outline(m.at("forward")));
        f.own_ops = std::make_unique<OwnOps>(own_ops_of(f.forward->begin(), f.forward->end()));
      }
    }
  add_placed(a);
  decide_from_children();
}

ModuleFacts::ModuleFacts(const ModuleTree& supplied, const Assignments& a) {
  // Sized once: rehashing a million nodes a dozen times touched each again.
  facts_.reserve(supplied.supplied_count() + 1);
  index_.reserve(supplied.supplied_count() + 1);
  supplied_.reserve(supplied.supplied_count());
  uint32_t previous = kNoModule;  // a parent is mostly the module before, or one of its ancestors
  for (size_t i = 0; i < supplied.supplied_count(); ++i) {
    const hierarchy::Module& m = supplied.supplied_module(i);
    previous = add(m.path, previous);
    Supplied& f = supplied_for(previous);
    f.cls = m.class_name;  // the tree outlives the facts
    f.qualified = m.qualified_class();
    f.parameters = m.parameters();
    f.own_parameters = m.own_parameters();
    if (m.forward()) {
      auto outline = std::make_unique<Outline>();
      outline->reserve(m.forward()->size());
      for (const auto& step : *m.forward())
        outline->push_back({step.kind == hierarchy::ForwardStep::Kind::call, step.name});
      f.forward = std::move(outline);
      f.own_ops = std::make_unique<OwnOps>(own_ops_of(f.forward->begin(), f.forward->end()));
    }
  }
  add_placed(a);
  decide_from_children();
}

ModuleFacts::Supplied& ModuleFacts::supplied_for(uint32_t id) {
  if (facts_[id].supplied == kNoModule) {
    facts_[id].supplied = static_cast<uint32_t>(supplied_.size());
    supplied_.emplace_back();
  }
  return supplied_[facts_[id].supplied];
}

void ModuleFacts::add_placed(const Assignments& a) {
  // Runs of one module: consecutive nodes are mostly in the same module.
  size_t runs = 0;
  const std::string* previous = nullptr;
  for (const Assignment& slot : a)
    if (slot.placed()) {
      runs += !previous || *previous != slot.module;
      previous = &slot.module;
    }
  // Each run may bring its module and, mostly, a few new ancestors shared
  // with the next runs. The vector's spare capacity costs no page until
  // used; the index is sized for about half again as many modules as
  // runs (the synthetic layer stacks' ratio), so it is not rehashed.
  facts_.reserve(facts_.size() + 2 * runs + 1);
  index_.reserve(facts_.size() + runs + runs / 2 + 1);
  previous = nullptr;
  uint32_t id = kNoModule;
  node_modules_.assign(a.size(), Id::none);
  // The index's slots for a module some nodes ahead, and its parent's,
  // are loaded while the nodes between are added (random slots of a
  // large table: a cache miss each).
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < a.size(); ++i)
    if (const Assignment& slot = a[i]; slot.placed()) {
      if (i + kAhead < a.size() && a[i + kAhead].placed() && a[i + kAhead].module != slot.module) {
        const std::string& ahead = a[i + kAhead].module;
        index_.prefetch(ahead);
        index_.prefetch(parent_view(ahead));
      }
      if (!previous || *previous != slot.module) id = add(slot.module, id);
      previous = &slot.module;
      node_modules_[i] = static_cast<Id>(id);
      Facts& f = facts_[id];
      f.placed = true;
      if (slot.evidence == hierarchy::Evidence::parameter) f.parameter_evidence = true;
    }
}

void ModuleFacts::decide_from_children() {
  for (Facts& f : facts_) {
    for (uint32_t c = f.first_child; c != kNoModule; c = facts_[c].next_sibling)
      if (const Supplied* s = supplied_of(facts_[c]); s && s->parameters && *s->parameters == 0)
        f.parameter_free_child = true;
    if (path_of(f).empty() || f.first_child == kNoModule) continue;
    if (const Supplied* s = supplied_of(f); s && !s->cls.empty()) {
      f.container = s->cls == "Sequential" || s->cls == "ModuleList" || s->cls == "ModuleDict";
      continue;
    }
    f.container = true;
    for (uint32_t c = f.first_child; c != kNoModule && f.container; c = facts_[c].next_sibling)
      f.container = numeric(last_view(path_of(c)));
  }
}

const ModuleFacts::Facts* ModuleFacts::find(std::string_view path) const {
  for (const Facts* f : recent_)
    if (f && path_of(*f) == path) return f;
  const uint32_t id = index_.find(path);
  if (id == model::NameIndex::kNone) return nullptr;
  const Facts* f = &facts_[id];
  recent_[next_recent_] = f;
  next_recent_ = (next_recent_ + 1) % kRecent;
  return f;
}

bool ModuleFacts::leaf_with_parameters(const Facts& f) const {
  if (path_of(f).empty() || f.first_child != kNoModule) return false;
  const Supplied* s = supplied_of(f);
  return s && s->own_parameters ? *s->own_parameters > 0 : f.parameter_evidence;
}

bool ModuleFacts::builtin(const Facts& f) const {
  const Supplied* s = supplied_of(f);
  return !s || s->qualified.empty() || s->qualified.rfind("torch.nn.", 0) == 0;
}

bool ModuleFacts::closed_leaf(Ref p) const {
  const Facts* f = find(p);
  return f && leaf_with_parameters(*f) && builtin(*f);
}

bool ModuleFacts::open_parameter_leaf(Ref p) const {
  const Facts* f = find(p);
  return f && leaf_with_parameters(*f) && !builtin(*f);
}

bool ModuleFacts::has_parameter_free_child(Ref p) const {
  const Facts* f = find(p);
  return f && f->parameter_free_child;
}

bool ModuleFacts::is_leaf(Ref p) const {
  const Facts* f = find(p);
  return !p.path.empty() && f && f->first_child == kNoModule;
}

bool ModuleFacts::is_container(Ref p) const {
  const Facts* f = find(p);
  return f && f->container;
}

bool ModuleFacts::has_parameters(Ref p) const {
  const Facts* f = find(p);
  if (!f) return false;
  const Supplied* s = supplied_of(*f);
  return s && s->own_parameters ? *s->own_parameters > 0 : f->parameter_evidence;
}

bool ModuleFacts::parameter_free(Ref p) const {
  const Facts* f = find(p);
  const Supplied* s = f ? supplied_of(*f) : nullptr;
  return s && s->parameters && *s->parameters == 0;
}

bool ModuleFacts::builtin(Ref p) const {
  const Facts* f = find(p);
  return !f || builtin(*f);
}

std::vector<std::string_view> ModuleFacts::children(Ref p) const {
  std::vector<std::string_view> out;
  if (const Facts* f = find(p))
    for (uint32_t c = f->first_child; c != kNoModule; c = facts_[c].next_sibling) out.push_back(path_of(c));
  return out;
}

std::string_view ModuleFacts::class_of(Ref p) const {
  const Facts* f = find(p);
  const Supplied* s = f ? supplied_of(*f) : nullptr;
  return s ? s->cls : std::string_view();
}

const Outline* ModuleFacts::outline(Ref p) const {
  const Facts* f = find(p);
  const Supplied* s = f ? supplied_of(*f) : nullptr;
  return s ? s->forward.get() : nullptr;
}

ModuleFacts::Answer ModuleFacts::can_run(Ref p, std::string_view op_type) const {
  const Facts* f = find(p);
  const Supplied* s = f ? supplied_of(*f) : nullptr;
  if (!s || !s->forward) return Answer::unknown;
  if (s->own_ops->types.count(std::string(op_type))) return Answer::yes;
  return s->own_ops->any_unknown ? Answer::unknown : Answer::no;
}

ModuleFacts::Answer ModuleFacts::can_run_before_call(Ref p, std::string_view branch,
                                                     std::string_view op_type) const {
  if (branch == p.path) return can_run(p, op_type);
  return memoised('b', p, branch, op_type,
                  [&](const Outline& steps) { return answer_before_call(steps, branch, op_type); });
}

ModuleFacts::Answer ModuleFacts::can_run_after(Ref p, std::string_view producer_op,
                                               std::string_view op_type) const {
  return memoised('a', p, producer_op, op_type,
                  [&](const Outline& steps) { return answer_after(steps, producer_op, op_type); });
}

template <class Compute>
ModuleFacts::Answer ModuleFacts::memoised(char question, Ref p, std::string_view about,
                                          std::string_view op_type, Compute compute) const {
  const Outline* o = outline(p);
  if (!o) return Answer::unknown;
  std::string key(1, question);
  key.append(p.path).append(1, '\n').append(about).append(1, '\n').append(op_type);
  auto memo = slice_memo_.find(key);
  if (memo != slice_memo_.end()) return memo->second;
  return slice_memo_[std::move(key)] = compute(*o);
}

ModuleFacts::Answer ModuleFacts::answer_before_call(const Outline& steps, std::string_view branch,
                                                    std::string_view op_type) {
  auto into_branch = [&](const Step& s) {
    return s.call && (is_ancestor_or_self(s.name, branch) || is_ancestor_or_self(branch, s.name));
  };
  auto call = std::find_if(steps.begin(), steps.end(), into_branch);
  if (call == steps.end()) return Answer::unknown;
  const OwnOps before = own_ops_of(steps.begin(), call);
  if (before.types.count(std::string(op_type))) return Answer::yes;
  return before.any_unknown ? Answer::unknown : Answer::no;
}

ModuleFacts::Answer ModuleFacts::answer_after(const Outline& steps, std::string_view producer_op,
                                              std::string_view op_type) {
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

bool ModuleFacts::has_nodes(Ref p) const {
  const Facts* f = find(p);
  return f && f->placed;
}

bool ModuleFacts::passes_through(Ref p) const {
  const Outline* o = outline(p);
  return !p.path.empty() && o && std::all_of(o->begin(), o->end(), [](const Step& s) { return s.call; });
}

bool ModuleFacts::empty_forward(Ref p) const {
  const Outline* o = outline(p);
  return o && o->empty();
}

ModuleFacts::Ref ModuleFacts::owning(Ref p) const {
  // Each step is a known module's parent, hence known too: the answer is
  // one of the facts' own paths, unless `p` itself is unknown.
  while (is_container(p) || passes_through(p)) p = parent(p);
  if (const Facts* f = find(p)) return Ref(path_of(*f), static_cast<Id>(id_of(*f)));
  return Ref(stored(p.path));
}

ModuleFacts::Ref ModuleFacts::ref(std::string_view p) const {
  const Facts* f = find(p);
  return f ? Ref(p, static_cast<Id>(id_of(*f))) : Ref(p);
}

ModuleFacts::Ref ModuleFacts::common_ancestor(Ref a, Ref b) const {
  const std::string_view common = mx::common::common_ancestor_view(a.path, b.path);
  if (a.id == Id::none) return Ref(common);
  // An ancestor-or-self of `a`: its parents, whose ids the facts hold.
  while (a.path.size() > common.size()) a = parent(a);
  return a;
}

ModuleFacts::Ref ModuleFacts::parent(Ref p) const {
  if (p.id == Id::none) return Ref(parent_view(p.path));
  if (p.path.empty()) return p;  // the root's parent is the root, as parent_view("") is ""
  const uint32_t up = facts_[static_cast<uint32_t>(p.id)].parent;
  return Ref(path_of(up), static_cast<Id>(up));
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

ModuleFacts::OwnOps ModuleFacts::own_ops_of(Outline::const_iterator begin, Outline::const_iterator end) {
  OwnOps own;
  for (auto s = begin; s != end; ++s) {
    if (s->call) continue;
    if (auto ops = onnx_ops_of(s->name)) own.types.insert(ops->begin(), ops->end());
    else own.any_unknown = true;
  }
  return own;
}

std::string_view ModuleFacts::stored(std::string_view path) const {
  return paths_.store(path);
}

uint32_t ModuleFacts::ancestor_named(uint32_t near, std::string_view p) const {
  while (near != kNoModule && path_of(near).size() > p.size()) near = facts_[near].parent;
  return near != kNoModule && path_of(near) == p ? near : kNoModule;
}

uint32_t ModuleFacts::add(std::string_view path, uint32_t near) {
  const auto [id, fresh] = index_.intern(path);
  if (!fresh) return id;
  // Stored once; its ancestors not seen yet are prefixes of that copy.
  const std::string_view own = stored(path);
  index_.repoint(id, own);
  facts_.emplace_back();
  for (uint32_t child = id; !path_of(child).empty();) {
    const std::string_view p = parent_view(path_of(child));
    // An ancestor is often one of `near`'s, known without a lookup.
    uint32_t here = ancestor_named(near, p);
    bool added = false;
    if (here == kNoModule) std::tie(here, added) = index_.intern(p);
    if (added) facts_.emplace_back();
    // `child` is new: append it to `here`'s children.
    facts_[child].parent = here;
    Facts& parent = facts_[here];
    if (parent.last_child == kNoModule) parent.first_child = child;
    else facts_[parent.last_child].next_sibling = child;
    parent.last_child = child;
    if (!added) break;
    child = here;
  }
  return id;
}

}  // namespace mx
