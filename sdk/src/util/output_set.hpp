// The files of one output (model + sidecar + external data, or a single
// text file), committed together or not at all.
//
// Each file is staged by a StagedWriter (util/files.hpp). commit():
//  1. finishes (fsyncs) every staged file, then locks the targets'
//     directories until step 5 (util/directory_lock.hpp: two processes
//     saving to the same place leave one's files, never a mix);
//  2. checks every target: a directory, FIFO, socket or device there is
//     refused before anything is replaced (a symlink is replaced itself,
//     never followed);
//  3. keeps the original of every existing target under a backup name (a
//     hard link; a rename when the filesystem has none), so that nothing
//     is lost if a later step fails — an immutable target fails here,
//     before any file changed;
//  4. renames every staged file over its target; if one rename fails, the
//     ones already done are undone (originals back, new files removed);
//  5. removes the backups, and those a killed commit left in the locked
//     directories (util/stale_leftovers.hpp).
// A SIGINT/SIGTERM/SIGHUP at any point removes the temporaries and undoes
// the renames already done (util/signal_cleanup.hpp). Destroyed without a
// commit, the set removes its temporaries.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "util/files.hpp"

namespace mx {

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // Stages one more file of the output; MX_ERR_IO naming `target` when its
  // temporary cannot be created, MX_ERR_INVALID_ARGUMENT for a target
  // already in the set.
  StagedWriter& add(const std::string& target);
  // Drops a staged file (its temporary goes); its target is left as is.
  void discard(const std::string& target);
  void commit();

 private:
  std::vector<std::unique_ptr<StagedWriter>> files_;
};

}  // namespace mx
