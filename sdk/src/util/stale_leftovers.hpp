// What a killed run left behind, removed by a later one. Temporaries are
// named "<prefix><pid>-<random>" (the pid of the process writing them); a
// run about to write next to them removes those whose process is gone
// (kill(pid, 0) says ESRCH) and that nobody touched for kStaleAfter: the
// age guards against a writer in another pid namespace sharing the
// directory, whose pid means nothing here.
//
// Backups (".<name>.orig-<pid>-...", util/output_set.hpp) exist only while
// a commit holds the directory's lock, so one found by a commit holding it
// was left by a killed commit. It is removed when its target <name> is
// there (the commit kept it for an undo that never came); when the target
// is gone the backup may be the only copy of the file, and it stays.
#pragma once
#include <string>

namespace mx {

inline constexpr int kStaleAfterSeconds = 10 * 60;

// "<prefix><our pid>-": the start of a temporary's name.
std::string pid_tagged(const std::string& prefix);

// Removes the stale entries of `directory` named "<prefix><pid>-...": files
// (not directories) when `directories` is false, else directories with
// their contents. Best effort: errors are ignored.
void remove_stale_leftovers(const std::string& directory, const std::string& prefix, bool directories);

// Removes the backups of dead processes' commits in `directory` whose
// target exists. Call it only while holding the directory's lock.
void remove_stale_backups(const std::string& directory);

}  // namespace mx
