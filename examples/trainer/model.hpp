// A multi-layer perceptron (Eigen, float): hidden layers with tanh or ReLU, a softmax
// cross-entropy head, mean loss over the batch. Parameters and gradients live in two flat buffers
// laid out in reverse layer order (last layer first, each layer's W then b): the backward pass
// writes them front to back, so the gradient buckets (bucketing.hpp) are contiguous ranges that
// fill up one after the other, as in PyTorch DDP.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "data.hpp"
#include "rng.hpp"

namespace trainer {

enum class Activation { tanh, relu };

class Mlp {
 public:
  struct Layer {
    int in = 0, out = 0;
    std::size_t offset = 0;  // of W (out x in, column-major) in the flat buffers; b follows
    [[nodiscard]] std::size_t size() const {
      return static_cast<std::size_t>(out) * static_cast<std::size_t>(in + 1);
    }
  };

  // widths: inputs, hidden..., classes. Weights uniform in +-sqrt(6 / (in + out)) (Glorot), biases
  // 0; the same on every rank for the same seed.
  Mlp(const std::vector<int>& widths, Activation act, std::uint64_t seed) : act_(act) {
    std::size_t total = 0;
    for (std::size_t l = 0; l + 1 < widths.size(); ++l)
      layers_.push_back({.in = widths[l], .out = widths[l + 1]});
    for (std::size_t l = layers_.size(); l-- > 0;) {  // reverse layer order in memory
      layers_[l].offset = total;
      total += layers_[l].size();
    }
    params_.assign(total, 0.0f);
    grads_.assign(total, 0.0f);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      auto w = weight(params_, l);
      const float a = std::sqrt(6.0f / static_cast<float>(layers_[l].in + layers_[l].out));
      for (Eigen::Index i = 0; i < w.size(); ++i)
        w.data()[i] = uniform_sym(seed, stream_weights + 2 * l, static_cast<std::uint64_t>(i), a);
    }
    acts_.resize(layers_.size());
  }

  [[nodiscard]] const std::vector<Layer>& layers() const { return layers_; }
  [[nodiscard]] std::span<float> params() { return params_; }
  [[nodiscard]] std::span<const float> params() const { return params_; }
  [[nodiscard]] std::span<float> grads() { return grads_; }

  // Mean cross-entropy of the batch (x: one sample per column); keeps what backward() needs.
  float forward(const Matrix& x, const std::vector<int>& y) {
    acts_[0] = x;
    Matrix z;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      z.noalias() = weight(params_, l) * acts_[l];
      z.colwise() += bias(params_, l);
      if (l + 1 < layers_.size())
        acts_[l + 1] =
            act_ == Activation::tanh ? Matrix(z.array().tanh()) : Matrix(z.array().max(0.0f));
    }
    // Softmax, shifted by each column's max for stability; dlogits = (p - onehot(y)) / batch.
    const auto batch = static_cast<float>(x.cols());
    dz_ = (z.rowwise() - z.colwise().maxCoeff()).array().exp().matrix();
    dz_.array().rowwise() /= dz_.colwise().sum().array();
    double loss = 0.0;
    for (Eigen::Index j = 0; j < dz_.cols(); ++j) {
      const auto label = static_cast<Eigen::Index>(y[static_cast<std::size_t>(j)]);
      loss -= std::log(std::max(dz_(label, j), 1e-30f));
      dz_(label, j) -= 1.0f;
    }
    dz_ /= batch;
    return static_cast<float>(loss / static_cast<double>(x.cols()));
  }

  // Gradients of the last forward(), last layer first; layer_done(l) runs as soon as layer l's
  // gradients are in grads() (before the layers below it are differentiated).
  template <class F>
  void backward(F&& layer_done) {
    Matrix da;
    for (std::size_t l = layers_.size(); l-- > 0;) {
      weight(grads_, l).noalias() = dz_ * acts_[l].transpose();
      bias(grads_, l) = dz_.rowwise().sum();
      layer_done(static_cast<int>(l));
      if (l == 0) break;
      da.noalias() = weight(params_, l).transpose() * dz_;
      if (act_ == Activation::tanh)
        dz_ = (da.array() * (1.0f - acts_[l].array().square())).matrix();
      else
        dz_ = (da.array() * (acts_[l].array() > 0.0f).cast<float>()).matrix();
    }
  }

 private:
  Eigen::Map<Matrix> weight(std::vector<float>& buf, std::size_t l) {
    return {buf.data() + layers_[l].offset, layers_[l].out, layers_[l].in};
  }
  Eigen::Map<Eigen::VectorXf> bias(std::vector<float>& buf, std::size_t l) {
    const std::size_t w = static_cast<std::size_t>(layers_[l].out) * layers_[l].in;
    return {buf.data() + layers_[l].offset + w, layers_[l].out};
  }

  Activation act_;
  std::vector<Layer> layers_;
  std::vector<float> params_, grads_;
  std::vector<Matrix> acts_;  // acts_[l]: the input of layer l
  Matrix dz_;                 // gradient of the loss w.r.t. the current layer's pre-activation
};

}  // namespace trainer
