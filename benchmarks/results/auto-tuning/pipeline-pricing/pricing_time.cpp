// Time Auto's model spends pricing its candidates for one 16 MiB allreduce on hosts of 8 ranks
// (8 and 64 hosts): the candidates at their defaults apart from the hierarchical policies'
// pipelined ones. Build against a release build of cclx (README.md here).
#include <chrono>
#include <cstdio>
#include <vector>

#include "cclx/tune/candidate.hpp"
#include "cclx/tune/model.hpp"
using namespace cclx;
int main() {
  const tune::Predictor model = tune::alpha_beta_model();
  for (int hosts : {8, 64}) {
    std::vector<int> map;
    for (int r = 0; r < hosts * 8; ++r) map.push_back(r / 8);
    tune::Workload w;
    w.collective = sched::Collective::allreduce;
    w.nranks = (int)map.size();
    w.bytes = 16u << 20;
    w.elem_size = 4;
    w.hosts = map;
    double piped = 0, plain = 0;
    for (const auto& c : tune::model_candidates(w)) {
      auto t0 = std::chrono::steady_clock::now();
      (void)model(c, w);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      (c.params.count("pipeline") ? piped : plain) += s;
    }
    std::printf("n=%d: plain candidates %.3f s, pipelined %.3f s\n", w.nranks, plain, piped);
  }
}
