// The one-line progress display of long subcommands (export, tag,
// functions): stage, a bar and counts ("walk [#####.....] 512/1024 ops",
// "write [##........] 120.5/512.0 MB") redrawn in place on stderr. Drawn
// only when stderr is a terminal and --quiet was not given; otherwise it
// listens to nothing and prints nothing, so logs and pipes stay clean.
#pragma once
#include <cstddef>
#include <string>

#include "modelexport/modelexport.h"

namespace mx::cli {

class ProgressBar {
 public:
  // `command` prefixes the line ("export: walk ...").
  ProgressBar(std::string command, bool quiet);
  ~ProgressBar();  // clears the line (also when the command fails)
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // What to hand to the SDK's *_with_progress calls; NULL when not drawing.
  const mx_progress* listener() const { return drawing_ ? &listener_ : nullptr; }
  // A stage of the CLI's own (e.g. "load" before reading the input).
  void stage(const char* name);
  // Removes the line, before the command prints to the terminal.
  void clear();

 private:
  static int32_t on_event(const mx_progress_event* event, void* self);
  void draw(const std::string& text);

  std::string command_;
  bool drawing_;
  mx_progress listener_{};
  std::size_t shown_ = 0;  // characters on the line now
};

// The text of one report, without the command prefix: exposed for tests of
// the format through the CLI.
std::string progress_text(const mx_progress_event& event);

}  // namespace mx::cli
