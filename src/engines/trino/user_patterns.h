#pragma once
// User alternations for Trino rules, and what a render leaves for the next render
// of the same profile (RenderCache::State). At scale the alternations are most of
// the document and most of the work, so each is computed once per user list and
// kept, with its hash, as the JSON string literal that is written.

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "tagwarden/compile/policy_set.h"
#include "tagwarden/engines/trino/rules.h"

namespace tw::trino {

struct Literal {
  explicit Literal(std::string text);
  std::string json;  ///< a JSON string literal, quotes included
  std::size_t hash;  ///< of json, so that equal literals are found without reading them again
};
using LiteralPtr = std::shared_ptr<const Literal>;

/// `text` as nlohmann's dump writes a JSON string (UTF-8 kept, control characters escaped).
std::string json_string(std::string_view text);

/// Text written as is, then a user alternation (none when literal is nullptr).
struct TextPiece {
  std::string text;
  LiteralPtr literal;
};

/// One rule of a listed object, without its names or user field.
struct PendingRule {
  nlohmann::json rule;
  std::string body;  ///< rule, dumped: objects of one schema with the same rules share one block
  LiteralPtr user;   ///< nullptr: the rule names nobody, so it matches every user
};

/// What one listed object renders to, before its table name is known.
struct ObjectRules {
  bool covered = false;     ///< the rules for unlisted names already give it, so it has none of its own
  bool open_ended = false;  ///< the last rule names nobody, so no deny follows it
  std::vector<PendingRule> rules;
};

/// Everything a render reads of one access class.
struct ClassInput {
  UserListPtr users;  ///< held: its address names the list
  PrivilegeSet granted;
  Access access;
  bool matches(const AccessClass& cls) const {
    return users.get() == cls.users.get() && granted == cls.granted && access == cls.access;
  }
};

/// A non-empty set of users, as the ranks of their engine names in byte order or as a bitmap
/// of every rank, whichever is shorter: equal sets give equal keys. An alternation is a
/// function of its users' set, so one made for some lists serves any lists of the same users.
struct UserSet {
  bool bitmap = false;
  std::vector<std::uint32_t> data;  ///< ranks ascending, or the bitmap's words in halves
  std::size_t hash = 0;
  bool operator==(const UserSet& other) const { return bitmap == other.bitmap && data == other.data; }
};
using UserSetPtr = std::shared_ptr<const UserSet>;
struct UserSetByContent {
  std::size_t operator()(const UserSetPtr& s) const { return s->hash; }
  bool operator()(const UserSetPtr& a, const UserSetPtr& b) const { return *a == *b; }
};
using LiteralsByUsers = std::unordered_map<UserSetPtr, LiteralPtr, UserSetByContent, UserSetByContent>;

// Every entry is taken only when what it was made from is provably the same: the same
// engine users (or the state is not used at all), user lists at the same addresses (held
// here, so an address cannot be reused by another list) or the same set of users, and
// equal values otherwise.
struct RenderCache::State {
  struct Alternation {
    std::vector<UserListPtr> lists;
    LiteralPtr literal;  ///< nullptr: nobody
    UserSetPtr users;    ///< nullptr: nobody
  };
  using AlternationKey = std::pair<int, std::vector<const void*>>;  ///< (kind, sorted list addresses)
  struct Object {
    std::vector<ClassInput> inputs;
    ObjectRules rules;
  };
  /// Rules, one per line, joined as the document joins them; they hold the literals their key names.
  struct Text {
    std::vector<TextPiece> pieces;
    std::size_t rules = 0;
  };
  struct UnlistedText {
    UnlistedRule rule;  ///< what the lines were made from (its lists shared, not copied)
    std::string lines;
    std::size_t rules = 0;
  };

  std::vector<std::string> users;  ///< the engine names everything here was written for
  std::map<AlternationKey, Alternation> alternations;
  /// The same literals by their users: lists made anew (a membership change re-decides
  /// objects, whose lists then have new addresses) mostly hold users an alternation was
  /// already written for.
  LiteralsByUsers by_users;
  UnlistedRules unlisted;  ///< objects' coverage was judged against these (ObjectRules::covered)
  std::map<QualifiedName, Object> objects;
  std::unordered_map<std::string, Text> blocks;  ///< by catalog, schema, tables and rules
  std::map<QualifiedName, UnlistedText> unlisted_texts;
  std::string known_users;  ///< the alternation of every user
};

/// User alternations of one render. With a previous state (written for the same users),
/// alternations of user lists it holds are taken as they were; `next` records what this
/// render used. Equal literals get the same id, however they were made.
class UserPatterns {
 public:
  UserPatterns(const PolicySet& ps, const RenderCache::State* previous, RenderCache::State* next);

  /// The users of these classes.
  LiteralPtr of(const std::vector<const AccessClass*>& classes);
  /// Every known user outside the given classes; nullptr when there is none.
  LiteralPtr complement(const std::vector<const AccessClass*>& classes);
  /// These users (indices into the PolicySet's users, at least one), made anew: not kept.
  LiteralPtr literal_of_users(const std::vector<std::size_t>& users) const;
  /// The same number for equal literals in this render; kNobody for nullptr. The literal's
  /// address is recorded, so it must live as long as this object (literals of the previous
  /// state and of reused objects do); a literal made during the render goes through adopt().
  std::size_t id(const LiteralPtr& literal);
  /// The literal this render uses for every literal equal to this one.
  const LiteralPtr& canonical(const LiteralPtr& literal);

  /// The length the names of these classes add to an alternation.
  std::size_t bytes(const std::vector<const AccessClass*>& classes);
  std::size_t all_bytes() const { return all_bytes_; }

  static constexpr std::size_t kNobody = static_cast<std::size_t>(-1);

 private:
  LiteralPtr pattern(int kind, const std::vector<const AccessClass*>& classes);
  /// The literal of a non-empty set of users: one this render or the last wrote for the same
  /// users, else made.
  LiteralPtr literal_for(const UserSetPtr& users, const std::vector<std::uint64_t>& ranks);
  /// A literal made by this render: the one already known with the same content, else this one.
  LiteralPtr adopt(LiteralPtr literal);
  std::vector<std::uint64_t> marked_ranks(const std::vector<const AccessClass*>& classes) const;
  template <typename Users>
  void mark(std::vector<std::uint64_t>& ranks, const Users& users) const {
    for (std::size_t u : users) {
      const std::size_t r = rank_[u];
      ranks[r / 64] |= std::uint64_t{1} << (r % 64);
    }
  }
  std::vector<std::string_view> names_in_order(const std::vector<std::uint64_t>& ranks) const;

  struct ByContent {
    std::size_t operator()(const Literal* l) const { return l->hash; }
    bool operator()(const Literal* a, const Literal* b) const { return a->hash == b->hash && a->json == b->json; }
  };

  const PolicySet& ps_;
  const RenderCache::State* previous_;
  RenderCache::State* next_;
  std::size_t all_bytes_ = 0;
  std::vector<std::size_t> rank_;   ///< each user's position in byte order of engine names
  std::vector<std::size_t> order_;  ///< the users in that order
  /// Per rank: the first rank of the same engine name (two platform users may map to one
  /// engine user), so repeats are found without comparing names.
  std::vector<std::size_t> same_name_;
  std::map<RenderCache::State::AlternationKey, LiteralPtr> made_;
  /// This render's literals by their users: the next state's when there is one (it keeps just
  /// those), else a map of this render's own.
  LiteralsByUsers& made_by_users() { return next_ ? next_->by_users : by_users_; }
  LiteralsByUsers by_users_;
  std::vector<LiteralPtr> literals_;  ///< by id
  std::unordered_map<const Literal*, std::size_t> by_address_;
  std::unordered_map<const Literal*, std::size_t, ByContent, ByContent> by_content_;
  std::unordered_map<const void*, std::size_t> bytes_;
};

}  // namespace tw::trino
