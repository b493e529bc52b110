#include "tagwarden/publish/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "tagwarden/publish/atomic_file.h"

namespace tw {

namespace {

std::string holder_pid(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
  std::string pid = n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "unknown" : pid;
}

}  // namespace

StateDirLock::StateDirLock(const std::string& state_dir) {
  const std::string path = (std::filesystem::path(state_dir) / "serve.lock").string();
  try {
    create_directories_0755(state_dir);
  } catch (const std::exception& e) {
    throw std::runtime_error("state_dir " + state_dir + ": " + e.what());
  }
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("state_dir " + state_dir + ": cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int saved = errno;
    const std::string pid = holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    if (saved == EWOULDBLOCK)
      throw std::runtime_error("state_dir " + state_dir + " is in use by another tagwarden serve (pid " + pid +
                               "): two daemons on one state directory overwrite each other's artifacts and "
                               "rules files. Stop the other one, or give this one its own state_dir");
    throw std::runtime_error("state_dir " + state_dir + ": cannot lock " + path + ": " + std::strerror(saved));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock is what matters; the pid is only for the message of a second daemon.
  }
}

StateDirLock::~StateDirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace tw
