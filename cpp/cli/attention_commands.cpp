// Subcommands that transform arrays read from .npy files: attention and norm.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "input.hpp"
#include "options.hpp"
#include "output.hpp"
#include "poslab/base/defaults.hpp"
#include "poslab/layers/attention.hpp"
#include "poslab/layers/norm.hpp"

namespace poslab::cli {
namespace {

// (Lk,) mask, nonzero = padding (PyTorch's key_padding_mask); bool, integer or float files.
std::vector<std::uint8_t> read_key_padding(const std::string& path) {
  const TensorF mask = read_input(path, NonFinite::kAllowNegativeInfinity);
  require(mask.ndim() == 1, path + ": key padding must be (Lk,), got " + shape_string(mask.shape));
  std::vector<std::uint8_t> hidden(mask.size());
  for (std::size_t j = 0; j < mask.size(); ++j) hidden[j] = mask.data[j] != 0.0f;
  return hidden;
}

// Two outputs (-o and --weights), so it writes them itself, all or nothing.
void add_attention(Commands& commands) {
  struct Args {
    std::string q, k, v, mask = format_mask(Mask{}), key_padding, bias, weights, out;
    double scale = 0.0;
    long long offset = Mask{}.offset;
    CLI::Option* scale_option = nullptr;
  };
  add_command<Args>(
      commands, "attention", "softmax(Q K^T * scale + bias + mask) V on (H, L, d) or (L, d) arrays",
      [](CLI::App* cmd, Args& a) {
        add_input(cmd, "--q", a.q, "queries (H, Lq, d) or (Lq, d)")->required();
        add_input(cmd, "--k", a.k, "keys (H, Lk, d) or (Lk, d)")->required();
        add_input(cmd, "--v", a.v, "values (H, Lk, dv) or (Lk, dv)")->required();
        cmd->add_option("--mask", a.mask,
                        "none, causal (hides j > i) or window:W (causal, keeps i - j < W)")
            ->capture_default_str()
            ->type_name("MASK")
            ->check(parsed_by(parse_mask, choices(kMaskNames)));
        add_query_offset(cmd, a.offset);
        add_input(cmd, "--key-padding", a.key_padding, "(Lk,) mask; nonzero marks a padding key");
        add_input(cmd, "--bias", a.bias, "additive score bias (H, Lq, Lk) or (Lq, Lk)");
        a.scale_option = cmd->add_option("--scale", a.scale, "score scale (default 1/sqrt(d))")
                             ->check(finite_number());
        cmd->add_option("--weights", a.weights, "also write the attention weights (H, Lq, Lk) here")
            ->type_name("OUT")
            ->check(output_file());
        add_output(cmd, a.out);
      },
      [](const Args& a) {
        require_distinct_outputs({{"--weights", a.weights}, {"-o", a.out}});
        check_output_path(a.out);
        if (!a.weights.empty()) check_output_path(a.weights);

        AttentionOptions options;
        options.mask = parse_mask(a.mask);
        options.mask.offset = a.offset;
        if (a.scale_option->count() > 0) options.scale = a.scale;
        if (!a.key_padding.empty()) options.key_padding = read_key_padding(a.key_padding);
        TensorF bias;
        if (!a.bias.empty()) {
          bias = read_input(a.bias, NonFinite::kAllowNegativeInfinity);
          options.bias = &bias;
        }
        options.return_weights = !a.weights.empty();
        const TensorF q = read_input(a.q);
        const TensorF k = read_input(a.k);
        const TensorF v = read_input(a.v);
        const AttentionResult result = attention(q, k, v, options);

        std::vector<std::pair<std::string, std::string>> files;
        files.emplace_back(a.out, encode_output(a.out, result.output));
        if (!a.weights.empty()) {
          files.emplace_back(a.weights, encode_output(a.weights, result.weights));
        }
        write_outputs(std::move(files));
      });
}

// --beta with rmsnorm is a usage error, reported before the output path is looked at.
void add_norm(Commands& commands) {
  struct Args {
    std::string kind, in, gamma, beta, out;
    double eps = defaults::kNormEps;
  };
  add_command<Args>(
      commands, "norm", "LayerNorm or RMSNorm over the last axis of X",
      [](CLI::App* cmd, Args& a) {
        cmd->add_option("--kind", a.kind, "layernorm or rmsnorm")
            ->required()
            ->check(one_of({"layernorm", "rmsnorm"}, "norm"));
        add_input(cmd, "--in", a.in, "array (..., D)")->required();
        cmd->add_option("--eps", a.eps, "added to the variance inside the square root")
            ->capture_default_str()
            ->check(finite_number());
        add_input(cmd, "--gamma", a.gamma, "scale (D,), default 1");
        add_input(cmd, "--beta", a.beta, "shift (D,), default 0 (layernorm only)");
        add_output(cmd, a.out);
      },
      [](const Args& a) {
        if (a.kind == "rmsnorm" && !a.beta.empty()) {
          throw UsageError("--beta applies to layernorm only (RMSNorm has no shift)");
        }
        check_output_path(a.out);
        const TensorF x = read_input(a.in);
        TensorF gamma, beta;
        if (!a.gamma.empty()) gamma = read_input(a.gamma);
        if (!a.beta.empty()) beta = read_input(a.beta);
        const TensorF* g = a.gamma.empty() ? nullptr : &gamma;
        const TensorF* b = a.beta.empty() ? nullptr : &beta;
        write_output(a.out,
                     a.kind == "layernorm" ? layer_norm(x, a.eps, g, b) : rms_norm(x, a.eps, g));
      });
}

}  // namespace

void add_attention_commands(Commands& commands) {
  add_attention(commands);
  add_norm(commands);
}

}  // namespace poslab::cli
