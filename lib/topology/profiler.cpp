#include "cclx/topology/profiler.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cclx/detail/median.hpp"
#include "cclx/error.hpp"
#include "cclx/topology/rounds.hpp"

namespace cclx::topo {

namespace {

void profile_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string("profile_links: ") + what + " failed");
}

// One ping-pong of `bytes`; returns the one-way time on the initiator, 0 on the responder.
double ping_pong(MPI_Comm comm, int peer, bool initiator, std::vector<char>& buf,
                 std::size_t bytes) {
  const int count = static_cast<int>(bytes);
  constexpr int kTag = 0x7070;
  if (initiator) {
    const double t0 = MPI_Wtime();
    profile_check(MPI_Send(buf.data(), count, MPI_BYTE, peer, kTag, comm), "MPI_Send");
    profile_check(MPI_Recv(buf.data(), count, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE),
                  "MPI_Recv");
    return (MPI_Wtime() - t0) / 2;
  }
  profile_check(MPI_Recv(buf.data(), count, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE),
                "MPI_Recv");
  profile_check(MPI_Send(buf.data(), count, MPI_BYTE, peer, kTag, comm), "MPI_Send");
  return 0;
}

// Every rank at once: k sends of 8 bytes to the next rank, k receives from the previous one;
// returns the slowest rank's time.
double burst(MPI_Comm comm, int rank, int size, int k, std::vector<char>& buf,
             std::vector<MPI_Request>& reqs) {
  constexpr int kTag = 0x7071, kBytes = 8;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  profile_check(MPI_Barrier(comm), "MPI_Barrier");
  const double t0 = MPI_Wtime();
  for (int i = 0; i < k; ++i) {
    profile_check(MPI_Irecv(buf.data() + static_cast<std::size_t>(i) * kBytes, kBytes, MPI_BYTE,
                            prev, kTag, comm, &reqs[static_cast<std::size_t>(i)]),
                  "MPI_Irecv");
  }
  for (int i = k; i < 2 * k; ++i)  // sends from the buffer's second half, requests k .. 2k-1
    profile_check(MPI_Isend(buf.data() + static_cast<std::size_t>(i) * kBytes, kBytes, MPI_BYTE,
                            next, kTag, comm, &reqs[static_cast<std::size_t>(i)]),
                  "MPI_Isend");
  profile_check(MPI_Waitall(2 * k, reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  double t = MPI_Wtime() - t0;
  profile_check(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return t;
}

// The links probe (profiler.hpp): the links per host the first host's ranks cross on; 0 when the
// first two hosts do not both have two ranks or more.
int probe_links(MPI_Comm comm, int rank, const ProfileOptions& opt, std::vector<char>& buf) {
  const std::vector<int>& hosts = opt.hosts;
  std::vector<int> first, second;  // the first two hosts' ranks, in rank order
  for (int r = 0; r < static_cast<int>(hosts.size()); ++r) {
    const int h = hosts[static_cast<std::size_t>(r)];
    if (h == hosts[0])
      first.push_back(r);
    else if (second.empty() || h == hosts[static_cast<std::size_t>(second[0])])
      second.push_back(r);
  }
  const int k = static_cast<int>(std::min(first.size(), second.size()));
  if (k < 2) return 0;
  int pair = -1;  // this rank's pair index, and its peer
  bool sender = false;
  int peer = -1;
  for (int j = 0; j < k; ++j) {
    if (first[static_cast<std::size_t>(j)] == rank) {
      pair = j;
      sender = true;
      peer = second[static_cast<std::size_t>(j)];
    } else if (second[static_cast<std::size_t>(j)] == rank) {
      pair = j;
      peer = first[static_cast<std::size_t>(j)];
    }
  }
  const int count = static_cast<int>(std::min(opt.links_bytes, buf.size()));
  constexpr int kTag = 0x7072;
  // Pairs 0 .. flows-1 at once: the slowest sender's time from the barrier to its peer's ack.
  const auto flows_time = [&](int flows) {
    profile_check(MPI_Barrier(comm), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    double t = 0;
    if (pair >= 0 && pair < flows) {
      char ack = 0;
      if (sender) {
        profile_check(MPI_Send(buf.data(), count, MPI_BYTE, peer, kTag, comm), "MPI_Send");
        profile_check(MPI_Recv(&ack, 1, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        t = MPI_Wtime() - t0;
      } else {
        profile_check(MPI_Recv(buf.data(), count, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE),
                      "MPI_Recv");
        profile_check(MPI_Send(&ack, 1, MPI_BYTE, peer, kTag, comm), "MPI_Send");
      }
    }
    profile_check(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    return t;
  };
  (void)flows_time(k);  // warm-up: every pair's connection
  std::vector<double> alone, together;
  for (int i = 0; i < std::max(1, opt.links_reps); ++i) {
    alone.push_back(flows_time(1));
    together.push_back(flows_time(k));
  }
  const double ratio =
      k * cclx::detail::median(alone) / std::max(cclx::detail::median(together), 1e-12);
  return static_cast<int>(std::clamp(std::lround(ratio), 1L, static_cast<long>(k)));
}

}  // namespace

Profile profile_links(MPI_Comm comm, const ProfileOptions& opt) {
  int rank = 0, size = 0;
  profile_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  profile_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (opt.sizes.size() < 2) throw Error("profile_links: need at least two message sizes");
  if (opt.min_reps < 1 || opt.max_reps < opt.min_reps)
    throw Error("profile_links: need 1 <= min_reps <= max_reps");
  if (opt.burst < 0 || (opt.burst > 0 && opt.burst < 4))
    throw Error("profile_links: burst must be 0 (no overhead probe) or at least 4");
  const std::size_t max_bytes = *std::max_element(opt.sizes.begin(), opt.sizes.end());
  if (max_bytes > static_cast<std::size_t>(INT32_MAX))
    throw Error("profile_links: message sizes must fit in an int");
  std::vector<char> buf(std::max<std::size_t>(max_bytes, 1), 1);

  if (!opt.hosts.empty() && opt.hosts.size() != static_cast<std::size_t>(size))
    throw Error("profile_links: hosts names " + std::to_string(opt.hosts.size()) +
                " ranks, the communicator has " + std::to_string(size));
  const auto rounds =
      opt.hosts.empty() ? interference_free_rounds(size) : interference_free_rounds(opt.hosts);
  Profile prof;
  prof.nranks = size;
  prof.rounds = static_cast<int>(size > 1 ? rounds.size() : 0);
  // Wire format of one pair: a, b, alpha, beta, rms, rel, samples, reps.
  constexpr int kFields = 8;
  std::vector<double> mine;

  profile_check(MPI_Barrier(comm), "MPI_Barrier");
  const double t_start = MPI_Wtime();
  double spent = 0;  // slowest rank's time in the rounds so far (identical on all ranks)
  for (int i = 0; i < prof.rounds; ++i) {
    // What is left of the budget, shared evenly by the rounds still to run.
    const double round_budget = (opt.budget_s - spent) / (prof.rounds - i);
    int peer = -1;
    for (const auto& [a, b] : rounds[static_cast<std::size_t>(i)])
      if (a == rank || b == rank) peer = a == rank ? b : a;
    const bool initiator = peer > rank;
    std::vector<std::vector<double>> times(opt.sizes.size());

    profile_check(MPI_Barrier(comm), "MPI_Barrier");  // rounds never overlap
    const double t_round = MPI_Wtime();
    if (peer >= 0) {
      ping_pong(comm, peer, initiator, buf, max_bytes);  // warm-up: connection setup, page faults
      for (std::size_t k = 0; k < opt.sizes.size(); ++k)
        times[k].push_back(ping_pong(comm, peer, initiator, buf, opt.sizes[k]));
    }
    double rep_cost = MPI_Wtime() - t_round;
    profile_check(MPI_Allreduce(MPI_IN_PLACE, &rep_cost, 1, MPI_DOUBLE, MPI_MAX, comm),
                  "MPI_Allreduce");
    // All ranks agree on the repetition count (same inputs after the allreduce), so pairs stay in
    // lockstep with the round barriers.
    // rep_cost (warm-up + one repetition) over-estimates one repetition. The budget wins over
    // min_reps: a round never starts repetitions it cannot afford.
    const double fit = rep_cost > 0
                           ? 1 + std::floor(std::max(0.0, round_budget - rep_cost) / rep_cost)
                           : opt.max_reps;
    const double afford = std::min<double>(fit, opt.max_reps);
    const int reps = static_cast<int>(afford >= opt.min_reps ? afford : std::max(1.0, afford));
    if (peer >= 0)
      for (int r = 1; r < reps; ++r)
        for (std::size_t k = 0; k < opt.sizes.size(); ++k) {
          const double t = ping_pong(comm, peer, initiator, buf, opt.sizes[k]);
          times[k].push_back(t);
        }
    double round_time = MPI_Wtime() - t_round;
    profile_check(MPI_Allreduce(MPI_IN_PLACE, &round_time, 1, MPI_DOUBLE, MPI_MAX, comm),
                  "MPI_Allreduce");
    spent += round_time;
    if (peer >= 0 && initiator) {
      std::vector<TimingSample> med;
      for (std::size_t k = 0; k < opt.sizes.size(); ++k)
        med.push_back({static_cast<double>(opt.sizes[k]), cclx::detail::median(times[k])});
      const AlphaBetaFit f = fit_link(med);
      mine.insert(mine.end(), {static_cast<double>(rank), static_cast<double>(peer), f.alpha,
                               f.beta, f.rms_residual, f.rel_residual,
                               static_cast<double>(f.samples), static_cast<double>(reps)});
    }
  }
  // Per-message overhead with every rank busy (profiler.hpp).
  if (size > 1 && opt.burst >= 4) {
    const int hi = opt.burst, lo = opt.burst / 4;
    std::vector<char> bbuf(static_cast<std::size_t>(2 * hi) * 8, 0);
    std::vector<MPI_Request> reqs(static_cast<std::size_t>(2 * hi));
    (void)burst(comm, rank, size, hi, bbuf, reqs);  // warm-up
    std::vector<double> slopes;
    for (int i = 0; i < std::max(1, opt.burst_reps); ++i) {
      const double t_lo = burst(comm, rank, size, lo, bbuf, reqs);
      const double t_hi = burst(comm, rank, size, hi, bbuf, reqs);
      slopes.push_back((t_hi - t_lo) / (hi - lo) / 2);
    }
    prof.overhead_s = std::max(0.0, cclx::detail::median(slopes));  // identical on every rank
  }
  if (!opt.hosts.empty() && opt.links_bytes > 0)
    prof.links_per_host = probe_links(comm, rank, opt, buf);
  double elapsed = MPI_Wtime() - t_start;
  profile_check(MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, comm),
                "MPI_Allreduce");
  prof.elapsed_s = elapsed;

  // Collect every pair on rank 0.
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  profile_check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<double> all(static_cast<std::size_t>(rank == 0 ? total : 0));
  profile_check(MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(),
                            displs.data(), MPI_DOUBLE, 0, comm),
                "MPI_Gatherv");
  const std::vector<double>& src = rank == 0 ? all : mine;
  for (std::size_t i = 0; i + kFields <= src.size(); i += kFields) {
    PairProfile p;
    p.a = static_cast<int>(src[i]);
    p.b = static_cast<int>(src[i + 1]);
    p.fit = {src[i + 2], src[i + 3], src[i + 4], src[i + 5], static_cast<std::size_t>(src[i + 6])};
    p.reps = static_cast<int>(src[i + 7]);
    prof.pairs.push_back(p);
  }
  std::sort(prof.pairs.begin(), prof.pairs.end(), [](const PairProfile& x, const PairProfile& y) {
    return std::pair(x.a, x.b) < std::pair(y.a, y.b);
  });
  return prof;
}

Topology topology_from_profile(const HostMap& hosts, const Profile& p) {
  if (static_cast<int>(hosts.host_of_rank.size()) != p.nranks)
    throw Error("topology_from_profile: host map and profile disagree on the rank count");
  Topology t;
  for (const auto& h : hosts.host_names) t.add_host(h);
  // Every rank posts all messages of a step at once (the engine), so its concurrent messages
  // share what its NIC can do rather than queue for one port: ports unlimited, and across hosts
  // rank -> its NIC -> (the pair's profiled link) -> the peer's NIC -> peer, the NIC links at the
  // rank's fastest profiled inter-host rate with α 0. Alone, a message costs exactly its pair's
  // fit; at once, a rank's messages share its fastest rate.
  const auto n = hosts.host_of_rank.size();
  for (const int h : hosts.host_of_rank) {
    t.add_rank(h, 0);
    t.set_overhead(t.nranks() - 1, p.overhead_s);
  }
  std::vector<double> fastest(n, -1);  // smallest inter-host β per rank; -1: no such pair
  auto host_of = [&](int r) { return hosts.host_of_rank[static_cast<std::size_t>(r)]; };
  for (const auto& pp : p.pairs) {
    if (host_of(pp.a) == host_of(pp.b)) continue;
    for (const int r : {pp.a, pp.b}) {
      double& f = fastest[static_cast<std::size_t>(r)];
      f = f >= 0 ? std::min(f, std::max(pp.fit.beta, 0.0)) : std::max(pp.fit.beta, 0.0);
    }
  }
  std::vector<VertexId> nic(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (fastest[r] < 0) continue;
    nic[r] = t.add_nic(hosts.host_of_rank[r], "nic" + std::to_string(r));
    t.add_duplex(t.rank_vertex(static_cast<int>(r)), nic[r], LinkCost{0, fastest[r]},
                 LinkKind::network);
  }
  for (const auto& pp : p.pairs) {
    const LinkCost c{pp.fit.alpha, pp.fit.beta};
    if (host_of(pp.a) == host_of(pp.b))
      t.add_duplex(t.rank_vertex(pp.a), t.rank_vertex(pp.b), c, LinkKind::intra_host);
    else
      t.add_duplex(nic[static_cast<std::size_t>(pp.a)], nic[static_cast<std::size_t>(pp.b)], c,
                   LinkKind::direct);
  }
  return t;
}

}  // namespace cclx::topo
