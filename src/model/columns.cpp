#include <algorithm>
#include <atomic>

#include "tagwarden/model/snapshot.h"
#include "tagwarden/util/text.h"

namespace tw {

Columns::Columns(std::initializer_list<Column> columns) : list_(std::make_shared<Shared>()) {
  list_->columns = columns;
}

const std::vector<Column>& Columns::empty_list() {
  static const std::vector<Column> empty;
  return empty;
}

std::vector<Column>& Columns::own() {
  if (!list_) {
    list_ = std::make_shared<Shared>();
  } else if (list_.use_count() != 1) {
    auto copy = std::make_shared<Shared>();
    copy->columns = list_->columns;
    list_ = std::move(copy);
  } else {
    // Every other copy let go with a release decrement: what they read comes before what we write.
    std::atomic_thread_fence(std::memory_order_acquire);
    if (list_->derived.load(std::memory_order_relaxed)) {
      // Names or types were made from the list as it is: a changed list starts without them.
      auto fresh = std::make_shared<Shared>();
      fresh->columns = std::move(list_->columns);
      list_ = std::move(fresh);
    }
  }
  return list_->columns;
}

SharedStrings Columns::names() const {
  return list_ ? SharedStrings::view(list_, list_->columns, &Column::name) : SharedStrings();
}

SharedStrings Columns::lowercase_names() const {
  if (!list_) return {};
  Shared& s = *list_;
  std::call_once(s.lowercase_once, [&s] {
    std::vector<std::string> lower;
    bool same = true;
    for (std::size_t i = 0; i < s.columns.size(); ++i) {
      std::string l = lowercase_identifier(s.columns[i].name);
      if (same && l == s.columns[i].name) continue;
      if (same) {
        // The first name that changes: the ones before it were lowercase already.
        lower.reserve(s.columns.size());
        for (std::size_t j = 0; j < i; ++j) lower.push_back(s.columns[j].name);
        same = false;
      }
      lower.push_back(std::move(l));
    }
    // Names are mostly lowercase already: then the names are their own lowercase list.
    if (!same) s.lowercase_names = SharedStrings(std::move(lower));
    s.derived.store(true, std::memory_order_relaxed);
  });
  return s.lowercase_names.empty() ? names() : s.lowercase_names;
}

SharedStrings Columns::types() const {
  return list_ ? SharedStrings::view(list_, list_->columns, &Column::type) : SharedStrings();
}

bool Columns::any_context_dependent_name() const {
  if (!list_) return false;
  Shared& s = *list_;
  std::call_once(s.context_once, [&s] {
    s.context_dependent = std::any_of(s.columns.begin(), s.columns.end(),
                                      [](const Column& c) { return has_context_dependent_lowercase(c.name); });
    s.derived.store(true, std::memory_order_relaxed);
  });
  return s.context_dependent;
}

}  // namespace tw
