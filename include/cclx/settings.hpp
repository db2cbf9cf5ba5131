// The CCLX_* environment variables: every one cclx reads is declared once, in one table
// (lib/settings/table.cpp: name, type, default, what it accepts, one line of documentation), and
// the environment is read once, on the first use of any setting (thread-safe). The library, the
// preload library and the tools read settings here and nowhere else; `cclx-info --settings` prints
// them with their effective values, and docs/environment.md's table is generated from this one.
//
// A value that does not parse is remembered, not thrown at once: get() throws it (a cclx::Error
// naming the variable, the value and what the variable accepts) where the setting is used, so a
// bad CCLX_TUNE fails algo::Auto's agreement and a bad CCLX_TIMEOUT the Communicator's
// construction, as each did when it read its own variable.
#pragma once

#include <any>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cclx::settings {

/// How a value is written (the table's "type" column).
enum class Type : std::uint8_t {
  boolean,      ///< 1, 0, true, false, yes, no, on, off (any case) -> bool
  integer,      ///< decimal digits, at least Spec::min -> std::size_t
  byte_size,    ///< cclx/byte_size.hpp's grammar (64K, 1.5M, 65536), at least Spec::min ->
                ///< std::size_t
  seconds,      ///< a non-negative number with an optional "s"; 0, off or none: none -> double
  enumeration,  ///< one of Spec::choices -> std::string
  list,         ///< comma-separated words from Spec::choices -> std::vector<std::string>
  path,         ///< a file name -> std::string (empty: none)
  string,       ///< free text -> std::string
};
/// The type as the table names it: "boolean", "integer", "byte size", ..., "enum", "string".
[[nodiscard]] std::string_view to_string(Type t);

/// Where a value came from. An empty variable counts as unset.
enum class Source : std::uint8_t { default_value, environment };
[[nodiscard]] std::string_view to_string(Source s);  ///< "default", "environment"

/// Every setting, in the table's order.
enum class Id : std::uint8_t {
  algo,
  tune,
  tune_file,
  tune_save,
  log,
  validate,
  reproducible,
  wait,
  handshake_bytes,
  max_message_bytes,
  timeout,
  adaptive_fault,
  shim_report,
  cuda_aware,
  cuda_chunk_bytes,
  cuda_depth,
  cuda_pinned_cache_bytes,
  hosts,
  ranks_per_host,
  net_latency,
  net_bandwidth,
  net_links,
};
inline constexpr std::size_t count = 22;  ///< the number of settings: Id's values, table()'s rows

/// One row of the table.
struct Spec {
  Id id;                  ///< the setting, which is also the row's index in table()
  std::string_view name;  ///< "CCLX_TIMEOUT"
  Type type;              ///< the value's grammar and get()'s result type, unless `parse` is set
  std::string_view default_text;  ///< the value that applies when unset, in the variable's grammar
  std::string_view accepts;       ///< what it accepts, as errors and the docs say it
  std::string_view doc;           ///< what it does, one line
  std::span<const std::string_view> choices = {};  ///< enumeration and list: the accepted words
  std::size_t min = 0;                             ///< integer and byte_size: the least value
  /// A grammar of the variable's own (CCLX_ALGO's rules, CCLX_ADAPTIVE_FAULT's three numbers), in
  /// place of the type's: the parsed value, or a cclx::Error saying what is wrong.
  std::any (*parse)(std::string_view text) = nullptr;
};

/// The table, in Id order.
[[nodiscard]] std::span<const Spec> table();
/// The row of `id`.
[[nodiscard]] const Spec& spec(Id id);
/// The row named `name` ("CCLX_WAIT"), or null.
[[nodiscard]] const Spec* find(std::string_view name);

/// What this process has for one variable (never throws).
struct Value {
  Source source = Source::default_value;  ///< whether `text` came from the environment
  std::string text;                       ///< as set in the environment, else the table's default
  std::string error;                      ///< not empty: the text does not parse; get() throws this
};
/// What this process has for `id`: its text, where it came from, and any parse error (never
/// throws).
[[nodiscard]] Value value(Id id);

namespace detail {
/// The parsed value; throws the variable's cclx::Error when its text does not parse.
[[nodiscard]] std::any parsed(Id id);
}  // namespace detail

/// The parsed value of `id`, as the type's comment above says (std::size_t for integer and
/// byte_size, std::string for enumeration, path and string, ...; a Spec::parse grammar: what it
/// returns). Throws cclx::Error (no rank) naming the variable and what it accepts when the
/// environment's value does not parse; the caller attributes it to a rank with Error::on_rank().
template <class T>
[[nodiscard]] T get(Id id) {
  return std::any_cast<T>(detail::parsed(id));
}

/// Whether CCLX_LOG names `topic` ("tune", "shim") or "all".
[[nodiscard]] bool logs(std::string_view topic);

/// Reads the environment again: for programs that change it after the first use of a setting
/// (tests). Safe against concurrent readers, which see either the old or the new values.
void reload();

/// The value of `id` parsed from `text` instead of the environment: throws what get() would.
[[nodiscard]] std::any parse(Id id, std::string_view text);

/// A rate in bytes per second as CCLX_NET_BANDWIDTH writes it: three significant digits and a
/// decimal k, M or G ("23.9M", "12.5G"), which that variable parses back.
[[nodiscard]] std::string format_rate(double bytes_per_s);

}  // namespace cclx::settings
