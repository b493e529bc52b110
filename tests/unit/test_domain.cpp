#include <catch2/catch.hpp>

#include "tagwarden/model/domain.h"

using tw::domain_parts;
using tw::within_domain;

TEST_CASE("a domain splits into its parts at every slash", "[domain]") {
  CHECK(domain_parts("finance") == std::vector<std::string_view>{"finance"});
  CHECK(domain_parts("finance/payroll/eu") == std::vector<std::string_view>{"finance", "payroll", "eu"});
  // Empty parts are kept so the loader refuses them as names.
  CHECK(domain_parts("finance//eu") == std::vector<std::string_view>{"finance", "", "eu"});
  CHECK(domain_parts("finance/") == std::vector<std::string_view>{"finance", ""});
  CHECK(domain_parts("") == std::vector<std::string_view>{""});
}

TEST_CASE("a domain scope reaches its own objects and its sub-domains' only", "[domain]") {
  const std::optional<std::string> none;
  CHECK(within_domain(std::string("finance"), "finance"));
  CHECK(within_domain(std::string("finance/payroll"), "finance"));
  CHECK(within_domain(std::string("finance/payroll/eu"), "finance/payroll"));
  // A sibling that shares a prefix is not a sub-domain.
  CHECK_FALSE(within_domain(std::string("financeops"), "finance"));
  CHECK_FALSE(within_domain(std::string("finance/payrollx"), "finance/payroll"));
  // A parent is not within its child, and an object without a domain is in none.
  CHECK_FALSE(within_domain(std::string("finance"), "finance/payroll"));
  CHECK_FALSE(within_domain(none, "finance"));
  CHECK_FALSE(within_domain(std::string("Finance"), "finance"));
}
