#include <string>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

std::string_view to_string(Collective c) {
  return coll::visit(c, [](auto d) { return d.name; });
}

std::string_view to_string(Buf b) {
  switch (b) {
    case Buf::in:
      return "in";
    case Buf::out:
      return "out";
    case Buf::scratch:
      return "scratch";
  }
  return "?";
}

std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::send:
      return "send";
    case OpKind::recv:
      return "recv";
    case OpKind::copy:
      return "copy";
    case OpKind::reduce:
      return "reduce";
  }
  return "?";
}

Collective collective_from_string(std::string_view name) {
  std::string known;
  for (auto c : coll::all_collectives) {
    if (to_string(c) == name) return c;
    known += ' ' + std::string(to_string(c));
  }
  throw Error("unknown collective '" + std::string(name) + "' (known:" + known + ")");
}

}  // namespace cclx::sched
