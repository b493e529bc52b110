#pragma once
// The governance snapshot as validated plain values (MODEL.md section 1).
// Built only by load_snapshot(), which refuses anything invalid, so every name
// a value references is known to exist.

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tagwarden/model/policy.h"
#include "tagwarden/model/privilege.h"
#include "tagwarden/model/timestamp.h"
#include "tagwarden/util/shared_strings.h"

namespace tw {

struct User {
  std::string name;
  std::optional<std::string> engine_user;
  bool platform_admin = false;
  std::vector<std::string> groups;
  nlohmann::json attributes = nlohmann::json::object();
  bool operator==(const User&) const = default;
};

struct RoleAssignment {
  std::string role;
  std::optional<std::string> user;  ///< exactly one of user / group is set
  std::optional<std::string> group;
  std::optional<Timestamp> expires_at;
  bool operator==(const RoleAssignment&) const = default;
};

struct ClearanceRow {
  enum class Type { Role, Group };
  Type type = Type::Role;
  std::string name;
  bool operator==(const ClearanceRow&) const = default;
};

struct Classification {
  std::string name;
  std::optional<int> level;
  std::vector<ClearanceRow> clearance;  ///< any-of; empty = labels only
  bool operator==(const Classification&) const = default;
};

struct Column {
  std::string name;
  std::string type;
  std::vector<std::string> tags;
  bool operator==(const Column&) const = default;
};

/// An object's columns, a value whose copies share one list until one of them is changed. The
/// incremental loader copies every unchanged object of the last snapshot into the next one, and
/// copying their columns (100,000 at M) was most of that. Columns are read only, once read: the
/// only changes are appending while an object is read, which copy a shared list first. (No
/// accessor hands out a reference to change, so no such reference can outlive a copy.)
class Columns {
 public:
  using value_type = Column;
  using const_iterator = std::vector<Column>::const_iterator;
  using size_type = std::vector<Column>::size_type;

  Columns() = default;
  Columns(std::initializer_list<Column> columns);

  const std::vector<Column>& list() const { return list_ ? list_->columns : empty_list(); }
  const_iterator begin() const { return list().begin(); }
  const_iterator end() const { return list().end(); }
  size_type size() const { return list().size(); }
  bool empty() const { return list().empty(); }
  const Column& operator[](size_type i) const { return list()[i]; }
  const Column& at(size_type i) const { return list().at(i); }
  const Column& front() const { return list().front(); }
  const Column& back() const { return list().back(); }

  void push_back(Column c) { own().push_back(std::move(c)); }
  void reserve(size_type n) { own().reserve(n); }

  bool operator==(const Columns& other) const { return list() == other.list(); }

  /// The columns' names; the same lowercased as Trino lowercases identifiers (lowercase_identifier);
  /// their types. Names and types are views of the list, which they keep alive (and so unchanged:
  /// push_back copies a list something else holds). Lowercased names that differ are made once per
  /// list, on first use from any thread, and shared by every copy and every PolicySet that takes
  /// them: an unchanged object keeps its list from one snapshot to the next, so a compile takes them
  /// instead of making them again (a tenth of a compile at M).
  SharedStrings names() const;
  SharedStrings lowercase_names() const;
  SharedStrings types() const;
  /// Whether any name has a code point whose lowercase depends on the text around it
  /// (has_context_dependent_lowercase), worked out once per list like the lists above.
  bool any_context_dependent_name() const;

 private:
  struct Shared {
    std::vector<Column> columns;
    std::once_flag lowercase_once, context_once;
    SharedStrings lowercase_names;  ///< empty when every name is lowercase already
    bool context_dependent = false;
    std::atomic<bool> derived{
        false};  ///< lowercase names or the context flag made: the list is no longer changed in place
  };
  static const std::vector<Column>& empty_list();
  /// The list, made this value's own first when another copy shares it.
  std::vector<Column>& own();
  std::shared_ptr<Shared> list_;
};

enum class ObjectKind { Table, View, MaterializedView };
enum class ViewSecurity { Definer, Invoker };

/// catalog.schema.object, always three non-empty parts.
struct QualifiedName {
  std::string catalog;
  std::string schema;
  std::string table;
  std::string str() const { return catalog + "." + schema + "." + table; }
  auto operator<=>(const QualifiedName&) const = default;
};

struct Object {
  QualifiedName name;
  ObjectKind kind = ObjectKind::Table;
  std::optional<std::string> owner;
  std::optional<std::string> domain;
  std::optional<ViewSecurity> view_security;
  std::vector<std::string> depends_on;
  std::vector<std::string> tags;
  Columns columns;
  bool operator==(const Object&) const = default;
};

/// A grant's object: each part a name or "*".
struct GrantPattern {
  std::string catalog;
  std::string schema;
  std::string table;
  bool matches(const QualifiedName& n) const {
    return (catalog == "*" || catalog == n.catalog) && (schema == "*" || schema == n.schema) &&
           (table == "*" || table == n.table);
  }
  std::string str() const { return catalog + "." + schema + "." + table; }
  auto operator<=>(const GrantPattern&) const = default;
};

struct Principal {
  enum class Kind { Role, User };
  Kind kind = Kind::Role;
  std::string name;
  bool operator==(const Principal&) const = default;
};

struct Grant {
  Principal principal;
  GrantPattern object;
  PrivilegeSet privileges;
  bool operator==(const Grant&) const = default;
};

struct Snapshot {
  int version = 1;
  Timestamp generated_at;
  std::vector<User> users;
  std::vector<std::string> roles;
  std::vector<RoleAssignment> role_assignments;
  std::vector<Classification> classifications;
  std::vector<Object> objects;
  std::vector<Grant> grants;
  std::vector<Policy> policies;
  /// Per object, when SnapshotLoader read the snapshot from JSON: object_content_digest() of it.
  /// Memo keys use it in place of hashing the object's content again, and an entry read
  /// unchanged keeps it from the last snapshot. Empty otherwise (YAML, parse_snapshot()).
  std::vector<std::string> object_entry_digests;
};

const char* to_string(ObjectKind kind);

}  // namespace tw
