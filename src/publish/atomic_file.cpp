#include "tagwarden/publish/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace tw {
namespace {

// Names the file the caller asked for (not the temporary one beside it) and says that it was
// left as it was: an operator reading "No space left on device" must know nothing was torn.
[[noreturn]] void fail(const std::string& path, const std::string& step, int error) {
  throw std::runtime_error("cannot write " + path + ": " + step + ": " + std::strerror(error) +
                           " (the previous file, if any, is unchanged)");
}

}  // namespace

void create_directories_0755(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::path built;
  for (const auto& part : fs::path(dir)) {
    built /= part;
    if (part.empty() || part == "." || part == ".." || part == built.root_path()) continue;
    if (::mkdir(built.c_str(), 0755) == 0) {
      ::chmod(built.c_str(), 0755);  // mkdir applies the umask; chmod does not
    } else if (errno != EEXIST) {
      throw std::runtime_error("cannot create directory " + built.string() + ": " + std::strerror(errno));
    }
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error("cannot create directory " + dir + ": a file of that name is in the way");
}

StagedFile::StagedFile(std::string path_in, std::string_view content) : path_(std::move(path_in)) {
  const std::string& path = path_;
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // A rename cannot replace a directory: found now, while nothing is replaced, not at commit,
  // after the files staged before it were.
  if (struct stat st{}; ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw std::runtime_error("cannot write " + path + ": it is a directory (the previous files are unchanged)");
  try {
    create_directories_0755(dir.string());
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot write " + path + ": " + e.what() + " (the previous file, if any, is unchanged)");
  }

  std::string tmp = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    const int saved = errno;
    fail(path, "cannot create a temporary file in " + dir.string(), saved);
  }
  ::fchmod(fd, 0644);
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(path, "writing its temporary file " + tmp, saved);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, "fsync of its temporary file " + tmp, saved);
  }
  // close reports some write-back errors (NFS, quotas) that write and fsync did not.
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    fail(path, "closing its temporary file " + tmp, saved);
  }
  tmp_ = std::move(tmp);
}

StagedFile::StagedFile(StagedFile&& other) noexcept : path_(std::move(other.path_)), tmp_(std::move(other.tmp_)) {
  other.tmp_.clear();
}

StagedFile::~StagedFile() {
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void StagedFile::commit() {
  if (tmp_.empty()) throw std::logic_error("StagedFile::commit: " + path_ + " is not staged");
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int saved = errno;
    fail(path_, "renaming " + tmp_ + " over it", saved);
  }
  tmp_.clear();
  const std::filesystem::path target(path_);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_file_atomically(const std::string& path, std::string_view content) { StagedFile(path, content).commit(); }

}  // namespace tw
