#pragma once
// A read-only view of one value of a parsed document, over simdjson's DOM.
// JSON and YAML documents both end up here (document.h), so that one reader
// (EntryReader) validates both. A JsonValue is valid while its JsonDocument lives.

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

class JsonValue {
 public:
  struct Member;
  struct Indexed;
  class Array;
  class Object;

  explicit JsonValue(simdjson::dom::element element) : element_(element) {}

  bool is_null() const { return type() == Type::NULL_VALUE; }
  bool is_object() const { return type() == Type::OBJECT; }
  bool is_array() const { return type() == Type::ARRAY; }
  bool is_string() const { return type() == Type::STRING; }
  bool is_boolean() const { return type() == Type::BOOL; }
  bool is_number() const { return is_integer() || type() == Type::DOUBLE; }
  /// A number without fraction or exponent that fits 64 bits, signed or not
  /// (nlohmann's is_number_integer(); 1.0 is not an integer).
  bool is_integer() const { return type() == Type::INT64 || type() == Type::UINT64; }

  /// Precondition: is_string().
  std::string_view string() const { return element_.get_string().value_unsafe(); }
  /// Precondition: is_boolean().
  bool boolean() const { return element_.get_bool().value_unsafe(); }
  /// Precondition: is_integer(). As nlohmann's get<std::int64_t>(): a value
  /// above INT64_MAX wraps around (and so fails every range check).
  std::int64_t integer() const;

  /// Elements of a list or members of a mapping; 0 for anything else.
  std::size_t size() const;
  /// The member named key of a mapping (a linear scan); nullopt when absent or not a mapping.
  std::optional<JsonValue> find(std::string_view key) const;
  /// Precondition: is_array().
  Array elements() const;
  /// Precondition: is_array(). Yields {index, value}.
  class IndexedArray;
  IndexedArray indexed() const;
  /// Precondition: is_object(). In document order.
  Object members() const;
  /// Precondition: is_object(). Sorted by key bytes: the order nlohmann's
  /// std::map-backed objects iterated in, which error lists keep.
  std::vector<Member> sorted_members() const;

  /// "a mapping", "a list", "a string", "a boolean", "a number" or "null".
  const char* type_name() const;
  /// The value as nlohmann::json, with the types nlohmann::json::parse gives
  /// (non-negative integers unsigned, negative ones signed, others floating).
  nlohmann::json to_nlohmann() const;
  /// to_nlohmann().dump().
  std::string dump() const { return to_nlohmann().dump(); }

 private:
  using Type = simdjson::dom::element_type;
  Type type() const { return element_.type(); }

  simdjson::dom::element element_;
};

struct JsonValue::Member {
  std::string_view key;
  JsonValue value;
};

struct JsonValue::Indexed {
  std::size_t index;
  JsonValue value;
};

class JsonValue::Array {
 public:
  class iterator {
   public:
    explicit iterator(simdjson::dom::array::iterator it) : it_(it) {}
    JsonValue operator*() const { return JsonValue(*it_); }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return it_ != other.it_; }

   private:
    simdjson::dom::array::iterator it_;
  };
  explicit Array(simdjson::dom::array array) : array_(array) {}
  iterator begin() const { return iterator(array_.begin()); }
  iterator end() const { return iterator(array_.end()); }

 private:
  simdjson::dom::array array_;
};

class JsonValue::IndexedArray {
 public:
  class iterator {
   public:
    explicit iterator(simdjson::dom::array::iterator it) : it_(it) {}
    Indexed operator*() const { return {index_, JsonValue(*it_)}; }
    iterator& operator++() {
      ++it_;
      ++index_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return it_ != other.it_; }

   private:
    simdjson::dom::array::iterator it_;
    std::size_t index_ = 0;
  };
  explicit IndexedArray(simdjson::dom::array array) : array_(array) {}
  iterator begin() const { return iterator(array_.begin()); }
  iterator end() const { return iterator(array_.end()); }

 private:
  simdjson::dom::array array_;
};

class JsonValue::Object {
 public:
  class iterator {
   public:
    explicit iterator(simdjson::dom::object::iterator it) : it_(it) {}
    Member operator*() const { return {it_.key(), JsonValue(it_.value())}; }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return it_ != other.it_; }

   private:
    simdjson::dom::object::iterator it_;
  };
  explicit Object(simdjson::dom::object object) : object_(object) {}
  iterator begin() const { return iterator(object_.begin()); }
  iterator end() const { return iterator(object_.end()); }

 private:
  simdjson::dom::object object_;
};

inline JsonValue::Array JsonValue::elements() const { return Array(element_.get_array().value_unsafe()); }
inline JsonValue::IndexedArray JsonValue::indexed() const { return IndexedArray(element_.get_array().value_unsafe()); }
inline JsonValue::Object JsonValue::members() const { return Object(element_.get_object().value_unsafe()); }

/// A parsed document: owns simdjson's parser, whose DOM every JsonValue of
/// the document points into. Move-only; moving keeps the values valid.
class JsonDocument {
 public:
  JsonDocument();
  JsonDocument(JsonDocument&&) noexcept;
  JsonDocument& operator=(JsonDocument&&) noexcept;
  ~JsonDocument();

  /// False until a parse succeeded.
  bool has_value() const;
  /// Precondition: has_value().
  JsonValue root() const;

 private:
  friend struct DocumentParser;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tw
