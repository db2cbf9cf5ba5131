// The command-line kit of cclx's tools, benchmarks and examples: CLI11 with the conventions they
// share.
//
//   cclx::kit::App app("cclx-foo", "what it does");
//   std::size_t bytes = 0;
//   app.add_option("--bytes", bytes, "message size")->transform(cclx::kit::ByteSize{});
//   if (const auto rc = cclx::kit::parse(app, argc, argv)) return *rc;
//
// Conventions: -h and --help print the help and exit 0; an option given twice keeps the last
// value (as a later option overrides an earlier one in a script); a bad command line prints
// "NAME: what is wrong" and the hint to --help on stderr and exits with the tool's usage status
// (2 unless the tool says otherwise). Sizes are read by cclx::parse_byte_size (one grammar,
// include/cclx/byte_size.hpp) through ByteSize.
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cclx/byte_size.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::kit {

// A CLI11 application with the kit's conventions (see above).
class App : public CLI::App {
 public:
  App(std::string name, std::string description) : CLI::App(std::move(description), name) {
    option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
};

// Transform of a size option: reads cclx::parse_byte_size's grammar ("64K", "1.5M", "8") and
// hands the option the number of bytes in decimal, so any unsigned integer option takes it.
struct ByteSize : CLI::Validator {
  ByteSize() : CLI::Validator("SIZE") {
    func_ = [](std::string& text) -> std::string {
      const auto v = cclx::parse_byte_size(text);
      if (!v) return "not a size: '" + text + "' (e.g. 8, 64K, 1.5M, 1G)";
      text = std::to_string(*v);
      return {};
    };
  }
};

// Checks of a number's sign, with a plain message ("must be > 0, got 0"; CLI11 2.1's
// PositiveNumber and NonNegativeNumber print the range of a double, 309 digits long).
struct Positive : CLI::Validator {
  Positive() : CLI::Validator("POSITIVE") { func_ = sign_check(false); }
  static std::function<std::string(std::string&)> sign_check(bool zero_ok) {
    return [zero_ok](std::string& text) -> std::string {
      double v = 0;
      if (!CLI::detail::lexical_cast(text, v)) return "not a number: '" + text + "'";
      if (zero_ok ? v >= 0 : v > 0) return {};
      return std::string("must be ") + (zero_ok ? ">= 0" : "> 0") + ", got " + text;
    };
  }
};
struct NonNegative : CLI::Validator {
  NonNegative() : CLI::Validator("NONNEGATIVE") { func_ = Positive::sign_check(true); }
};

// The size `text` names, or CLI::ValidationError naming `what` (for sizes inside a larger value:
// "MIN:MAX", "ring@64K").
inline std::size_t byte_size(const std::string& text, const std::string& what) {
  const auto v = cclx::parse_byte_size(text);
  if (!v) throw CLI::ValidationError(what, "not a size: '" + text + "' (e.g. 8, 64K, 1.5M, 1G)");
  return *v;
}

// A repeatable option: every occurrence adds its value to `values` ("--param a=1 --param b=2");
// with `delimiter`, one value may also list several ("--n 2,4,8").
template <class T>
CLI::Option* add_list(CLI::App& app, std::string name, std::vector<T>& values,
                      std::string description, char delimiter = '\0') {
  auto* o = app.add_option(std::move(name), values, std::move(description))
                ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                ->allow_extra_args(false);
  if (delimiter) o->delimiter(delimiter);
  return o;
}

// An option naming a collective as sched::collective_from_string reads it ("allreduce", ...).
inline CLI::Option* add_collective(CLI::App& app, std::string name, sched::Collective& c,
                                   std::string description) {
  return app.add_option_function<std::string>(
      name,
      [&c, name](const std::string& v) {
        try {
          c = sched::collective_from_string(v);
        } catch (const cclx::Error& e) {
          throw CLI::ValidationError(name, e.what());
        }
      },
      std::move(description));
}

// An option naming one of `choices` (name, value), in that order in the help ("{maxmin, equal}"),
// which sets `value`. A bad name is an error that lists the names. (CLI11's CheckedTransformer
// would list the values too, and prints a one-byte enum's as raw bytes: a 0 ends the help.)
template <class T>
CLI::Option* add_choice(CLI::App& app, std::string name, T& value,
                        std::vector<std::pair<std::string, T>> choices, std::string description) {
  std::string names;
  for (const auto& c : choices) names += (names.empty() ? "" : ", ") + c.first;
  return app
      .add_option_function<std::string>(
          name,
          [&value, name, choices, names](const std::string& v) {
            for (const auto& [choice, x] : choices)
              if (choice == v) {
                value = x;
                return;
              }
            throw CLI::ValidationError(name, "'" + v + "' is not one of " + names);
          },
          std::move(description))
      ->type_name("{" + names + "}");
}

// Parses the command line into `app`'s options. nullopt: go on; otherwise the process's exit
// status: 0 after --help, `usage_status` after an error. Messages go out only where `print` (one
// rank of an MPI job prints them).
inline std::optional<int> parse(CLI::App& app, int argc, const char* const* argv, bool print = true,
                                int usage_status = 2) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::CallForHelp&) {
    if (print) std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    if (print)
      std::fprintf(stderr, "%s: %s\nRun with --help for more information.\n",
                   app.get_name().c_str(), e.what());
    return usage_status;
  }
}

// parse() in an MPI program, after MPI_Init: help and errors are printed by rank 0 of
// MPI_COMM_WORLD only, and when the program is to stop MPI is finalized before the status is
// returned.
inline std::optional<int> parse_mpi(CLI::App& app, int argc, const char* const* argv,
                                    int usage_status = 2) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto rc = parse(app, argc, argv, rank == 0, usage_status);
  if (rc) MPI_Finalize();
  return rc;
}

}  // namespace cclx::kit
