// Schedule generators: pure functions from a request to a Schedule. No MPI, no element types.
// Algorithm policies (include/cclx/algo/) call these through the cache; tools, the verifier tests
// and the simulator call them directly or by name through generate_by_name().
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

struct ScheduleRequest {
  Collective collective = Collective::allreduce;
  int nranks = 1;
  int root = 0;
  bool in_place = false;
  // Message size in bytes: generators that pick their block count from it (pipelined trees) read
  // it; others ignore it.
  std::size_t bytes = 0;
  // >= 0: generate only this rank's program (the others stay empty), which is all an executor on
  // one rank needs; -1: every rank (verifier, simulator, tools).
  int only_rank = -1;
};

// Each generator throws cclx::Error when it cannot serve the request (unsupported collective,
// invalid parameters, a rank count it rejects).
Schedule ring(const ScheduleRequest& req);
Schedule recursive_halving_doubling(const ScheduleRequest& req);
Schedule binomial_tree(const ScheduleRequest& req);
// Segmented tree with `fanout` children per node (1 = chain); the message is cut into segments of
// at most `segment_bytes` (at most `max_segments`) that flow down (bcast) or up (reduce) the tree
// in a pipeline.
Schedule pipelined_tree(const ScheduleRequest& req, std::size_t segment_bytes, int fanout);
// StragglAR allreduce with rank `straggler` arriving late: the others reduce-scatter among
// themselves (prologue_steps, empty on the straggler), then pairwise rounds complete the chunks
// (n-1 blocks). Round plan and counts: stragglar.hpp.
Schedule stragglar(const ScheduleRequest& req, int straggler);

// Parameters given by name (tools, tests): e.g. {"segment_bytes": 65536, "fanout": 2}.
using ParamMap = std::map<std::string, long long, std::less<>>;

struct GeneratorInfo {
  std::string name;                      // "ring", "rhd", ...
  std::vector<Collective> collectives;   // what it serves
  std::vector<std::string> param_names;  // accepted ParamMap keys
  Schedule (*generate)(const ScheduleRequest&, const ParamMap&);
};

// Every schedule-producing algorithm known to the library (StragglAR etc. register here too).
const std::vector<GeneratorInfo>& generators();
// Throws cclx::Error naming the known algorithms when `name` is unknown.
const GeneratorInfo& generator(std::string_view name);
Schedule generate_by_name(std::string_view name, const ScheduleRequest& req,
                          const ParamMap& params = {});

// Shared checks for generators.
void require_supported(const ScheduleRequest& req, std::string_view algorithm,
                       std::initializer_list<Collective> supported);

}  // namespace cclx::sched
