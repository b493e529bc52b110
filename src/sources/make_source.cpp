#include "file_source.h"
#include "http_source.h"

namespace tw {

std::unique_ptr<SnapshotSource> make_source(const SourceSettings& settings) {
  if (!settings.url.empty()) return std::make_unique<HttpSource>(settings);
  return std::make_unique<FileSource>(settings.file);
}

}  // namespace tw
