// The synthetic dataset: inputs uniform in [-1, 1)^d, labelled by a fixed random "teacher" network
// (argmax of W2 tanh(W1 x)), so there is something nonlinear to learn. Sample i is a pure function
// of (seed, i); rank r of n takes, at iteration t, the samples ((t n + r) b .. (t n + r + 1) b):
// every rank its own shard, and the global batch of an iteration depends only on n and b.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "rng.hpp"

namespace trainer {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;

class Dataset {
 public:
  Dataset(int inputs, int classes, std::uint64_t seed)
      : inputs_(inputs), seed_(seed), t1_(teacher_hidden, inputs), t2_(classes, teacher_hidden) {
    for (Eigen::Index i = 0; i < t1_.size(); ++i)
      t1_.data()[i] = uniform_sym(seed, stream_teacher, static_cast<std::uint64_t>(i), 2.0f);
    for (Eigen::Index i = 0; i < t2_.size(); ++i)
      t2_.data()[i] = uniform_sym(seed, stream_teacher + 1, static_cast<std::uint64_t>(i), 1.0f);
  }

  // Samples first .. first + count: inputs as the columns of x, labels in y.
  void batch(std::uint64_t first, int count, Matrix& x, std::vector<int>& y) const {
    x.resize(inputs_, count);
    for (int j = 0; j < count; ++j)
      for (int i = 0; i < inputs_; ++i)
        x(i, j) = uniform_sym(seed_, stream_inputs,
                              (first + static_cast<std::uint64_t>(j)) * 65536u + i, 1.0f);
    const Matrix scores = t2_ * (t1_ * x).array().tanh().matrix();
    y.resize(static_cast<std::size_t>(count));
    for (int j = 0; j < count; ++j) scores.col(j).maxCoeff(&y[static_cast<std::size_t>(j)]);
  }

 private:
  static constexpr int teacher_hidden = 32;
  int inputs_;
  std::uint64_t seed_;
  Matrix t1_, t2_;
};

}  // namespace trainer
