// Command-line list parsing shared by the adaptive benchmarks (cclx-adaptive-late,
// cclx-relay-phases).
#pragma once

#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/byte_size.hpp"

// The non-empty items of `s` between separators.
inline std::vector<std::string> split(const std::string& s, char sep = ',') {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string t; std::getline(in, t, sep);)
    if (!t.empty()) out.push_back(t);
  return out;
}

// A synthesis shape field: "cN" sets o.chunk_bytes (a size: c65536, c64K), "tM" o.max_trees (o:
// algo::Adaptive or sched::SynthesisOptions). False for anything else.
template <class Shape>
bool set_shape_field(Shape& o, const std::string& f) {
  if (f.size() < 2 || (f[0] != 'c' && f[0] != 't')) return false;
  if (f[0] == 'c') {
    const auto v = cclx::parse_byte_size(std::string_view(f).substr(1));
    if (!v) return false;
    o.chunk_bytes = *v;
  } else {
    o.max_trees = static_cast<int>(std::strtoull(f.c_str() + 1, nullptr, 10));
  }
  return true;
}
