#pragma once
// Writing a file so that readers see the old bytes or the new bytes, never a
// mix, and the new bytes survive a crash once this returns.

#include <string>
#include <string_view>

namespace tw {

/// Creates the missing directories of `dir` with mode 0755 whatever the umask (as files are
/// written 0644): under umask 000 they were 0777, and anyone could plant a served artifact
/// there. Directories that exist keep their mode. Throws std::runtime_error naming `dir`.
void create_directories_0755(const std::string& dir);

/// Temp file in the same directory, write, fsync, rename over `path`, fsync the
/// directory. Creates missing parent directories. Throws std::runtime_error
/// naming the path and the system error.
void write_file_atomically(const std::string& path, std::string_view content);

/// The first half of write_file_atomically, for several files that must change together: the
/// content is in a synced temporary file beside `path`, renamed over it by commit(). Destroyed
/// uncommitted, it removes the temporary file and `path` stays as it was.
class StagedFile {
 public:
  /// Throws std::runtime_error naming `path` and the system error.
  StagedFile(std::string path, std::string_view content);
  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&&) = delete;
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  ~StagedFile();
  /// Renames the temporary file over the path and syncs the directory. Throws as the constructor.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string tmp_;  ///< empty once committed or moved from
};

}  // namespace tw
