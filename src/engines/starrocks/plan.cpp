// The small value types of plan.h: names of enums, Securable, capabilities and a plan's lookups.

#include <algorithm>

#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

const char* to_string(Dialect d) { return d == Dialect::StarRocks ? "starrocks" : "mysql"; }

std::optional<Dialect> parse_dialect(std::string_view text) {
  if (text == "starrocks") return Dialect::StarRocks;
  if (text == "mysql" || text == "mariadb") return Dialect::MySQL;
  return std::nullopt;
}

const char* to_string(Phase p) {
  switch (p) {
    case Phase::Prepare:
      return "prepare";
    case Phase::Tighten:
      return "tighten";
    case Phase::Widen:
      return "widen";
    case Phase::Cleanup:
      return "cleanup";
  }
  return "?";
}

std::string Securable::str() const {
  if (kind == Kind::AsRead) return name;
  std::string out = catalog;
  if (!database.empty()) out += "." + database;
  if (!name.empty()) out += "." + name;
  return out;
}

Capabilities compile_time_capabilities(std::string_view masking) {
  const bool on = masking == "on";
  return {on, on};
}

const Plan::Holding* Plan::holding(const std::string& user, const Securable& object) const {
  auto o = access.find(object);
  if (o == access.end()) return nullptr;
  for (std::size_t i = 0; i < user_names.size(); ++i) {
    if (user_names[i] != user) continue;
    for (const auto& h : o->second) {
      if (h.users->contains(i)) return &h;
    }
  }
  return nullptr;
}

std::map<std::string, std::map<Securable, std::set<std::string>>> Plan::intended() const {
  std::map<std::string, std::map<Securable, std::set<std::string>>> out;
  for (const auto& [object, holdings] : access) {
    for (const auto& h : holdings) {
      if (h.privileges->empty()) continue;
      for (auto u : *h.users) out[user_names[u]][object] = *h.privileges;
    }
  }
  return out;
}

}  // namespace tw::starrocks
