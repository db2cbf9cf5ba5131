#include "mpi_roll_call.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "cclx/engine/execution_options.hpp"
#include "cclx/error.hpp"
#include "mpi_check.hpp"

namespace cclx::detail {

namespace {
// Tags of the roll call's communicator: a query carries the asker's status and asks for the
// answerer's; the survivors' agreement uses one tag per round.
constexpr int kQuery = 1;
constexpr int kAnswer = 2;
constexpr int kCreate = 3;       // MPI_Comm_create_group of the survivors
constexpr int kAgreeBase = 16;   // + round
constexpr int kMaxRounds = 256;  // each round adds a suspect, so at most size rounds are needed

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
void pause() {
  std::this_thread::sleep_for(std::chrono::microseconds(200));
}

// "allreduce #5": the collective and its number among those entered on the communicator.
std::string call_name(std::int32_t collective, std::uint64_t entered) {
  return (collective < 0
              ? std::string("no collective")
              : std::string(sched::to_string(static_cast<sched::Collective>(collective)))) +
         " #" + std::to_string(entered);
}

}  // namespace

// A send in flight and its buffer, which must live until it completes.
struct RollCall::Outgoing {
  MPI_Request req = MPI_REQUEST_NULL;
  std::vector<unsigned char> data;
};

RollCall::RollCall(MPI_Comm parent, int rank, int size)
    : rank_(rank),
      size_(size),
      known_(static_cast<std::size_t>(size)),
      heard_in_(static_cast<std::size_t>(size)) {
  mpi_check(MPI_Comm_dup(parent, &comm_), rank, "MPI_Comm_dup");
  mpi_check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), rank, "MPI_Comm_set_errhandler");
}

RollCall::~RollCall() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  const CompletionScope scope;
  reap();
  // Late queries and answers that arrived are taken off the queue (MPI warns of unmatched ones).
  for (int flag = 1; flag;) {
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &st) != MPI_SUCCESS || !flag) break;
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    std::vector<unsigned char> sink(static_cast<std::size_t>(bytes));
    MPI_Recv(sink.data(), bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm_, MPI_STATUS_IGNORE);
  }
  // Sends to dead or silent ranks never complete: they and their buffers are left to MPI, and so
  // is the communicator, on which late answers may still arrive.
  for (auto& o : outgoing_) {
    MPI_Request_free(&o->req);
    (void)o.release();
  }
  if (!used_ && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

double RollCall::window(double timeout_s) {
  return std::clamp(timeout_s / 2, 0.2, 2.0);
}

void RollCall::send(int peer, int tag, const void* data, int bytes) {
  auto o = std::make_unique<Outgoing>();
  o->data.assign(static_cast<const unsigned char*>(data),
                 static_cast<const unsigned char*>(data) + bytes);
  const CompletionScope scope;
  if (MPI_Isend(o->data.data(), bytes, MPI_BYTE, peer, tag, comm_, &o->req) == MPI_SUCCESS)
    outgoing_.push_back(std::move(o));
}

void RollCall::reap() noexcept {
  const CompletionScope scope;
  std::erase_if(outgoing_, [](const std::unique_ptr<Outgoing>& o) {
    int done = 0;
    // An error completes the send as far as this rank can tell (the peer is gone).
    return MPI_Test(&o->req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done;
  });
}

void RollCall::take(const Status& s, int from) noexcept {
  Status& k = known_[static_cast<std::size_t>(from)];
  if (k.kind == 0 || s.entered >= k.entered) k = s;
  heard_in_[static_cast<std::size_t>(from)] = calls.entered;
}

void RollCall::serve() noexcept {
  const CompletionScope scope;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kQuery, comm_, &flag, &st) != MPI_SUCCESS || !flag) break;
    Status asked;
    if (MPI_Recv(&asked, sizeof asked, MPI_BYTE, st.MPI_SOURCE, kQuery, comm_, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
      break;
    take(asked, st.MPI_SOURCE);
    used_ = true;
    const Status mine{calls.entered, calls.last, kAnswer, shrunk_ ? 1 : 0};
    send(st.MPI_SOURCE, kAnswer, &mine, sizeof mine);
  }
  if (!outgoing_.empty()) reap();
}

std::string RollCall::verdict(double timeout_s) {
  if (!last_verdict_.empty() && verdict_in_ == calls.entered) return last_verdict_;
  const double window_s = window(timeout_s);
  used_ = true;
  const Status mine{calls.entered, calls.last, kQuery, shrunk_ ? 1 : 0};
  for (int p = 0; p < size_; ++p)
    if (p != rank_) send(p, kQuery, &mine, sizeof mine);
  // A rank that answered while this one is in its current collective is alive and inside cclx
  // (ranks answer only from their waits; a query received is an answer too): present, even if
  // it still waits in an earlier collective, since it then waits for someone else. The others
  // are asked until all answer or the window closes.
  auto present = [&](int p) {
    const Status& k = known_[static_cast<std::size_t>(p)];
    return p == rank_ || (k.kind != 0 && (heard_in_[static_cast<std::size_t>(p)] == calls.entered ||
                                          k.entered >= calls.entered));
  };
  const Clock::time_point start = Clock::now();
  for (;;) {
    serve();
    {
      const CompletionScope scope;
      int flag = 0;
      MPI_Status st;
      while (MPI_Iprobe(MPI_ANY_SOURCE, kAnswer, comm_, &flag, &st) == MPI_SUCCESS && flag) {
        Status s;
        if (MPI_Recv(&s, sizeof s, MPI_BYTE, st.MPI_SOURCE, kAnswer, comm_, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
          break;
        take(s, st.MPI_SOURCE);
      }
    }
    bool all = true;
    for (int p = 0; p < size_ && all; ++p) all = present(p);
    if (all || since(start) >= window_s) break;
    pause();
  }
  // The silent ranks are the culprits: dead, or busy outside cclx. A rank that answered from an
  // earlier collective is stuck there waiting for them (or the ranks disagree on the sequence of
  // collectives): said, not blamed.
  suspects_.clear();
  std::string behind;
  for (int p = 0; p < size_; ++p) {
    if (!present(p)) {
      suspects_.push_back(p);
      continue;
    }
    const Status& k = known_[static_cast<std::size_t>(p)];
    if (p != rank_ && !k.shrinking && k.entered < calls.entered)
      behind += "; rank " + std::to_string(p) + " still in " + call_name(k.last, k.entered);
  }
  const std::string call = call_name(calls.last, calls.entered);
  std::vector<int> shrinking;
  for (int p = 0; p < size_; ++p)
    if (p != rank_ && known_[static_cast<std::size_t>(p)].shrinking) shrinking.push_back(p);
  const std::string others =
      shrinking.empty() ? std::string()
                        : "; " + rank_list(shrinking) + " already shrinking the communicator";
  verdict_in_ = calls.entered;
  if (suspects_.empty())
    return last_verdict_ =
               "; no rank is missing: every rank answered the roll call (this rank is in " + call +
               others + behind + ")";
  return last_verdict_ = "; missing: " + rank_list(suspects_) +
                         " (no answer to the roll call within " + engine::format_seconds(window_s) +
                         ": dead, or busy outside cclx; this rank is in " + call + others + behind +
                         ")";
}

MPI_Comm RollCall::survivors(double timeout_s) {
  // Survivors enter the agreement up to a deadline and a roll call apart (one threw at once on
  // an MPI error, another waited for its deadline), and a round only lasts this long when a rank
  // stays silent.
  const double round_s = timeout_s > 0 ? 2 * (timeout_s + window(timeout_s)) : 10.0;
  if (shrunk_)
    throw Error(rank_, "shrink: this communicator was shrunk already; shrink the one it returned");
  shrunk_ = used_ = true;
  std::vector<unsigned char> out(static_cast<std::size_t>(size_), 0);  // 1: suspected
  for (int p : suspects_) out[static_cast<std::size_t>(p)] = 1;
  std::vector<unsigned char> got(static_cast<std::size_t>(size_) * static_cast<std::size_t>(size_));
  for (int round = 0;; ++round) {
    if (round == kMaxRounds) throw Error(rank_, "shrink: the survivors did not agree");
    const int tag = kAgreeBase + round;
    std::vector<MPI_Request> recvs(static_cast<std::size_t>(size_), MPI_REQUEST_NULL);
    {
      const CompletionScope scope;
      // Suspected ranks are told too (if alive, they learn that they are out), but not waited for.
      for (int p = 0; p < size_; ++p) {
        if (p == rank_) continue;
        send(p, tag, out.data(), size_);
        if (out[static_cast<std::size_t>(p)]) continue;
        MPI_Irecv(&got[static_cast<std::size_t>(p) * static_cast<std::size_t>(size_)], size_,
                  MPI_BYTE, p, tag, comm_, &recvs[static_cast<std::size_t>(p)]);
      }
    }
    const Clock::time_point start = Clock::now();
    for (;;) {
      serve();
      int all = 0;
      {
        const CompletionScope scope;
        if (MPI_Testall(size_, recvs.data(), &all, MPI_STATUSES_IGNORE) != MPI_SUCCESS) all = 0;
      }
      if (all || since(start) >= round_s) break;
      pause();
    }
    // A rank silent for the whole round joins the suspects; so does every rank another survivor
    // suspects (one suspicion is enough: the group must not split).
    std::vector<unsigned char> next = out;
    bool same = true;
    for (int p = 0; p < size_; ++p) {
      MPI_Request& r = recvs[static_cast<std::size_t>(p)];
      if (p == rank_ || out[static_cast<std::size_t>(p)]) continue;
      int done = 0;
      {
        const CompletionScope scope;
        if (r != MPI_REQUEST_NULL && MPI_Test(&r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
          done = 0;
      }
      if (!done && r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
        next[static_cast<std::size_t>(p)] = 1;
        same = false;
        continue;
      }
      const unsigned char* theirs =
          &got[static_cast<std::size_t>(p) * static_cast<std::size_t>(size_)];
      for (int q = 0; q < size_; ++q)
        if (theirs[q] != out[static_cast<std::size_t>(q)]) {
          same = false;
          if (theirs[q]) next[static_cast<std::size_t>(q)] = 1;
        }
    }
    if (next[static_cast<std::size_t>(rank_)])
      throw Error(rank_,
                  "shrink: the other survivors count this rank as failed (it answered too late); "
                  "it is not part of the shrunken communicator");
    out = std::move(next);
    // Equal proposals end the agreement, unless another survivor went on to the next round
    // already (this rank answered late, and the others left it out there): then follow it.
    if (same) {
      int later = 0;
      const CompletionScope scope;
      if (MPI_Iprobe(MPI_ANY_SOURCE, tag + 1, comm_, &later, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
          !later)
        break;
    }
  }
  suspects_.clear();
  std::vector<int> keep;
  for (int p = 0; p < size_; ++p)
    if (out[static_cast<std::size_t>(p)])
      suspects_.push_back(p);
    else
      keep.push_back(p);
  MPI_Group all = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
  MPI_Comm made = MPI_COMM_NULL;
  mpi_check(MPI_Comm_group(comm_, &all), rank_, "MPI_Comm_group");
  const int rc = MPI_Group_incl(all, static_cast<int>(keep.size()), keep.data(), &group);
  MPI_Group_free(&all);
  mpi_check(rc, rank_, "MPI_Group_incl");
  const int made_rc = MPI_Comm_create_group(comm_, group, kCreate, &made);
  MPI_Group_free(&group);
  mpi_check(made_rc, rank_, "shrink: MPI_Comm_create_group");
  return made;
}

}  // namespace cclx::detail
