// Schedules as text: JSON for tools, plots and external checkers, and a readable per-round form.
#pragma once

#include <string>
#include <string_view>

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// JSON document: {"algorithm","params","collective","nranks","root","in_place","nblocks",
/// "preserves_order","prologue_steps","scratch_copies","rounds","programs":[{"rank","steps":
/// [[{"op":"send","peer":1,"src":{"buf":"out","first":0,"count":1}}, ...], ...]}]}
std::string to_json(const Schedule& s, int indent = -1);
/// Inverse of to_json; throws cclx::Error on malformed input. "prologue_steps" and "scratch_copies"
/// may be absent (0 and 1).
Schedule schedule_from_json(std::string_view json);

/// One block per round: "round 3:  r0 -> r1 out[2]   r1: out[1] = out[1] + scratch[1] ..."
std::string to_text(const Schedule& s);

/// "out[2]", "scratch[0..4)", "in[3..3)", "token" (sched::token(), a barrier's empty message): the
/// notation of to_text and the verifier's messages.
std::string to_string(const Region& g);
/// "send to 3 out[2]", "recv from 1 scratch[0]", "out[1] = scratch[1] (+) in[1]", "out[0] = in[0]".
std::string to_string(const Op& op);

}  // namespace cclx::sched
