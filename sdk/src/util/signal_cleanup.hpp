// Undo for files in flight when the process is killed by SIGINT, SIGTERM or
// SIGHUP: temporary files are removed, targets already replaced by a commit
// get their original back (git's tempfile.c does the same for its locks).
//
// The handler is installed on first use, and only for signals whose
// disposition is still the default: an application with its own handler (or
// SIG_IGN) keeps it, and must then clean up itself. After undoing, the
// handler restores the default disposition and re-raises the signal, so
// the process dies as it would have.
//
// The handler may only call async-signal-safe functions, so the actions are
// kept in a fixed table of fixed-size slots (no allocation, no locks). When
// the table is full (more than kSlots files in flight at once), files are
// still written correctly; only their cleanup on a signal is lost.
#pragma once
#include <string>

namespace mx::signal_cleanup {

inline constexpr int kSlots = 48;

// An action registered with the handler for as long as the object lives.
class Action {
 public:
  Action() = default;
  ~Action() { cancel(); }
  Action(Action&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  Action& operator=(Action&& other) noexcept;
  Action(const Action&) = delete;
  Action& operator=(const Action&) = delete;
  void cancel();  // the action is no longer needed (done, or undone already)

 private:
  friend Action remove_on_signal(const std::string&);
  friend Action restore_on_signal(const std::string&, const std::string&);
  explicit Action(int slot) : slot_(slot) {}
  int slot_ = -1;
};

// On a signal: unlink(path).
Action remove_on_signal(const std::string& path);

// On a signal: rename(backup, target), then unlink(backup) (a no-op unless
// backup and target were the same file, which rename() leaves alone).
Action restore_on_signal(const std::string& backup, const std::string& target);

}  // namespace mx::signal_cleanup
