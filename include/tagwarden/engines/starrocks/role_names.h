#pragma once
// The owned roles a role inherits: a sorted set of names whose strings its copies and other sets
// may share. At L a StarRocks plan's atom roles inherit 1.2 million times, from a few thousand
// holder roles; as a std::set<std::string> each inheritance held its own node and name (96 bytes,
// 115 MB). Here each is one shared pointer to its holder role's name.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace tw::starrocks {

class RoleNames {
  using Name = std::shared_ptr<const std::string>;
  using Names = std::vector<Name>;

 public:
  using value_type = std::string;
  using size_type = std::size_t;

  /// Iterates the names in order, as const std::string&.
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::string;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::string*;
    using reference = const std::string&;

    const_iterator() = default;
    explicit const_iterator(Names::const_iterator at) : at_(at) {}
    reference operator*() const { return **at_; }
    pointer operator->() const { return at_->get(); }
    const_iterator& operator++() {
      ++at_;
      return *this;
    }
    const_iterator operator++(int) { return const_iterator(at_++); }
    const_iterator& operator--() {
      --at_;
      return *this;
    }
    const_iterator operator--(int) { return const_iterator(at_--); }
    const_iterator& operator+=(difference_type n) {
      at_ += n;
      return *this;
    }
    friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) { return a.at_ - b.at_; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.at_ == b.at_; }

   private:
    friend class RoleNames;
    Names::const_iterator at_;
  };

  RoleNames() = default;
  RoleNames(std::initializer_list<std::string> names) {
    for (const auto& n : names) insert(n);
  }

  const_iterator begin() const { return const_iterator(names_.begin()); }
  const_iterator end() const { return const_iterator(names_.end()); }
  size_type size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  void reserve(size_type n) { names_.reserve(n); }
  void clear() { names_.clear(); }

  /// Adds a name shared with whoever else holds it; cheapest in ascending order.
  bool insert(Name name) {
    if (names_.empty() || *names_.back() < *name) {
      names_.push_back(std::move(name));
      return true;
    }
    auto at = lower_bound(*name);
    if (at != names_.end() && **at == *name) return false;
    names_.insert(at, std::move(name));
    return true;
  }
  bool insert(const std::string& name) {
    if (contains(name)) return false;
    return insert(std::make_shared<const std::string>(name));
  }
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) insert(std::string(*first));
  }

  bool contains(const std::string& name) const {
    auto at = lower_bound(name);
    return at != names_.end() && **at == name;
  }
  size_type count(const std::string& name) const { return contains(name) ? 1 : 0; }
  const_iterator find(const std::string& name) const {
    auto at = lower_bound(name);
    return at != names_.end() && **at == name ? const_iterator(at) : end();
  }
  size_type erase(const std::string& name) {
    auto at = lower_bound(name);
    if (at == names_.end() || **at != name) return 0;
    names_.erase(at);
    return 1;
  }

  friend bool operator==(const RoleNames& a, const RoleNames& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  Names::const_iterator lower_bound(const std::string& name) const {
    return std::lower_bound(names_.begin(), names_.end(), name,
                            [](const Name& n, const std::string& s) { return *n < s; });
  }
  Names::iterator lower_bound(const std::string& name) {
    return std::lower_bound(names_.begin(), names_.end(), name,
                            [](const Name& n, const std::string& s) { return *n < s; });
  }

  Names names_;
};

}  // namespace tw::starrocks
