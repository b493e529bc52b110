// write_file_atomically (publish/atomic_file.h).

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "tagwarden/publish/atomic_file.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tw-atomic-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string what_of(const std::string& path, std::string_view content) {
  try {
    tw::write_file_atomically(path, content);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  FAIL("write_file_atomically(" << path << ") did not throw");
  return {};
}

}  // namespace

TEST_CASE("writes the exact bytes", "[atomic_file]") {
  TempDir t;
  const fs::path p = t.path / "rules.json";
  const std::string content = std::string("{\"a\": 1}\n\0binary\xff\n", 19);
  tw::write_file_atomically(p.string(), content);
  CHECK(slurp(p) == content);
  CHECK(fs::file_size(p) == 19);
  tw::write_file_atomically((t.path / "empty").string(), "");
  CHECK(fs::exists(t.path / "empty"));
  CHECK(fs::file_size(t.path / "empty") == 0);
}

TEST_CASE("overwrites an existing file completely", "[atomic_file]") {
  TempDir t;
  const fs::path p = t.path / "rules.json";
  tw::write_file_atomically(p.string(), std::string(10000, 'x'));
  tw::write_file_atomically(p.string(), "short\n");
  CHECK(slurp(p) == "short\n");
  { std::ofstream(t.path / "pre-existing") << "old content that is longer"; }
  tw::write_file_atomically((t.path / "pre-existing").string(), "new");
  CHECK(slurp(t.path / "pre-existing") == "new");
}

TEST_CASE("creates missing parent directories", "[atomic_file]") {
  TempDir t;
  const fs::path p = t.path / "a" / "b" / "c" / "rules.json";
  tw::write_file_atomically(p.string(), "nested");
  CHECK(slurp(p) == "nested");
  CHECK(fs::is_directory(t.path / "a" / "b" / "c"));
}

TEST_CASE("leaves no temporary files behind", "[atomic_file]") {
  TempDir t;
  for (int i = 0; i < 20; ++i) tw::write_file_atomically((t.path / "rules.json").string(), std::to_string(i));
  tw::write_file_atomically((t.path / "sub" / "other.json").string(), "x");
  CHECK(entries(t.path) == std::vector<std::string>{"rules.json", "sub", "sub/other.json"});
  CHECK(slurp(t.path / "rules.json") == "19");
}

TEST_CASE("a failed rename leaves no temporary file and keeps the target", "[atomic_file]") {
  TempDir t;
  fs::create_directories(t.path / "target" / "inside");  // a non-empty directory cannot be replaced by a file
  const std::string path = (t.path / "target").string();
  const std::string what = what_of(path, "content");
  CHECK_THAT(what, Catch::Contains(path));
  CHECK(entries(t.path) == std::vector<std::string>{"target", "target/inside"});
}

TEST_CASE("an unwritable location throws, naming the path", "[atomic_file]") {
  TempDir t;
  { std::ofstream(t.path / "regular") << "I am a file"; }
  SECTION("directly under a regular file") {
    const std::string path = (t.path / "regular" / "rules.json").string();
    const std::string what = what_of(path, "content");
    INFO(what);
    CHECK_THAT(what, Catch::Contains(path));
  }
  SECTION("deeper under a regular file") {
    const std::string path = (t.path / "regular" / "sub" / "rules.json").string();
    const std::string what = what_of(path, "content");
    INFO(what);
    CHECK_THAT(what, Catch::Contains(path));
  }
  CHECK(slurp(t.path / "regular") == "I am a file");
  CHECK(entries(t.path) == std::vector<std::string>{"regular"});
}

TEST_CASE("a write that runs out of space keeps the old file and names it, not the temporary", "[atomic_file]") {
  // RLIMIT_FSIZE makes write() fail with EFBIG past the limit, as a full disk fails it with ENOSPC
  // (SIGXFSZ ignored so the process is not killed); restored before any check.
  TempDir t;
  const fs::path p = t.path / "rules.json";
  tw::write_file_atomically(p.string(), "the old rules");
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 64;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string what;
  try {
    tw::write_file_atomically(p.string(), std::string(100000, 'x'));
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, old_handler);
  INFO(what);
  REQUIRE_FALSE(what.empty());
  CHECK(what.rfind("cannot write " + p.string() + ": ", 0) == 0);
  CHECK_THAT(what, Catch::Contains("is unchanged"));
  CHECK(slurp(p) == "the old rules");
  CHECK(entries(t.path) == std::vector<std::string>{"rules.json"});
}

TEST_CASE("staged files change nothing until committed, and nothing at all when dropped", "[atomic_file]") {
  TempDir t;
  const fs::path a = t.path / "a.json", b = t.path / "sub" / "b.json";
  tw::write_file_atomically(a.string(), "old a");
  {
    tw::StagedFile staged_a(a.string(), "new a");
    tw::StagedFile staged_b(b.string(), "new b");
    CHECK(slurp(a) == "old a");
    CHECK_FALSE(fs::exists(b));
    CHECK(staged_b.path() == b.string());
  }  // dropped: the temporaries go, the files stay
  CHECK(entries(t.path) == std::vector<std::string>{"a.json", "sub"});
  CHECK(slurp(a) == "old a");

  std::vector<tw::StagedFile> staged;
  staged.emplace_back(a.string(), "new a");
  staged.emplace_back(b.string(), "new b");  // moved when the vector grows: still staged once
  CHECK(slurp(a) == "old a");
  for (auto& s : staged) s.commit();
  CHECK(slurp(a) == "new a");
  CHECK(slurp(b) == "new b");
  CHECK(entries(t.path) == std::vector<std::string>{"a.json", "sub", "sub/b.json"});
  CHECK_THROWS_AS(staged[0].commit(), std::logic_error);  // committed once only
}
