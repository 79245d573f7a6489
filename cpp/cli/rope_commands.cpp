// RoPE subcommands: rotate an array (by any rotation method of the table), inspect a
// configuration's effective frequencies (rope-freqs) and its relative-distance decay (rope-decay),
// and read any model's position scheme off its config.json (rope-config).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "input.hpp"
#include "model_input.hpp"
#include "options.hpp"
#include "poslab/analysis/analysis.hpp"
#include "poslab/models/rope_config.hpp"
#include "poslab/positions/position_methods.hpp"
#include "poslab/positions/rope.hpp"

namespace poslab::cli {
namespace {

// Any rotation method of the table (--method): its pairs and decay unless --style or
// --scale-base say otherwise; a decay scales queries, or keys with --key.
void add_rope(Commands& commands) {
  struct Args {
    std::string in, method = "rope";
    RopeFlags rope;
    std::optional<double> scale_base;
    bool key = false;
    long long offset = 0;
  };
  add_tensor_command<Args>(
      commands, "rope",
      "Rotate X (L, D) or (H, L, D) by a rotation method at positions offset..offset+L-1",
      [](CLI::App* cmd, Args& a) {
        add_input(cmd, "--in", a.in, "array to rotate, (L, D) or (H, L, D)")->required();
        cmd->add_option("--method", a.method, "a rotation method of `poslab methods`")
            ->capture_default_str();
        add_rope_flags(cmd, a.rope, /*with_style=*/true);
        cmd->add_option("--scale-base", a.scale_base,
                        "decay s: queries times zeta_i^(e/s), keys zeta_i^(-e/s), e the centred "
                        "position; 0: none (default: the method's)")
            ->check(finite_number());
        cmd->add_flag("--key", a.key, "scale as keys (zeta^-e) instead of queries (zeta^e)");
        cmd->add_option("--offset", a.offset,
                        "position of the first row; the sequence has offset + L positions")
            ->capture_default_str()
            ->check(integer_at_least(0));
      },
      [](const Args& a) {
        const RopeOptions method = rotation_defaults(a.method);
        RopeOptions o = a.rope.resolve();
        if (a.rope.style.empty()) o.style = method.style;
        o.scale_base = a.scale_base.value_or(method.scale_base);
        o.keep_fraction = a.rope.keep_fraction.value_or(method.keep_fraction);
        return rope_apply(read_input(a.in), o, a.offset,
                          a.key ? RotationSide::kKey : RotationSide::kQuery);
      });
}

// Writes θ_i, then prints the attention factor (after the file, so a failed write prints none).
void add_rope_freqs(Commands& commands) {
  struct Args {
    long long dim = 0, total_length = 0;
    RopeFlags rope;
    std::string out;
  };
  add_command<Args>(
      commands, "rope-freqs",
      "Effective RoPE frequencies theta_i, (R/2,); prints the attention factor (YaRN mscale)",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--dim", a.dim, "head width D");
        add_rope_flags(cmd, a.rope, /*with_style=*/false);
        cmd->add_option("--total-len", a.total_length,
                        "sequence length S = offset + L (only dynamic scaling reads it)")
            ->capture_default_str()
            ->check(integer_at_least(0));
        add_output(cmd, a.out);
      },
      [](const Args& a) {
        check_output_path(a.out);
        const RopeFrequencies f = rope_frequencies(a.dim, a.rope.resolve(), a.total_length);
        TensorF inv_freq({f.inv_freq.size()});
        for (std::size_t i = 0; i < f.inv_freq.size(); ++i) {
          inv_freq.data[i] = static_cast<float>(f.inv_freq[i]);
        }
        write_output(a.out, inv_freq);
        std::printf("attention_factor %.17g\n", f.attention_factor);
      });
}

void add_rope_decay(Commands& commands) {
  struct Args {
    long long dim = 0, max_distance = 0;
    RopeFlags rope;
  };
  add_tensor_command<Args>(
      commands, "rope-decay", "RoFormer 3.4.3 bound on |q.k| vs relative distance 0..M, (M+1,)",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--dim", a.dim, "head width D");
        add_size(cmd, "--max-distance", a.max_distance, "largest distance M", /*min=*/0);
        add_rope_flags(cmd, a.rope, /*with_style=*/false);
      },
      [](const Args& a) { return rope_decay(a.dim, a.max_distance, a.rope.resolve()); });
}

// The RoPE inspector's report as JSON (-o must end in .json); prints one line per RoPE base.
void add_rope_config(Commands& commands) {
  struct Args {
    std::string config, out;
    std::vector<long long> sample;
  };
  add_command<Args>(
      commands, "rope-config",
      "A model's position scheme from its config.json: layers (RoPE base, window, NoPE), "
      "theta_i and wavelengths before and after rope_scaling, attention factor, context reached, "
      "MLA's rotated width and softmax scale, NoPE layers' query temperature, M-RoPE's axes",
      [](CLI::App* cmd, Args& a) {
        cmd->add_option("--config", a.config,
                        "config.json (a multimodal one's text_config is read)")
            ->required()
            ->check(input_file());
        cmd->add_option("--mrope-sample", a.sample,
                        "the M-RoPE sample prompt: TEXT,H,W,TEXT (text tokens, an image of H x W "
                        "patches, text tokens; default 3,6,8,2)")
            ->delimiter(',')
            ->expected(4);
        add_output(cmd, a.out);
      },
      [](const Args& a) {
        check_output_path(a.out);
        require(output_format(a.out) == Format::kJson, "out",
                "rope-config writes a JSON report: -o must end in .json, got '" + a.out + "'");
        RopeSample sample;
        if (!a.sample.empty()) {
          sample = {a.sample[0], a.sample[1], a.sample[2], a.sample[3]};
        }
        const std::string text = read_model_config(a.config);
        const RopeConfigReport r = [&] {
          try {
            return inspect_rope_config(text, a.config, sample);
          } catch (const Error& e) {
            if (e.field() != "sample") throw;
            throw Error(std::string("--mrope-sample: ") + e.what(), e.field());
          }
        }();
        write_outputs({{a.out, rope_config_report_json(r) + "\n"}});
        for (const RopeScheme& s : r.schemes) {
          std::printf(
              "%s: base %.17g, %s x %.17g, R %lld, N %lld, reaches %lld, "
              "attention_factor %.17g, %lld of %zu pairs turn within N\n",
              s.name.c_str(), s.base, s.scaling.c_str(), s.factor, s.rotary_dim, s.trained_context,
              s.reaches, s.attention_factor, s.rotating_pairs, s.inv_freq.size());
        }
        if (r.mla) {
          std::printf("mla: qk %lld = %lld + %lld rotated, v %lld, softmax_scale %.17g\n",
                      r.mla->qk_head_dim, r.mla->qk_nope_head_dim, r.mla->qk_rope_head_dim,
                      r.mla->v_head_dim, r.mla->softmax_scale);
        }
        if (r.temperature) {
          std::printf("nope temperature: 1 + %g ln(1 + floor((p + 1) / %g))\n",
                      r.temperature->attn_scale, r.temperature->floor_scale);
        }
        if (r.mrope) std::printf("mrope axes: %s\n", r.mrope->axes.c_str());
      });
}

}  // namespace

void add_rope_commands(Commands& commands) {
  add_rope(commands);
  add_rope_freqs(commands);
  add_rope_decay(commands);
  add_rope_config(commands);
}

}  // namespace poslab::cli
