#pragma once
// One daemon per state directory. Two would overwrite each other's artifacts and rules files:
// a second `serve` started by mistake (a unit started twice, a deploy overlapping the old
// process) that then failed would leave deny-all behind it, or an older document.

#include <string>

namespace tw {

/// Holds an exclusive flock(2) on `<state_dir>/serve.lock` for its lifetime; the file holds the
/// holder's pid. The kernel drops the lock when the process ends, however it ends.
class StateDirLock {
 public:
  /// Throws std::runtime_error naming the folder, and the holder's pid when another process
  /// holds the lock.
  explicit StateDirLock(const std::string& state_dir);
  ~StateDirLock();
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace tw
