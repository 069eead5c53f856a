#include "progress/progress.hpp"

#include <cstddef>
#include <cstring>

#include "util/error.hpp"

namespace mx {
namespace {

constexpr uint32_t kDefaultIntervalMs = 100;  // ~10 updates a second

// Fields a caller compiled against an older header may not have.
template <typename Member>
bool has_field(const mx_progress& p, size_t offset, const Member&) {
  return p.struct_size >= offset + sizeof(Member);
}

}  // namespace

Progress::Progress(const mx_progress* listener) : interval_(std::chrono::milliseconds(kDefaultIntervalMs)) {
  if (!listener) return;
  if (!has_field(*listener, offsetof(mx_progress, user_data), listener->user_data))
    fail(MX_ERR_INVALID_ARGUMENT, "progress: struct_size " + std::to_string(listener->struct_size) +
                                      " is too small for an mx_progress (set it to sizeof(mx_progress))");
  callback_ = listener->callback;
  user_data_ = listener->user_data;
  if (has_field(*listener, offsetof(mx_progress, min_interval_ms), listener->min_interval_ms) &&
      listener->min_interval_ms > 0)
    interval_ = std::chrono::milliseconds(listener->min_interval_ms);
}

Progress& Progress::none() {
  // Never reports and never cancels: safe to share between threads.
  static Progress nobody(nullptr);
  return nobody;
}

bool Progress::due(const char* stage, uint64_t done, uint64_t total) {
  const auto now = std::chrono::steady_clock::now();
  const bool new_stage = stage_ != stage;
  const bool last_of_stage = total > 0 && done >= total && (last_done_ != done || last_total_ != total);
  if (!new_stage && !last_of_stage && now - last_ < interval_) return false;
  last_ = now;
  if (new_stage) stage_ = stage;
  last_done_ = done;
  last_total_ = total;
  return true;
}

bool Progress::report_nothrow(const char* stage, const char* unit, uint64_t done, uint64_t total) noexcept {
  if (!callback_) return true;
  if (cancelled_) return false;
  try {
    if (!due(stage, done, total)) return true;
    const mx_progress_event event{sizeof(mx_progress_event), stage, unit, done, total};
    if (callback_(&event, user_data_) != 0) cancelled_ = true;
  } catch (...) {  // a C++ callback that threw: treated as a request to stop
    cancelled_ = true;
  }
  return !cancelled_;
}

void Progress::report(const char* stage, const char* unit, uint64_t done, uint64_t total) {
  if (!callback_) return;
  if (!report_nothrow(stage, unit, done, total)) throw_if_cancelled();
}

void Progress::throw_if_cancelled() const {
  if (cancelled_)
    fail(MX_ERR_CANCELLED, "cancelled by the progress callback" +
                               (stage_.empty() ? std::string() : " during '" + stage_ + "'"));
}

}  // namespace mx
