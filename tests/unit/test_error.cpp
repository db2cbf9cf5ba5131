// cclx::Error's message and the one form every message names ranks in.
#include <doctest/doctest.h>

#include <string>

#include "cclx/error.hpp"

TEST_CASE("Error: the message names the rank, detail() is the message without it") {
  const cclx::Error e(3, "no data from rank 1");
  CHECK(std::string(e.what()) == "cclx: rank 3: no data from rank 1");
  CHECK(e.rank() == 3);
  CHECK(e.detail() == "no data from rank 1");
  const cclx::Error rankless("bad schedule");
  CHECK(std::string(rankless.what()) == "cclx: bad schedule");
  CHECK(rankless.on_rank(2).rank() == 2);
  CHECK(e.on_rank(2).rank() == 3);
}

TEST_CASE("rank_list: sorted, without duplicates, consecutive ranks as a range") {
  CHECK(cclx::rank_list({3}) == "rank 3");
  CHECK(cclx::rank_list({1, 0}) == "ranks 0-1");
  CHECK(cclx::rank_list({7, 0, 3, 2, 4, 4}) == "ranks 0, 2-4, 7");
  CHECK(cclx::rank_list({5, 9}) == "ranks 5, 9");
  CHECK(cclx::rank_list({}) == "no rank");
}
