#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

// A domain is a path of names joined by '/', e.g. "finance/payroll". The loader
// checks an object's domain and a policy's domain scope the same way, and a
// policy on a domain reaches the objects of that domain and of its sub-domains;
// both questions are answered here so the loader and the compiler cannot drift.

// The parts of a domain, in order ("a/b" -> {"a", "b"}; "" -> {""}).
std::vector<std::string_view> domain_parts(std::string_view domain);

// True when an object's domain is `scope` or a sub-domain of it ("a/b" is within
// "a"; "ab" is not).
bool within_domain(const std::optional<std::string>& object_domain, std::string_view scope);

}  // namespace tw
