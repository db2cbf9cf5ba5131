// Two schedules run one after the other as one (the relay collectives' two phases,
// cclx/relay/schedules.hpp; verify_phases() in verifier.hpp checks them this way).
#pragma once

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// Phase 1 followed by phase 2 as one schedule: every rank's phase-1 program is padded to phase 1's
/// round count, so phase 2's step s is step L1 + s everywhere and no message matches across the
/// phases. What verify_phases() checks, and one execution when every rank is ready anyway.
/// Throws cclx::Error when the phases disagree on collective, nranks, root, in_place, nblocks or
/// scratch_copies, or lack a program per rank.
[[nodiscard]] Schedule concat_phases(const Schedule& phase1, const Schedule& phase2);

}  // namespace cclx::sched
