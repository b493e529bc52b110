#include "file_source.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "tagwarden/model/document.h"
#include "tagwarden/model/snapshot_loader.h"

namespace tw {

FileSource::FileSource(std::string path) : path_(std::move(path)) {}

std::string FileSource::stamp() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return "missing:" + std::string(std::strerror(errno));
  return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

bool FileSource::maybe_changed() { return stamp() != last_stamp_; }

SourceFetch FileSource::fetch() {
  SourceFetch out;
  out.attempts = 1;
  std::string before = stamp();
  try {
    std::string body = read_file(path_, SnapshotLoader::kSpareCapacity);  // parsed where it is read
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
      body = read_file(path_, SnapshotLoader::kSpareCapacity);
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
