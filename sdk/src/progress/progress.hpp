// Progress of one long SDK call, reported to the caller's mx_progress
// callback: throttled (the first report of a stage and its last always go
// through, the rest at most once per min_interval_ms), and cancellation —
// a callback that answers non-zero — turned into MX_ERR_CANCELLED.
//
// Cheap when nobody listens: every report() is then one branch, so the
// SDK's loops call it freely.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

#include "modelexport/modelexport.h"

namespace mx {

class Progress {
 public:
  // `listener` may be NULL (nobody listens); a struct_size too small to
  // hold the callback is MX_ERR_INVALID_ARGUMENT.
  explicit Progress(const mx_progress* listener);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // A Progress that reports nothing, for internal callers.
  static Progress& none();

  bool listening() const noexcept { return callback_ != nullptr; }

  // Reports; throws Error(MX_ERR_CANCELLED) if the caller asked to stop
  // (now or before). `stage` and `unit` must be string literals or
  // otherwise outlive the call.
  void report(const char* stage, const char* unit, uint64_t done, uint64_t total);
  // The same without throwing, for reports coming from a plugin: true
  // means "go on", false "stop" (the caller's request, or a callback that
  // threw). Never lets an exception out.
  bool report_nothrow(const char* stage, const char* unit, uint64_t done, uint64_t total) noexcept;

  bool cancelled() const noexcept { return cancelled_; }
  // Throws Error(MX_ERR_CANCELLED) naming the stage, when cancelled().
  void throw_if_cancelled() const;

 private:
  bool due(const char* stage, uint64_t done, uint64_t total);

  mx_progress_fn callback_ = nullptr;
  void* user_data_ = nullptr;
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point last_{};
  std::string stage_;  // of the last report delivered
  uint64_t last_done_ = 0;
  uint64_t last_total_ = 0;
  bool cancelled_ = false;
};

}  // namespace mx
