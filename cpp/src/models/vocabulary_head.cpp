// The RoPE language models' vocabulary head (vocabulary_head.hpp).
#include "models/vocabulary_head.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <optional>
#include <string>

#include "poslab/base/errors.hpp"
#include "poslab/fast/gemm.hpp"

namespace poslab::model {
namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMapF = Eigen::Map<const MatrixF>;
using MapF = Eigen::Map<MatrixF, 0, Eigen::OuterStride<>>;

// Columns [c0, c0 + n) of x (T, E) · wᵀ, w (V, E) the vocabulary matrix, added into c (row
// stride ldc): one panel of the vocabulary head. model::linear makes whole (T, out) products;
// the head needs a panel at a time so that (T, V) never has to exist. The float path reads
// (F32) or widens (F16) just the panel's rows and calls fast::gemm; the double path widens
// them to double 512 KB at a time, as model::linear's reference does.
void head_panel(const TensorF& x, const MatrixD* x_double, const StoredTensor& w, std::size_t c0,
                std::size_t n, Precision precision, float* c, std::size_t ldc) {
  const std::size_t T = x.dim(0), E = x.dim(1);
  if (precision == Precision::kFloat) {
    std::vector<float> widened;
    const float* rows = w.f32.data() + c0 * E;
    if (w.dtype != StoredDType::kF32) {
      widened.resize(n * E);
      w.widen(c0 * E, n * E, widened.data());
      rows = widened.data();
    }
    fast::gemm(T, n, E, x.ptr(), E, fast::Op::kNone, rows, E, fast::Op::kTranspose, c, ldc,
               /*accumulate=*/true);
    return;
  }
  const std::size_t panel = std::max<std::size_t>(1, (std::size_t{1} << 16) / E);
  MatrixD W(std::min(panel, n), E);
  for (std::size_t r0 = 0; r0 < n; r0 += panel) {
    const std::size_t m = std::min(panel, n - r0);
    w.widen((c0 + r0) * E, m * E, W.data());
    MapF out(c + r0, T, m, Eigen::OuterStride<>(ldc));
    out = (out.cast<double>() + *x_double * W.topRows(m).transpose()).cast<float>();
  }
}

}  // namespace

VocabularyOutputs vocabulary_head(const TensorF& final_x, const StoredTensor& matrix,
                                  const std::vector<long long>& tokens, Precision precision,
                                  bool logits, bool loss_by_position, long long top_k) {
  const std::size_t T = final_x.dim(0), E = final_x.dim(1), V = matrix.dim(0);
  if (!logits && !loss_by_position && T > 1) {
    // Only the next tokens after the last position: one row of the product, not T (a traced
    // pass read for its layers alone, such as the position lens's).
    const TensorF last_x({1, E},
                         std::vector<float>(final_x.ptr() + (T - 1) * E, final_x.ptr() + T * E));
    return vocabulary_head(last_x, matrix, tokens, precision, false, false, top_k);
  }
  VocabularyOutputs result;
  // About 4 M elements per panel (16 MB of float32, 32 MB of double in the reference), and
  // whole panels of at least 64 columns so the product keeps its shape at very long T.
  const std::size_t panel = std::min(V, std::max<std::size_t>(64, (std::size_t{1} << 22) / T));
  if (logits) result.logits = TensorF({T, V}, "logits (T, V)");
  std::vector<float> block(logits ? 0 : T * panel), last(V);
  std::optional<NextTokenLoss> loss;
  if (loss_by_position) loss.emplace(tokens, V);
  std::optional<MatrixD> x_double;
  if (precision == Precision::kDouble) x_double = ConstMapF(final_x.ptr(), T, E).cast<double>();
  for (std::size_t v0 = 0; v0 < V; v0 += panel) {
    const std::size_t n = std::min(panel, V - v0);
    float* c = logits ? result.logits.ptr() + v0 : block.data();
    const std::size_t ldc = logits ? V : n;
    for (std::size_t t = 0; t < T; ++t) std::fill_n(c + t * ldc, n, 0.0f);
    head_panel(final_x, x_double ? &*x_double : nullptr, matrix, v0, n, precision, c, ldc);
    if (loss) loss->add(c, ldc, v0, n);
    std::copy_n(c + (T - 1) * ldc, n, last.data() + v0);
  }
  if (loss) result.losses = loss->losses();
  result.top = poslab::top_k(last.data(), V, std::size_t(std::max(0LL, top_k)));
  return result;
}

void vocabulary_head_into(RopeLmResult& result, const TensorF& final_x, const StoredTensor& matrix,
                          const std::vector<long long>& tokens, const RopeLmOptions& options) {
  VocabularyOutputs head = vocabulary_head(final_x, matrix, tokens, options.precision,
                                           options.logits, options.loss_by_position, options.top_k);
  result.logits = std::move(head.logits);
  result.losses = std::move(head.losses);
  result.top_ids = std::move(head.top.ids);
  result.top_probs = std::move(head.top.probs);
}

void check_output_sizes(std::size_t T, std::size_t V, std::size_t N, std::size_t H, bool logits,
                        bool trace) {
  try {
    if (logits) checked_numel({T, V}, "logits (T, V)");
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + ": ask for the loss by position instead", "tokens");
  }
  try {
    if (trace) checked_numel({N, H, T, T}, "the trace's attention maps (N, H, T, T)");
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + ": trace a shorter sequence", "trace");
  }
}

}  // namespace poslab::model
