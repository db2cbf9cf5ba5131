#include "cclx/sim/simulator.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <sstream>

#include "cclx/error.hpp"
#include "cclx/schedule/partition.hpp"
#include "flow_network.hpp"

namespace cclx::sim {

namespace {

using sched::Op;
using sched::OpKind;
using sched::Region;

constexpr double kInf = std::numeric_limits<double>::infinity();

bool overlaps(const Region& a, const Region& b) {
  return a.buf == b.buf && a.count > 0 && b.count > 0 && a.first < b.end() && b.first < a.end();
}

// What the critical path is made of; `cause` is the activity whose end let this one start.
struct Activity {
  double start = 0, end = 0;
  std::int32_t cause = -1;
  std::int32_t rank = -1, peer = -1;
  std::uint32_t step = 0;
  std::uint32_t op = 0;  // index into the rank's Program::ops (transfers: the send)
  PathItem::Kind kind = PathItem::Kind::start;
};

// A time and the activity that produced it.
struct Mark {
  double t = 0;
  std::int32_t act = -1;
};

Mark later(Mark a, Mark b) {
  return b.t > a.t ? b : a;
}

struct Transfer {
  int src = 0, dst = 0;
  std::uint32_t send_op = 0, recv_op = 0;  // relative to the step's first op on each side
  double bytes = 0;
  topo::Route route;
  std::int32_t act = -1;
};

struct RankState {
  const sched::Program* prog = nullptr;
  std::uint32_t step = 0;
  bool entered = false;  // has started running `step`
  bool done = false;
  int ports = 1;
  double overhead = 0;  // seconds of this rank's CPU per message (topology's Vertex::overhead)
  double cpu_free = 0;  // when its CPU is done with the overheads reserved so far
  int sends_active = 0, recvs_active = 0;
  std::uint32_t first_op = 0, nops = 0;  // the current step's ops
  std::uint32_t pending = 0;             // its transfer ops not yet complete
  std::vector<std::pair<int, std::uint32_t>> sends_by_peer, recvs_by_peer;  // (peer, rel. op)
  std::vector<int> ready_send, ready_recv;  // matched transfers waiting for ports
  std::vector<std::uint32_t> locals;        // rel. ops
  std::size_t next_local = 0;
  bool compute_busy = false;
  std::vector<Mark> op_done;  // per rel. op; t = +inf while not done
  Mark enter, send_free, recv_free, local, last;
};

enum class Ev : std::uint8_t { rank_start, latency, flow_done, deliver, local_done };

struct Event {
  double t;
  std::uint64_t seq;
  int id;
  std::uint32_t version;
  Ev type;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

class Run {
 public:
  Run(const topo::Topology& t, const topo::RouteTable& routes, const sched::Schedule& s,
      const SimOptions& o)
      : topo_(t),
        routes_(routes),
        s_(s),
        o_(o),
        // An even split of the bytes, also for the v-collectives (whose per-rank counts the
        // schedule does not carry): their simulated cost is that of equal counts.
        part_{o.bytes / std::max<std::size_t>(o.elem_size, 1), s.nblocks},
        net_(capacities(t), o.sharing) {}

  SimResult go() {
    const int n = s_.nranks;
    if (static_cast<int>(s_.programs.size()) != n)
      throw Error("simulator: the schedule must hold every rank's program");
    if (topo_.nranks() < n)
      throw Error("simulator: topology has " + std::to_string(topo_.nranks()) +
                  " ranks, schedule needs " + std::to_string(n));
    if (!o_.start_time.empty() && static_cast<int>(o_.start_time.size()) != n)
      throw Error("simulator: start_time needs one entry per rank");
    if (o_.elem_size == 0) throw Error("simulator: elem_size must be positive");
    ranks_.resize(static_cast<std::size_t>(n));
    res_.rank_end.assign(static_cast<std::size_t>(n), 0);
    res_.rank_prologue_end.assign(static_cast<std::size_t>(n), 0);
    res_.prologue_steps = s_.prologue_steps;
    res_.rounds = s_.num_rounds();
    for (int r = 0; r < n; ++r) {
      RankState& R = rank(r);
      R.prog = &s_.programs[static_cast<std::size_t>(r)];
      R.ports = o_.ports >= 0 ? o_.ports : topo_.graph()[topo_.rank_vertex(r)].ports;
      R.overhead = topo_.graph()[topo_.rank_vertex(r)].overhead;
      const double t0 = o_.start_time.empty() ? 0.0 : o_.start_time[static_cast<std::size_t>(r)];
      if (!(t0 >= 0)) throw Error("simulator: start times must be >= 0");
      R.enter = {t0, record({t0, t0, -1, r, -1, 0, 0, PathItem::Kind::start})};
      push(t0, Ev::rank_start, r, 0);
    }

    while (true) {
      // Rates change only between instants: all flows that started or ended at now_ first.
      if (net_.dirty() && (events_.empty() || events_.top().t > now_)) {
        net_.flush(now_);
        push_changed();
      }
      if (events_.empty()) break;
      const Event e = events_.top();
      events_.pop();
      now_ = e.t;
      ++res_.events;
      switch (e.type) {
        case Ev::rank_start:
          enter_steps(e.id);
          break;
        case Ev::latency:
          begin_data(e.id);
          break;
        case Ev::flow_done:
          if (net_.version(e.id) == e.version) finish_transfer(net_.owner(e.id), e.id);
          break;
        case Ev::deliver:
          deliver(e.id);
          break;
        case Ev::local_done:
          finish_local(e.id);
          break;
      }
    }

    for (int r = 0; r < n; ++r)
      if (!rank(r).done) throw Error(stuck_message(r));
    finish_result();
    return std::move(res_);
  }

 private:
  static std::vector<double> capacities(const topo::Topology& t) {
    std::vector<double> c(t.num_links());
    for (std::uint32_t l = 0; l < t.num_links(); ++l) {
      const double b = t.link(l).beta;
      c[l] = b > 0 ? 1.0 / b : kInf;
    }
    return c;
  }

  RankState& rank(int r) { return ranks_[static_cast<std::size_t>(r)]; }
  const Op& op_of(const RankState& R, std::uint32_t rel) const {
    return R.prog->ops[R.first_op + rel];
  }

  std::int32_t record(const Activity& a) {
    if (!o_.critical_path) return -1;
    acts_.push_back(a);
    return static_cast<std::int32_t>(acts_.size() - 1);
  }
  void set_end(std::int32_t act, double t) {
    if (act >= 0) acts_[static_cast<std::size_t>(act)].end = t;
  }

  void push(double t, Ev type, int id, std::uint32_t version) {
    events_.push(Event{t, seq_++, id, version, type});
  }

  std::size_t region_bytes(const Region& g) const { return part_.region_size(g) * o_.elem_size; }

  static bool port_free(int active, int ports) { return ports == 0 || active < ports; }

  // Enters rank r's current step and keeps going while steps complete immediately.
  void enter_steps(int r) {
    RankState& R = rank(r);
    while (true) {
      if (R.step == s_.prologue_steps) res_.rank_prologue_end[static_cast<std::size_t>(r)] = now_;
      if (R.step >= R.prog->num_steps()) {
        R.done = true;
        R.entered = false;
        res_.rank_end[static_cast<std::size_t>(r)] = now_;
        if (R.step < s_.prologue_steps) res_.rank_prologue_end[static_cast<std::size_t>(r)] = now_;
        return;
      }
      setup_step(r);
      match(r);
      try_locals(r);
      if (!step_complete(R)) return;
      R.enter = R.last;
      ++R.step;
    }
  }

  void setup_step(int r) {
    RankState& R = rank(r);
    R.first_op = R.prog->step_begin[R.step];
    R.nops = static_cast<std::uint32_t>(R.prog->step_size(R.step));
    R.sends_by_peer.clear();
    R.recvs_by_peer.clear();
    R.locals.clear();
    R.op_done.assign(R.nops, Mark{kInf, -1});
    for (std::uint32_t i = 0; i < R.nops; ++i) {
      const Op& op = op_of(R, i);
      if (op.is_transfer() && (op.peer < 0 || op.peer >= s_.nranks))
        throw Error(r, "step " + std::to_string(R.step) + ": peer " + std::to_string(op.peer) +
                           " out of range");
      if (op.kind == OpKind::send)
        R.sends_by_peer.emplace_back(op.peer, i);
      else if (op.kind == OpKind::recv)
        R.recvs_by_peer.emplace_back(op.peer, i);
      else
        R.locals.push_back(i);
    }
    // Stable order per peer: the m-th send to p matches p's m-th receive from us.
    std::sort(R.sends_by_peer.begin(), R.sends_by_peer.end());
    std::sort(R.recvs_by_peer.begin(), R.recvs_by_peer.end());
    R.pending = static_cast<std::uint32_t>(R.sends_by_peer.size() + R.recvs_by_peer.size());
    R.next_local = 0;
    R.entered = true;
    R.send_free = R.recv_free = R.local = R.last = R.enter;
  }

  // The m-th entry for `peer` in a sorted (peer, op) list, or npos.
  static std::uint32_t nth(const std::vector<std::pair<int, std::uint32_t>>& v, int peer,
                           std::size_t m) {
    const auto it = std::lower_bound(v.begin(), v.end(), std::pair<int, std::uint32_t>(peer, 0));
    const auto k = static_cast<std::size_t>(it - v.begin()) + m;
    if (k >= v.size() || v[k].first != peer) return std::numeric_limits<std::uint32_t>::max();
    return v[k].second;
  }

  // Pairs rank r's transfers of its new step with peers already in that step; the others are
  // paired when the peer gets there.
  void match(int r) {
    RankState& R = rank(r);
    for (int pass = 0; pass < 2; ++pass) {
      const bool sending = pass == 0;
      const auto& mine = sending ? R.sends_by_peer : R.recvs_by_peer;
      for (std::size_t i = 0, m = 0; i < mine.size(); ++i) {
        const auto [p, rel] = mine[i];
        m = i > 0 && mine[i - 1].first == p ? m + 1 : 0;
        if (!sending && p == r) continue;  // self-messages are paired from the send side
        RankState& P = rank(p);
        if (P.done || P.step > R.step)
          throw Error(r, "step " + std::to_string(R.step) + ": " +
                             (sending ? "send to " : "recv from ") + std::to_string(p) +
                             " has no matching " + (sending ? "receive" : "send") + " (rank " +
                             std::to_string(p) + " is past that step)");
        if (!P.entered || P.step != R.step) continue;
        const auto other = nth(sending ? P.recvs_by_peer : P.sends_by_peer, r, m);
        if (other == std::numeric_limits<std::uint32_t>::max())
          throw Error(r, "step " + std::to_string(R.step) + ": " +
                             (sending ? "send to " : "recv from ") + std::to_string(p) +
                             " has no matching " + (sending ? "receive" : "send") + " on rank " +
                             std::to_string(p));
        if (sending)
          add_transfer(r, p, rel, other);
        else
          add_transfer(p, r, other, rel);
      }
    }
  }

  void add_transfer(int src, int dst, std::uint32_t send_rel, std::uint32_t recv_rel) {
    RankState& A = rank(src);
    RankState& B = rank(dst);
    const Op& so = op_of(A, send_rel);
    const Op& ro = op_of(B, recv_rel);
    if (so.src.count != ro.dst.count)
      throw Error(src, "step " + std::to_string(A.step) + ": send to " + std::to_string(dst) +
                           " of " + std::to_string(so.src.count) + " blocks meets a receive of " +
                           std::to_string(ro.dst.count));
    int id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<int>(transfers_.size());
      transfers_.emplace_back();
    }
    Transfer& T = transfers_[static_cast<std::size_t>(id)];
    T = Transfer{src,
                 dst,
                 send_rel,
                 recv_rel,
                 static_cast<double>(region_bytes(so.src)),
                 routes_.route(src, dst),
                 -1};
    insert_ordered(A.ready_send, id,
                   [&](int t) { return transfers_[static_cast<std::size_t>(t)].send_op; });
    insert_ordered(B.ready_recv, id,
                   [&](int t) { return transfers_[static_cast<std::size_t>(t)].recv_op; });
    try_start(id);
  }

  template <class Key>
  static void insert_ordered(std::vector<int>& v, int id, Key key) {
    const auto k = key(id);
    auto it = v.end();
    while (it != v.begin() && key(*(it - 1)) > k) --it;
    v.insert(it, id);
  }

  bool try_start(int id) {
    Transfer& T = transfers_[static_cast<std::size_t>(id)];
    RankState& A = rank(T.src);
    RankState& B = rank(T.dst);
    if (!port_free(A.sends_active, A.ports) || !port_free(B.recvs_active, B.ports)) return false;
    A.ready_send.erase(std::find(A.ready_send.begin(), A.ready_send.end(), id));
    B.ready_recv.erase(std::find(B.ready_recv.begin(), B.ready_recv.end(), id));
    ++A.sends_active;
    ++B.recvs_active;
    ++res_.transfers;
    // Whatever happened last among: both ranks reaching the step, both ports freeing.
    const Mark cause = later(later(A.send_free, B.recv_free), later(A.enter, B.enter));
    T.act = record({now_, now_, cause.act, T.src, T.dst, A.step, A.first_op + T.send_op,
                    PathItem::Kind::transfer});
    // The sender's overhead: its CPU hands the message over when done with earlier ones.
    double wire = now_;
    if (T.src != T.dst && A.overhead > 0) {
      wire = std::max(now_, A.cpu_free) + A.overhead;
      A.cpu_free = wire;
    }
    if (wire > now_ || T.route.alpha > 0)
      push(wire + T.route.alpha, Ev::latency, id, 0);
    else
      begin_data(id);
    return true;
  }

  void begin_data(int id) {
    const Transfer& T = transfers_[static_cast<std::size_t>(id)];
    net_.add(now_, T.route.links, T.bytes, T.route.beta, id);
    push_changed();
  }

  void push_changed() {
    for (const int f : net_.changed()) push(net_.finish(f), Ev::flow_done, f, net_.version(f));
    res_.rate_updates = net_.rate_updates();
  }

  // After one of rank r's ports freed: starts its waiting transfers (in program order) whose other
  // end is free too.
  void pump(int r, bool sends) {
    RankState& R = rank(r);
    auto& ready = sends ? R.ready_send : R.ready_recv;
    for (std::size_t i = 0; i < ready.size();) {
      if (!port_free(sends ? R.sends_active : R.recvs_active, R.ports)) return;
      if (!try_start(ready[i])) ++i;  // a started one leaves the list
    }
  }

  void finish_transfer(int id, int flow) {
    net_.remove(flow, now_);
    push_changed();
    const Transfer T = transfers_[static_cast<std::size_t>(id)];
    if (T.src != T.dst && rank(T.dst).overhead > 0) {
      // The data is in; the receive completes once the receiver's CPU has spent its overhead on
      // it, after the overheads reserved before (LogP's o at the receiver). The send is done.
      RankState& B = rank(T.dst);
      B.cpu_free = std::max(now_, B.cpu_free) + B.overhead;
      push(B.cpu_free, Ev::deliver, id, 0);
      send_done(T, Mark{now_, T.act});
      pump(T.src, true);
      try_locals(T.src);
      advance(T.src);
      return;
    }
    free_.push_back(id);
    set_end(T.act, now_);
    const Mark m{now_, T.act};
    send_done(T, m);
    recv_done(T, m);
    pump(T.src, true);
    pump(T.dst, false);
    try_locals(T.dst);
    if (T.src != T.dst) try_locals(T.src);
    advance(T.src);
    if (T.src != T.dst) advance(T.dst);
  }

  // The receiving half of a transfer whose receiver has a per-message overhead.
  void deliver(int id) {
    const Transfer T = transfers_[static_cast<std::size_t>(id)];
    free_.push_back(id);
    set_end(T.act, now_);
    recv_done(T, Mark{now_, T.act});
    pump(T.dst, false);
    try_locals(T.dst);
    advance(T.dst);
  }

  // The bookkeeping of a transfer's two halves (the sender's, the receiver's) at mark m.
  void send_done(const Transfer& T, Mark m) { half_done(T.src, true, T.send_op, m); }
  void recv_done(const Transfer& T, Mark m) { half_done(T.dst, false, T.recv_op, m); }
  void half_done(int r, bool send, std::uint32_t op, Mark m) {
    RankState& R = rank(r);
    --(send ? R.sends_active : R.recvs_active);
    (send ? R.send_free : R.recv_free) = m;
    R.op_done[op] = m;
    --R.pending;
    R.last = later(R.last, m);
  }

  // Runs rank r's next local ops whose inputs are in place.
  void try_locals(int r) {
    RankState& R = rank(r);
    while (!R.compute_busy && R.next_local < R.locals.size()) {
      const std::uint32_t rel = R.locals[R.next_local];
      const Op& op = op_of(R, rel);
      Mark ready = R.local;
      for (std::uint32_t i = 0; i < R.nops; ++i) {
        const Op& t = op_of(R, i);
        const bool dep =
            (t.kind == OpKind::recv && (overlaps(t.dst, op.src) || overlaps(t.dst, op.dst) ||
                                        (op.kind == OpKind::reduce && overlaps(t.dst, op.src2)))) ||
            (t.kind == OpKind::send && overlaps(t.src, op.dst));
        if (!dep) continue;
        if (R.op_done[i].t == kInf) return;  // wait for it
        ready = later(ready, R.op_done[i]);
      }
      const double per_byte = op.kind == OpKind::reduce ? o_.gamma : o_.copy_gamma;
      const double cost = per_byte * static_cast<double>(region_bytes(op.dst));
      if (cost <= 0) {
        // Free local ops take no time; they pass their cause on.
        R.op_done[rel] = ready;
        R.local = ready;
        R.last = later(R.last, ready);
        ++R.next_local;
        continue;
      }
      R.compute_busy = true;
      const std::int32_t act = record(
          {now_, now_ + cost, ready.act, r, -1, R.step, R.first_op + rel, PathItem::Kind::local});
      R.op_done[rel] = Mark{kInf, act};
      push(now_ + cost, Ev::local_done, r, 0);
      return;
    }
  }

  void finish_local(int r) {
    RankState& R = rank(r);
    const std::uint32_t rel = R.locals[R.next_local];
    const Mark m{now_, R.op_done[rel].act};
    R.op_done[rel] = m;
    R.local = m;
    R.last = later(R.last, m);
    R.compute_busy = false;
    ++R.next_local;
    try_locals(r);
    advance(r);
  }

  static bool step_complete(const RankState& R) {
    return R.pending == 0 && !R.compute_busy && R.next_local == R.locals.size();
  }

  void advance(int r) {
    RankState& R = rank(r);
    if (R.done || !R.entered || !step_complete(R)) return;
    R.enter = R.last;
    ++R.step;
    enter_steps(r);
  }

  std::string stuck_message(int r) {
    const RankState& R = rank(r);
    std::ostringstream msg;
    msg << "simulator: deadlock: rank " << r << " never finished step " << R.step << " (waiting";
    for (const auto& [p, rel] : R.sends_by_peer)
      if (R.op_done[rel].t == kInf) msg << " send->" << p;
    for (const auto& [p, rel] : R.recvs_by_peer)
      if (R.op_done[rel].t == kInf) msg << " recv<-" << p;
    msg << ")";
    return msg.str();
  }

  void finish_result() {
    const int n = s_.nranks;
    Mark last{-1, -1};
    for (int r = 0; r < n; ++r) {
      const double t = res_.rank_end[static_cast<std::size_t>(r)];
      res_.time = std::max(res_.time, t);
      if (t > last.t) last = Mark{t, rank(r).enter.act};
      // Ranks with work in the prologue define its end (a straggler has none).
      const auto& p = s_.programs[static_cast<std::size_t>(r)];
      const auto pro = std::min<std::size_t>(s_.prologue_steps, p.num_steps());
      if (pro > 0 && p.step_begin[pro] > 0)
        res_.prologue_end =
            std::max(res_.prologue_end, res_.rank_prologue_end[static_cast<std::size_t>(r)]);
    }
    if (!o_.critical_path) return;
    for (std::int32_t a = last.act; a >= 0; a = acts_[static_cast<std::size_t>(a)].cause) {
      const Activity& x = acts_[static_cast<std::size_t>(a)];
      PathItem it{x.kind, x.rank, x.peer, x.step, x.start, x.end, 0};
      if (x.kind != PathItem::Kind::start) {
        const Op& op = s_.programs[static_cast<std::size_t>(x.rank)].ops[x.op];
        it.bytes = region_bytes(op.kind == OpKind::send ? op.src : op.dst);
      }
      res_.critical_path.push_back(it);
    }
    std::reverse(res_.critical_path.begin(), res_.critical_path.end());
  }

  const topo::Topology& topo_;
  const topo::RouteTable& routes_;
  const sched::Schedule& s_;
  const SimOptions& o_;
  sched::Partition part_;
  detail::FlowNetwork net_;
  std::vector<RankState> ranks_;
  std::vector<Transfer> transfers_;
  std::vector<int> free_;
  std::vector<Activity> acts_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
  SimResult res_;
};

}  // namespace

Simulator::Simulator(const topo::Topology& t) : t_(&t), routes_(t) {}

SimResult Simulator::run(const sched::Schedule& s, const SimOptions& o) const {
  return Run(*t_, routes_, s, o).go();
}

SimResult simulate(const sched::Schedule& s, const topo::Topology& t, const SimOptions& o) {
  return Simulator(t).run(s, o);
}

}  // namespace cclx::sim
