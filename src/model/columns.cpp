#include <atomic>

#include "tagwarden/model/snapshot.h"

namespace tw {

const std::vector<Column>& Columns::empty_list() {
  static const std::vector<Column> empty;
  return empty;
}

std::vector<Column>& Columns::own() {
  if (!list_) {
    list_ = std::make_shared<std::vector<Column>>();
  } else if (list_.use_count() != 1) {
    list_ = std::make_shared<std::vector<Column>>(*list_);
  } else {
    // Every other copy let go with a release decrement: what they read comes before what we write.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *list_;
}

}  // namespace tw
