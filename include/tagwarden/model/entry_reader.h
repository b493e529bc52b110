#pragma once
// Reads one mapping entry of a parsed document (JSON or YAML, see document.h)
// with its path, recording every problem (wrong type, missing or unknown key)
// instead of stopping at the first. Shared by the snapshot and the profiles config.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "tagwarden/model/json_value.h"
#include "tagwarden/model/load.h"

namespace tw {

/// "path[3]" / "path.key" helpers.
std::string index_path(const std::string& path, std::size_t i);
std::string key_path(const std::string& path, std::string_view key);

/// True when `name` can be quoted by every engine: non-empty, at most 256 bytes,
/// valid UTF-8, no control characters. Records an error naming `what` otherwise.
bool check_name(std::string_view name, const std::string& path, std::string_view what,
                std::vector<ValidationError>& errors);
/// The message check_name() records for `name`, or nullopt when it is a valid name.
std::optional<std::string> name_problem(std::string_view name, std::string_view what);
/// The offset of the first byte of `s` that does not start a well-formed UTF-8
/// sequence (RFC 3629: no overlong forms, surrogates or code points beyond
/// U+10FFFF), or nullopt when all of `s` is UTF-8. The decoder name_problem() uses.
std::optional<std::size_t> invalid_utf8_offset(std::string_view s);

/// Distinct names, most often few: searched linearly while few, hashed beyond.
class DistinctNames {
 public:
  /// False when `name` is already in the set.
  bool insert(std::string_view name);

 private:
  std::vector<std::string> few_;
  std::unordered_set<std::string> many_;
};

class EntryReader {
 public:
  /// Records "must be a mapping" or one error per unknown key.
  EntryReader(JsonValue value, std::string path, std::vector<ValidationError>& errors,
              std::initializer_list<std::string_view> allowed_keys);

  /// The entry at `index` of the list at `list_path`, which must outlive the
  /// reader: its path, list_path[index], is built only when asked for.
  EntryReader(JsonValue value, std::string_view list_path, std::size_t index, std::vector<ValidationError>& errors,
              std::initializer_list<std::string_view> allowed_keys);

  bool is_mapping() const { return value_.is_object(); }
  const std::string& path() const;
  std::string path(std::string_view key) const { return key_path(path(), key); }
  bool has(std::string_view key) const;
  /// The key is given, with the value null (YAML `key: null` or `key: ~`, JSON `"key": null`).
  bool is_null(std::string_view key) const;
  /// check_name() for `name`, read at key; the path is built only for an error.
  bool valid_name(std::string_view key, std::string_view name, std::string_view what);

  std::optional<std::string> string(std::string_view key, bool required);
  std::optional<bool> boolean(std::string_view key);
  std::optional<std::int64_t> integer(std::string_view key);
  /// The list at key, or nullopt (error recorded when required or mistyped).
  std::optional<JsonValue> array(std::string_view key, bool required);
  /// The mapping at key, or nullopt (error recorded when required or mistyped).
  std::optional<JsonValue> mapping(std::string_view key, bool required);
  /// An array of strings; duplicates and non-strings are errors; names checked.
  std::vector<std::string> string_list(std::string_view key, std::string_view what);

  JsonValue raw() const { return value_; }
  std::vector<ValidationError>& errors() { return errors_; }
  void error(const std::string& path, std::string message) { errors_.push_back({path, std::move(message)}); }

 private:
  std::optional<JsonValue> get(std::string_view key, bool required, const char* expected);
  void check_keys(std::initializer_list<std::string_view> allowed_keys);
  JsonValue value_;
  mutable std::string path_;
  std::string_view list_path_;  // with index_, while path_ is not built
  std::size_t index_ = 0;
  mutable bool path_built_ = true;
  std::vector<ValidationError>& errors_;
};

}  // namespace tw
