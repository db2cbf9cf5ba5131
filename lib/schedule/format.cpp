// JSON and text forms of a schedule. The JSON reader checks every field so that a hand-edited or
// foreign file fails with a message naming the field, never with undefined behaviour later.
#include "cclx/schedule/format.hpp"

#include <array>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"

namespace cclx::sched {

using nlohmann::json;

std::string to_string(const Region& g) {
  if (g == token()) return "token";  // a message without data (barrier)
  std::string s(to_string(g.buf));
  s += '[' + std::to_string(g.first);
  if (g.count != 1)
    s += ".." + std::to_string(g.end()) + ')';
  else
    s += ']';
  return s;
}

std::string to_string(const Op& op) {
  switch (op.kind) {
    case OpKind::send:
      return "send to " + std::to_string(op.peer) + " " + to_string(op.src);
    case OpKind::recv:
      return "recv from " + std::to_string(op.peer) + " " + to_string(op.dst);
    case OpKind::copy:
      return to_string(op.dst) + " = " + to_string(op.src);
    case OpKind::reduce:
      return to_string(op.dst) + " = " + to_string(op.src) + " (+) " + to_string(op.src2);
  }
  return "?";
}

namespace {

// ---- writer ---------------------------------------------------------------------------------

json region_json(const Region& g) {
  return {{"buf", to_string(g.buf)}, {"first", g.first}, {"count", g.count}};
}

json op_json(const Op& op) {
  json j = {{"op", to_string(op.kind)}};
  const bool transfer = op.is_transfer();
  const bool uses_dst = op.kind != OpKind::send, uses_src = op.kind != OpKind::recv;
  // Fields an op kind does not use are written only when set, so reading back is exact.
  if (transfer || op.peer != -1) j["peer"] = op.peer;
  if (uses_dst || op.dst != Region{}) j["dst"] = region_json(op.dst);
  if (uses_src || op.src != Region{}) j["src"] = region_json(op.src);
  if (op.kind == OpKind::reduce || op.src2 != Region{}) j["src2"] = region_json(op.src2);
  return j;
}

// ---- reader ---------------------------------------------------------------------------------

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("schedule JSON: " + path + ": " + what);
}

const json& field(const json& obj, const char* key, const std::string& path) {
  if (!obj.is_object()) fail(path, "expected an object");
  const auto it = obj.find(key);
  if (it == obj.end()) fail(path, std::string("missing \"") + key + "\"");
  return *it;
}

std::string get_string(const json& obj, const char* key, const std::string& path) {
  const auto& v = field(obj, key, path);
  if (!v.is_string()) fail(path + "." + key, "expected a string");
  return v.get<std::string>();
}

bool get_bool(const json& obj, const char* key, const std::string& path) {
  const auto& v = field(obj, key, path);
  if (!v.is_boolean()) fail(path + "." + key, "expected true or false");
  return v.get<bool>();
}

long long get_int(const json& obj, const char* key, const std::string& path, long long lo,
                  long long hi) {
  const auto& v = field(obj, key, path);
  if (!v.is_number_integer()) fail(path + "." + key, "expected an integer");
  const auto x = v.get<long long>();
  if (v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi))
    fail(path + "." + key, "out of range");
  if (x < lo || x > hi)
    fail(path + "." + key, std::to_string(x) + " out of range [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "]");
  return x;
}

template <class E, std::size_t N>
E get_enum(const json& obj, const char* key, const std::string& path,
           const std::array<E, N>& values) {
  const auto name = get_string(obj, key, path);
  for (E e : values)
    if (to_string(e) == name) return e;
  // Built by appending: GCC 12 warns (-Wrestrict, falsely) on chained operator+ here.
  std::string msg = "unknown value '";
  msg += name;
  msg += "' (known:";
  for (E e : values) (msg += ' ') += to_string(e);
  msg += ')';
  fail(path + "." + key, msg);
}

constexpr std::uint32_t kU32 = 0xffffffffu;
constexpr std::array kBufs = {Buf::in, Buf::out, Buf::scratch};
constexpr std::array kKinds = {OpKind::send, OpKind::recv, OpKind::copy, OpKind::reduce};
Region region_from(const json& obj, const char* key, const std::string& path) {
  const auto& j = field(obj, key, path);
  const auto p = path + "." + key;
  Region g;
  g.buf = get_enum(j, "buf", p, kBufs);
  g.first = static_cast<std::uint32_t>(get_int(j, "first", p, 0, kU32));
  g.count = static_cast<std::uint32_t>(get_int(j, "count", p, 0, kU32 - g.first));
  return g;
}

Op op_from(const json& j, const std::string& path) {
  Op op;
  op.kind = get_enum(j, "op", path, kKinds);
  const bool uses_dst = op.kind != OpKind::send, uses_src = op.kind != OpKind::recv;
  if (op.is_transfer() || j.contains("peer"))
    op.peer = static_cast<std::int32_t>(get_int(j, "peer", path, -1, 0x7fffffff));
  if (uses_dst || j.contains("dst")) op.dst = region_from(j, "dst", path);
  if (uses_src || j.contains("src")) op.src = region_from(j, "src", path);
  if (op.kind == OpKind::reduce || j.contains("src2")) op.src2 = region_from(j, "src2", path);
  return op;
}

Program program_from(const json& j, const std::string& path) {
  const auto& steps = field(j, "steps", path);
  if (!steps.is_array()) fail(path + ".steps", "expected an array of steps");
  Program p;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const auto sp = path + ".steps[" + std::to_string(s) + "]";
    if (!steps[s].is_array()) fail(sp, "expected an array of ops");
    for (std::size_t i = 0; i < steps[s].size(); ++i)
      p.ops.push_back(op_from(steps[s][i], sp + "[" + std::to_string(i) + "]"));
    p.step_begin.push_back(static_cast<std::uint32_t>(p.ops.size()));
  }
  return p;
}

// ---- text -----------------------------------------------------------------------------------

std::string header(const Schedule& s) {
  std::ostringstream o;
  o << s.algorithm;
  if (!s.params.empty()) o << " (" << s.params << ")";
  o << ' ' << to_string(s.collective) << " n=" << s.nranks;
  if (coll::visit(s.collective, [](auto d) { return d.rooted; })) o << " root=" << s.root;
  o << " nblocks=" << s.nblocks << (s.in_place ? " in-place" : "")
    << (s.preserves_order ? " rank-ordered" : "") << (s.canonical_order ? " canonical-order" : "")
    << " rounds=" << s.num_rounds();
  if (s.prologue_steps)
    o << " prologue=" << s.prologue_steps << " after_prologue=" << s.rounds_after_prologue();
  if (s.scratch_copies != 1) o << " scratch_copies=" << s.scratch_copies;
  return o.str();
}

}  // namespace

std::string to_json(const Schedule& s, int indent) {
  json progs = json::array();
  for (std::size_t r = 0; r < s.programs.size(); ++r) {
    const auto& p = s.programs[r];
    json steps = json::array();
    for (std::size_t st = 0; st < p.num_steps(); ++st) {
      json ops = json::array();
      for (std::size_t i = 0; i < p.step_size(st); ++i) ops.push_back(op_json(p.step_data(st)[i]));
      steps.push_back(std::move(ops));
    }
    progs.push_back({{"rank", r}, {"steps", std::move(steps)}});
  }
  json j = {{"algorithm", s.algorithm},
            {"params", s.params},
            {"collective", to_string(s.collective)},
            {"nranks", s.nranks},
            {"root", s.root},
            {"in_place", s.in_place},
            {"nblocks", s.nblocks},
            {"preserves_order", s.preserves_order},
            {"canonical_order", s.canonical_order},
            {"prologue_steps", s.prologue_steps},
            {"one_sender_per_receiver", s.one_sender_per_receiver},
            {"scratch_copies", s.scratch_copies},
            {"rounds", s.num_rounds()},
            {"rounds_after_prologue", s.rounds_after_prologue()},
            {"programs", std::move(progs)}};
  return j.dump(indent);
}

Schedule schedule_from_json(std::string_view text) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    throw Error(std::string("schedule JSON: parse error: ") + e.what());
  }
  const std::string top = "$";
  Schedule s;
  s.algorithm = get_string(j, "algorithm", top);
  s.params = get_string(j, "params", top);
  s.collective = get_enum(j, "collective", top, coll::all_collectives);
  s.nranks = static_cast<int>(get_int(j, "nranks", top, 1, 0x7fffffff));
  // Unrooted collectives carry whatever root the request had; the verifier checks rooted ones.
  s.root = static_cast<int>(get_int(j, "root", top, -0x7fffffff - 1, 0x7fffffff));
  s.in_place = get_bool(j, "in_place", top);
  s.nblocks = static_cast<std::uint32_t>(get_int(j, "nblocks", top, 1, kU32));
  s.preserves_order = get_bool(j, "preserves_order", top);
  s.canonical_order = j.contains("canonical_order") && get_bool(j, "canonical_order", top);
  s.prologue_steps = j.contains("prologue_steps")
                         ? static_cast<std::uint32_t>(get_int(j, "prologue_steps", top, 0, kU32))
                         : 0;
  s.one_sender_per_receiver =
      j.contains("one_sender_per_receiver") && get_bool(j, "one_sender_per_receiver", top);
  // Absent in files written before Scratch had copies: one copy.
  s.scratch_copies = j.contains("scratch_copies")
                         ? static_cast<std::uint32_t>(get_int(j, "scratch_copies", top, 1, kU32))
                         : 1;
  const auto& progs = field(j, "programs", top);
  if (!progs.is_array()) fail("$.programs", "expected an array");
  if (progs.size() > static_cast<std::size_t>(s.nranks))
    fail("$.programs",
         std::to_string(progs.size()) + " programs for " + std::to_string(s.nranks) + " ranks");
  for (std::size_t r = 0; r < progs.size(); ++r) {
    const auto path = "$.programs[" + std::to_string(r) + "]";
    if (get_int(progs[r], "rank", path, 0, s.nranks - 1) != static_cast<long long>(r))
      fail(path + ".rank", "programs must be listed in rank order");
    s.programs.push_back(program_from(progs[r], path));
  }
  if (j.contains("rounds") &&
      get_int(j, "rounds", top, 0, 0x7fffffffffffffffLL) != static_cast<long long>(s.num_rounds()))
    fail("$.rounds", "does not match the programs' step count " + std::to_string(s.num_rounds()));
  if (j.contains("rounds_after_prologue") &&
      get_int(j, "rounds_after_prologue", top, 0, 0x7fffffffffffffffLL) !=
          static_cast<long long>(s.rounds_after_prologue()))
    fail("$.rounds_after_prologue",
         "does not match rounds - prologue_steps = " + std::to_string(s.rounds_after_prologue()));
  return s;
}

std::string to_text(const Schedule& s) {
  std::ostringstream o;
  o << header(s) << '\n';
  const std::size_t rounds = s.num_rounds();
  const int n = static_cast<int>(s.programs.size());
  for (std::size_t st = 0; st < rounds; ++st) {
    o << "round " << st << (st < s.prologue_steps ? " (prologue)" : "") << ":\n";
    // Pair each send with its receive (same step, same pair, in order) to show where it lands.
    std::map<std::pair<int, int>, std::deque<Region>> landing;
    for (int r = 0; r < n; ++r) {
      const auto& p = s.programs[static_cast<std::size_t>(r)];
      if (st >= p.num_steps()) continue;
      for (std::size_t i = 0; i < p.step_size(st); ++i)
        if (const Op& op = p.step_data(st)[i]; op.kind == OpKind::recv)
          landing[{op.peer, r}].push_back(op.dst);
    }
    bool any = false;
    for (int r = 0; r < n; ++r) {
      const auto& p = s.programs[static_cast<std::size_t>(r)];
      if (st >= p.num_steps()) continue;
      for (std::size_t i = 0; i < p.step_size(st); ++i) {
        const Op& op = p.step_data(st)[i];
        if (op.kind != OpKind::send) continue;
        any = true;
        o << "  r" << r << " -> r" << op.peer << "  " << to_string(op.src);
        auto& q = landing[{r, op.peer}];
        if (q.empty()) {
          o << " -> (no receive)\n";
        } else {
          if (q.front() != op.src) o << " -> " << to_string(q.front());
          o << '\n';
          q.pop_front();
        }
      }
    }
    for (const auto& [pair, q] : landing)
      for (const auto& g : q) {
        any = true;
        o << "  r" << pair.first << " -> r" << pair.second << "  (no send) -> " << to_string(g)
          << '\n';
      }
    for (int r = 0; r < n; ++r) {
      const auto& p = s.programs[static_cast<std::size_t>(r)];
      if (st >= p.num_steps()) continue;
      for (std::size_t i = 0; i < p.step_size(st); ++i) {
        const Op& op = p.step_data(st)[i];
        if (op.is_transfer()) continue;
        any = true;
        o << "  r" << r << ": " << to_string(op) << '\n';
      }
    }
    if (!any) o << "  (idle)\n";
  }
  return o.str();
}

}  // namespace cclx::sched
