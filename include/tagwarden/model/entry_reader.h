#pragma once
// Reads one mapping entry of a JSON document with its path, recording every
// problem (wrong type, missing or unknown key) instead of stopping at the first.
// Shared by the snapshot and the profiles config.

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/model/load.h"

namespace tw {

/// "path[3]" / "path.key" helpers.
std::string index_path(const std::string& path, std::size_t i);
std::string key_path(const std::string& path, std::string_view key);

/// True when `name` can be quoted by every engine: non-empty, at most 256 bytes,
/// valid UTF-8, no control characters. Records an error naming `what` otherwise.
bool check_name(const std::string& name, const std::string& path, std::string_view what,
                std::vector<ValidationError>& errors);

class EntryReader {
 public:
  /// Records "must be a mapping" or one error per unknown key.
  EntryReader(const nlohmann::json& value, std::string path, std::vector<ValidationError>& errors,
              std::initializer_list<std::string_view> allowed_keys);

  bool is_mapping() const { return value_.is_object(); }
  const std::string& path() const { return path_; }
  std::string path(std::string_view key) const { return key_path(path_, key); }
  bool has(std::string_view key) const;

  std::optional<std::string> string(std::string_view key, bool required);
  std::optional<bool> boolean(std::string_view key);
  std::optional<std::int64_t> integer(std::string_view key);
  /// The array at key, or nullptr (error recorded when required or mistyped).
  const nlohmann::json* array(std::string_view key, bool required);
  /// The mapping at key, or nullptr (error recorded when required or mistyped).
  const nlohmann::json* mapping(std::string_view key, bool required);
  /// An array of strings; duplicates and non-strings are errors; names checked.
  std::vector<std::string> string_list(std::string_view key, std::string_view what);

  const nlohmann::json& raw() const { return value_; }
  std::vector<ValidationError>& errors() { return errors_; }
  void error(const std::string& path, std::string message) { errors_.push_back({path, std::move(message)}); }

 private:
  const nlohmann::json* get(std::string_view key, bool required, const char* expected);
  const nlohmann::json& value_;
  std::string path_;
  std::vector<ValidationError>& errors_;
};

}  // namespace tw
