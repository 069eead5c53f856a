#include "tagging/data_path_rule.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "mx/common/aten_op_classes.hpp"
#include "mx/common/module_path.hpp"
#include "tagging/op_classes.hpp"

namespace mx {
using mx::common::is_ancestor_or_self;
using mx::common::onnx_ops_of;
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();
using Ref = ModuleFacts::Ref;

// Step 1 (see propagation.hpp / docs/tagging.md §3.1).
class DataPathRule {
 public:
  DataPathRule(const GraphView& g, const GraphValues& values, const Edges& e, const std::vector<bool>& side,
               const std::vector<size_t>& order, const ModuleFacts& facts, Assignments& a,
               std::vector<ModuleFacts::Id>& modules)
      : g_(g),
        values_(values),
        e_(e),
        order_(order),
        facts_(facts),
        a_(a),
        modules_(modules),
        pos_(g.nodes.size()),
        evidence_(g.nodes.size()),
        side_(side),
        next_evidence_(g.nodes.size(), kNoNode) {
    for (size_t i = 0; i < order.size(); ++i) pos_[order[i]] = static_cast<uint32_t>(i);
    for (size_t i = 0; i < a.size(); ++i) evidence_[i] = a[i].placed();
    // next_evidence: the evidence-placed node earliest in topological order
    // reachable through consumers that are not evidence-placed.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      size_t best = kNone;
      for (size_t c : e.consumers[*it]) {
        size_t cand = evidence_[c] ? c : next_evidence(c);
        if (cand != kNone && (best == kNone || pos_[cand] < pos_[best])) best = cand;
      }
      next_evidence_[*it] = best == kNone ? kNoNode : static_cast<uint32_t>(best);
    }
  }

  void run() {
    for (size_t n : order_)
      if (!a_[n].placed() && !side_[n]) place(n);
  }

 private:
  void place(size_t n) {
    const GraphNode& node = g_.nodes[n];
    std::vector<size_t>& data_producers = producers_;  // reused: place() does not nest
    data_producers.clear();
    for (size_t p : e_.producers[n])
      if (!side_[p] && a_[p].placed()) data_producers.push_back(p);
    if (data_producers.empty()) return;  // left to the consumer rule
    size_t last = *std::max_element(data_producers.begin(), data_producers.end(),
                                    [&](size_t x, size_t y) { return pos_[x] < pos_[y]; });
    // Only a_[n] changes below: the producer's module stays where it is.
    const Ref m0 = module_of(last);

    // A layout op feeding only a non-built-in parameter leaf's ops is that
    // leaf's input preparation (a `view` before the leaf's matrix product).
    if (is_layout_op(node.op_type)) {
      std::optional<Ref> target;
      bool all = !e_.consumers[n].empty();
      for (size_t c : e_.consumers[n]) {
        if (!evidence_[c]) {
          all = false;
          break;
        }
        if (target && target->path != a_[c].module) {
          all = false;
          break;
        }
        target = module_of(c);
      }
      if (all && target && facts_.open_parameter_leaf(*target)) {
        assign(n, *target);
        return;
      }
    }

    const size_t next = next_evidence(n);
    Ref m = m0;
    std::optional<Resumed> resumed;
    if (facts_.is_leaf(m0)) {
      bool keep = (facts_.open_parameter_leaf(m0) && is_layout_op(node.op_type) && evidence_[last]) ||
                  lowers_to(m0, n, data_producers, true);  // an activation's second node
      // ... unless its outline has nothing of the kind after the producer's
      // op (the same op right after a pooling leaf starts the next block).
      if (keep && none_after_producer(m0, last, n)) keep = false;
      if (!keep) {
        m = facts_.parent(m0);
        resumed = after_return(m, m0, n, data_producers, next);
      }
    } else if (!m0.path.empty() && (facts_.can_run(m0, node.op_type) == ModuleFacts::Answer::no ||
                                    none_after_producer(m0, last, n))) {
      resumed = after_own_op(m0, last, n, data_producers, next);
    }
    if (resumed) m = resumed->module;
    else m = facts_.owning(m);

    // Visibility guesses whether the module can see an input; an outline
    // that runs this op right after the call knows it can (a residual add
    // right after the module's own dense), and a callee it named gets the
    // value as an argument (every parallel branch reads the block's input).
    const std::string_view limit =
        next == kNone ? std::string_view() : mx::common::common_ancestor_view(m0.path, a_[next].module);
    if (!(resumed && (resumed->own_op || resumed->callee)))
      while (m.path != limit && is_ancestor_or_self(limit, m.path) &&
             !inputs_visible(n, data_producers, m.path))
        m = facts_.owning(facts_.parent(m));

    // The op-class search is for ops whose module the outline could not
    // name; a callee found by the outline is not second-guessed.
    const bool named_by_outline = resumed && resumed->callee;
    const Ref start = resumed ? resumed->caller : facts_.is_leaf(m0) ? facts_.parent(m0) : m0;
    if (!named_by_outline)
      if (auto child = matching_child(n, data_producers, start, m.path, limit)) m = *child;
    assign(n, m);
  }

  // Node `n`'s module, with its id when known (placed nodes only).
  Ref module_of(size_t n) const { return Ref(a_[n].module, modules_[n]); }
  void assign(size_t n, Ref m) {
    a_[n] = Assignment{std::string(m.path), hierarchy::Evidence::propagated};
    modules_[n] = m.id;
  }

  // With forward outlines (a supplied hierarchy from `modelexport hierarchy`):
  // where an op runs that follows the return of `m0` into its parent `cur`.
  // A module whose outline has nothing left after that call has returned
  // too, so the op is its caller's (a slice after the last layer of a
  // stack whose layer, stack and encoder have all returned into the model).
  // If a call comes next, the op reads nothing the callee computed, and
  // either the value flows into the callee (the next evidence-placed node
  // is inside it), or `cur` has no op of its own, or the callee's class
  // lowers to the op (a gate's Sigmoid after a projection is the next
  // activation module's), the op is the callee's first own op.
  // Nothing when an outline is missing: the rule without outlines decides.
  // Its modules view the facts, an outline or an assignment (all outlive
  // the rule).
  struct Resumed {
    Ref module;           // where the op goes (before the visibility check)
    Ref caller;           // the module whose forward resumed: where matching_child starts
    bool callee = false;  // `module` is the next callee's first computing module
    bool own_op = false;  // an own op follows the call, and the caller's code can produce this type
  };
  std::optional<Resumed> after_return(Ref cur, Ref m0, size_t n, const std::vector<size_t>& producers,
                                      size_t next) const {
    for (;;) {
      if (facts_.is_container(cur) && !facts_.outline(cur)) {  // ModuleList: no forward
        if (cur.path.empty()) return std::nullopt;
        cur = facts_.parent(cur);
        continue;
      }
      const Outline* o = facts_.outline(cur);
      if (!o) return std::nullopt;
      const Tail t = tail_after(*o, m0.path, g_.nodes[n].op_type);
      switch (t.kind) {
        case Tail::not_called:
          return std::nullopt;
        case Tail::own_op:
          if (facts_.can_run(cur, g_.nodes[n].op_type) == ModuleFacts::Answer::no)
            for (size_t i = 0; i < o->size(); ++i)
              if (o->at(i).call && is_ancestor_or_self(o->at(i).name, m0.path))
                if (auto r = into_later_callee(*o, i, cur, n, next)) return r;
          return Resumed{cur, cur, false,
                         facts_.can_run(cur, g_.nodes[n].op_type) == ModuleFacts::Answer::yes};
        case Tail::calls:
          if (!reads_from(producers, t.callee))
            if (auto d = computing_toward(t.callee, n, next))
              if (flows_into(t.callee, next) || facts_.passes_through(cur) || runs(*d, n, producers))
                return Resumed{*d, cur, true};
          return Resumed{facts_.owning(cur), cur};
        case Tail::end:
          if (cur.path.empty()) return std::nullopt;
          cur = facts_.parent(cur);
      }
    }
  }

  // The next evidence-placed node downstream is inside `callee`.
  bool flows_into(std::string_view callee, size_t next) const {
    return next != kNone && is_ancestor_or_self(callee, a_[next].module);
  }

  // `m0`'s own code cannot produce node `n`'s op, so `n` runs in a module
  // `m0` calls after the producer `p` (one of its own ops), or after `m0`
  // has returned. Each own op of `m0` that could be `p` gives a candidate:
  // the next call after it, or the return. The return if all agree on it
  // (a residual `add` that ends a block: the norm after it is the next
  // block's); else the callee the value flows into (of two residual adds,
  // one is followed by a norm module, the other by the return), or the one
  // callee all agree on if it runs the op.
  std::optional<Resumed> after_own_op(Ref m0, size_t p, size_t n, const std::vector<size_t>& producers,
                                      size_t next) const {
    const Outline* o = facts_.outline(m0);
    if (!o) return std::nullopt;
    std::vector<size_t> candidates;  // own ops of m0 that could be the producer
    for (size_t i = 0; i < o->size(); ++i) {
      if ((*o)[i].call) continue;
      auto ops = onnx_ops_of((*o)[i].name);
      if (!ops || std::find(ops->begin(), ops->end(), g_.nodes[p].op_type) != ops->end())
        candidates.push_back(i);
    }
    if (candidates.empty()) return std::nullopt;
    for (size_t i : candidates)
      if (auto r = into_later_callee(*o, i, m0, n, next)) return r;
    std::vector<std::string_view> next_calls;  // "" = the return
    for (size_t i : candidates) {
      auto calls = later_callees(*o, i);
      next_calls.push_back(calls.empty() ? std::string_view() : calls.front());
    }
    if (std::find(next_calls.begin(), next_calls.end(), std::string_view()) != next_calls.end())
      return after_return(facts_.parent(m0), m0, n, producers, next);
    if (std::all_of(next_calls.begin(), next_calls.end(),
                    [&](std::string_view c) { return c == next_calls[0]; }))
      if (auto d = first_computing(next_calls[0], n))
        if (runs(*d, n, producers)) return Resumed{*d, m0, true};
    return std::nullopt;
  }

  // `m0`'s own code can run the op, but not after the producer `p`
  // (ModuleFacts::can_run_after: the next block's `chunk`, a pooling
  // module's second pooling).
  bool none_after_producer(Ref m0, size_t p, size_t n) const {
    return facts_.can_run_after(m0, g_.nodes[p].op_type, g_.nodes[n].op_type) == ModuleFacts::Answer::no;
  }

  // Calls of modules that do something, after step `i` of an outline.
  std::vector<std::string_view> later_callees(const Outline& o, size_t i) const {
    std::vector<std::string_view> out;
    for (size_t j = i + 1; j < o.size(); ++j)
      if (o[j].call && !facts_.empty_forward(o[j].name)) out.push_back(o[j].name);
    return out;
  }

  // The first module called after step `i` of `caller`'s outline that the
  // value flows into (the next evidence-placed node is inside it).
  std::optional<Resumed> into_later_callee(const Outline& o, size_t i, Ref caller, size_t n,
                                           size_t next) const {
    for (std::string_view c : later_callees(o, i))
      if (flows_into(c, next)) {
        if (auto d = first_computing(c, n)) return Resumed{*d, caller, true};
        return std::nullopt;
      }
    return std::nullopt;
  }

  bool reads_from(const std::vector<size_t>& producers, std::string_view module) const {
    return std::any_of(producers.begin(), producers.end(),
                       [&](size_t p) { return is_ancestor_or_self(module, a_[p].module); });
  }

  // A call that left no node for this op to follow: an empty forward (eval
  // Dropout), or a built-in parameter leaf with no node in the file that
  // cannot run the op (a BatchNorm the exporter folded into the Conv before
  // it: the ReLU after the Conv is the next callee's).
  bool leaves_no_trace(std::string_view callee, std::string_view op) const {
    return facts_.empty_forward(callee) || (facts_.closed_leaf(callee) && !facts_.has_nodes(callee) &&
                                            facts_.can_run(callee, op) == ModuleFacts::Answer::no);
  }

  // What `cur`'s outline runs after the call(s) into `m0`'s branch, skipping
  // calls of modules that do nothing: own ops, only calls (all to the same
  // next callee), or nothing. Mixed answers over repeated calls (one `relu`
  // module called three times) count as own ops: stay in `cur`.
  struct Tail {
    enum Kind { not_called, own_op, calls, end } kind = not_called;
    std::string_view callee;  // an outline's step
  };
  Tail tail_after(const Outline& o, std::string_view m0, std::string_view op) const {
    Tail t;
    for (size_t i = 0; i < o.size(); ++i) {
      if (!o[i].call || !is_ancestor_or_self(o[i].name, m0)) continue;
      size_t j = i + 1;
      while (j < o.size() && o[j].call && leaves_no_trace(o[j].name, op)) ++j;
      Tail here;
      if (j == o.size()) here.kind = Tail::end;
      else if (!o[j].call) here.kind = Tail::own_op;
      else here = {Tail::calls, o[j].name};
      if (t.kind == Tail::not_called) t = here;
      else if (t.kind != here.kind || t.callee != here.callee) t = {Tail::own_op, ""};
    }
    return t;
  }

  // Descends through leading calls to the module whose forward starts with
  // an own op; nothing if that is a built-in parameter leaf that cannot run
  // node `n`'s op (its ops are the parameter ops the strategy placed), or an
  // outline is missing.
  std::optional<std::string_view> first_computing(std::string_view d, size_t n) const {
    for (size_t depth = 0; depth < 4096; ++depth) {  // bounded: outlines may be cyclic
      const Outline* o = facts_.outline(d);
      if (!o) return std::nullopt;
      auto first = std::find_if(o->begin(), o->end(),
                                [&](const Step& s) { return !s.call || !facts_.empty_forward(s.name); });
      if (first == o->end()) return std::nullopt;
      if (!first->call) {
        if (facts_.closed_leaf(d) && facts_.can_run(d, g_.nodes[n].op_type) != ModuleFacts::Answer::yes)
          return std::nullopt;
        return d;
      }
      d = first->name;
    }
    return std::nullopt;
  }

  // first_computing(callee), or, when that cannot run the op, the first
  // computing module of the call inside `callee` that leads to the next
  // evidence-placed node (a block of parallel branches: the first starts
  // with a Conv, the MaxPool the block also runs is a later branch's).
  std::optional<std::string_view> computing_toward(std::string_view d, size_t n, size_t next) const {
    for (size_t depth = 0; depth < 4096; ++depth) {  // bounded: outlines may be cyclic
      if (auto first = first_computing(d, n)) return first;
      if (next == kNone) return std::nullopt;
      const std::string& target = a_[next].module;
      const Outline* o = facts_.outline(d);
      if (!o || !is_ancestor_or_self(d, target)) return std::nullopt;
      auto step = std::find_if(o->begin(), o->end(), [&](const Step& s) {
        return s.call && s.name != d && is_ancestor_or_self(s.name, target);
      });
      if (step == o->end()) return std::nullopt;
      d = step->name;
    }
    return std::nullopt;
  }

  // `module` positively runs node `n`'s op: its class or its outline says
  // so (a built-in parameter leaf only by its outline: a Conv of a module
  // whose shared weights gave the strategy no evidence).
  bool runs(std::string_view module, size_t n, const std::vector<size_t>& producers) const {
    if (facts_.closed_leaf(module))
      return facts_.can_run(module, g_.nodes[n].op_type) == ModuleFacts::Answer::yes;
    return lowers_to(module, n, producers, true);
  }

  // Every data input produced outside `m` must be visible in it: consumed by
  // an evidence-placed node inside `m`, or by no evidence-placed node at all
  // (an argument only unplaced ops read, like an attention mask).
  bool inputs_visible(size_t n, const std::vector<size_t>& producers, std::string_view m) const {
    for (size_t p : producers) {
      if (is_ancestor_or_self(m, a_[p].module)) continue;
      for (size_t k = 0; k < values_.output_count(p); ++k) {
        const uint32_t out = values_.output(p, k);
        if (out == GraphValues::kNone || !reads(n, out)) continue;
        bool inside = false, any = false;
        for (uint32_t c : consumers_of(out)) {
          if (!evidence_[c]) continue;
          any = true;
          inside = inside || is_ancestor_or_self(m, a_[c].module);
        }
        if (any && !inside) return false;
      }
    }
    return true;
  }

  // `module` can run node `n`'s op itself, so a leaf is not finished after
  // its first node (one aten op, gelu, is several ONNX nodes; an RMSNorm
  // is eight): a parameter-free module whose class lowers to the op, or,
  // with `with_parameters`, any leaf except a built-in parameter leaf whose
  // outline lowers to it. Arithmetic ops only with a data input from the
  // module or a single data value (see arithmetic_fits).
  bool lowers_to(Ref module, size_t n, const std::vector<size_t>& producers, bool with_parameters) const {
    const std::string_view op = g_.nodes[n].op_type;
    return can_lower(module, op, with_parameters) &&
           (!is_arithmetic(op) || arithmetic_fits(n, producers, module.path));
  }

  // lowers_to without the arithmetic check: what does not depend on the node.
  bool can_lower(Ref module, std::string_view op, bool with_parameters) const {
    if (facts_.empty_forward(module)) return false;
    if (facts_.parameter_free(module)) {
      auto ops = ops_of_module_class(std::string(facts_.class_of(module)));
      if (std::find(ops.begin(), ops.end(), op) != ops.end()) return true;
    }
    return facts_.is_leaf(module) && !facts_.closed_leaf(module) &&
           (with_parameters || facts_.parameter_free(module)) &&
           facts_.can_run(module, op) == ModuleFacts::Answer::yes;
  }

  // The children of `x` that could lower to `op` without parameters, in
  // children order, found once per (x, op): a ModuleList of 50,000 layers
  // used to be scanned again for every data node (200,000 nodes tagged by
  // `usage`: more than ten minutes).
  const std::vector<std::string_view>& lowering_children(Ref x, std::string_view op) const {
    // can_lower(child, op, false) needs a parameter_free child: most
    // modules have none, and need no key built and looked up.
    static const std::vector<std::string_view> none;
    if (!facts_.has_parameter_free_child(x)) return none;
    std::string key(x.path);
    key += '\0';
    key += op;
    auto it = lowering_children_.find(key);
    if (it != lowering_children_.end()) return it->second;
    std::vector<std::string_view> found;  // views the facts keep valid
    for (std::string_view child : facts_.children(x))
      if (can_lower(child, op, false)) found.push_back(child);
    return lowering_children_.emplace(std::move(key), std::move(found)).first->second;
  }

  // A parameter-free child module whose class lowers to this op, searched
  // from `x` (the module left by the latest producer, containers included)
  // up to the higher of `m` (chosen so far) and `limit`.
  std::optional<Ref> matching_child(size_t n, const std::vector<size_t>& producers, Ref x, std::string_view m,
                                    std::string_view limit) const {
    const std::string_view op = g_.nodes[n].op_type;
    for (;;) {
      for (std::string_view child : lowering_children(x, op))
        if (!is_arithmetic(op) || arithmetic_fits(n, producers, child)) return Ref(child);
      if (x.path.empty() || (is_ancestor_or_self(x.path, m) && is_ancestor_or_self(x.path, limit)))
        return std::nullopt;
      x = facts_.parent(x);
    }
  }

  // Add/Mul/... belong to a module's own code (GELU's 0.5*x*(1+erf(..)),
  // SiLU's x*sigmoid(x)) only if they read a single data value (its input
  // x), or every data value they read was computed inside the module or is
  // an argument of it (read by a node already placed inside). A residual
  // Add of two branches never does, nor a gated MLP's act(gate) * up(x).
  bool arithmetic_fits(size_t n, const std::vector<size_t>& producers, std::string_view child) const {
    std::vector<uint32_t> values;  // the data values it reads (ids)
    for (size_t i = 0; i < values_.input_count(n); ++i) {
      const uint32_t in = values_.input(n, i);
      if (in != GraphValues::kNone && produced_by(producers, in)) values.push_back(in);
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (values.size() == 1) return true;
    bool inside = false;
    for (uint32_t v : values) {
      bool computed_inside = false;
      for (size_t p : producers)
        if (writes(p, v) && is_ancestor_or_self(child, a_[p].module)) computed_inside = true;
      inside = inside || computed_inside;
      if (!computed_inside && !argument_of(v, child, n)) return false;
    }
    return inside;
  }

  // `value` is read by a node other than `n` already placed in `module`.
  bool argument_of(uint32_t value, std::string_view module, size_t n) const {
    for (uint32_t c : consumers_of(value))
      if (c != n && a_[c].placed() && is_ancestor_or_self(module, a_[c].module)) return true;
    return false;
  }

  // The nodes reading `value` (once per input slot).
  struct Span {
    const uint32_t *b, *e;
    const uint32_t* begin() const { return b; }
    const uint32_t* end() const { return e; }
  };
  Span consumers_of(uint32_t value) const {
    const uint32_t* base = values_.consumers.data();
    return {base + values_.consumer_begin[value], base + values_.consumer_begin[value + 1]};
  }
  bool reads(size_t n, uint32_t value) const {
    for (size_t i = 0; i < values_.input_count(n); ++i)
      if (values_.input(n, i) == value) return true;
    return false;
  }
  bool writes(size_t p, uint32_t value) const {
    for (size_t k = 0; k < values_.output_count(p); ++k)
      if (values_.output(p, k) == value) return true;
    return false;
  }
  bool produced_by(const std::vector<size_t>& producers, uint32_t value) const {
    return std::any_of(producers.begin(), producers.end(), [&](size_t p) { return writes(p, value); });
  }

  const GraphView& g_;
  const GraphValues& values_;
  const Edges& e_;
  const std::vector<size_t>& order_;
  const ModuleFacts& facts_;
  Assignments& a_;
  std::vector<ModuleFacts::Id>& modules_;  // node → its module's id, kept with a_
  // Node positions as 32 bits (node ids are, model/value_table.hpp): half
  // the fresh pages of size_t at 200,000 nodes.
  static constexpr uint32_t kNoNode = UINT32_MAX;
  size_t next_evidence(size_t n) const {
    const uint32_t next = next_evidence_[n];
    return next == kNoNode ? kNone : next;
  }
  std::vector<uint32_t> pos_;
  std::vector<bool> evidence_;
  const std::vector<bool>& side_;
  std::vector<uint32_t> next_evidence_;  // kNoNode: none
  std::vector<size_t> producers_;        // place()'s data producers
  mutable std::unordered_map<std::string, std::vector<std::string_view>> lowering_children_;
};

}  // namespace

std::vector<bool> side_nodes(const GraphView& g, const GraphValues& values,
                             const std::vector<size_t>& order) {
  std::vector<bool> side(g.nodes.size(), false);
  for (size_t n : order) {
    // As a view: compared by size first, inline (std::string == const
    // char* measured the literal and called compare for every node).
    const std::string_view op = g.nodes[n].op_type;
    bool s = op == "Shape" || op == "Size";
    if (!s) {
      s = true;
      for (size_t i = 0; i < values.input_count(n); ++i) {
        const uint32_t in = values.input(n, i);
        if (in == GraphValues::kNone) continue;
        const uint32_t p = values.producer[in];
        if (p != GraphValues::kNone ? !side[p] : !values.initializer[in]) s = false;
      }
    }
    side[n] = s;
  }
  return side;
}

void place_data_nodes(const GraphView& g, const GraphValues& values, const Edges& e,
                      const std::vector<bool>& side, const std::vector<size_t>& order,
                      const ModuleFacts& facts, Assignments& a, std::vector<ModuleFacts::Id>& modules) {
  DataPathRule(g, values, e, side, order, facts, a, modules).run();
}

}  // namespace mx
