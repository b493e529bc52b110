#pragma once
// Table privileges as a small value set; the order of kAllPrivileges is the
// order in which they are printed everywhere.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

enum class Privilege : std::uint8_t { Select = 1, Insert = 2, Update = 4, Delete = 8, Ownership = 16 };

inline constexpr std::array<Privilege, 5> kAllPrivileges = {Privilege::Select, Privilege::Insert, Privilege::Update,
                                                            Privilege::Delete, Privilege::Ownership};

std::string_view to_string(Privilege p);
std::optional<Privilege> parse_privilege(std::string_view s);

class PrivilegeSet {
 public:
  constexpr PrivilegeSet() = default;
  constexpr explicit PrivilegeSet(std::uint8_t bits) : bits_(bits) {}
  static constexpr PrivilegeSet writes() {
    return PrivilegeSet(static_cast<std::uint8_t>(Privilege::Insert) | static_cast<std::uint8_t>(Privilege::Update) |
                        static_cast<std::uint8_t>(Privilege::Delete) | static_cast<std::uint8_t>(Privilege::Ownership));
  }
  constexpr bool has(Privilege p) const { return bits_ & static_cast<std::uint8_t>(p); }
  constexpr void add(Privilege p) { bits_ |= static_cast<std::uint8_t>(p); }
  constexpr void remove(Privilege p) { bits_ &= static_cast<std::uint8_t>(~static_cast<std::uint8_t>(p)); }
  constexpr void add(PrivilegeSet o) { bits_ |= o.bits_; }
  constexpr void remove(PrivilegeSet o) { bits_ &= static_cast<std::uint8_t>(~o.bits_); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr std::uint8_t bits() const { return bits_; }
  /// Names in kAllPrivileges order.
  std::vector<std::string> names() const;
  auto operator<=>(const PrivilegeSet&) const = default;

 private:
  std::uint8_t bits_ = 0;
};

}  // namespace tw
