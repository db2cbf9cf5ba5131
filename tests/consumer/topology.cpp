// Built against an installed cclx with the topology component.
#include <cclx/topology/builders.hpp>
#include <cstdio>

int main() {
  const auto t = cclx::topo::full_mesh(4, cclx::topo::LinkCost::from_bandwidth(1e-6, 1e9));
  std::printf("consumer_topology: %d ranks, %zu links\n", t.nranks(), t.num_links());
  return t.nranks() == 4 && t.num_links() == 12 ? 0 : 1;
}
