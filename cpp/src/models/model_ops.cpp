// The models' shared blocks in both precisions (model_ops.hpp).
#include "models/model_ops.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "poslab/fast/fast.hpp"
#include "poslab/fast/gemm.hpp"
#include "poslab/positions/formulas.hpp"

namespace poslab::model {
namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Slices of a half-precision weight widened at once: 2^20 floats (4 MiB), enough rows for the
// GEMM's cache blocks, small beside the weights themselves.
constexpr std::size_t kSliceFloats = std::size_t{1} << 20;
// The double path widens 2^16 doubles (512 KiB) at a time, which stays in cache: at the short T
// of a prompt that pass is bound by reading the weights, not by the flops.
constexpr std::size_t kSliceDoubles = std::size_t{1} << 16;

struct Dims {
  std::size_t T, in, out;
};

Dims dims_of(const TensorF& x, const StoredTensor& w) {
  const std::size_t in = w.dim(1), out = w.dim(0);
  require(x.ndim() == 2 && x.dim(1) == in, "linear: input " + shape_string(x.shape) +
                                               " does not match weight " + shape_string(w.shape));
  return {x.dim(0), in, out};
}

TensorF linear_double(const TensorF& x, const StoredTensor& w, const StoredTensor* b,
                      const char* what) {
  const Dims n = dims_of(x, w);
  TensorF result({n.T, n.out}, what);
  const MatrixD X = Eigen::Map<const MatrixF>(x.ptr(), n.T, n.in).cast<double>();
  MatrixD y = MatrixD::Zero(n.T, n.out);
  if (b) {
    Eigen::RowVectorXd bias(n.out);
    b->widen(0, n.out, bias.data());
    y.rowwise() = bias;
  }
  // Slices of output rows: y[:, r0:r0+k] += X · W[r0:r0+k]ᵀ.
  const std::size_t rows = std::max<std::size_t>(1, kSliceDoubles / n.in);
  MatrixD W(std::min(rows, n.out), n.in);
  for (std::size_t r0 = 0; r0 < n.out; r0 += rows) {
    const std::size_t k = std::min(rows, n.out - r0);
    w.widen(r0 * n.in, k * n.in, W.data());
    y.middleCols(r0, k).noalias() += X * W.topRows(k).transpose();
  }
  Eigen::Map<MatrixF>(result.ptr(), n.T, n.out) = y.cast<float>();
  return result;
}

TensorF linear_float(const TensorF& x, const StoredTensor& w, const StoredTensor* b,
                     const char* what) {
  using fast::Op;
  const Dims n = dims_of(x, w);
  TensorF y({n.T, n.out}, what);
  if (b) {
    b->widen(0, n.out, y.ptr());
    for (std::size_t t = 1; t < n.T; ++t) std::copy_n(y.ptr(), n.out, y.ptr() + t * n.out);
  }
  const bool add = b != nullptr;
  if (w.dtype == StoredDType::kF32) {
    fast::gemm(n.T, n.out, n.in, x.ptr(), n.in, Op::kNone, w.f32.data(), n.in, Op::kTranspose,
               y.ptr(), n.out, add);
    return y;
  }
  // Half precision: widen a slice of W's rows (output columns) at a time.
  const std::size_t rows = std::max<std::size_t>(1, kSliceFloats / n.in);
  std::vector<float> slice(std::min(rows, n.out) * n.in);
  for (std::size_t r0 = 0; r0 < n.out; r0 += rows) {
    const std::size_t k = std::min(rows, n.out - r0);
    w.widen(r0 * n.in, k * n.in, slice.data());
    fast::gemm(n.T, k, n.in, x.ptr(), n.in, Op::kNone, slice.data(), n.in, Op::kTranspose,
               y.ptr() + r0, n.out, add);
  }
  return y;
}

}  // namespace

TensorF linear(const TensorF& x, const StoredTensor& w, const StoredTensor* b, Precision precision,
               const char* what) {
  return precision == Precision::kDouble ? linear_double(x, w, b, what)
                                         : linear_float(x, w, b, what);
}

void gelu_tanh(TensorF& x, Precision precision) {
  if (precision == Precision::kFloat) return fast::gelu_tanh(x.ptr(), x.size());
  for (float& value : x.data) value = static_cast<float>(formulas::gelu_tanh(value));
}

void gelu_erf(TensorF& x, Precision precision) {
  if (precision == Precision::kFloat) return fast::gelu_erf(x.ptr(), x.size());
  for (float& value : x.data) value = static_cast<float>(formulas::gelu_erf(value));
}

namespace {

// gate = act(gate)·up, in place: `activate_floats` on the float path (then the product in
// float32), `activate` per element in double on the other; `name` words the shape check.
template <class ActivateFloats, class Activate>
void gated(TensorF& gate, const TensorF& up, Precision precision, const char* name,
           ActivateFloats activate_floats, Activate activate) {
  require(gate.shape == up.shape, std::string(name) + ": gate " + shape_string(gate.shape) +
                                      " and up " + shape_string(up.shape) + " differ");
  float* g = gate.ptr();
  const float* u = up.ptr();
  if (precision == Precision::kFloat) {
    activate_floats(g, gate.size());
    for (std::size_t i = 0; i < gate.size(); ++i) g[i] *= u[i];
    return;
  }
  for (std::size_t i = 0; i < gate.size(); ++i) {
    g[i] = static_cast<float>(activate(double(g[i])) * double(u[i]));
  }
}

}  // namespace

void swiglu(TensorF& gate, const TensorF& up, Precision precision) {
  gated(gate, up, precision, "swiglu", fast::silu,
        [](double x) { return x / (1.0 + std::exp(-x)); });
}

void geglu_tanh(TensorF& gate, const TensorF& up, Precision precision) {
  gated(gate, up, precision, "geglu", fast::gelu_tanh,
        [](double x) { return formulas::gelu_tanh(x); });
}

AttentionResult attention(const TensorF& q, const TensorF& k, const TensorF& v,
                          const AttentionOptions& options, Precision precision) {
  return precision == Precision::kDouble ? poslab::attention(q, k, v, options)
                                         : fast::attention(q, k, v, options);
}

TensorF sum(std::initializer_list<const TensorF*> terms) {
  TensorF out = **terms.begin();
  if (terms.size() == 2) {
    // The float sum of two floats is the double sum rounded once (double's 53 bits are more
    // than 2·24 + 2, so rounding twice is innocuous): the same bits, in a loop that vectorises.
    const float* b = (*(terms.begin() + 1))->ptr();
    float* a = out.ptr();
    for (std::size_t i = 0; i < out.size(); ++i) a[i] += b[i];
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    double s = 0.0;
    for (const TensorF* t : terms) s += t->data[i];
    out.data[i] = static_cast<float>(s);
  }
  return out;
}

TensorF row_norms(const TensorF& x) {
  const std::size_t T = x.dim(0), E = x.dim(1);
  TensorF norms({T}, "residual norms (T,)");
  for (std::size_t t = 0; t < T; ++t) {
    double s = 0.0;
    for (std::size_t c = 0; c < E; ++c) s += double(x.data[t * E + c]) * x.data[t * E + c];
    norms.data[t] = static_cast<float>(std::sqrt(s));
  }
  return norms;
}

}  // namespace poslab::model
