// The lab's model over a flat parameter buffer, as a template over the scalar type: Model
// (model.cpp) runs Engine<float>; the whole-model gradient test runs Engine<double> against
// finite differences. Activations are kept for the backward pass and reused across calls.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/models/position_surgery.hpp"
#include "poslab/positions/formulas.hpp"
#include "poslab/positions/rope.hpp"
#include "poslab/positions/score_bias.hpp"
#include "poslab/train/model.hpp"
#include "train/ops.hpp"

namespace poslab::train {

// Offsets of every parameter, by role (model.hpp lists the names and order).
struct ParamOffsets {
  struct Layer {
    std::size_t ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b, fcproj_w,
        fcproj_b;
    std::size_t bias = 0;   // the layer's score-bias term parameters (score_bias_tensors)
    std::size_t sinks = 0;  // h.{l}.attn.sinks (H,), with sinks
    std::size_t fox_w = 0, fox_b = 0;  // FoX's forget gate, (H, E) and (H,)
    std::size_t cope = 0;              // CoPE's position embeddings (E / H, npos_max)
  };
  std::size_t wte = 0, wpe = 0, lnf_w = 0, lnf_b = 0;
  std::vector<Layer> layers;

  ParamOffsets(const ModelConfig& config, const std::vector<ParamInfo>& info) {
    auto at = [&](const std::string& name) {
      for (const ParamInfo& p : info) {
        if (p.name == name) return p.offset;
      }
      throw Error("no parameter " + name);
    };
    wte = at("wte.weight");
    if (has_learned_table(config.position)) wpe = at("wpe.weight");
    for (std::size_t l = 0; l < config.n_layer; ++l) {
      const std::string h = "h." + std::to_string(l) + ".";
      layers.push_back({at(h + "ln_1.weight"), at(h + "ln_1.bias"), at(h + "attn.c_attn.weight"),
                        at(h + "attn.c_attn.bias"), at(h + "attn.c_proj.weight"),
                        at(h + "attn.c_proj.bias"), at(h + "ln_2.weight"), at(h + "ln_2.bias"),
                        at(h + "mlp.c_fc.weight"), at(h + "mlp.c_fc.bias"),
                        at(h + "mlp.c_proj.weight"), at(h + "mlp.c_proj.bias")});
      if (config.sinks) layers.back().sinks = at(h + "attn.sinks");
      if (config.position == PositionMethod::kCope)
        layers.back().cope = at(h + "attn.cope_pos_emb");
      if (config.position == PositionMethod::kFox) {
        layers.back().fox_w = at(h + "attn.fox_w");
        layers.back().fox_b = at(h + "attn.fox_b");
      }
      // A term reads its tensors as one block: the layout must keep them adjacent.
      const std::vector<std::string> bias = score_bias_tensors(config, l);
      if (!bias.empty()) {
        layers.back().bias = at(bias.front());
        std::size_t end = layers.back().bias;
        for (const std::string& name : bias) {
          require(at(name) == end, "the score bias's parameters are not one block in the layout");
          for (const ParamInfo& p : info) end += p.name == name ? p.numel : 0;
        }
      }
    }
    lnf_w = at("ln_f.weight");
    lnf_b = at("ln_f.bias");
  }
};

template <class T>
class Engine {
 public:
  Engine(ModelConfig config, const std::vector<ParamInfo>& info)
      : c_(std::move(config)), off_(c_, info) {}

  const ModelConfig& config() const { return c_; }
  // The scaling RoPE rotates with from the next forward() on (Model::set_rope_scaling).
  void set_rope_scaling(const RopeOptions& options) { rope_scaling_ = options; }
  // Position surgery (models/position_surgery.hpp) applied by the next forward() passes, which
  // then have no backward(); null: none. The caller keeps it alive and has checked it.
  void set_surgery(const PositionSurgery* surgery) { surgery_ = surgery; }

  // Runs the model over the batch up to the logits (N, V), kept in logits().
  void forward(const T* p, const Batch& batch) {
    resize(batch);
    plan_attention(batch);
    const std::size_t E = c_.n_embd, I = c_.n_inner, N = n_, V = c_.vocab_size;
    embed_forward(p, batch);
    for (std::size_t l = 0; l < c_.n_layer; ++l) {
      const auto& o = off_.layers[l];
      Acts& a = layers_[l];
      const T* x = residual(l);
      ops::layernorm_forward(a.ln1.data(), a.ln1_mean.data(), a.ln1_rstd.data(), x, p + o.ln1_w,
                             p + o.ln1_b, N, E, c_.layer_norm_epsilon);
      ops::linear_forward(a.qkv.data(), a.ln1.data(), p + o.attn_w, p + o.attn_b, N, E, 3 * E);
      // A bias whose parameters every layer shares (ALiBi, T5) is the same in every layer.
      if (fox()) {
        fox_forward(p, l);
      } else if (biased() && (l == 0 || !bias_shared_)) {
        score_bias_forward(p + o.bias);
      }
      const LayerSurgery surgery = plan_surgery(l);
      ops::attention_forward(a.atty.data(), a.q.data(), a.k.data(), a.v.data(), a.att.data(),
                             a.qkv.data(), plan_, biased() ? bias_.data() : nullptr,
                             extras(p, nullptr, l));
      ablate_heads(a.atty.data(), surgery);
      // x_mid = x + atty·W_o + b
      ops::linear_forward(a.mid.data(), a.atty.data(), p + o.proj_w, p + o.proj_b, N, E, E);
      for (std::size_t n = 0; n < N * E; ++n) a.mid[n] += x[n];
      ops::layernorm_forward(a.ln2.data(), a.ln2_mean.data(), a.ln2_rstd.data(), a.mid.data(),
                             p + o.ln2_w, p + o.ln2_b, N, E, c_.layer_norm_epsilon);
      ops::linear_forward(a.fc.data(), a.ln2.data(), p + o.fc_w, p + o.fc_b, N, E, I);
      ops::gelu_tanh_forward(a.fc_gelu.data(), a.fc.data(), N * I);
      T* out = residual(l + 1);
      ops::linear_forward(out, a.fc_gelu.data(), p + o.fcproj_w, p + o.fcproj_b, N, I, E);
      for (std::size_t n = 0; n < N * E; ++n) out[n] += a.mid[n];
    }
    plan_surgery(c_.n_layer);  // the plain plan again (backward() plans each layer itself)
    ops::layernorm_forward(lnf_.data(), lnf_mean_.data(), lnf_rstd_.data(), residual(c_.n_layer),
                           p + off_.lnf_w, p + off_.lnf_b, N, E, c_.layer_norm_epsilon);
    // Tied head: logits (N, V) = lnf (N, E) · wteᵀ (wte stored (V, E)).
    ops::matmul(N, V, E, lnf_.data(), false, p + off_.wte, true, logits_.data(), false);
  }

  // After forward(): the masked mean cross-entropy (divided by `total` when given: a shard's
  // share of its batch's loss); logits() becomes its gradient.
  double loss(const Batch& batch, double total = 0) {
    return ops::cross_entropy_forward_backward(logits_.data(), batch.targets.data(),
                                               batch.loss_mask.data(), n_, c_.vocab_size, total);
  }

  // After loss(): the gradient of every parameter, accumulated into g (zeroed by the caller).
  void backward(const T* p, T* g) {
    require(surgery_ == nullptr, "a pass under position surgery has no gradient");
    const std::size_t E = c_.n_embd, I = c_.n_inner, N = n_, V = c_.vocab_size;
    // Tied head: dlnf = dlogits · wte; dwte += dlogitsᵀ · lnf.
    std::fill(dx_.begin(), dx_.end(), T(0));
    ops::matmul(N, E, V, logits_.data(), false, p + off_.wte, false, dbuf_.data(), false);
    ops::matmul(V, E, N, logits_.data(), true, lnf_.data(), false, g + off_.wte, true);
    ops::layernorm_backward(dx_.data(), g + off_.lnf_w, g + off_.lnf_b, dbuf_.data(),
                            residual(c_.n_layer), p + off_.lnf_w, lnf_mean_.data(),
                            lnf_rstd_.data(), N, E);
    // dx_ holds dloss/dx of the residual stream after the current layer.
    for (std::size_t l = c_.n_layer; l-- > 0;) {
      const auto& o = off_.layers[l];
      Acts& a = layers_[l];
      // out = mid + fc_gelu·W + b: dmid = dx (kept in dx_), dfc_gelu = dx·Wᵀ.
      ops::linear_backward(dfc_.data(), g + o.fcproj_w, g + o.fcproj_b, dx_.data(),
                           a.fc_gelu.data(), p + o.fcproj_w, N, I, E, true);
      std::fill(dfc2_.begin(), dfc2_.end(), T(0));
      ops::gelu_tanh_backward(dfc2_.data(), dfc_.data(), a.fc.data(), a.fc_gelu.data(), N * I);
      ops::linear_backward(dbuf_.data(), g + o.fc_w, g + o.fc_b, dfc2_.data(), a.ln2.data(),
                           p + o.fc_w, N, E, I, true);
      ops::layernorm_backward(dx_.data(), g + o.ln2_w, g + o.ln2_b, dbuf_.data(), a.mid.data(),
                              p + o.ln2_w, a.ln2_mean.data(), a.ln2_rstd.data(), N, E);
      // mid = x + atty·W_o + b: dx = dmid (kept), datty = dmid·W_oᵀ.
      ops::linear_backward(datty_.data(), g + o.proj_w, g + o.proj_b, dx_.data(), a.atty.data(),
                           p + o.proj_w, N, E, E, true);
      plan_surgery(l);  // the layer's rotation (a NoPE layer's none) and temperature
      ops::attention_backward(dqkv_.data(), dq_.data(), dk_.data(), dv_.data(), datt_.data(),
                              datty_.data(), a.q.data(), a.k.data(), a.v.data(), a.att.data(),
                              plan_, biased() ? bias_.data() : nullptr, extras(p, g, l));
      if (biased() && bias_parameters_ > 0) score_bias_backward(p + o.bias, g + o.bias);
      ops::linear_backward(dbuf_.data(), g + o.attn_w, g + o.attn_b, dqkv_.data(), a.ln1.data(),
                           p + o.attn_w, N, E, 3 * E, true);
      if (fox()) fox_backward(p, g, l);  // after dbuf_'s fresh start: it adds to it
      ops::layernorm_backward(dx_.data(), g + o.ln1_w, g + o.ln1_b, dbuf_.data(), residual(l),
                              p + o.ln1_w, a.ln1_mean.data(), a.ln1_rstd.data(), N, E);
    }
    plan_surgery(c_.n_layer);
    embed_backward(g);
  }

  const std::vector<T>& logits() const { return logits_; }
  // Attention weights (B, H, T, T) of layer l from the last forward().
  const std::vector<T>& attention(std::size_t l) const { return layers_[l].att; }
  // The queries and keys (B, H, T, d) layer l scored with in the last forward(), after the
  // rotation.
  const std::vector<T>& queries(std::size_t l) const { return layers_[l].q; }
  const std::vector<T>& keys(std::size_t l) const { return layers_[l].k; }
  std::size_t rows() const { return n_; }

  // Error (field "weights") naming the first tensor of the last forward() in order — the
  // embedding with its positions, then each layer's attention weights and output, then the
  // logits — that holds a value that is not finite: an overflow inside the model is named
  // where it appears instead of surfacing as NaN losses or null scores. A non-finite value
  // anywhere reaches the logits, so finite logits (the usual case, one pass over B·T·V) end
  // the check; only a failing pass looks further back.
  void require_finite_forward() {
    if (std::all_of(logits_.begin(), logits_.end(), [](T v) { return std::isfinite(v); })) return;
    const std::size_t E = c_.n_embd;
    const auto check = [](const T* begin, std::size_t n, const std::string& what) {
      for (std::size_t i = 0; i < n; ++i) {
        if (std::isfinite(begin[i])) continue;
        throw Error("the forward pass overflows float32 at " + what + " (element " +
                        std::to_string(i) + "): a weight is too large there",
                    "weights");
      }
    };
    check(residual(0), n_ * E, "the embedding with its positions");
    for (std::size_t l = 0; l < c_.n_layer; ++l) {
      const std::string layer = "layer " + std::to_string(l) + "'s ";
      check(layers_[l].att.data(), layers_[l].att.size(), layer + "attention weights");
      check(residual(l + 1), n_ * E, layer + "output");
    }
    check(logits_.data(), logits_.size(), "the logits");
  }

 private:
  struct Acts {
    std::vector<T> ln1, ln1_mean, ln1_rstd, qkv, q, k, v, att, atty, mid, ln2, ln2_mean, ln2_rstd,
        fc, fc_gelu;
    std::vector<T> sink;   // (B, H, T): each row's sink weight, with sinks
    std::vector<T> fox_z;  // (B·T, H): FoX's gate logits w_h·x_t + b_h
  };

  // Layer l's attention extras (ops::AttentionExtras) over the parameters p; g: where their
  // gradients go (null in the forward pass).
  ops::AttentionExtras<T> extras(const T* p, T* g, std::size_t l) {
    ops::AttentionExtras<T> x;
    if (c_.sinks) {
      x.sinks = p + off_.layers[l].sinks;
      x.sink_weights = layers_[l].sink.data();
      if (g != nullptr) x.dsinks = g + off_.layers[l].sinks;
    }
    if (c_.position == PositionMethod::kCope) {
      x.cope = p + off_.layers[l].cope;
      x.cope_npos_max = c_.cope_npos_max;
      if (g != nullptr) x.dcope = g + off_.layers[l].cope;
    }
    return x;
  }

  void resize(const Batch& batch) {
    require(batch.tokens.size() == batch.batch * batch.length &&
                batch.positions.size() == batch.tokens.size() &&
                batch.targets.size() == batch.tokens.size() &&
                batch.loss_mask.size() == batch.tokens.size(),
            "batch arrays do not match (B, T)");
    B_ = batch.batch;
    L_ = batch.length;
    n_ = B_ * L_;
    const std::size_t E = c_.n_embd, I = c_.n_inner, N = n_, H = c_.n_head;
    residual_.resize((c_.n_layer + 1) * N * E);
    layers_.resize(c_.n_layer);
    for (Acts& a : layers_) {
      for (auto* v : {&a.ln1, &a.atty, &a.mid, &a.ln2}) v->resize(N * E);
      for (auto* v : {&a.ln1_mean, &a.ln1_rstd, &a.ln2_mean, &a.ln2_rstd}) v->resize(N);
      a.qkv.resize(N * 3 * E);
      for (auto* v : {&a.q, &a.k, &a.v}) v->resize(N * E);
      a.att.resize(B_ * H * L_ * L_);
      a.sink.resize(c_.sinks ? B_ * H * L_ : 0);
      a.fox_z.resize(fox() ? N * H : 0);
      a.fc.resize(N * I);
      a.fc_gelu.resize(N * I);
    }
    lnf_.resize(N * E);
    lnf_mean_.resize(N);
    lnf_rstd_.resize(N);
    logits_.resize(N * c_.vocab_size);
    for (auto* v : {&dx_, &dbuf_, &datty_, &dq_, &dk_, &dv_}) v->resize(N * E);
    dqkv_.resize(N * 3 * E);
    dfc_.resize(N * I);
    dfc2_.resize(N * I);
    datt_.resize(L_);
    // The score bias of the current layer; in backward, its gradient (the scores').
    bias_.resize(biased() ? B_ * H * L_ * L_ : 0);
  }

  T* residual(std::size_t l) { return residual_.data() + l * n_ * c_.n_embd; }

  // The attention plan for layer l: no rotation in a NoPE layer, the model's own (nope_every,
  // with Llama 4's temperature on its queries when asked) or the surgery's, and none for a
  // surgery's NoPE head; and what else the surgery does to the layer. l = n_layer restores the
  // plain plan.
  LayerSurgery plan_surgery(std::size_t l) {
    const bool rotation = position_method_info(c_.position).kind == PositionKind::kRotation;
    const bool last = l == c_.n_layer;
    LayerSurgery s =
        surgery_ == nullptr || last ? LayerSurgery{} : layer_surgery(*surgery_, l, c_.n_head);
    const bool nope = !last && c_.nope_layer(l);
    plan_.rope = rotation && !s.nope && !nope;
    plan_.unrotated = s.nope_heads;
    plan_.tempered = nope && c_.attn_floor_scale > 0;
    return s;
  }
  // An ablated head's output columns of atty (B·T, E) set to 0 before the output projection.
  void ablate_heads(T* atty, const LayerSurgery& s) const {
    const std::size_t E = c_.n_embd, d = E / c_.n_head;
    for (std::size_t h = 0; h < s.ablated.size(); ++h) {
      if (!s.ablated[h]) continue;
      for (std::size_t r = 0; r < n_; ++r) std::fill_n(atty + r * E + h * d, d, T(0));
    }
  }
  // A bias on the scores: a score-bias method's term, or FoX's forget gates.
  bool biased() const {
    return position_method_info(c_.position).kind == PositionKind::kScoreBias || fox();
  }
  bool fox() const { return c_.position == PositionMethod::kFox; }

  // FoX (Lin et al. 2025, the authors' ForgettingAttentionLayer with fgate_type "full"): per
  // head a forget gate f_t = σ(z_t), z_t = w_h·x_t + b_h of the layer's normalised input x (its
  // ln_1 output), and bias_ (B, H, T, T) = D_ij = Σ_{t=j+1..i} log f_t = c_i − c_j with
  // c_i = Σ_{t≤i} log f_t (in double, so long rows keep their differences).
  void fox_forward(const T* p, std::size_t l) {
    const auto& o = off_.layers[l];
    Acts& a = layers_[l];
    const std::size_t H = c_.n_head, E = c_.n_embd, L = L_;
    ops::matmul(n_, H, E, a.ln1.data(), false, p + o.fox_w, true, a.fox_z.data(), false);
    for (std::size_t r = 0; r < n_; ++r) {
      for (std::size_t h = 0; h < H; ++h) a.fox_z[r * H + h] += p[o.fox_b + h];
    }
    std::vector<double> c(L);
    for (std::size_t b = 0; b < B_; ++b) {
      for (std::size_t h = 0; h < H; ++h) {
        double sum = 0;
        for (std::size_t t = 0; t < L; ++t) {
          sum += formulas::log_sigmoid(static_cast<double>(a.fox_z[(b * L + t) * H + h]));
          c[t] = sum;
        }
        for (std::size_t i = 0; i < L; ++i) {
          T* row = bias_.data() + ((b * H + h) * L + i) * L;
          for (std::size_t j = 0; j < ops::visible_keys(i, L); ++j) {
            row[j] = static_cast<T>(c[i] - c[j]);
          }
        }
      }
    }
  }
  // The gradient through FoX's gates of the scores' gradient in bias_: dc_i = Σ_j dD_ij (as
  // query) − Σ_j dD_ji (as key), d log f_t = Σ_{i≥t} dc_i, dz = d log f·σ(−z); into the gate's
  // weight and bias and, through x, into dbuf_ (dloss/d ln_1 output).
  void fox_backward(const T* p, T* g, std::size_t l) {
    const auto& o = off_.layers[l];
    Acts& a = layers_[l];
    const std::size_t H = c_.n_head, E = c_.n_embd, L = L_;
    fox_dz_.resize(n_ * H);
    std::vector<double> dc(L);
    for (std::size_t b = 0; b < B_; ++b) {
      for (std::size_t h = 0; h < H; ++h) {
        std::fill(dc.begin(), dc.end(), 0.0);
        for (std::size_t i = 0; i < L; ++i) {
          const T* row = bias_.data() + ((b * H + h) * L + i) * L;
          for (std::size_t j = 0; j < ops::visible_keys(i, L); ++j) {
            dc[i] += row[j];
            dc[j] -= row[j];
          }
        }
        double later = 0;  // Σ_{i≥t} dc_i
        for (std::size_t t = L; t-- > 0;) {
          later += dc[t];
          const std::size_t r = (b * L + t) * H + h;
          fox_dz_[r] = static_cast<T>(later * formulas::sigmoid(-double(a.fox_z[r])));
        }
      }
    }
    ops::matmul(H, E, n_, fox_dz_.data(), true, a.ln1.data(), false, g + o.fox_w, true);
    for (std::size_t r = 0; r < n_; ++r) {
      for (std::size_t h = 0; h < H; ++h) g[o.fox_b + h] += fox_dz_[r * H + h];
    }
    ops::matmul(n_, E, H, fox_dz_.data(), false, p + o.fox_w, false, dbuf_.data(), true);
  }

  // The score-bias hook: every score-bias method's term (score_bias.hpp) over the batch's
  // positions, for the keys each query sees; bias_ (B, H, T, T) holds one layer's.
  template <class F>
  void with_term(const T* parameters, F&& f) const {
    score_bias::TermShape shape;
    shape.heads = static_cast<int>(c_.n_head);
    shape.options[0] = static_cast<double>(c_.t5_num_buckets);
    shape.options[1] = static_cast<double>(c_.t5_max_distance);
    score_bias::with_score_bias_term(c_.position, parameters, shape, f);
  }
  void score_bias_forward(const T* parameters) {
    const std::size_t H = c_.n_head, L = L_;
    std::vector<double> values(H);
    with_term(parameters, [&](const auto& term) {
      for (std::size_t b = 0; b < B_; ++b) {
        const std::int32_t* pos = positions_.data() + b * L;
        for (std::size_t i = 0; i < L; ++i) {
          for (std::size_t j = 0; j < ops::visible_keys(i, L); ++j) {
            term.values(pos[i], pos[j], values.data());
            for (std::size_t h = 0; h < H; ++h) {
              bias_[((b * H + h) * L + i) * L + j] = static_cast<T>(values[h]);
            }
          }
        }
      }
    });
  }
  // g += the gradient through the term of the scores' gradient, which attention_backward left
  // in bias_; summed in double over every pair, added once.
  void score_bias_backward(const T* parameters, T* g) {
    const std::size_t H = c_.n_head, L = L_;
    std::vector<double> ds(H);
    bias_grad_.assign(bias_parameters_, 0.0);
    with_term(parameters, [&](const auto& term) {
      for (std::size_t b = 0; b < B_; ++b) {
        const std::int32_t* pos = positions_.data() + b * L;
        for (std::size_t i = 0; i < L; ++i) {
          for (std::size_t j = 0; j < ops::visible_keys(i, L); ++j) {
            for (std::size_t h = 0; h < H; ++h) ds[h] = bias_[((b * H + h) * L + i) * L + j];
            term.add_gradients(pos[i], pos[j], ds.data(), bias_grad_.data());
          }
        }
      }
    });
    for (std::size_t e = 0; e < bias_grad_.size(); ++e) g[e] += static_cast<T>(bias_grad_[e]);
  }

  void plan_attention(const Batch& batch) {
    const std::size_t H = c_.n_head, d = c_.n_embd / c_.n_head;
    plan_.batch = B_;
    plan_.length = L_;
    plan_.heads = H;
    plan_.head_dim = d;
    plan_.rope = position_method_info(c_.position).kind == PositionKind::kRotation;
    plan_.interleaved = false;
    plan_.cos.clear();
    plan_.sin.clear();
    plan_.key_cos.clear();
    plan_.key_sin.clear();
    plan_.query_scale.clear();
    if (c_.attn_floor_scale > 0) {
      // Llama 4 (Hugging Face's Llama4TextAttention): log1p(⌊(p + 1) / floor_scale⌋)·attn_scale
      // + 1 at the query's position p.
      plan_.query_scale.resize(n_);
      for (std::size_t r = 0; r < n_; ++r) {
        const double p = batch.positions[r];
        plan_.query_scale[r] =
            std::log1p(std::floor((p + 1) / c_.attn_floor_scale)) * c_.attn_scale + 1;
      }
    }
    if (plan_.rope) {
      // The core's frequencies (rope.hpp): θ_i = base^(−2i/d), scaled only when evaluation asks
      // (set_rope_scaling; dynamic reads the longest position + 1), in the method's pairs; a
      // decaying rotation's q and k also take ζ_i^(±e) (formulas::decay_scale).
      const RopeOptions method = rotation_defaults(c_.position);
      plan_.interleaved = method.style == RopeStyle::kGptj;
      const bool decays = method.scale_base > 0.0;
      RopeOptions rope = rope_scaling_;
      rope.base = c_.base;
      if (surgery_ != nullptr) rope = surgery_rope(rope, *surgery_);
      rope.style = method.style;
      rope.keep_fraction = c_.keep_fraction;
      const std::int32_t last = *std::max_element(batch.positions.begin(), batch.positions.end());
      const RopeFrequencies frequencies =
          rope_frequencies(static_cast<long long>(d), rope, static_cast<long long>(last) + 1);
      const std::vector<double>& theta = frequencies.inv_freq;
      const double mscale = frequencies.attention_factor;
      const std::size_t half = d / 2;
      plan_.cos.resize(n_ * half);
      plan_.sin.resize(n_ * half);
      if (decays) {
        plan_.key_cos.resize(n_ * half);
        plan_.key_sin.resize(n_ * half);
      }
      for (std::size_t r = 0; r < n_; ++r) {
        // A decay centres a row's positions on the sequence they index, [0, last + 1) (the row's
        // positions rise; padding repeats the last), as torchscale centres [0, L).
        const std::int64_t total =
            static_cast<std::int64_t>(batch.positions[(r / L_) * L_ + L_ - 1]) + 1;
        for (std::size_t i = 0; i < half; ++i) {
          const double angle = formulas::angle(batch.positions[r], theta[i]);
          plan_.cos[r * half + i] = mscale * std::cos(angle);
          plan_.sin[r * half + i] = mscale * std::sin(angle);
          if (!decays) continue;
          const auto scale = [&](bool key) {
            return formulas::decay_scale(static_cast<int>(i), static_cast<int>(d),
                                         batch.positions[r], total, method.scale_base, key);
          };
          const double q_scale = scale(false), k_scale = scale(true);
          plan_.key_cos[r * half + i] = plan_.cos[r * half + i] * k_scale;
          plan_.key_sin[r * half + i] = plan_.sin[r * half + i] * k_scale;
          plan_.cos[r * half + i] *= q_scale;
          plan_.sin[r * half + i] *= q_scale;
        }
      }
    }
  }

  // x0 = s·wte[token] (+ wpe[pos] | + sinusoidal(pos)).
  void embed_forward(const T* p, const Batch& batch) {
    const std::size_t E = c_.n_embd;
    T* x = residual(0);
    for (std::size_t r = 0; r < n_; ++r) {
      const std::int32_t tok = batch.tokens[r];
      const std::int32_t pos = batch.positions[r];
      require(tok >= 0 && static_cast<std::size_t>(tok) < c_.vocab_size,
              "token id " + std::to_string(tok) + " is outside the vocabulary");
      require(pos >= 0, "positions must be >= 0");
      const T* e = p + off_.wte + static_cast<std::size_t>(tok) * E;
      T* xr = x + r * E;
      for (std::size_t i = 0; i < E; ++i) xr[i] = static_cast<T>(c_.embed_scale * e[i]);
      if (has_learned_table(c_.position)) {
        require(static_cast<std::size_t>(pos) < c_.n_positions,
                "position " + std::to_string(pos) + " is past the learned table's " +
                    std::to_string(c_.n_positions) + " rows");
        const T* w = p + off_.wpe + static_cast<std::size_t>(pos) * E;
        for (std::size_t i = 0; i < E; ++i) xr[i] += w[i];
      } else if (c_.position == PositionMethod::kSinusoidal) {
        // The core's interleaved table (sinusoidal.hpp): PE[p,2i] = sin(p·w_i), PE[p,2i+1] = cos.
        for (std::size_t i = 0; i < E / 2; ++i) {
          const double angle = formulas::angle(
              pos, formulas::inv_freq(static_cast<int>(i), static_cast<int>(E), c_.base));
          xr[2 * i] += static_cast<T>(std::sin(angle));
          xr[2 * i + 1] += static_cast<T>(std::cos(angle));
        }
      }
    }
    tokens_ = batch.tokens;
    positions_ = batch.positions;
  }

  void embed_backward(T* g) {
    const std::size_t E = c_.n_embd;
    for (std::size_t r = 0; r < n_; ++r) {
      const T* d = dx_.data() + r * E;
      T* gw = g + off_.wte + static_cast<std::size_t>(tokens_[r]) * E;
      for (std::size_t i = 0; i < E; ++i) gw[i] += static_cast<T>(c_.embed_scale * d[i]);
      if (has_learned_table(c_.position)) {
        T* gp = g + off_.wpe + static_cast<std::size_t>(positions_[r]) * E;
        for (std::size_t i = 0; i < E; ++i) gp[i] += d[i];
      }
    }
  }

  ModelConfig c_;
  ParamOffsets off_;
  RopeOptions rope_scaling_;
  const PositionSurgery* surgery_ = nullptr;
  std::size_t B_ = 0, L_ = 0, n_ = 0;
  ops::AttentionPlan plan_;
  std::vector<std::int32_t> tokens_, positions_;
  std::vector<T> residual_, lnf_, lnf_mean_, lnf_rstd_, logits_;
  std::vector<Acts> layers_;
  std::vector<T> dx_, dbuf_, datty_, dqkv_, dq_, dk_, dv_, datt_, dfc_, dfc2_;
  std::vector<T> bias_;
  std::vector<double> bias_grad_;
  std::vector<T> fox_dz_;  // (B·T, H): FoX's gate logits' gradient
  // The score bias's parameter count, and whether every layer reads the same ones.
  std::size_t bias_parameters_ = score_bias_parameter_count(c_);
  bool bias_shared_ = score_bias::shared_by_layers(score_bias::parameter_tensors(c_.position));
};

}  // namespace poslab::train
