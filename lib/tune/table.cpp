#include "cclx/tune/table.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "cclx/detail/median.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"

namespace cclx::tune {

using nlohmann::json;

namespace {
auto key(const TableEntry& e) {
  return std::tuple(e.collective, e.nranks, e.bytes);
}
}  // namespace

std::string TableEntry::best() const {
  std::string best;
  double t = 0;
  for (const auto& [name, time] : times_us)
    if (best.empty() || time < t) {
      best = name;
      t = time;
    }
  return best;
}

TuningTable TuningTable::parse(std::string_view text, const std::string& origin) {
  const auto fail = [&](const std::string& why) -> Error {
    return Error("tuning table " + origin + ": " + why);
  };
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw fail(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("format", "") != "cclx-tune-table")
    throw fail("not a cclx tuning table (\"format\": \"cclx-tune-table\" missing)");
  if (j.value("version", 0) != 1) throw fail("unsupported version (this cclx reads version 1)");
  TuningTable t;
  t.machine = j.value("machine", "");
  t.mpi = j.value("mpi", "");
  if (!j.contains("entries") || !j["entries"].is_array()) throw fail("\"entries\" is not a list");
  std::size_t i = 0;
  for (const json& je : j["entries"]) {
    const std::string where = "entries[" + std::to_string(i++) + "]";
    try {
      TableEntry e;
      e.collective = sched::collective_from_string(je.at("collective").get<std::string>());
      e.nranks = je.at("nranks").get<int>();
      e.bytes = je.at("bytes").get<std::size_t>();
      if (e.nranks < 1) throw fail(where + ": nranks must be >= 1");
      for (const auto& [name, time] : je.at("times_us").items()) {
        const Candidate c = parse_candidate(name);  // unknown algorithms fail here
        if (!time.is_number() || time.get<double>() <= 0 || !std::isfinite(time.get<double>()))
          throw fail(std::string(where)
                         .append(": time of '")
                         .append(name)
                         .append("' must be a positive number"));
        e.times_us[to_string(c)] = time.get<double>();
      }
      if (je.contains("reps_us"))
        for (const auto& item : je.at("reps_us").items()) {
          const std::string& name = item.key();  // not a binding: clang 14 cannot capture those
          const json& reps = item.value();
          const std::string c = to_string(parse_candidate(name));
          const auto bad = [&](const char* why) {
            return fail(std::string(where).append(": reps_us of '").append(name).append("' ") +
                        why);
          };
          if (!e.times_us.contains(c)) throw bad("has no time in times_us");
          if (!reps.is_array() || reps.empty()) throw bad("must be a non-empty list");
          std::vector<double> v;
          for (const json& x : reps) {
            if (!x.is_number() || x.get<double>() <= 0 || !std::isfinite(x.get<double>()))
              throw bad("must hold positive numbers");
            v.push_back(x.get<double>());
          }
          e.reps_us[c] = std::move(v);
        }
      t.record(e);
    } catch (const json::exception& e) {
      throw fail(where + ": " + e.what());
    } catch (const Error& e) {
      if (e.detail().rfind("tuning table", 0) == 0) throw;
      throw fail(where + ": " + e.detail());
    }
  }
  return t;
}

TuningTable TuningTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("tuning table " + path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return parse(s.str(), path);
}

std::string TuningTable::dump() const {
  json j{{"format", "cclx-tune-table"}, {"version", 1}, {"machine", machine}, {"mpi", mpi}};
  json list = json::array();
  for (const auto& e : entries_) {
    json je{{"collective", std::string(sched::to_string(e.collective))},
            {"nranks", e.nranks},
            {"bytes", e.bytes},
            {"times_us", e.times_us}};
    if (!e.reps_us.empty()) je["reps_us"] = e.reps_us;  // absent in tables measured without them
    list.push_back(std::move(je));
  }
  j["entries"] = std::move(list);
  return j.dump(1) + "\n";
}

void TuningTable::save(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << dump();
    if (!out) throw Error("tuning table " + path + ": cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw Error("tuning table " + path + ": cannot rename " + tmp);
}

void TuningTable::record(const TableEntry& e) {
  auto it =
      std::lower_bound(entries_.begin(), entries_.end(), e,
                       [](const TableEntry& a, const TableEntry& b) { return key(a) < key(b); });
  if (it != entries_.end() && key(*it) == key(e)) {
    for (const auto& [name, time] : e.times_us) {
      it->times_us[name] = time;
      if (const auto r = e.reps_us.find(name); r != e.reps_us.end())
        it->reps_us[name] = r->second;
      else
        it->reps_us.erase(name);  // the old repetitions belong to the replaced time
    }
  } else {
    entries_.insert(it, e);
  }
}

void TuningTable::merge(const TuningTable& other) {
  for (const auto& e : other.entries_) record(e);
  if (machine.empty()) machine = other.machine;
  if (mpi.empty()) mpi = other.mpi;
}

void TuningTable::pool(const TuningTable& other) {
  for (const auto& e : other.entries_) {
    TableEntry pooled = e;
    if (const TableEntry* mine = exact(e.collective, e.nranks, e.bytes)) {
      for (const auto& [name, reps] : e.reps_us) {
        const auto old = mine->reps_us.find(name);
        if (old == mine->reps_us.end()) continue;
        std::vector<double> all = old->second;
        all.insert(all.end(), reps.begin(), reps.end());
        pooled.times_us[name] = cclx::detail::median(all);
        pooled.reps_us[name] = std::move(all);
      }
    }
    record(pooled);
  }
  if (machine.empty()) machine = other.machine;
  if (mpi.empty()) mpi = other.mpi;
}

void TuningTable::stamp_origin(std::string_view mpi_library_version) {
  if (machine.empty()) {
    std::array<char, 256> host{};
    if (gethostname(host.data(), host.size() - 1) == 0) machine = host.data();
  }
  if (mpi.empty()) mpi = std::string(mpi_library_version.substr(0, mpi_library_version.find('\n')));
}

const TableEntry* TuningTable::exact(sched::Collective c, int nranks, std::size_t bytes) const {
  for (const auto& e : entries_)
    if (e.collective == c && e.nranks == nranks && e.bytes == bytes) return &e;
  return nullptr;
}

namespace {
// nearest()'s distance: sizes compare on a log scale.
double log_distance(std::size_t a, std::size_t b) {
  return std::abs(std::log2(static_cast<double>(a) + 1) - std::log2(static_cast<double>(b) + 1));
}
}  // namespace

const TableEntry* TuningTable::nearest(sched::Collective c, int nranks, std::size_t bytes) const {
  const TableEntry* best = nullptr;
  double best_d = 0;
  for (const auto& e : entries_) {
    if (e.collective != c || e.nranks != nranks || e.times_us.empty()) continue;
    const double d = log_distance(e.bytes, bytes);
    if (!best || d < best_d) {  // entries are sorted by bytes: ties keep the smaller size
      best = &e;
      best_d = d;
    }
  }
  return best;
}

std::vector<std::size_t> TuningTable::region_starts(sched::Collective c, int nranks) const {
  std::vector<std::size_t> starts;
  std::size_t prev = 0;
  for (const auto& e : entries_) {
    if (e.collective != c || e.nranks != nranks || e.times_us.empty()) continue;
    if (starts.empty()) {
      starts.push_back(0);
    } else {
      // Sizes in (prev, e.bytes] go to the nearer of the two, ties to prev: bisect for the first
      // that goes to e (the distance difference falls monotonically over the interval).
      std::size_t lo = prev, hi = e.bytes;
      while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (log_distance(e.bytes, mid) < log_distance(prev, mid) ? hi : lo) = mid;
      }
      starts.push_back(hi);
    }
    prev = e.bytes;
  }
  return starts;
}

std::optional<TuningTable> table_from_env() {
  const std::string f = settings::get<std::string>(settings::Id::tune_file);
  if (f.empty()) return std::nullopt;
  return TuningTable::load(f);
}

}  // namespace cclx::tune
