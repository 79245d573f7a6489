#include "train/tasks.hpp"

#include <algorithm>
#include <set>

#include "train/text.hpp"

namespace poslab::train {

namespace {
std::int32_t digit(Rng& rng) { return static_cast<std::int32_t>(rng.next_u64() % 10); }
}  // namespace

std::size_t below(Rng& rng, std::size_t n) { return static_cast<std::size_t>(rng.next_u64() % n); }

Sequence sample_sequence(Task task, std::size_t length, Rng& rng, const AdditionFormat& format) {
  const Vocabulary v = vocabulary(task, format.index_hints);
  std::vector<std::int32_t> x, y;
  if (task == Task::kAddition) {
    std::vector<std::int32_t> a(length), b(length);
    for (auto& d : a) d = digit(rng);
    for (auto& d : b) d = digit(rng);
    // Least-significant digit first: the padding zeros are the high digits, at the end.
    length = std::max(length, format.pad_to);
    a.resize(length, 0);
    b.resize(length, 0);
    int carry = 0;
    for (std::size_t i = 0; i < length; ++i) {
      const int s = a[i] + b[i] + carry;
      y.push_back(s % 10);
      carry = s / 10;
    }
    y.push_back(carry);
    // With index hints, digit i of each number follows hint start + i, the symbol 11 + start + i.
    const auto hinted = [&](const std::vector<std::int32_t>& digits) {
      if (format.index_hints == 0) return digits;
      std::vector<std::int32_t> out;
      for (std::size_t i = 0; i < digits.size(); ++i) {
        out.push_back(static_cast<std::int32_t>(11 + format.hint_start + i));
        out.push_back(digits[i]);
      }
      return out;
    };
    x = hinted(a);
    x.push_back(10);  // '+'
    const std::vector<std::int32_t> hb = hinted(b);
    x.insert(x.end(), hb.begin(), hb.end());
    y = hinted(y);
  } else {
    x.resize(length);
    for (auto& d : x) d = digit(rng);
    y = x;
    if (task == Task::kReverse) std::reverse(y.begin(), y.end());
    if (task == Task::kSort) std::sort(y.begin(), y.end());
  }
  Sequence s;
  s.tokens.push_back(v.bos);
  s.tokens.insert(s.tokens.end(), x.begin(), x.end());
  s.tokens.push_back(v.sep);
  s.answer_start = s.tokens.size();
  s.tokens.insert(s.tokens.end(), y.begin(), y.end());
  s.tokens.push_back(v.eos);
  return s;
}

std::vector<std::int32_t> sample_positions(std::size_t count, std::size_t max, Rng& rng) {
  std::set<std::size_t> chosen;
  for (std::size_t j = max - count; j < max; ++j) {
    const std::size_t t = below(rng, j + 1);
    chosen.insert(chosen.count(t) ? j : t);
  }
  return {chosen.begin(), chosen.end()};
}

std::vector<std::int32_t> coupled_positions(const Sequence& addition, std::size_t start) {
  // BOS a_0..a_{n−1} '+' b_0..b_{n−1} SEP: answer_start = 2n + 3; the sum has n + 1 digits.
  const std::size_t n = (addition.answer_start - 3) / 2;
  const auto at = [&](std::size_t digit) { return static_cast<std::int32_t>(start + 1 + digit); };
  // BOS and EOS at 0, '+' and SEP at start, as the authors' code places them.
  std::vector<std::int32_t> pos(addition.tokens.size(), 0);
  pos[n + 1] = static_cast<std::int32_t>(start);                      // '+'
  pos[addition.answer_start - 1] = static_cast<std::int32_t>(start);  // SEP
  for (std::size_t i = 0; i < n; ++i) {
    pos[1 + i] = at(i);      // a_i
    pos[n + 2 + i] = at(i);  // b_i
  }
  for (std::size_t i = 0; i <= n; ++i) pos[addition.answer_start + i] = at(i);  // sum digit i
  return pos;
}

std::vector<std::int32_t> abacus_places(const std::vector<std::int32_t>& tokens,
                                        std::size_t offset) {
  std::vector<std::int32_t> places(tokens.size(), 0);
  std::size_t run = 0;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const bool digit = tokens[t] >= 0 && tokens[t] < 10;
    run = digit ? run + 1 : 0;
    if (digit) places[t] = static_cast<std::int32_t>(offset + run);
  }
  return places;
}

Batch make_batch(const std::vector<Sequence>& sequences, const Vocabulary& vocab,
                 const PositionRule& rule, Rng& rng) {
  Batch b;
  b.batch = sequences.size();
  for (const Sequence& s : sequences) b.length = std::max(b.length, s.tokens.size());
  const std::size_t T = b.length;
  b.tokens.assign(b.batch * T, vocab.pad);
  b.targets.assign(b.batch * T, vocab.pad);
  b.positions.assign(b.batch * T, 0);
  b.loss_mask.assign(b.batch * T, 0.0f);
  for (std::size_t i = 0; i < b.batch; ++i) {
    const Sequence& s = sequences[i];
    const std::size_t n = s.tokens.size();
    std::vector<std::int32_t> pos;
    if (rule.random_max > 0) {
      pos = sample_positions(n, rule.random_max, rng);
    } else if (rule.abacus) {
      pos = abacus_places(s.tokens, rule.sample_start ? below(rng, rule.abacus_max_offset + 1) : 0);
    } else if (rule.coupled_max > 0) {
      const std::size_t digits = (s.answer_start - 3) / 2;
      // start ≥ 1 (0 is BOS's), and the sum's last digit, at start + 1 + digits, below MAX.
      pos = coupled_positions(
          s, 1 + (rule.sample_start ? below(rng, rule.coupled_max - digits - 2) : 0));
    } else {
      for (std::size_t t = 0; t < n; ++t) pos.push_back(static_cast<std::int32_t>(t));
    }
    for (std::size_t t = 0; t < T; ++t) {
      const std::size_t r = i * T + t;
      b.positions[r] = t < n ? pos[t] : pos[n - 1];
      if (t >= n) continue;
      b.tokens[r] = s.tokens[t];
      if (t + 1 < n) b.targets[r] = s.tokens[t + 1];
      // Scored: predicting an answer token or EOS, i.e. the next index is past SEP.
      if (t + 1 >= s.answer_start && t + 1 < n) b.loss_mask[r] = 1.0f;
    }
  }
  return b;
}

AdditionFormat addition_format(const TrainConfig& config, std::size_t length, Rng& rng, bool draw) {
  AdditionFormat f;
  if (config.task != Task::kAddition) return f;
  f.pad_to = config.pad_operands ? config.train_len : 0;
  f.index_hints = config.index_hints;
  // The sum's digits + 1 hints, start … start + digits, all below K (validate: K > digits).
  const std::size_t digits = std::max(length, f.pad_to);
  if (draw && f.index_hints > 0) f.hint_start = below(rng, f.index_hints - digits);
  return f;
}

PositionRule position_rule(const TrainConfig& config, bool training) {
  PositionRule rule;
  rule.random_max = config.randomized_positions;
  rule.coupled_max = config.coupled_positions;
  rule.abacus = config.position == PositionMethod::kAbacus;
  rule.abacus_max_offset = abacus_max_offset_of(config);
  rule.sample_start = training;
  return rule;
}

Batch training_batch(const TrainConfig& config, Rng& rng) {
  if (config.task == Task::kText) return text_training_batch(config, rng);
  std::vector<Sequence> seqs;
  seqs.reserve(config.batch);
  for (std::size_t i = 0; i < config.batch; ++i) {
    const std::size_t length = 1 + below(rng, config.train_len);
    seqs.push_back(
        sample_sequence(config.task, length, rng, addition_format(config, length, rng, true)));
  }
  return make_batch(seqs, vocabulary(config.task, config.index_hints), position_rule(config, true),
                    rng);
}

std::vector<Sequence> evaluation_sequences(const TrainConfig& config, std::size_t length) {
  Rng rng(config.seed * 0x9E3779B97F4A7C15ull + 0xE7A1u + length);
  std::vector<Sequence> seqs;
  for (std::size_t i = 0; i < config.eval_examples; ++i) {
    seqs.push_back(
        sample_sequence(config.task, length, rng, addition_format(config, length, rng, false)));
  }
  return seqs;
}

Batch evaluation_batch(const TrainConfig& config, std::size_t length,
                       const std::vector<Sequence>& sequences) {
  Rng rng(config.seed * 0xD1B54A32D192ED03ull + 0x9051u + length);
  const std::size_t max =
      eval_positions_of(config) == EvalPositions::kRandom ? config.randomized_positions : 0;
  PositionRule rule = position_rule(config, false);
  rule.random_max = max;
  return make_batch(sequences, vocabulary(config.task, config.index_hints), rule, rng);
}

}  // namespace poslab::train
