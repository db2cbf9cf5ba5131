// Reproducible mode (Communicator::set_reproducible, docs/reproducibility.md): float and double
// sums and products of data over a wide exponent range, through every policy that keeps the
// canonical order, its segment sizes and channels, algo::Auto (also tuning online), the blocking,
// nonblocking and persistent forms, and allreduce, reduce, reduce_scatter and reduce_scatterv:
// every result must equal, bit for bit, the canonical reduction each rank computes locally from
// every rank's input (regenerated from the rank's seed, no communication). Policies that keep no
// order are refused with a cclx::Error from three ranks on; order-free ops run on any policy.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <type_traits>

#include "cclx/schedule/canonical_order.hpp"
#include "cclx/settings.hpp"
#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

// Rank r's input of `len` elements: sums get u(-1, 1) * 2^e with e in [-20, 20], products
// 1 + u(-1, 1) * 2^e with e in [-20, -2] (so that a product of 8 stays far from overflow).
template <class T>
std::vector<T> input(int r, std::size_t len, bool product) {
  std::mt19937_64 g(0x5eed0000U + static_cast<unsigned>(r));
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-20, product ? -2 : 20);
  std::vector<T> v(len);
  for (auto& x : v) {
    const double m = std::ldexp(u(g), e(g));
    x = static_cast<T>(product ? 1 + m : m);
  }
  return v;
}

// Element i of the canonical reduction of ranks [lo, hi) (schedule/canonical_order.hpp).
template <class T>
T canonical(const std::vector<std::vector<T>>& all, std::size_t i, int lo, int hi, bool product) {
  if (hi - lo == 1) return all[static_cast<std::size_t>(lo)][i];
  const int mid = cclx::sched::canonical_split(lo, hi);
  const T a = canonical(all, i, lo, mid, product), b = canonical(all, i, mid, hi, product);
  return product ? static_cast<T>(a * b) : static_cast<T>(a + b);
}

template <class T>
std::vector<T> canonical_all(int n, std::size_t len, bool product) {
  std::vector<std::vector<T>> all;
  for (int r = 0; r < n; ++r) all.push_back(input<T>(r, len, product));
  std::vector<T> out(len);
  for (std::size_t i = 0; i < len; ++i) out[i] = canonical(all, i, 0, n, product);
  return out;
}

template <class T>
void same_bits(const std::string& label, const std::vector<T>& got, const T* want,
               std::size_t len) {
  REQUIRE_MESSAGE(got.size() == len, label);
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < len; ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0 && bad++ == 0) first = i;
  CHECK_MESSAGE(bad == 0, label << ": " << bad << " of " << len
                                << " elements differ from the canonical reduction, first at "
                                << first);
}

// The policies under test: every one that keeps the canonical order, with segments and channels,
// and Auto; without All one of each algorithm (for the other types and ops: the kernels do not
// depend on the algorithm).
template <bool All, class F>
void for_each_ordered_policy(F&& f) {
  namespace algo = cclx::algo;
  f("binomial_tree", algo::BinomialTree{});
  f("canonical_halving", algo::CanonicalHalving{});
  if constexpr (!All) return;
  f("binomial_tree/ch3", algo::BinomialTree{.channels = 3});
  f("canonical_halving/seg4KiB", algo::CanonicalHalving{.segment_bytes = 4096});
  f("canonical_halving/ch2", algo::CanonicalHalving{.channels = 2});
  f("recursive_doubling", algo::RecursiveDoubling{});  // at powers of two
  f("auto", algo::Auto{});
}

// Whether policy A runs collective c in reproducible mode on n ranks: Auto always, a fixed policy
// where it declares the canonical order.
template <class A>
bool ordered_on(Coll c, int n) {
  if constexpr (std::is_same_v<A, cclx::algo::Auto>)
    return true;
  else
    return serves<A>(c) && cclx::sched::reduces_canonically<A>(c, n);
}

enum class Form { blocking, nonblocking, persistent };
constexpr Form kForms[] = {Form::blocking, Form::nonblocking, Form::persistent};
const char* form_name(Form f) {
  return f == Form::blocking ? "blocking" : f == Form::nonblocking ? "nonblocking" : "persistent";
}

// Runs `call` in `form`: `blocking()` for the blocking form, else the Request or the
// PersistentRequest `start()` returns (a persistent request runs twice; the second result counts).
template <class Blocking, class Start, class Init>
void in_form(Form form, Blocking&& blocking, Start&& start, Init&& init) {
  if (form == Form::blocking) return blocking();
  if (form == Form::nonblocking) return start().wait();
  auto p = init();
  for (int i = 0; i < 2; ++i) {
    p.start();
    p.wait();
  }
}

// Every ordered policy on every reducing collective, for blocks of `block` elements per rank, in
// `forms`.
template <class T, bool AllPolicies = true, class Op>
void check_policies(Comm& comm, bool product, Op op, std::size_t block,
                    std::span<const Form> forms) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const std::string type = type_name<T>();
  const std::string opname = product ? "prod" : "sum";
  {
    const std::size_t len = block * un;
    const std::vector<T> mine = input<T>(r, len, product);
    const std::vector<T> want = canonical_all<T>(n, len, product);
    for_each_ordered_policy<AllPolicies>([&](std::string_view name, const auto& a) {
      for (const Form form : forms) {
        const std::string base = std::string(name) + " " + form_name(form) + " " + type + " " +
                                 opname + " block=" + std::to_string(block);
        progress(base);
        using A = std::decay_t<decltype(a)>;
        // allreduce, out of place and in place
        if (!ordered_on<A>(Coll::allreduce, n)) continue;
        std::vector<T> out(len), buf = mine;
        no_throw("allreduce " + base, [&] {
          in_form(
              form, [&] { comm.allreduce(mine, out, op, a); },
              [&] { return comm.iallreduce(mine, out, op, a); },
              [&] { return comm.allreduce_init(mine, out, op, a); });
          in_form(
              form, [&] { comm.allreduce(buf, op, a); },
              [&] { return comm.iallreduce(buf, op, a); },
              [&] { return comm.allreduce_init(buf, op, a); });
        });
        same_bits("allreduce " + base, out, want.data(), len);
        // In place the persistent request reduces its own result again: compare the first call.
        if (form != Form::persistent)
          same_bits("allreduce in place " + base, buf, want.data(), len);
        // reduce onto the last rank
        if constexpr (serves<A>(Coll::reduce)) {
          const int root = n - 1;
          std::vector<T> red(r == root ? len : 0);
          no_throw("reduce " + base, [&] {
            in_form(
                form, [&] { comm.reduce(mine, red, op, root, a); },
                [&] { return comm.ireduce(mine, red, op, root, a); },
                [&] { return comm.reduce_init(mine, red, op, root, a); });
          });
          if (r == root) same_bits("reduce " + base, red, want.data(), len);
        }
        // reduce_scatter and reduce_scatterv (uneven blocks: rank b gets b + block elements)
        // Only allreduce, reduce and bcast split into channels (schedule/channels.hpp).
        bool split = false;
        if constexpr (requires { a.channels; }) split = a.channels > 1;
        if constexpr (serves<decltype(a)>(Coll::reduce_scatter)) {
          if (!split) {
            std::vector<T> part(block);
            no_throw("reduce_scatter " + base, [&] {
              in_form(
                  form, [&] { comm.reduce_scatter(mine, part, op, a); },
                  [&] { return comm.ireduce_scatter(mine, part, op, a); },
                  [&] { return comm.reduce_scatter_init(mine, part, op, a); });
            });
            same_bits("reduce_scatter " + base, part,
                      want.data() + block * static_cast<std::size_t>(r), block);
            std::vector<int> counts(un);
            std::size_t total = 0, offset = 0;
            for (int b = 0; b < n; ++b) {
              counts[static_cast<std::size_t>(b)] = static_cast<int>(block) + b;
              if (b < r) offset += counts[static_cast<std::size_t>(b)];
              total += counts[static_cast<std::size_t>(b)];
            }
            const std::vector<T> vin = input<T>(r, total, product);
            const std::vector<T> vwant = canonical_all<T>(n, total, product);
            std::vector<T> vout(static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
            no_throw("reduce_scatterv " + base, [&] {
              in_form(
                  form, [&] { comm.reduce_scatterv(vin, vout, counts, op, a); },
                  [&] { return comm.ireduce_scatterv(vin, vout, counts, op, a); },
                  [&] { return comm.reduce_scatterv_init(vin, vout, counts, op, a); });
            });
            same_bits("reduce_scatterv " + base, vout, vwant.data() + offset, vout.size());
          }
        }
      }
    });
  }
}

}  // namespace

TEST_CASE("reproducible: every order-keeping policy and form gives the canonical bits") {
  Comm comm(MPI_COMM_WORLD);
  comm.set_reproducible(true);
  // Every policy and form on one shape; every policy on blocks of many segments; one element per
  // block, and the other types and ops, on one policy of each algorithm, blocking.
  const std::array<Form, 1> blocking{Form::blocking};
  check_policies<float>(comm, false, cclx::sum, 333, kForms);
  check_policies<float, false>(comm, false, cclx::sum, 1, blocking);
  check_policies<float>(comm, false, cclx::sum, 20000, blocking);
  check_policies<double, false>(comm, false, cclx::sum, 333, blocking);
  check_policies<float, false>(comm, true, cclx::prod, 333, blocking);
  check_policies<double, false>(comm, true, cclx::prod, 333, blocking);
}

TEST_CASE("reproducible: policies that keep no order are refused, order-free ops run anywhere") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  comm.set_reproducible(true);
  CHECK(comm.reproducible());
  std::vector<float> f(64 * static_cast<std::size_t>(n), 1.5F), fout(f.size());
  if (n <= 2) {  // one or two contributions combine alike in every algorithm: nothing is refused
    no_throw("native on n <= 2", [&] { comm.allreduce(f, fout, cclx::sum); });
    no_throw("ring on n <= 2", [&] { comm.allreduce(f, fout, cclx::sum, cclx::algo::Ring{}); });
    CHECK(fout[0] == 1.5F * static_cast<float>(n));
    return;
  }
  for (const bool validate : {false, true}) {
    comm.backend().set_validation(validate);
    const std::string v = validate ? " (validated)" : "";
    expect_error("native" + v, r, [&] { comm.allreduce(f, fout, cclx::sum); },
                 {"reproducible mode", "'native' does not combine in the canonical order",
                  "canonical_halving"});
    expect_error("ring" + v, r, [&] { comm.allreduce(f, fout, cclx::sum, cclx::algo::Ring{}); },
                 {"'ring' does not combine"});
    expect_error("rhd reduce_scatter" + v, r,
                 [&] {
                   std::vector<float> part(64);
                   comm.reduce_scatter(f, part, cclx::sum, cclx::algo::RecursiveHalvingDoubling{});
                 },
                 {"reduce_scatter of float sum", "'rhd'"});
    std::vector<float> rd(f.size());
    if ((n & (n - 1)) == 0)
      no_throw("recursive_doubling at 2^k" + v,
               [&] { comm.allreduce(f, rd, cclx::sum, cclx::algo::RecursiveDoubling{}); });
    else
      expect_error("recursive_doubling" + v, r,
                   [&] { comm.allreduce(f, rd, cclx::sum, cclx::algo::RecursiveDoubling{}); },
                   {"'recursive_doubling' does not combine in the canonical order on"});
    expect_error("nonblocking ring" + v, r,
                 [&] { comm.iallreduce(f, fout, cclx::prod, cclx::algo::Ring{}).wait(); },
                 {"'ring'"});
    expect_error("persistent native" + v, r, [&] { (void)comm.allreduce_init(f, fout, cclx::sum); },
                 {"'native'"});
  }
  comm.backend().set_validation(false);
  // A user-defined op needs the order too, whatever its element type; an ordered policy runs it.
  const auto avg = cclx::user_op([](float a, float b) { return (a + b) / 2; }, true);
  expect_error("user op on ring", r, [&] { comm.allreduce(f, fout, avg, cclx::algo::Ring{}); },
               {"a user-defined op", "'ring'"});
  no_throw("user op on canonical_halving",
           [&] { comm.allreduce(f, fout, avg, cclx::algo::CanonicalHalving{}); });
  CHECK(fout[0] == 1.5F);
  // Exact in any order: integer sums, float max, bitwise ops run on every policy.
  std::vector<int> i(100, r + 1), iout(100);
  no_throw("int sum ring", [&] { comm.allreduce(i, iout, cclx::sum, cclx::algo::Ring{}); });
  CHECK(iout[0] == n * (n + 1) / 2);
  no_throw("float max native", [&] { comm.allreduce(f, fout, cclx::max); });
  CHECK(fout[0] == 1.5F);
  // Off again: any policy serves float sums.
  comm.set_reproducible(false);
  no_throw("float sum ring, mode off",
           [&] { comm.allreduce(f, fout, cclx::sum, cclx::algo::Ring{}); });
}

TEST_CASE("reproducible: CCLX_REPRODUCIBLE sets the mode of new communicators") {
  setenv("CCLX_REPRODUCIBLE", "1", 1);
  cclx::settings::reload();  // cclx reads the environment once (cclx/settings.hpp)
  {
    Comm comm(MPI_COMM_WORLD);
    CHECK(comm.reproducible());
    std::vector<double> d(8, 0.25), dout(8);
    if (comm.size() > 2)
      expect_error("native under CCLX_REPRODUCIBLE", comm.rank(),
                   [&] { comm.allreduce(d, dout, cclx::sum); }, {"'native'"});
  }
  unsetenv("CCLX_REPRODUCIBLE");
  cclx::settings::reload();
  Comm comm(MPI_COMM_WORLD);
  CHECK_FALSE(comm.reproducible());
}

TEST_CASE("reproducible: algo::Auto tuning online stays on the canonical bits") {
  Comm comm(MPI_COMM_WORLD);
  comm.set_reproducible(true);
  const int n = comm.size(), r = comm.rank();
  for (const std::size_t len : {std::size_t{5000}, std::size_t{1} << 14}) {
    const std::vector<float> mine = input<float>(r, len * static_cast<std::size_t>(n), false);
    const std::vector<float> want = canonical_all<float>(n, mine.size(), false);
    // Online tuning tries every candidate a few times, then settles: every call must match.
    for (int call = 0; call < 16; ++call) {
      const std::string l =
          "auto online len=" + std::to_string(len) + " call " + std::to_string(call);
      progress(l);
      std::vector<float> out(mine.size());
      no_throw(l, [&] { comm.allreduce(mine, out, cclx::sum, cclx::algo::Auto{.online = true}); });
      same_bits(l, out, want.data(), want.size());
    }
  }
  const std::string why = comm.explain<float>(cclx::sched::Collective::allreduce, 1 << 20);
  const bool chose_native = why.rfind("native", 0) == 0;
  CHECK_MESSAGE(!chose_native, why);
}

}  // namespace cclx_test
