#pragma once
// SHA-256 of a text that mostly begins as the last one did: a profile's rules document, which a
// tag change alters from some object on, not from its first byte. The state of the hash every
// `stride` bytes into the last text is kept; the next text is hashed from the last state before
// the first byte where it differs from the last text, found by comparing the bytes (never by
// trusting what the renderer says it changed). Hashing the whole 33 MB document was a third of
// a render at M.

#include <cstddef>
#include <memory>
#include <string>

namespace tw {

class ResumedSha256 {
 public:
  /// Texts larger than this are not kept: the last text is held only while something else
  /// holds it too (the documents' TextRecycler keeps texts up to the same size).
  static constexpr std::size_t kMaxHeldBytes = std::size_t{256} << 20;

  explicit ResumedSha256(std::size_t stride = std::size_t{1} << 20);
  ~ResumedSha256();
  ResumedSha256(const ResumedSha256&) = delete;
  ResumedSha256& operator=(const ResumedSha256&) = delete;
  ResumedSha256(ResumedSha256&&) noexcept;
  ResumedSha256& operator=(ResumedSha256&&) noexcept;

  /// The 32 bytes of SHA-256(*text), as sha256() gives them. Call from one thread at a time.
  std::string digest(std::shared_ptr<const std::string> text);

  /// Bytes hashed by the last call (for tests and figures).
  std::size_t last_hashed_bytes() const { return last_hashed_; }

 private:
  struct States;
  std::size_t stride_;
  std::unique_ptr<States> states_;
  std::shared_ptr<const std::string> last_;
  std::size_t last_hashed_ = 0;
};

}  // namespace tw
