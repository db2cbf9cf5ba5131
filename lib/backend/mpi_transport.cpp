#include "cclx/backend/mpi_transport.hpp"

#include <climits>
#include <string>

#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "mpi_check.hpp"
#include "mpi_large_count.hpp"
#include "mpi_roll_call.hpp"

namespace cclx {

namespace {

using detail::mpi_check;

// The transfers of one execution, on the private communicator with one tag per channel.
class MpiChannel final : public engine::Channel {
 public:
  MpiChannel(MPI_Comm comm, unsigned number, int tag_ub, int rank, bool* abandoned)
      : comm_(comm), tag_ub_(tag_ub), rank_(rank), abandoned_(abandoned) {
    MpiChannel::reopen(number);
  }
  ~MpiChannel() override {
    // Only reached with pending requests when an execution is abandoned by an exception. A
    // cancelled send may still arrive: the communicator must never be freed, or its context id
    // could go to a new communicator (a shrunken one) whose receives would match it.
    for (auto& r : reqs_) {
      if (r == MPI_REQUEST_NULL) continue;
      *abandoned_ = true;
      MPI_Cancel(&r);
      MPI_Request_free(&r);
    }
  }

  std::size_t post_send(const void* data, std::size_t bytes, int peer) override {
    reqs_.push_back(MPI_REQUEST_NULL);
    peers_.push_back(peer);
    const int rc =
        bytes <= INT_MAX
            ? MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, peer, tag_, comm_, &reqs_.back())
            : detail::large::isend(data, bytes, MPI_BYTE, peer, tag_, comm_, &reqs_.back(), rank_);
    if (rc != MPI_SUCCESS) fail(rc, "MPI_Isend to rank " + std::to_string(peer));
    return reqs_.size() - 1;
  }

  std::size_t post_recv(void* data, std::size_t bytes, int peer) override {
    reqs_.push_back(MPI_REQUEST_NULL);
    peers_.push_back(~peer);
    const int rc =
        bytes <= INT_MAX
            ? MPI_Irecv(data, static_cast<int>(bytes), MPI_BYTE, peer, tag_, comm_, &reqs_.back())
            : detail::large::irecv(data, bytes, MPI_BYTE, peer, tag_, comm_, &reqs_.back(), rank_);
    if (rc != MPI_SUCCESS) fail(rc, "MPI_Irecv from rank " + std::to_string(peer));
    return reqs_.size() - 1;
  }

  void poll(std::vector<std::size_t>& completed) override {
    if (reqs_.empty()) return;
    if (idx_.size() < reqs_.size()) {
      idx_.resize(reqs_.size());
      statuses_.resize(reqs_.size());
    }
    int n = 0;
    const detail::CompletionScope scope;
    const int rc = MPI_Testsome(static_cast<int>(reqs_.size()), reqs_.data(), &n, idx_.data(),
                                statuses_.data());
    if (rc != MPI_SUCCESS) failed_transfer(rc, n);
    if (n == MPI_UNDEFINED) return;
    for (int i = 0; i < n; ++i) completed.push_back(static_cast<std::size_t>(idx_[i]));
  }

  void wait_some(std::vector<std::size_t>& completed) override {
    if (idx_.size() < reqs_.size()) {
      idx_.resize(reqs_.size());
      statuses_.resize(reqs_.size());
    }
    int n = 0;
    const detail::CompletionScope scope;
    const int rc = MPI_Waitsome(static_cast<int>(reqs_.size()), reqs_.data(), &n, idx_.data(),
                                statuses_.data());
    if (rc != MPI_SUCCESS) failed_transfer(rc, n);
    if (n == MPI_UNDEFINED) return;  // nothing active (not reached: callers wait for something)
    for (int i = 0; i < n; ++i) completed.push_back(static_cast<std::size_t>(idx_[i]));
  }

  void clear() override {
    reqs_.clear();
    peers_.clear();
  }

  // Channel numbers wrap at MPI_TAG_UB (at least 32767; MPICH's and Open MPI's are far larger):
  // only calls that many collectives apart share a tag, and they never overlap in time.
  void reopen(unsigned number) override {
    tag_ = static_cast<int>(number % (static_cast<unsigned>(tag_ub_) + 1u));
  }

 private:
  // The communicator returns errors (MPI_ERRORS_RETURN, set by MpiBackend): say which transfer.
  [[noreturn]] void fail(int rc, const std::string& what) const {
    mpi_check(rc, rank_, what.c_str());
    throw Error(rank_, what + " failed");  // not reached: rc != MPI_SUCCESS
  }
  [[noreturn]] void failed_transfer(int rc, int n) const {
    if (rc == MPI_ERR_IN_STATUS && n != MPI_UNDEFINED)
      for (int i = 0; i < n; ++i) {
        const MPI_Status& st = statuses_[static_cast<std::size_t>(i)];
        if (st.MPI_ERROR == MPI_SUCCESS || st.MPI_ERROR == MPI_ERR_PENDING) continue;
        const int p = peers_[static_cast<std::size_t>(idx_[static_cast<std::size_t>(i)])];
        fail(st.MPI_ERROR, p >= 0 ? "send to rank " + std::to_string(p)
                                  : "receive from rank " + std::to_string(~p));
      }
    fail(rc, "MPI_Testsome");
  }

  MPI_Comm comm_;
  int tag_ = 0;
  int tag_ub_;
  int rank_;
  bool* abandoned_;  // the transport's
  std::vector<MPI_Request> reqs_;
  std::vector<int> peers_;  // per transfer: the peer of a send, ~peer of a receive
  std::vector<int> idx_;
  std::vector<MPI_Status> statuses_;
};

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm, detail::RollCall* roll) : comm_(comm), roll_(roll) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &flag);
  tag_ub_ = flag && ub ? *ub : 32767;
  max_message_bytes_ = settings::get<std::size_t>(settings::Id::max_message_bytes);
}

// The interface's accessors, called through it (never inlined): defined here, with the class.
int MpiTransport::rank() const {
  return rank_;
}
int MpiTransport::size() const {
  return size_;
}
std::size_t MpiTransport::max_message_bytes() const {
  return max_message_bytes_;
}

void MpiTransport::idle() {
  if (roll_) roll_->serve();
}

std::string MpiTransport::on_failure(double timeout_s) {
  return roll_ ? roll_->verdict(timeout_s) : std::string();
}

std::unique_ptr<engine::Channel> MpiTransport::open_channel(unsigned number) {
  return std::make_unique<MpiChannel>(comm_, number, tag_ub_, rank_, &abandoned_);
}

}  // namespace cclx
