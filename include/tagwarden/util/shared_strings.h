#pragma once
// A list of strings that never changes once made, and that copies share: an object's column names
// and types, which every profile's PolicySet and every compile of an unchanged object hold.
//
// The list either owns its strings or views one string field of each element of a list it keeps
// alive (an object's Columns: their names, their types). Viewing, the names and types of a million
// columns cost nothing beyond the columns themselves; as copies they held 65 MB at L.

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace tw {

class SharedStrings {
 public:
  using value_type = std::string;
  using size_type = std::size_t;

  /// A random-access iterator over strings `stride` bytes apart.
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using iterator_concept = std::random_access_iterator_tag;
    using value_type = std::string;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::string*;
    using reference = const std::string&;

    const_iterator() = default;
    const_iterator(const char* at, std::size_t stride) : at_(at), stride_(stride) {}

    reference operator*() const { return *reinterpret_cast<pointer>(at_); }
    pointer operator->() const { return reinterpret_cast<pointer>(at_); }
    reference operator[](difference_type n) const { return *(*this + n); }
    const_iterator& operator++() {
      at_ += stride_;
      return *this;
    }
    const_iterator operator++(int) {
      auto old = *this;
      ++*this;
      return old;
    }
    const_iterator& operator--() {
      at_ -= stride_;
      return *this;
    }
    const_iterator operator--(int) {
      auto old = *this;
      --*this;
      return old;
    }
    const_iterator& operator+=(difference_type n) {
      at_ += n * static_cast<difference_type>(stride_);
      return *this;
    }
    const_iterator& operator-=(difference_type n) { return *this += -n; }
    friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
    friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
    friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return a.stride_ == 0 ? 0 : (a.at_ - b.at_) / static_cast<difference_type>(a.stride_);
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.at_ == b.at_; }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.at_ <=> b.at_; }

   private:
    const char* at_ = nullptr;
    std::size_t stride_ = 0;
  };

  SharedStrings() = default;
  explicit SharedStrings(std::vector<std::string> items) { own(std::move(items)); }
  SharedStrings(std::initializer_list<std::string> items) { own(std::vector<std::string>(items)); }

  /// The field `field` of each element of `items`, which `keeper` keeps alive and unchanged for as
  /// long as any copy of this list lives.
  template <class T>
  static SharedStrings view(std::shared_ptr<const void> keeper, const std::vector<T>& items, std::string T::*field) {
    SharedStrings s;
    if (items.empty()) return s;
    s.keeper_ = std::move(keeper);
    s.first_ = reinterpret_cast<const char*>(&(items.front().*field));
    s.stride_ = sizeof(T);
    s.size_ = items.size();
    return s;
  }

  const_iterator begin() const { return {first_, stride_}; }
  const_iterator end() const { return begin() + static_cast<std::ptrdiff_t>(size_); }
  size_type size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::string& operator[](size_type i) const { return begin()[static_cast<std::ptrdiff_t>(i)]; }
  std::vector<std::string> to_vector() const { return {begin(), end()}; }

  bool operator==(const SharedStrings& other) const {
    if (size_ != other.size_) return false;
    if (first_ == other.first_ && stride_ == other.stride_) return true;
    for (size_type i = 0; i < size_; ++i) {
      if ((*this)[i] != other[i]) return false;
    }
    return true;
  }

 private:
  void own(std::vector<std::string> items) {
    if (items.empty()) return;
    auto held = std::make_shared<const std::vector<std::string>>(std::move(items));
    first_ = reinterpret_cast<const char*>(held->data());
    stride_ = sizeof(std::string);
    size_ = held->size();
    keeper_ = std::move(held);
  }

  std::shared_ptr<const void> keeper_;
  const char* first_ = nullptr;
  std::size_t stride_ = sizeof(std::string);
  std::size_t size_ = 0;
};

}  // namespace tw
