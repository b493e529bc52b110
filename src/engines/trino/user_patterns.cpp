#include "user_patterns.h"

#include "tagwarden/util/bit_count.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>

namespace tw::trino {

Literal::Literal(std::string text) : json(std::move(text)), hash(std::hash<std::string>{}(json)) {}

RenderCache::RenderCache() = default;
RenderCache::~RenderCache() = default;

namespace {

constexpr int kOf = 0;
constexpr int kComplement = 1;

LiteralPtr literal_of(const std::string& regex) { return std::make_shared<const Literal>(json_string(regex)); }

}  // namespace

// Written here for printable ASCII, where only a quote and a backslash are escaped: at scale
// alternations are hundreds of megabytes, and the library's escaper, which decodes UTF-8 byte
// by byte, was a twentieth of a render.
std::string json_string(std::string_view text) {
  const bool printable = std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
  if (!printable) {
    return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  }
  std::string json;
  json.reserve(text.size() + text.size() / 2 + 2);
  json += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') json += '\\';
    json += c;
  }
  json += '"';
  return json;
}

namespace {

// Nullptr for no user.
UserSetPtr user_set_of(const std::vector<std::uint64_t>& ranks) {
  const std::size_t count = count_bits(ranks);
  if (count == 0) return nullptr;
  auto set = std::make_shared<UserSet>();
  set->bitmap = count > ranks.size() * 2;  // a rank takes half a word
  if (set->bitmap) {
    set->data.reserve(ranks.size() * 2);
    for (auto word : ranks) {
      set->data.push_back(static_cast<std::uint32_t>(word));
      set->data.push_back(static_cast<std::uint32_t>(word >> 32));
    }
  } else {
    set->data.reserve(count);
    for (std::size_t w = 0; w < ranks.size(); ++w) {
      for (std::uint64_t bits = ranks[w]; bits; bits &= bits - 1)
        set->data.push_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
    }
  }
  const std::string_view bytes(reinterpret_cast<const char*>(set->data.data()),
                               set->data.size() * sizeof(std::uint32_t));
  set->hash = std::hash<std::string_view>{}(bytes) ^ static_cast<std::size_t>(set->bitmap);
  return set;
}

// Classes of one object hold disjoint user lists, so the set of lists names the users.
std::vector<const void*> lists(const std::vector<const AccessClass*>& classes) {
  std::vector<const void*> key;
  key.reserve(classes.size());
  for (const auto* cls : classes) key.push_back(cls->users.get());
  std::sort(key.begin(), key.end());
  return key;
}

}  // namespace

UserPatterns::UserPatterns(const PolicySet& ps, const RenderCache::State* previous, RenderCache::State* next)
    : ps_(ps), previous_(previous), next_(next), rank_(ps.users.size()), order_(ps.users.size()) {
  for (const auto& u : ps.users) all_bytes_ += u.engine_name.size() + 1;
  for (std::size_t u = 0; u < order_.size(); ++u) order_[u] = u;
  std::stable_sort(order_.begin(), order_.end(),
                   [&](std::size_t a, std::size_t b) { return ps.users[a].engine_name < ps.users[b].engine_name; });
  for (std::size_t i = 0; i < order_.size(); ++i) rank_[order_[i]] = i;
  same_name_.resize(order_.size());
  for (std::size_t i = 0; i < order_.size(); ++i) {
    const bool repeat = i > 0 && ps.users[order_[i]].engine_name == ps.users[order_[i - 1]].engine_name;
    same_name_[i] = repeat ? same_name_[i - 1] : i;
  }
}

LiteralPtr UserPatterns::of(const std::vector<const AccessClass*>& classes) { return pattern(kOf, classes); }

LiteralPtr UserPatterns::complement(const std::vector<const AccessClass*>& classes) {
  return pattern(kComplement, classes);
}

std::size_t UserPatterns::id(const LiteralPtr& literal) {
  if (!literal) return kNobody;
  if (auto it = by_address_.find(literal.get()); it != by_address_.end()) return it->second;
  auto [it, fresh] = by_content_.try_emplace(literal.get(), literals_.size());
  if (fresh) literals_.push_back(literal);
  by_address_.emplace(literal.get(), it->second);
  return it->second;
}

LiteralPtr UserPatterns::adopt(LiteralPtr literal) {
  auto [it, fresh] = by_content_.try_emplace(literal.get(), literals_.size());
  if (!fresh) return literals_[it->second];  // the new copy dies here, unrecorded
  literals_.push_back(literal);
  by_address_.emplace(literal.get(), it->second);
  return literal;
}

const LiteralPtr& UserPatterns::canonical(const LiteralPtr& literal) {
  static const LiteralPtr nobody;
  const std::size_t i = id(literal);
  return i == kNobody ? nobody : literals_[i];
}

std::size_t UserPatterns::bytes(const std::vector<const AccessClass*>& classes) {
  std::size_t n = 0;
  for (const auto* cls : classes) {
    auto [it, fresh] = bytes_.try_emplace(cls->users.get(), 0);
    if (fresh) {
      for (std::size_t u : *cls->users) it->second += ps_.users[u].engine_name.size() + 1;
    }
    n += it->second;
  }
  return n;
}

LiteralPtr UserPatterns::pattern(int kind, const std::vector<const AccessClass*>& classes) {
  RenderCache::State::AlternationKey key{kind, lists(classes)};
  if (auto it = made_.find(key); it != made_.end()) return it->second;
  LiteralPtr literal;
  UserSetPtr users;
  const RenderCache::State::Alternation* before = nullptr;
  if (previous_) {
    if (auto it = previous_->alternations.find(key); it != previous_->alternations.end()) before = &it->second;
  }
  if (before) {
    literal = canonical(before->literal);
    users = before->users;
  } else {
    std::vector<std::uint64_t> ranks = marked_ranks(classes);
    if (kind == kComplement) {
      const std::size_t n = ps_.users.size();
      for (auto& word : ranks) word = ~word;
      if (n % 64) ranks.back() &= (std::uint64_t{1} << (n % 64)) - 1;  // no rank past the last user
    }
    users = user_set_of(ranks);
    if (users) {
      literal = literal_for(users, ranks);
    } else if (kind == kOf) {
      literal = adopt(literal_of(exact_alternation_sorted({})));
    }  // else nobody is outside the classes: no literal
  }
  if (users) made_by_users().emplace(users, literal);
  if (next_) {
    RenderCache::State::Alternation entry{{}, literal, users};
    for (const auto* cls : classes) entry.lists.push_back(cls->users);
    next_->alternations.emplace(key, std::move(entry));
  }
  made_.emplace(std::move(key), literal);
  return literal;
}

LiteralPtr UserPatterns::literal_for(const UserSetPtr& users, const std::vector<std::uint64_t>& ranks) {
  if (auto it = made_by_users().find(users); it != made_by_users().end()) return it->second;
  if (previous_) {
    if (auto it = previous_->by_users.find(users); it != previous_->by_users.end()) return canonical(it->second);
  }
  return adopt(literal_of(exact_alternation_sorted(names_in_order(ranks))));
}

// A bit per user's rank: walking the bits gives the users in byte order of their names
// without sorting (a sort of each list was a tenth of a large render).
std::vector<std::uint64_t> UserPatterns::marked_ranks(const std::vector<const AccessClass*>& classes) const {
  std::vector<std::uint64_t> ranks((ps_.users.size() + 63) / 64, 0);
  for (const auto* cls : classes) mark(ranks, *cls->users);
  return ranks;
}

LiteralPtr UserPatterns::literal_of_users(const std::vector<std::size_t>& users) const {
  std::vector<std::uint64_t> ranks((ps_.users.size() + 63) / 64, 0);
  mark(ranks, users);
  return literal_of(exact_alternation_sorted(names_in_order(ranks)));
}

// Engine names in byte order without repeats (two platform users may map to one engine user).
std::vector<std::string_view> UserPatterns::names_in_order(const std::vector<std::uint64_t>& ranks) const {
  const std::size_t count = count_bits(ranks);
  std::vector<std::string_view> out;
  out.reserve(count);
  std::size_t last = kNobody;  // same_name_ of the last name written
  for (std::size_t w = 0; w < ranks.size(); ++w) {
    for (std::uint64_t bits = ranks[w]; bits; bits &= bits - 1) {
      const std::size_t r = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      if (same_name_[r] == last) continue;
      last = same_name_[r];
      out.push_back(ps_.users[order_[r]].engine_name);
    }
  }
  return out;
}

}  // namespace tw::trino
