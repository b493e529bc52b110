#pragma once
// Whether a fetched snapshot is the one fetched last, byte for byte. The bytes themselves are kept
// and compared: exact, and a thirtieth of the cost of hashing them (SHA-256 of the 6.5 MB snapshot
// at M was 3 ms of every webhook's pass, on the way to serving; comparing is 0.1 ms). The copy
// reuses its buffer from one fetch to the next.

#include <string>

namespace tw {

class LastContent {
 public:
  /// True when `body` is the body remembered last; otherwise remembers it and returns false.
  bool same_as_last(const std::string& body) {
    if (known_ && body == last_) return true;
    last_.assign(body);
    known_ = true;
    return false;
  }
  /// Nothing is remembered: the next body is new.
  void forget() {
    known_ = false;
    last_.clear();
  }

 private:
  bool known_ = false;
  std::string last_;
};

}  // namespace tw
