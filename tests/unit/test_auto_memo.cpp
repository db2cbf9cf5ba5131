// algo::Auto's memo of a repeated call (detail::AutoContext::repeat(), docs/tuning-results.md
// "Per-call cost of the decision"): it answers only calls that the tuner would answer with
// Timing::none and the same candidate, so a converged online workload still gets its drift sample
// every AutoState::sample_every calls and re-tunes on drift. Checked in lockstep against a plain
// AutoState fed the same times.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <variant>

#include "cclx/detail/auto_dispatch.hpp"
#include "cclx/settings.hpp"
#include "cclx/tune/auto_state.hpp"

using cclx::detail::AutoContext;
using cclx::tune::AutoState;
using cclx::tune::Candidate;

namespace {

cclx::CollectiveCall allreduce_call(std::size_t count) {
  cclx::CollectiveCall c;
  c.collective = cclx::sched::Collective::allreduce;
  c.count = count;
  c.kernel.elem_size = 4;
  c.has_op = true;
  return c;
}

// A deterministic cost per candidate, different enough for the tuner to rank them.
double cost(const Candidate& c) {
  const std::string s = to_string(c);
  return 1e-4 * (1.0 + static_cast<double>(s.size() % 7)) + (c.native() ? 2e-4 : 0.0);
}

}  // namespace

TEST_CASE("auto memo: a repeated call gets the tuner's own answer, samples and re-tunes included") {
  for (const char* v : {"CCLX_ALGO", "CCLX_TUNE_FILE", "CCLX_TUNE", "CCLX_TUNE_SAVE", "CCLX_LOG"})
    unsetenv(v);
  cclx::settings::reload();  // cclx reads the environment once (cclx/settings.hpp)
  const cclx::CollectiveCall c = allreduce_call(1u << 20);
  const cclx::tune::Workload w = cclx::detail::auto_workload(c, 2);
  const auto key = [](const cclx::CollectiveCall& call, bool online) {
    return cclx::detail::auto_key(call, online);
  };

  SUBCASE("a static decision is remembered for its key only") {
    AutoContext ctx;
    ctx.state(0);
    CHECK(ctx.repeat(key(c, false)) == nullptr);  // nothing remembered yet
    AutoContext::Timing timing{};
    AutoState::Entry* entry = nullptr;
    const Candidate& choice = ctx.choose(w, false, timing, &entry);
    REQUIRE(timing == AutoContext::Timing::none);
    REQUIRE(entry != nullptr);
    CHECK(&entry->decision.choice == &choice);  // the decision is kept in its entry
    ctx.remember(key(c, false), *entry, choice);
    for (int i = 0; i < 3 * AutoState::sample_every; ++i) {
      const cclx::tune::Settled* e = ctx.repeat(key(c, false));
      REQUIRE(e == &entry->settled);  // the memo points into the entry
      CHECK(e->candidate == (choice.native() ? nullptr : &choice));
      CHECK(std::holds_alternative<cclx::algo::Native>(e->policy) == choice.native());
    }
    cclx::CollectiveCall other = c;
    other.count += 1;
    CHECK(ctx.repeat(key(other, false)) == nullptr);
    CHECK(ctx.repeat(key(c, true)) == nullptr);  // Auto{.online = true} is another decision
    other = c;
    other.kernel.commutative = false;
    CHECK(ctx.repeat(key(other, false)) == nullptr);
    other = c;
    other.collective = cclx::sched::Collective::reduce_scatter;
    CHECK(ctx.repeat(key(other, false)) == nullptr);
    ctx.forget();
    CHECK(ctx.repeat(key(c, false)) == nullptr);
  }

  SUBCASE("online: the same candidates and timings as the tuner alone, call by call") {
    AutoContext ctx;
    ctx.state(0);
    AutoState ref{cclx::tune::Selector::Config{}};
    int samples = 0, repeated = 0, retuned = 0;
    bool was_converged = false;
    // Slow from call 200 on: the drift check must still see it (a window is 16 samples of one
    // call in 16, and two slow windows in a row re-tune) and re-tune.
    constexpr int slow_from = 200;
    for (int call = 0; call < slow_from + 3 * AutoState::window * AutoState::sample_every; ++call) {
      if (call == slow_from) REQUIRE(ref.converged(w));
      const double slowdown = call >= slow_from ? 3.0 : 1.0;
      AutoState::Timing want{};
      const Candidate expected = ref.choose(w, true, want);
      AutoContext::Timing got = AutoContext::Timing::none;
      Candidate ran;
      if (const cclx::tune::Settled* e = ctx.repeat(key(c, true))) {
        ++repeated;
        ran = e->candidate ? *e->candidate : Candidate{};
      } else {
        ctx.forget();
        AutoState::Entry* entry = nullptr;
        const Candidate& chosen = ctx.choose(w, true, got, &entry);
        ran = chosen;
        if (got == AutoContext::Timing::none) ctx.remember(key(c, true), *entry, chosen);
      }
      INFO("call " << call);
      REQUIRE(got == want);
      REQUIRE(ran == expected);
      const double t = cost(ran) * slowdown;
      if (want == AutoState::Timing::tune) {
        ref.observe(w, t);
        ctx.observe(w, true, t);
      } else if (want == AutoState::Timing::sample) {
        ++samples;
        if (ref.add_sample(w, t)) ref.check_drift(w, ref.window_score(w));
        if (ctx.add_sample(w, t)) ctx.check_drift(w, ctx.window_score(w));
      }
      if (was_converged && !ref.converged(w)) ++retuned;
      was_converged = ref.converged(w);
    }
    CHECK(repeated > 200);  // most converged calls skip the tuner
    CHECK(samples > 10);
    CHECK(retuned >= 1);
  }
}
