// run_parallel (util/parallel.h): every job once, whatever the number of workers; failures surface.

#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "tagwarden/util/parallel.h"

TEST_CASE("run_parallel runs every job exactly once and rethrows a failure") {
  for (std::size_t workers : {1, 2, 3, 8}) {
    std::vector<std::atomic<int>> runs(37);
    tw::run_parallel(runs.size(), workers, [&](std::size_t i) { runs[i]++; });
    for (const auto& r : runs) CHECK(r.load() == 1);
    std::atomic<int> done{0};
    CHECK_THROWS_AS(tw::run_parallel(10, workers,
                                     [&](std::size_t i) {
                                       ++done;
                                       if (i == 3) throw std::runtime_error("job 3");
                                     }),
                    std::runtime_error);
    CHECK(done.load() == 10);  // the others still ran
  }
  tw::run_parallel(0, 4, [](std::size_t) { FAIL("no jobs"); });
  CHECK(tw::default_workers(0) == 1);
  CHECK(tw::default_workers(1) == 1);
}
