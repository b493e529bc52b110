#include "tagwarden/model/privilege.h"

namespace tw {

std::string_view to_string(Privilege p) {
  switch (p) {
    case Privilege::Select:
      return "SELECT";
    case Privilege::Insert:
      return "INSERT";
    case Privilege::Update:
      return "UPDATE";
    case Privilege::Delete:
      return "DELETE";
    case Privilege::Ownership:
      return "OWNERSHIP";
  }
  return "?";
}

std::optional<Privilege> parse_privilege(std::string_view s) {
  for (Privilege p : kAllPrivileges) {
    if (to_string(p) == s) return p;
  }
  return std::nullopt;
}

std::vector<std::string> PrivilegeSet::names() const {
  std::vector<std::string> out;
  for (Privilege p : kAllPrivileges) {
    if (has(p)) out.emplace_back(to_string(p));
  }
  return out;
}

}  // namespace tw
