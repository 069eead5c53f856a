#include "model/sidecar_file.hpp"

#include <pthread.h>
#include <signal.h>

#include <string_view>
#include <system_error>

#include "hierarchy/document_text.hpp"

namespace mx::model {
namespace {

// Pieces this size stay in the cache between being written and being
// copied into the file; a few hundred writes for the largest sidecars.
constexpr size_t kPiece = size_t{1} << 20;

// Thrown through the document writer by a sink asked to stop; not an error.
struct Stopped {};

void write_text(StagedWriter& file, const hierarchy::Document& doc, const std::atomic<bool>* stop) {
  const hierarchy::TextSink sink = [&](std::string_view piece) {
    if (stop && stop->load(std::memory_order_relaxed)) throw Stopped{};
    file.write(piece);
  };
  hierarchy::write_document_text(doc, 2, sink, kPiece);
  file.write("\n");
}

// The signals util/signal_cleanup.hpp handles, blocked in the calling
// thread until the guard goes (a thread started meanwhile keeps them
// blocked for good).
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &previous_);
  }
  ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace

void write_sidecar(StagedWriter& file, const hierarchy::Document& doc) {
  write_text(file, doc, nullptr);
}

BackgroundSidecar::BackgroundSidecar(StagedWriter& file, const hierarchy::Document& doc)
    : file_(file), doc_(doc) {
  const SignalsBlocked blocked;
  try {
    thread_ = std::thread([this] { write(); });
  } catch (const std::system_error&) {
    // No thread to be had (a process at its limit): finish() writes.
  }
}

BackgroundSidecar::~BackgroundSidecar() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
}

void BackgroundSidecar::write() {
  try {
    write_text(file_, doc_, &stop_);
  } catch (const Stopped&) {
  } catch (...) {
    failure_ = std::current_exception();
  }
}

void BackgroundSidecar::finish() {
  if (!thread_.joinable()) return write_sidecar(file_, doc_);
  thread_.join();
  if (failure_) std::rethrow_exception(failure_);
}

}  // namespace mx::model
