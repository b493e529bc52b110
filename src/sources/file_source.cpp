#include "file_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "tagwarden/model/document.h"
#include "tagwarden/model/snapshot_loader.h"

namespace tw {

namespace {

// A read of a FIFO, a device or a socket may never return, and the reconcile loop would wait with
// it: no expiry withdrawn, no SIGTERM honoured. Opened without blocking, the file is checked to be a
// regular one before anything is read from it.
std::string read_regular_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(path + " is not a regular file (a directory, FIFO, device or socket)");
  }
  // Read straight into the string (a copy of a large snapshot costs a daemon pass at M), to the
  // end whatever the size said. One byte more than the size: the read that finds the end needs
  // room, and a file that grew grows the string only then.
  const std::size_t size = static_cast<std::size_t>(st.st_size) + 1;
  std::string out;
  out.reserve(size + SnapshotLoader::kSpareCapacity);
  out.resize(size);
  std::size_t used = 0;
  for (;;) {
    if (used == out.size()) out.resize(out.size() + std::max<std::size_t>(out.size() / 2, 1 << 16));
    const ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      throw std::runtime_error("cannot read " + path + ": " + std::strerror(saved));
    }
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(used);
  if (out.capacity() < out.size() + SnapshotLoader::kSpareCapacity)
    out.reserve(out.size() + SnapshotLoader::kSpareCapacity);
  return out;
}

}  // namespace

FileSource::FileSource(std::string path) : path_(std::move(path)) {}

std::string FileSource::stamp() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return "missing:" + std::string(std::strerror(errno));
  // ctime too: a file made readable by chmod alone (its mtime unchanged) is read again at once,
  // not at the next reconcile_interval (audit 32 F6).
  return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
         std::to_string(st.st_ctim.tv_nsec);
}

bool FileSource::maybe_changed() { return stamp() != last_stamp_; }

SourceFetch FileSource::fetch() {
  SourceFetch out;
  out.attempts = 1;
  std::string before = stamp();
  try {
    std::string body = read_regular_file(path_);  // parsed where it is read
    // A file written in place while it was read is neither the old snapshot nor the new one: read
    // again once it holds still. (A writer that pauses between its writes is not caught: replace
    // the file by rename, README.)
    for (std::string after = stamp(); after != before; after = stamp()) {
      if (++out.attempts > kReadAttempts) {
        throw std::runtime_error(
            "the file kept changing while it was read; write the snapshot to another file and "
            "rename it into place");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      before = stamp();
      body = read_regular_file(path_);
    }
    last_stamp_ = before;
    if (last_content_.same_as_last(body)) {
      out.status = SourceFetch::Status::Unchanged;
      return out;
    }
    out.status = SourceFetch::Status::Changed;
    out.body = std::move(body);
  } catch (const std::exception& e) {
    last_stamp_ = before;
    out.status = SourceFetch::Status::Failed;
    out.error = std::string(e.what()) + " (check source.file and the daemon's permissions)";
  }
  return out;
}

void FileSource::reset() {
  last_content_.forget();
  last_stamp_.clear();
}

std::string FileSource::describe() const { return "file " + path_; }

}  // namespace tw
