// The argument lists of the collectives, derived from their descriptors: an op where the
// collective reduces, a root where it is rooted, per-rank counts (and MPI displacements where the
// collective's MPI call has them) where its blocks have variable counts, and the algorithm last,
// algo::Native when left out. One buffer means in place, two mean out of place (bcast, whose
// root's output is its input, has only the one). Each collective's header (api/<name>.hpp)
// documents its lists at the top and names its forms; alltoallv and barrier write their own lists
// (two count arrays; no buffer).
#pragma once

#include <utility>

#include "cclx/api/bound_call.hpp"
#include "cclx/collectives/descriptor.hpp"

namespace cclx::api {

/// Equal-block collectives: (buf, [op,] [root,] [algorithm]) and (in, out, [op,] [root,] ...).
template <class D>
struct FixedArguments {
  template <MutableRange R, algo::Algorithm A = algo::Native>
  requires(!D::reduces && !D::rooted) static auto bind(R&& buf, const A& algorithm = {}) {
    return one<D, R>(buf, no_op, algorithm);
  }
  template <MutableRange R, algo::Algorithm A = algo::Native>
  requires(!D::reduces && D::rooted) static auto bind(R&& buf, int root, const A& algorithm = {}) {
    return one<D, R>(buf, no_op, algorithm, root);
  }
  template <MutableRange R, ReductionOp Op, algo::Algorithm A = algo::Native>
  requires(D::reduces && !D::rooted) static auto bind(R&& buf, const Op& op,
                                                      const A& algorithm = {}) {
    return one<D, R>(buf, &op, algorithm);
  }
  template <MutableRange R, ReductionOp Op, algo::Algorithm A = algo::Native>
  requires(D::reduces&& D::rooted) static auto bind(R&& buf, const Op& op, int root,
                                                    const A& algorithm = {}) {
    return one<D, R>(buf, &op, algorithm, root);
  }

  template <ContiguousRange In, MutableRange Out, algo::Algorithm A = algo::Native>
  requires(!D::reduces && !D::rooted) static auto bind(const In& in, Out&& out,
                                                       const A& algorithm = {}) {
    return two<D, Out>(in, out, no_op, algorithm);
  }
  template <ContiguousRange In, MutableRange Out, algo::Algorithm A = algo::Native>
  requires(!D::reduces && D::rooted &&
           !D::root_out_is_input) static auto bind(const In& in, Out&& out, int root,
                                                   const A& algorithm = {}) {
    return two<D, Out>(in, out, no_op, algorithm, root);
  }
  template <ContiguousRange In, MutableRange Out, ReductionOp Op, algo::Algorithm A = algo::Native>
  requires(D::reduces && !D::rooted) static auto bind(const In& in, Out&& out, const Op& op,
                                                      const A& algorithm = {}) {
    return two<D, Out>(in, out, &op, algorithm);
  }
  template <ContiguousRange In, MutableRange Out, ReductionOp Op, algo::Algorithm A = algo::Native>
  requires(D::reduces&& D::rooted) static auto bind(const In& in, Out&& out, const Op& op, int root,
                                                    const A& algorithm = {}) {
    return two<D, Out>(in, out, &op, algorithm, root);
  }
};

/// Variable-count collectives with one counts array (gatherv, scatterv, allgatherv,
/// reduce_scatterv): (buf, counts, [displs,] [op,] [root,] [algorithm]) and (in, out, counts, ...).
/// Displacements where MPI's call takes them (not MPI_Reduce_scatter).
template <class D>
struct CountedArguments {
  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  requires(!D::reduces && !D::rooted) static auto bind(R&& buf, const C& counts,
                                                       const A& algorithm = {}) {
    return one<D, R>(buf, no_op, algorithm, 0, shared_counts(counts));
  }
  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  requires(!D::reduces && !D::rooted) static auto bind(R&& buf, const C& counts,
                                                       const Displs& displs,
                                                       const A& algorithm = {}) {
    return one<D, R>(buf, no_op, algorithm, 0, shared_counts(counts, &displs));
  }
  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  requires(!D::reduces && D::rooted) static auto bind(R&& buf, const C& counts, int root,
                                                      const A& algorithm = {}) {
    return one<D, R>(buf, no_op, algorithm, root, shared_counts(counts));
  }
  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  requires(!D::reduces && D::rooted) static auto bind(R&& buf, const C& counts,
                                                      const Displs& displs, int root,
                                                      const A& algorithm = {}) {
    return one<D, R>(buf, no_op, algorithm, root, shared_counts(counts, &displs));
  }
  template <MutableRange R, CountRange C, ReductionOp Op, algo::Algorithm A = algo::Native>
  requires(D::reduces && !D::rooted) static auto bind(R&& buf, const C& counts, const Op& op,
                                                      const A& algorithm = {}) {
    return one<D, R>(buf, &op, algorithm, 0, shared_counts(counts));
  }

  template <ContiguousRange In, MutableRange Out, CountRange C, algo::Algorithm A = algo::Native>
  requires(!D::reduces && !D::rooted) static auto bind(const In& in, Out&& out, const C& counts,
                                                       const A& algorithm = {}) {
    return two<D, Out>(in, out, no_op, algorithm, 0, shared_counts(counts));
  }
  template <ContiguousRange In, MutableRange Out, CountRange C, algo::Algorithm A = algo::Native>
  requires(!D::reduces && !D::rooted) static auto bind(const In& in, Out&& out, const C& counts,
                                                       const Displs& displs,
                                                       const A& algorithm = {}) {
    return two<D, Out>(in, out, no_op, algorithm, 0, shared_counts(counts, &displs));
  }
  template <ContiguousRange In, MutableRange Out, CountRange C, algo::Algorithm A = algo::Native>
  requires(!D::reduces && D::rooted) static auto bind(const In& in, Out&& out, const C& counts,
                                                      int root, const A& algorithm = {}) {
    return two<D, Out>(in, out, no_op, algorithm, root, shared_counts(counts));
  }
  template <ContiguousRange In, MutableRange Out, CountRange C, algo::Algorithm A = algo::Native>
  requires(!D::reduces && D::rooted) static auto bind(const In& in, Out&& out, const C& counts,
                                                      const Displs& displs, int root,
                                                      const A& algorithm = {}) {
    return two<D, Out>(in, out, no_op, algorithm, root, shared_counts(counts, &displs));
  }
  template <ContiguousRange In, MutableRange Out, CountRange C, ReductionOp Op,
            algo::Algorithm A = algo::Native>
  requires(D::reduces && !D::rooted) static auto bind(const In& in, Out&& out, const C& counts,
                                                      const Op& op, const A& algorithm = {}) {
    return two<D, Out>(in, out, &op, algorithm, 0, shared_counts(counts));
  }
};

/// The base of a collective's calls: form<Form>(args...) binds the arguments by `Arguments` and
/// hands the bound call, with its form, to the Communicator (Comm).
template <class Comm, class Arguments>
class Forms {
 protected:
  template <class Form, class... Args>
  result_t<Form> form(Args&&... args) {
    return Access::invoke<Form>(static_cast<Comm&>(*this),
                                Arguments::bind(std::forward<Args>(args)...));
  }
};

}  // namespace cclx::api
