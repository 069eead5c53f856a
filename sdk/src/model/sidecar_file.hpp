// The sidecar (`<model>.hierarchy.json`) written into its staged file a
// piece at a time, never as one string: the text of a large document is
// tens of megabytes of fresh memory that no one reads back. A save that
// writes the model file meanwhile can have the sidecar written on a thread
// of its own (BackgroundSidecar): the two files share no state, and the
// model is only read.
#pragma once
#include <atomic>
#include <exception>
#include <thread>

#include "hierarchy/document.hpp"
#include "util/files.hpp"

namespace mx::model {

// The document's text (indented by 2, a newline at the end) into `file`.
void write_sidecar(StagedWriter& file, const hierarchy::Document& doc);

// write_sidecar on a second thread, started by the constructor; `file` and
// `doc` must stay unchanged until finish() or the destructor returns.
// The thread keeps SIGINT, SIGTERM and SIGHUP blocked (the cleanup of
// util/signal_cleanup.hpp runs on the caller's threads) and reports no
// progress (listeners are called on the caller's thread). Where no thread can be
// started, finish() writes the sidecar itself.
class BackgroundSidecar {
 public:
  BackgroundSidecar(StagedWriter& file, const hierarchy::Document& doc);
  // Stops the thread at its next piece and waits for it: a save that
  // failed or was cancelled does not leave it writing into a file about
  // to be removed.
  ~BackgroundSidecar();
  BackgroundSidecar(const BackgroundSidecar&) = delete;
  BackgroundSidecar& operator=(const BackgroundSidecar&) = delete;

  // Waits for the sidecar to be written; rethrows what writing it threw.
  void finish();

 private:
  void write();

  StagedWriter& file_;
  const hierarchy::Document& doc_;
  std::atomic<bool> stop_{false};
  std::exception_ptr failure_;
  std::thread thread_;
};

}  // namespace mx::model
