#include <string>

#include "cclx/error.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

std::string_view to_string(Collective c) {
  switch (c) {
    case Collective::allreduce:
      return "allreduce";
    case Collective::reduce:
      return "reduce";
    case Collective::bcast:
      return "bcast";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::allgather:
      return "allgather";
    case Collective::alltoall:
      return "alltoall";
  }
  return "?";
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
  for (auto c : {Collective::allreduce, Collective::reduce, Collective::bcast,
                 Collective::reduce_scatter, Collective::allgather, Collective::alltoall})
    if (to_string(c) == name) return c;
  throw Error("unknown collective '" + std::string(name) +
              "' (known: allreduce reduce bcast reduce_scatter allgather alltoall)");
}

}  // namespace cclx::sched
