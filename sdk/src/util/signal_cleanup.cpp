#include "util/signal_cleanup.hpp"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace mx::signal_cleanup {
namespace {

enum State : int { kFree = 0, kFilling = 1, kArmed = 2 };
enum Kind : int { kRemove = 0, kRestore = 1 };

struct Slot {
  std::atomic<int> state{kFree};
  int kind = kRemove;
  char path[PATH_MAX];
  char target[PATH_MAX];
};

Slot g_slots[kSlots];
const int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void undo_all() {
  // Restores first: a target must get its original back before the
  // remaining temporary names are removed.
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kArmed && s.kind == kRestore) {
      ::rename(s.path, s.target);
      ::unlink(s.path);
    }
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kArmed && s.kind == kRemove) ::unlink(s.path);
}

extern "C" void on_fatal_signal(int sig) {
  const int saved_errno = errno;
  undo_all();
  ::signal(sig, SIG_DFL);
  errno = saved_errno;
  ::raise(sig);  // delivered when the handler returns: the default action
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) != 0) continue;
      const bool is_default = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL;
      if (!is_default) continue;  // the application handles this signal
      struct sigaction ours {};
      ours.sa_handler = on_fatal_signal;
      sigemptyset(&ours.sa_mask);
      for (int other : kSignals) sigaddset(&ours.sa_mask, other);
      ::sigaction(sig, &ours, nullptr);
    }
  });
}

bool fits(const std::string& s) {
  return s.size() < PATH_MAX && s.find('\0') == std::string::npos;
}

int arm(int kind, const std::string& path, const std::string& target) {
  if (!fits(path) || !fits(target)) return -1;
  install_once();
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    Slot& s = g_slots[i];
    s.kind = kind;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    std::memcpy(s.target, target.c_str(), target.size() + 1);
    s.state.store(kArmed, std::memory_order_release);
    return i;
  }
  return -1;  // table full: no cleanup on a signal for this file
}

}  // namespace

Action& Action::operator=(Action&& other) noexcept {
  if (this != &other) {
    cancel();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void Action::cancel() {
  if (slot_ >= 0) g_slots[slot_].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

Action remove_on_signal(const std::string& path) {
  return Action(arm(kRemove, path, ""));
}

Action restore_on_signal(const std::string& backup, const std::string& target) {
  return Action(arm(kRestore, backup, target));
}

}  // namespace mx::signal_cleanup
