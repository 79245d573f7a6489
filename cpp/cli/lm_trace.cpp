// The language-model commands' output and trace writer (lm_trace.hpp).
#include "lm_trace.hpp"

#include <filesystem>

#include "options.hpp"
#include "output.hpp"
#include "output_files.hpp"
#include "poslab/base/errors.hpp"
#include "poslab/base/format.hpp"
#include "poslab/io/npy.hpp"

namespace poslab::cli {

void add_lm_trace_options(CLI::App* cmd, long long& top_k, std::string& trace) {
  cmd->add_option("--top-k", top_k, "how many next tokens the trace lists")
      ->capture_default_str()
      ->check(integer_at_least(1));
  cmd->add_option("--trace", trace, "directory for the trace: one .npy per tensor and index.json")
      ->type_name("DIR");
}

void check_lm_outputs(const std::string& out, const std::string& trace) {
  require_distinct_outputs({{"--trace", trace}, {"-o", out}});
  check_output_path(out);
  std::error_code error;
  // Checked now, created only when every output is written (OutputFiles), so a run that
  // fails leaves no empty directory behind.
  require(trace.empty() || !std::filesystem::exists(trace, error) ||
              std::filesystem::is_directory(trace, error),
          trace + ": --trace must name a directory");
}

void check_trace_memory(const std::string& trace, long long layers, long long heads,
                        std::size_t tokens) {
  if (trace.empty()) return;
  const std::uint64_t limit =
      memory_limit_from_environment("POSLAB_TRACE_MEMORY_LIMIT", std::uint64_t(4) << 30);
  const double need = 4.0 * double(layers) * double(heads) * double(tokens) * double(tokens);
  if (need <= double(limit)) return;
  throw Error("--trace over T = " + std::to_string(tokens) + " tokens would hold " +
                  std::to_string(layers) + " layers x " + std::to_string(heads) +
                  " heads x T² attention weights, about " +
                  format_bytes(need >= 0x1p62 ? std::uint64_t(1) << 62 : std::uint64_t(need)) +
                  ", over the limit of " + format_bytes(limit) +
                  ": give fewer tokens (--tokens, --tokens-file) or drop --trace (or raise the "
                  "limit with POSLAB_TRACE_MEMORY_LIMIT, e.g. 8GiB)",
              "tokens");
}

void write_lm_outputs(const std::string& out, const TensorF& output, const std::string& trace_dir,
                      nlohmann::json index, const LmTrace& trace) {
  OutputFiles files;
  files.add(out, encode_output(out, output), "-o");
  if (!trace_dir.empty()) {
    const std::filesystem::path dir(trace_dir);
    files.add_directory(trace_dir);
    index["tensors"] = nlohmann::json::array();
    const auto put = [&](const std::string& name, const auto& tensor, const char* dtype,
                         const std::string& about) {
      const std::string file = name + ".npy";
      files.add((dir / file).string(), encode_npy(tensor), "--trace");
      index["tensors"].push_back({{"name", name},
                                  {"file", file},
                                  {"shape", tensor.shape},
                                  {"dtype", dtype},
                                  {"about", about}});
    };
    for (std::size_t i = 0; i < trace.attention.size(); ++i) {
      put("attention_layer" + std::to_string(i), *trace.attention[i], "float32",
          "(H, T, T) causal attention weights of every head in layer " + std::to_string(i));
    }
    put("ln_1_mean", trace.ln_1_mean, "float32",
        "(N, T) mean the first LayerNorm (ln_1 / input_layernorm) subtracted");
    put("ln_1_variance", trace.ln_1_variance, "float32",
        "(N, T) biased variance the first LayerNorm divided by (before eps)");
    put("ln_2_mean", trace.ln_2_mean, "float32",
        "(N, T) mean the second LayerNorm (ln_2 / post_attention_layernorm) subtracted");
    put("ln_2_variance", trace.ln_2_variance, "float32",
        "(N, T) biased variance the second LayerNorm divided by (before eps)");
    put("resid_attn_norm", trace.resid_attn_norm, "float32",
        "(N, T) L2 norm of x + attention output per layer (the residual stream after attention "
        "when the residual is sequential)");
    put("resid_mlp_norm", trace.resid_mlp_norm, "float32",
        "(N, T) L2 norm of the residual stream after each layer");
    const std::size_t k = trace.top_ids.size();
    put("top_k_ids", TensorI({k}, trace.top_ids), "int32",
        "(k,) most likely next tokens after the last position");
    put("top_k_probs", TensorF({k}, trace.top_probs), "float32",
        "(k,) their probabilities, descending");
    files.add((dir / "index.json").string(), index.dump(2) + "\n", "--trace");
  }
  files.commit();
}

}  // namespace poslab::cli
