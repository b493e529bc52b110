#pragma once
// Buffers for large texts made over and over (a profile's rules document on every daemon pass),
// handed out as shared read-only bytes and taken back once nobody reads them. A document of
// tens of megabytes is then written into pages that are already mapped: a fresh buffer had
// every page faulted in and zeroed by the kernel first, about a third of a render's time at M.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace tw {

class TextRecycler {
 public:
  /// Texts larger than this are not held for reuse: a spare buffer is memory held at rest.
  static constexpr std::size_t kMaxHeldBytes = std::size_t{256} << 20;

  /// An empty string, with the capacity of a buffer this recycler handed out and nobody reads
  /// any more when there is one. Call from the one thread that renders with this recycler.
  std::string take();
  /// `text` as shared bytes; the buffer comes back through take() once every copy is gone.
  std::shared_ptr<const std::string> share(std::string text);

 private:
  /// The last texts shared: the one served now, and the one before it, most often unread.
  std::vector<std::shared_ptr<std::string>> held_;
};

}  // namespace tw
