#pragma once
#include "last_content.h"
#include "tagwarden/sources/source.h"

namespace tw {

/// Reads a local file; change is detected by content, and cheaply
/// watched by inode, size, mtime and ctime (a chmod).
class FileSource : public SnapshotSource {
 public:
  explicit FileSource(std::string path);
  SourceFetch fetch() override;
  bool maybe_changed() override;
  void reset() override;
  std::string describe() const override;

 private:
  std::string stamp() const;
  static constexpr int kReadAttempts = 5;  ///< reads of a file that changes while it is read
  std::string path_;
  LastContent last_content_;
  std::string last_stamp_;
};

}  // namespace tw
