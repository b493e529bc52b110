#pragma once
// A list of strings that never changes once made, and that copies share: an object's column names
// and types, which every profile's PolicySet and every compile of an unchanged object hold.

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace tw {

class SharedStrings {
 public:
  using value_type = std::string;
  using const_iterator = std::vector<std::string>::const_iterator;
  using size_type = std::vector<std::string>::size_type;

  SharedStrings() = default;
  explicit SharedStrings(std::vector<std::string> items)
      : list_(std::make_shared<const std::vector<std::string>>(std::move(items))) {}
  SharedStrings(std::initializer_list<std::string> items)
      : list_(std::make_shared<const std::vector<std::string>>(items)) {}

  const std::vector<std::string>& list() const { return list_ ? *list_ : empty_list(); }
  const_iterator begin() const { return list().begin(); }
  const_iterator end() const { return list().end(); }
  size_type size() const { return list().size(); }
  bool empty() const { return list().empty(); }
  const std::string& operator[](size_type i) const { return list()[i]; }

  bool operator==(const SharedStrings& other) const { return list_ == other.list_ || list() == other.list(); }

 private:
  static const std::vector<std::string>& empty_list() {
    static const std::vector<std::string> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<std::string>> list_;
};

}  // namespace tw
