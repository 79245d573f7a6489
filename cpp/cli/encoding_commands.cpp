// Subcommands that write a position table: sinusoidal, learned, shaw, t5-buckets, alibi,
// alibi-slopes, kerple.
#include <cstdint>
#include <string>

#include "commands.hpp"
#include "options.hpp"
#include "poslab/base/defaults.hpp"
#include "poslab/positions/alibi.hpp"
#include "poslab/positions/learned.hpp"
#include "poslab/positions/relative.hpp"
#include "poslab/positions/score_bias_tensor.hpp"
#include "poslab/positions/sinusoidal.hpp"

namespace poslab::cli {
namespace {

void add_sinusoidal(Commands& commands) {
  struct Args {
    long long length = 0, dim = 0, offset = 0;
    double base = defaults::kBase;
    std::string layout = name_of(kSinusoidalLayoutNames, SinusoidalLayout::kInterleaved);
  };
  add_tensor_command<Args>(
      commands, "sinusoidal", "Sinusoidal table PE (L, D) (Vaswani et al. 2017)",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--len", a.length, "positions L");
        add_size(cmd, "--dim", a.dim, "width D (even)");
        cmd->add_option("--base", a.base, "frequency base b: w_i = b^(-2i/D)")
            ->capture_default_str()
            ->check(finite_number());
        cmd->add_option("--layout", a.layout,
                        "interleaved (sin, cos, sin, ...) or concat (sines, then cosines)")
            ->capture_default_str()
            ->check(parsed_by(parse_sinusoidal_layout, choices(kSinusoidalLayoutNames)));
        cmd->add_option("--offset", a.offset, "position of the first row")
            ->capture_default_str()
            ->check(integer_at_least(0));
      },
      [](const Args& a) {
        return sinusoidal_table(a.length, a.dim, a.base, parse_sinusoidal_layout(a.layout),
                                a.offset);
      });
}

void add_learned(Commands& commands) {
  struct Args {
    long long length = 0, dim = 0;
    std::uint64_t seed = 0;
  };
  add_tensor_command<Args>(
      commands, "learned",
      "Learned absolute table (L, D): seeded N(0, 0.02^2), as GPT-2 initialises it",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--len", a.length, "positions L");
        add_size(cmd, "--dim", a.dim, "width D");
        add_seed(cmd, a.seed, "random seed (same seed, same table everywhere)");
      },
      [](const Args& a) { return learned_table(a.length, a.dim, a.seed); });
}

void add_shaw(Commands& commands) {
  struct Args {
    long long query_length = 0, key_length = 0, max_distance = 0, dim = 0;
    std::uint64_t seed = 0;
  };
  add_tensor_command<Args>(
      commands, "shaw",
      "Shaw et al. relative embeddings a[i,j] = table[clip(j-i, -K, K)], (Lq, Lk, D)",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--qlen", a.query_length, "query positions Lq");
        add_size(cmd, "--klen", a.key_length, "key positions Lk");
        add_size(cmd, "--max-distance", a.max_distance, "clip distance K", /*min=*/0);
        add_size(cmd, "--dim", a.dim, "width D");
        add_seed(cmd, a.seed, "random seed of the (2K+1, D) table");
      },
      [](const Args& a) {
        return shaw_embeddings(a.query_length, a.key_length, a.max_distance, a.dim, a.seed);
      });
}

void add_t5_buckets(Commands& commands) {
  struct Args {
    long long query_length = 0, key_length = 0;
    T5BucketOptions options;
    long long offset = 0;
  };
  add_tensor_command<Args>(
      commands, "t5-buckets", "T5 relative-position buckets of key - query, (Lq, Lk) int32",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--qlen", a.query_length, "query positions Lq");
        add_size(cmd, "--klen", a.key_length, "key positions Lk");
        cmd->add_flag("--bidirectional", a.options.bidirectional,
                      "separate buckets for keys before and after the query (encoder)");
        cmd->add_option("--buckets", a.options.num_buckets, "number of buckets")
            ->capture_default_str()
            ->check(integer_at_least(1));
        cmd->add_option("--max-distance", a.options.max_distance,
                        "distance where the logarithmic buckets end")
            ->capture_default_str()
            ->check(integer_at_least(1));
        add_query_offset(cmd, a.offset);
      },
      [](const Args& a) { return t5_buckets(a.query_length, a.key_length, a.options, a.offset); });
}

void add_alibi(Commands& commands) {
  struct Args {
    long long heads = 0, length = 0, offset = 0;
  };
  add_tensor_command<Args>(
      commands, "alibi", "ALiBi bias -m_h*|i+offset-j|, (H, L, L)",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--heads", a.heads, "heads H");
        add_size(cmd, "--len", a.length, "positions L");
        add_query_offset(cmd, a.offset);
      },
      [](const Args& a) { return alibi_bias(a.heads, a.length, a.length, a.offset); });
}

// KERPLE (Chi et al. 2022, logarithmic): -r1_h*log(1 + r2_h*|i+offset-j|), (H, Lq, Lk); --len L
// for a square grid or --qlen and --klen.
void add_kerple(Commands& commands) {
  struct Args {
    long long heads = 0, length = 0, query_length = 0, key_length = 0, offset = 0;
    double r1 = 0, r2 = 0;
    std::uint64_t seed = 0;
  };
  add_tensor_command<Args>(
      commands, "kerple", "KERPLE bias -r1_h*log(1 + r2_h*|i+offset-j|), (H, Lq, Lk)",
      [](CLI::App* cmd, Args& a) {
        add_size(cmd, "--heads", a.heads, "heads H");
        CLI::Option* len = cmd->add_option("--len", a.length, "positions L (Lq = Lk = L)")
                               ->check(integer_at_least(1));
        CLI::Option* qlen = cmd->add_option("--qlen", a.query_length, "query positions Lq")
                                ->check(integer_at_least(0))
                                ->excludes(len);
        cmd->add_option("--klen", a.key_length, "key positions Lk")
            ->check(integer_at_least(0))
            ->excludes(len)
            ->needs(qlen);
        qlen->needs(cmd->get_option("--klen"));
        add_query_offset(cmd, a.offset);
        cmd->add_option("--r1", a.r1, "every head's r1 > 0 (default: drawn per head from the seed)")
            ->check(finite_number());
        cmd->add_option("--r2", a.r2, "every head's r2 > 0 (default: drawn per head from the seed)")
            ->check(finite_number());
        add_seed(cmd, a.seed, "random seed of the per-head r1, r2 (U(0, 2), U(0, 1))");
      },
      [](const Args& a) {
        if (a.length == 0 && a.query_length == 0 && a.key_length == 0) {
          throw UsageError("kerple needs --len L or --qlen Lq --klen Lk");
        }
        const char* names[2] = {"--r1", "--r2"};
        const double given[2] = {a.r1, a.r2};
        ScoreBias bias = score_bias_defaults(PositionMethod::kKerple);
        bias.seed = a.seed;
        for (int k = 0; k < 2; ++k) {
          if (given[k] < 0) throw UsageError(std::string(names[k]) + " must be positive");
          bias.options[k] = given[k];
        }
        const long long Lq = a.length > 0 ? a.length : a.query_length;
        const long long Lk = a.length > 0 ? a.length : a.key_length;
        return score_bias_tensor(bias, a.heads, Lq, Lk, a.offset);
      });
}

void add_alibi_slopes(Commands& commands) {
  struct Args {
    long long heads = 0;
  };
  add_tensor_command<Args>(
      commands, "alibi-slopes", "ALiBi head slopes m_h, (H,)",
      [](CLI::App* cmd, Args& a) { add_size(cmd, "--heads", a.heads, "heads H"); },
      [](const Args& a) { return alibi_slopes(a.heads); });
}

}  // namespace

void add_encoding_commands(Commands& commands) {
  add_sinusoidal(commands);
  add_learned(commands);
  add_shaw(commands);
  add_t5_buckets(commands);
  add_alibi(commands);
  add_alibi_slopes(commands);
  add_kerple(commands);
}

}  // namespace poslab::cli
