// A table the host hands to plugin code (mx_graph_reader,
// mx_strategy_answer) kept at an address that stays valid after its run.
// plugin.h allows calls only during the run, but a plugin that cached the
// table and calls it later (from `destroy`, after the outputs were written)
// must meet a refusal, not freed memory: the table and its cookie live in a
// slot of a process-wide pool that is never freed; while the run lasts the
// slot names its target, after it names none and every call is refused.
// A retired slot is reused only after kQuarantine later retirements, so a
// late call reaches a newer run's table only that much later (and still no
// freed memory).
#pragma once
#include <atomic>
#include <deque>
#include <mutex>
#include <vector>

namespace mx {

template <typename Table, typename Target>
struct TableSlot {
  Table table{};
  std::atomic<Target*> live{nullptr};
};

template <typename Slot>
class SlotPool {
 public:
  static constexpr size_t kQuarantine = 1024;

  static Slot* lease() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.free.empty()) return &p.all.emplace_back();
    Slot* s = p.free.back();
    p.free.pop_back();
    return s;
  }

  static void retire(Slot* s) {
    s->live.store(nullptr);
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.retired.push_back(s);
    if (p.retired.size() > kQuarantine) {
      p.free.push_back(p.retired.front());
      p.retired.pop_front();
    }
  }

 private:
  struct Pool {
    std::mutex mutex;
    std::deque<Slot> all;  // stable addresses
    std::vector<Slot*> free;
    std::deque<Slot*> retired;
  };
  // Never destroyed: a plugin's destroy may run during static destruction.
  static Pool& pool() {
    static Pool* p = new Pool;
    return *p;
  }
};

}  // namespace mx
