// Gradient buckets and their allreduce, as in PyTorch DDP: whole layers are grouped, last layer
// first (the order the backward pass produces them), into buckets of at least `cap` bytes; each
// bucket is a contiguous range of the flat gradient buffer (model.hpp lays it out so). A bucket's
// allreduce starts as soon as its lowest layer's gradients are written, and runs while the layers
// below are differentiated; all of them are waited for before the optimizer step.
#pragma once

#include <cclx/cclx.hpp>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model.hpp"

namespace trainer {

struct Bucket {
  std::size_t begin = 0, end = 0;  // element range in the gradient buffer
  int lowest_layer = 0;            // ready once this layer's gradients are written
};

inline std::vector<Bucket> make_buckets(const std::vector<Mlp::Layer>& layers,
                                        std::size_t cap_bytes) {
  std::vector<Bucket> buckets;
  Bucket b;
  bool open = false;
  for (std::size_t l = layers.size(); l-- > 0;) {
    if (!open) b = {.begin = layers[l].offset, .end = layers[l].offset};
    open = true;
    b.end = layers[l].offset + layers[l].size();
    b.lowest_layer = static_cast<int>(l);
    if ((b.end - b.begin) * sizeof(float) >= cap_bytes) {
      buckets.push_back(b);
      open = false;
    }
  }
  if (open) buckets.push_back(b);
  return buckets;
}

// How the buckets are all-reduced: blocking (one allreduce per bucket after the backward pass, no
// overlap), nonblocking (comm.iallreduce per bucket and iteration) or persistent (one
// comm.allreduce_init per bucket, made once; start() per iteration). Adaptive policies that choose
// per call (StragglerAware) run blocking; relay collectives (algo::Adaptive) run persistent: a
// bucket's start() is the rank's "ready" notice.
enum class Mode { blocking, nonblocking, persistent };

inline const char* to_string(Mode m) {
  switch (m) {
    case Mode::blocking:
      return "blocking";
    case Mode::nonblocking:
      return "nonblocking";
    case Mode::persistent:
      return "persistent";
  }
  return "?";
}

class Reducer {
 public:
  virtual ~Reducer() = default;
  // Layer l's gradients are written: start the buckets it completes; progress the running ones
  // (a scheduled cclx request moves only inside its own test() or wait()).
  virtual void layer_done(int l) = 0;
  // Every bucket holds the sum over ranks of its gradients.
  virtual void finish() = 0;
  [[nodiscard]] virtual Mode mode() const = 0;
  // What an adaptive policy chose for each bucket's next call ("" for the others).
  [[nodiscard]] virtual std::string choices() const = 0;
};

template <cclx::algo::Algorithm A>
class BucketReducer final : public Reducer {
 public:
  BucketReducer(cclx::Communicator<>& comm, std::span<float> grads, std::vector<Bucket> buckets,
                Mode mode, const A& algorithm)
      : comm_(comm), grads_(grads), buckets_(std::move(buckets)), mode_(mode) {
    if constexpr (kRelay)
      mode_ = Mode::persistent;
    else if constexpr (cclx::algo::AdaptiveAlgorithm<A>)
      mode_ = Mode::blocking;  // they choose per call from the previous calls; blocking only
    // One policy object per bucket: an adaptive policy learns per call site (a straggler makes
    // only the first bucket's allreduce late; the later ones would tell a shared detector that
    // nobody is late).
    for (std::size_t i = 0; i < buckets_.size(); ++i) policies_.push_back(fresh(algorithm));
    if constexpr (!cclx::algo::AdaptiveAlgorithm<A>) {
      if (mode_ == Mode::persistent)
        for (std::size_t i = 0; i < buckets_.size(); ++i)
          persistent_.push_back(comm_.allreduce_init(span(i), cclx::sum, policies_[i]));
      requests_.resize(buckets_.size());
    }
  }

  void layer_done(int l) override {
    if constexpr (!cclx::algo::AdaptiveAlgorithm<A>) {
      if (mode_ == Mode::blocking) return;
      for (std::size_t i = 0; i < buckets_.size(); ++i) {
        if (buckets_[i].lowest_layer == l) {
          if constexpr (kRelay) {
            persistent_[i].start();
          } else {
            if (mode_ == Mode::persistent)
              persistent_[i].start();
            else
              requests_[i] = comm_.iallreduce(span(i), cclx::sum, policies_[i]);
          }
        }
      }
      for (auto& p : persistent_) (void)p.test();
      for (auto& r : requests_) (void)r.test();
    } else {
      (void)l;
    }
  }

  void finish() override {
    if constexpr (!cclx::algo::AdaptiveAlgorithm<A>) {
      if (mode_ != Mode::blocking) {
        for (auto& p : persistent_) p.wait();
        for (auto& r : requests_) r.wait();
        return;
      }
    }
    if constexpr (!kRelay)
      for (std::size_t i = 0; i < buckets_.size(); ++i)
        comm_.allreduce(span(i), cclx::sum, policies_[i]);
  }

  [[nodiscard]] Mode mode() const override { return mode_; }

  [[nodiscard]] std::string choices() const override {
    std::string s;
    if constexpr (requires(const A& a) { a.detector->decision(); }) {
      for (std::size_t i = 0; i < policies_.size(); ++i) {
        const int straggler = policies_[i].detector->decision();
        s += (i ? ", bucket " : "bucket ") + std::to_string(i) + ": " +
             (straggler >= 0 ? "stragglar(straggler=" + std::to_string(straggler) + ")"
                             : std::string(A{}.fallback.name));
      }
    }
    return s;
  }

 private:
  static constexpr bool kRelay = cclx::algo::RelayAlgorithm<A>;  // persistent only

  std::span<float> span(std::size_t i) {
    return grads_.subspan(buckets_[i].begin, buckets_[i].end - buckets_[i].begin);
  }
  // A copy of `a` with its own learning state (copies of StragglerAware share one detector).
  static A fresh(const A& a) {
    A copy = a;
    if constexpr (requires { copy.detector; })
      copy.detector = std::make_shared<typename decltype(copy.detector)::element_type>();
    return copy;
  }

  cclx::Communicator<>& comm_;
  std::span<float> grads_;
  std::vector<Bucket> buckets_;
  Mode mode_;
  std::vector<A> policies_;
  std::vector<cclx::PersistentRequest> persistent_;
  std::vector<cclx::Request> requests_;
};

}  // namespace trainer
