#include "tagwarden/util/recycled_text.h"

#include <atomic>

namespace tw {

namespace {
constexpr std::size_t kHeld = 2;
}

std::string TextRecycler::take() {
  for (auto it = held_.begin(); it != held_.end(); ++it) {
    // Only this recycler holds the buffer, and no copy can be made from it elsewhere. The last
    // reader let go with a release decrement; the fence orders its reads before our writes.
    if (it->use_count() != 1) continue;
    std::atomic_thread_fence(std::memory_order_acquire);
    std::string buffer = std::move(**it);
    held_.erase(it);
    buffer.clear();
    return buffer;
  }
  return {};
}

std::shared_ptr<const std::string> TextRecycler::share(std::string text) {
  auto shared = std::make_shared<std::string>(std::move(text));
  if (shared->capacity() <= kMaxHeldBytes) {
    if (held_.size() == kHeld) held_.erase(held_.begin());
    held_.push_back(shared);
  }
  return shared;
}

}  // namespace tw
