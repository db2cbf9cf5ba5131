// Reading the environment once and the grammar of each settings::Type (include/cclx/settings.hpp).
// This file holds the library's only getenv() of CCLX_* variables.
#include "cclx/settings.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "cclx/byte_size.hpp"
#include "cclx/error.hpp"

namespace cclx::settings {

std::string_view to_string(Type t) {
  switch (t) {
    case Type::boolean:
      return "boolean";
    case Type::integer:
      return "integer";
    case Type::byte_size:
      return "byte size";
    case Type::seconds:
      return "seconds";
    case Type::enumeration:
      return "enum";
    case Type::list:
      return "list";
    case Type::path:
      return "path";
    case Type::string:
      return "string";
  }
  return "?";
}

std::string_view to_string(Source s) {
  return s == Source::environment ? "environment" : "default";
}

const Spec& spec(Id id) {
  return table()[static_cast<std::size_t>(id)];
}

const Spec* find(std::string_view name) {
  for (const Spec& s : table())
    if (s.name == name) return &s;
  return nullptr;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_choice(const Spec& s, std::string_view word) {
  return std::find(s.choices.begin(), s.choices.end(), word) != s.choices.end();
}

// The type's grammar; nullopt when `text` is not in it.
std::optional<std::any> parse_typed(const Spec& s, std::string_view text) {
  switch (s.type) {
    case Type::boolean: {
      const std::string v = lower(text);
      if (v == "1" || v == "true" || v == "yes" || v == "on") return std::any(true);
      if (v == "0" || v == "false" || v == "no" || v == "off") return std::any(false);
      return std::nullopt;
    }
    case Type::integer: {
      if (text.empty() || text.size() > 19) return std::nullopt;
      std::size_t n = 0;
      for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + static_cast<std::size_t>(c - '0');
      }
      if (n < s.min) return std::nullopt;
      return std::any(n);
    }
    case Type::byte_size: {
      const auto n = parse_byte_size(text);
      if (!n || *n < s.min) return std::nullopt;
      return std::any(*n);
    }
    case Type::seconds: {
      const std::string v(text);
      if (v == "off" || v == "none") return std::any(0.0);
      std::size_t pos = 0;
      double t = -1;
      try {
        t = std::stod(v, &pos);
      } catch (const std::exception&) {
        return std::nullopt;
      }
      const std::string_view suffix = text.substr(pos);
      if (!(suffix.empty() || suffix == "s") || !std::isfinite(t) || t < 0) return std::nullopt;
      return std::any(t);
    }
    case Type::enumeration:
      if (!is_choice(s, text)) return std::nullopt;
      return std::any(std::string(text));
    case Type::list: {
      std::vector<std::string> words;
      while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view word = text.substr(0, comma);
        if (!is_choice(s, word)) return std::nullopt;
        words.emplace_back(word);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
      }
      return std::any(std::move(words));
    }
    case Type::path:
    case Type::string:
      return std::any(std::string(text));
  }
  return std::nullopt;
}

// One variable as read: its value, or the message its use throws.
struct Entry {
  Value value;
  std::any parsed;
};

struct Snapshot {
  std::array<Entry, count> entries;
};

Entry read(const Spec& s) {
  Entry e;
  const char* env = std::getenv(std::string(s.name).c_str());
  if (env && *env) {
    e.value.source = Source::environment;
    e.value.text = env;
  } else {
    e.value.text = std::string(s.default_text);
  }
  try {
    e.parsed = parse(s.id, e.value.text);
  } catch (const Error& err) {
    e.value.error = err.detail();
  }
  return e;
}

std::shared_ptr<const Snapshot> read_all() {
  auto s = std::make_shared<Snapshot>();
  for (const Spec& spec : table()) s->entries[static_cast<std::size_t>(spec.id)] = read(spec);
  return s;
}

// The values every reader shares; replaced whole by reload(). Never destroyed, so that code
// running at exit (destructors of static objects) can still read settings.
struct Store {
  std::mutex mutex;
  std::shared_ptr<const Snapshot> current;
};
Store& store() {
  static Store* s = new Store;
  return *s;
}

std::shared_ptr<const Snapshot> snapshot() {
  Store& st = store();
  const std::lock_guard lock(st.mutex);
  if (!st.current) st.current = read_all();
  return st.current;
}

}  // namespace

std::any parse(Id id, std::string_view text) {
  const Spec& s = spec(id);
  const std::string quoted = std::string(s.name) + "='" + std::string(text) + "'";
  if (s.parse) {
    try {
      return s.parse(text);
    } catch (const Error& e) {
      // A message that names the variable stands as it is (CCLX_ALGO's names the bad token).
      if (e.detail().starts_with(s.name)) throw Error(e.detail());
      throw Error(quoted + ": " + e.detail());
    }
  }
  // Unset or empty: the default, which the table writes in the type's grammar.
  if (text.empty() && !s.default_text.empty()) return parse(id, s.default_text);
  if (auto v = parse_typed(s, text)) return std::move(*v);
  throw Error(quoted + ": expected " + std::string(s.accepts));
}

Value value(Id id) {
  return snapshot()->entries[static_cast<std::size_t>(id)].value;
}

std::any detail::parsed(Id id) {
  const auto s = snapshot();
  const Entry& e = s->entries[static_cast<std::size_t>(id)];
  if (!e.value.error.empty()) throw Error(e.value.error);
  return e.parsed;
}

bool logs(std::string_view topic) {
  const auto words = get<std::vector<std::string>>(Id::log);
  return std::any_of(words.begin(), words.end(),
                     [&](const std::string& w) { return w == topic || w == "all"; });
}

void reload() {
  auto fresh = read_all();
  Store& st = store();
  const std::lock_guard lock(st.mutex);
  st.current = std::move(fresh);
}

}  // namespace cclx::settings
