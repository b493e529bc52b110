#include <algorithm>
#include <atomic>

#include "tagwarden/model/snapshot.h"
#include "tagwarden/util/text.h"

namespace tw {

namespace {

const SharedStrings& no_strings() {
  static const SharedStrings empty;
  return empty;
}

}  // namespace

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

// One field of every column, as a list made once (`once`) into `out`, a member of the shared list.
const SharedStrings& Columns::field_list(std::string Column::*field, std::once_flag& once, SharedStrings& out) const {
  Shared& s = *list_;
  std::call_once(once, [&s, field, &out] {
    std::vector<std::string> values;
    values.reserve(s.columns.size());
    for (const Column& c : s.columns) values.push_back(c.*field);
    out = SharedStrings(std::move(values));
    s.derived.store(true, std::memory_order_relaxed);
  });
  return out;
}

const SharedStrings& Columns::names() const {
  return list_ ? field_list(&Column::name, list_->names_once, list_->names) : no_strings();
}

const SharedStrings& Columns::lowercase_names() const {
  if (!list_) return no_strings();
  Shared& s = *list_;
  std::call_once(s.lowercase_once, [this, &s] {
    std::vector<std::string> lower;
    lower.reserve(s.columns.size());
    bool same = true;
    for (const Column& c : s.columns) {
      lower.push_back(lowercase_identifier(c.name));
      same = same && lower.back() == c.name;
    }
    // Names are mostly lowercase already: then the two lists are one.
    s.lowercase_names = same ? names() : SharedStrings(std::move(lower));
    s.derived.store(true, std::memory_order_relaxed);
  });
  return s.lowercase_names;
}

const SharedStrings& Columns::types() const {
  return list_ ? field_list(&Column::type, list_->types_once, list_->types) : no_strings();
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
