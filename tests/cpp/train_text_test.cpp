// The text task (Press et al. 2022): byte windows, the held-out split, the loss per byte by
// context against the model's own cross-entropy, n/a past a learned table, and RoPE's
// inference-time scalings.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "poslab/io/safetensors.hpp"
#include "poslab/train/checkpoint.hpp"
#include "poslab/train/metrics.hpp"
#include "poslab/train/trainer.hpp"
#include "train/text.hpp"
#include "train_fixture.hpp"

namespace poslab::train {
namespace {

// Some bytes that are not all ASCII letters, long enough for a held-out part of 200.
std::shared_ptr<const std::string> sample_text(std::size_t bytes = 2000) {
  std::string text;
  Rng rng(7);
  const std::string words[] = {"the ", "licence ", "copy\n", "Über ", "\xff\x00 ", "of "};
  while (text.size() < bytes) text += words[rng.next_u64() % 6];
  text.resize(bytes);
  return std::make_shared<const std::string>(text);
}

TrainConfig text_config(PositionMethod method = PositionMethod::kRope) {
  TrainConfig c = tiny_train_config(method);
  c.task = Task::kText;
  c.text = sample_text();
  c.train_len = 16;
  c.test_len = 64;
  c.steps = 10;
  return c;
}

TEST(TrainText, TheLastTenthIsHeldOut) {
  const std::string text(1005, 'a');
  const TextSplit parts = split_text(text);
  EXPECT_EQ(parts.train.size(), 905u);
  EXPECT_EQ(parts.held_out.size(), 100u);
  EXPECT_EQ(vocabulary(Task::kText).size(), 256u);
}

TEST(TrainText, ContextsDoubleFromTheTrainingLengthToTheTestLength) {
  TrainConfig c = text_config();
  EXPECT_EQ(text_contexts(c), (std::vector<std::size_t>{16, 32, 64}));
  c.test_len = 100;
  c.text = sample_text(2000);
  EXPECT_EQ(text_contexts(c), (std::vector<std::size_t>{16, 32, 64, 100}));
  c.test_len.reset();  // 16·N
  c.text = sample_text(3000);
  EXPECT_EQ(test_len_of(c), 256u);
}

TEST(TrainText, TrainingWindowsAreBytesAndTheirNextBytes) {
  const TrainConfig c = text_config();
  Rng rng(3);
  const Batch b = text_training_batch(c, rng);
  ASSERT_EQ(b.batch, 4u);
  ASSERT_EQ(b.length, 16u);
  const std::string_view train = split_text(*c.text).train;
  for (std::size_t i = 0; i < b.batch; ++i) {
    // Find the window in the training part: targets are the tokens moved by one.
    std::string window;
    for (std::size_t t = 0; t < b.length; ++t) {
      window += static_cast<char>(b.tokens[i * b.length + t]);
      EXPECT_EQ(b.positions[i * b.length + t], static_cast<std::int32_t>(t));
      EXPECT_EQ(b.loss_mask[i * b.length + t], 1.0f);
      if (t + 1 < b.length) {
        EXPECT_EQ(b.targets[i * b.length + t], b.tokens[i * b.length + t + 1]);
      }
    }
    EXPECT_NE(train.find(window), std::string_view::npos);
  }
}

TEST(TrainText, TooShortOrMissingTextsAreRefusedNamingTheField) {
  TrainConfig c = text_config();
  c.text = nullptr;
  try {
    validate(c);
    FAIL() << "no text accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "text");
  }
  c.text = sample_text(600);  // held out 60 < 64 + 1
  try {
    validate(c);
    FAIL() << "a held-out part shorter than the context accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "text");
    EXPECT_NE(std::string(e.what()).find("at least 650 bytes"), std::string::npos) << e.what();
  }
  c = text_config();
  c.test_len = 8;  // below the training length
  EXPECT_THROW(validate(c), Error);
  c.test_len = kMaxTextContext + 1;
  EXPECT_THROW(validate(c), Error);
  TrainConfig copy;
  copy.text = sample_text();
  EXPECT_THROW(validate(copy), Error);  // a text for a synthetic task
}

// At initialisation the logits are near 0: every byte is about equally likely, ln 256 nats.
// The evaluation's loss per byte is the model's own masked cross-entropy over the same windows.
TEST(TrainText, LossPerByteIsTheModelsCrossEntropyOverHeldOutWindows) {
  TrainConfig c = text_config(PositionMethod::kAlibi);
  Trainer trainer(c);
  const EvalResult eval = trainer.evaluate();
  ASSERT_TRUE(eval.text.has_value());
  ASSERT_EQ(eval.text->by_context.size(), 3u);
  for (const ContextLoss& row : eval.text->by_context) {
    ASSERT_TRUE(row.loss.has_value());
    EXPECT_NEAR(*row.loss, std::log(256.0), 0.05);
  }
  // Context 32: the held-out part's 200 bytes make 6 windows; Model::loss on them.
  const std::string_view held = split_text(*c.text).held_out;
  Batch b;
  b.batch = 6;
  b.length = 32;
  for (std::size_t w = 0; w < 6; ++w) {
    for (std::size_t t = 0; t < 32; ++t) {
      b.tokens.push_back(static_cast<unsigned char>(held[w * 32 + t]));
      b.targets.push_back(static_cast<unsigned char>(held[w * 32 + t + 1]));
      b.positions.push_back(static_cast<std::int32_t>(t));
      b.loss_mask.push_back(1.0f);
    }
  }
  Model model(trainer.model_config());
  EXPECT_NEAR(*eval.text->by_context[1].loss, model.loss(trainer.parameters(), b), 1e-5);
  EXPECT_EQ(eval.text->loss_by_position.size(), 64u);
  EXPECT_TRUE(eval.text->with_scaling.empty());  // RoPE only
}

TEST(TrainText, LearnedPositionsHaveNoLossPastTheirTable) {
  Trainer trainer(text_config(PositionMethod::kLearned));
  EXPECT_EQ(trainer.model_config().n_positions, 16u);
  const EvalResult eval = trainer.evaluate();
  ASSERT_EQ(eval.text->by_context.size(), 3u);
  EXPECT_TRUE(eval.text->by_context[0].loss.has_value());
  EXPECT_FALSE(eval.text->by_context[1].loss.has_value());
  EXPECT_FALSE(eval.text->by_context[2].loss.has_value());
  EXPECT_TRUE(eval.text->loss_by_position.empty());
  const auto j = nlohmann::json::parse(trainer.result_json(eval, 1.0));
  EXPECT_TRUE(j["perplexity_by_context"][2]["loss"].is_null());
  EXPECT_TRUE(j["perplexity_by_context"][2]["perplexity"].is_null());
  EXPECT_TRUE(j["loss_by_position"].is_null());
  EXPECT_TRUE(j["metrics"]["loss_at_64"].is_null());
}

// The largest |a − b| over two logit tensors.
double largest_difference(const TensorF& a, const TensorF& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    d = std::max(d, double(std::abs(a.data[i] - b.data[i])));
  }
  return d;
}

// Linear scaling (position interpolation) at factor f rotates position p as the plain rotation
// rotates p / f: a batch at positions 0, 2, 4, .. with f = 2 is the plain batch at 0, 1, 2, ...
// The query-key weights are made 50× larger than at initialisation, so that positions move the
// logits well above float rounding.
TEST(TrainText, LinearScalingIsThePlainRotationAtInterpolatedPositions) {
  const TrainConfig c = text_config();
  Trainer trainer(c);
  Parameters params = trainer.parameters();
  const ParamInfo& qkv = params.find("h.0.attn.c_attn.weight");
  for (std::size_t i = 0; i < qkv.numel; ++i) params.data()[qkv.offset + i] *= 50;
  Model model(trainer.model_config());
  Batch plain;
  plain.batch = 1;
  plain.length = 16;
  for (std::int32_t t = 0; t < 16; ++t) {
    plain.tokens.push_back(65 + t % 5);
    plain.targets.push_back(66 + t % 5);
    plain.positions.push_back(t);
    plain.loss_mask.push_back(1.0f);
  }
  const TensorF expected = model.logits(params, plain);
  Batch stretched = plain;
  for (std::int32_t t = 0; t < 16; ++t) stretched.positions[t] = 2 * t;
  RopeOptions linear;
  linear.scaling = RopeScaling::kLinear;
  linear.factor = 2;
  model.set_rope_scaling(linear);
  EXPECT_LT(largest_difference(model.logits(params, stretched), expected), 1e-4);
  model.set_rope_scaling(RopeOptions{});
  EXPECT_GT(largest_difference(model.logits(params, stretched), expected), 1e-2);
}

TEST(TrainText, RopeIsEvaluatedAgainUnderEachScaling) {
  const TrainConfig c = text_config();
  Trainer trainer(c);
  for (std::size_t s = 0; s < c.steps; ++s) trainer.step();
  const EvalResult eval = trainer.evaluate();
  ASSERT_EQ(eval.text->with_scaling.size(), 4u);
  const char* names[] = {"linear", "ntk", "dynamic", "yarn"};
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& [name, rows] = eval.text->with_scaling[k];
    EXPECT_EQ(name, names[k]);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(*rows[0].loss, *eval.text->by_context[0].loss);  // factor 1
    EXPECT_NE(*rows[2].loss, *eval.text->by_context[2].loss) << name;
  }
  // The model is left unscaled: a second evaluation gives the same plain losses.
  EXPECT_EQ(*trainer.evaluate().text->by_context[2].loss, *eval.text->by_context[2].loss);
  const auto j = nlohmann::json::parse(trainer.result_json(eval, 1.0));
  EXPECT_EQ(j["perplexity_by_context_with_scaling"]["yarn"].size(), 3u);
  EXPECT_NEAR(j["perplexity_by_context"][1]["perplexity"].get<double>(),
              std::exp(j["perplexity_by_context"][1]["loss"].get<double>()), 1e-9);
  EXPECT_EQ(j["config"]["model"]["vocab_size"], 256);
  EXPECT_FALSE(j["config"]["model"].contains("bos_token_id"));
}

TEST(TrainText, ShortTrainingLowersTheHeldOutLoss) {
  TrainConfig c = text_config(PositionMethod::kAlibi);
  c.steps = 60;
  c.lr = 1e-2;
  Trainer trainer(c);
  const double before = *trainer.evaluate().text->by_context[0].loss;
  for (std::size_t s = 0; s < c.steps; ++s) trainer.step();
  const double after = *trainer.evaluate().text->by_context[0].loss;
  EXPECT_LT(after, before - 1.0) << before << " -> " << after;
}

// A checkpoint read back runs as the trainer's model did: F32 bit for bit, F16 within its
// rounding; the loss by position on the held-out part is the evaluation's.
TEST(TrainTextCheckpoint, ReadsBackAndScoresAsTheTrainerDid) {
  TrainConfig c = text_config();
  c.steps = 5;
  Trainer trainer(c);
  for (std::size_t s = 0; s < c.steps; ++s) trainer.step();
  const EvalResult eval = trainer.evaluate();
  const LabCheckpoint f32 = read_lab_checkpoint(trainer.checkpoint(), "m.safetensors");
  EXPECT_EQ(f32.task, Task::kText);
  EXPECT_EQ(f32.train_len, 16u);
  EXPECT_EQ(f32.model.position, PositionMethod::kRope);
  ASSERT_EQ(f32.params.size(), trainer.parameters().size());
  for (std::size_t i = 0; i < f32.params.size(); ++i) {
    ASSERT_EQ(f32.params.data()[i], trainer.parameters().data()[i]) << i;
  }
  const std::string_view held = split_text(*c.text).held_out;
  const auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / double(v.size());
  };
  EXPECT_NEAR(mean(text_loss_by_position(f32, held, 32)), *eval.text->by_context[1].loss, 1e-9);
  RopeOptions yarn;
  yarn.scaling = RopeScaling::kYarn;
  yarn.factor = 4;
  yarn.original_length = 16;
  EXPECT_NEAR(mean(text_loss_by_position(f32, held, 64, yarn)),
              *eval.text->with_scaling[3].second[2].loss, 1e-9);

  const LabCheckpoint f16 =
      read_lab_checkpoint(trainer.checkpoint(StoredDType::kF16), "m16.safetensors");
  EXPECT_NEAR(mean(text_loss_by_position(f16, held, 32)), *eval.text->by_context[1].loss, 1e-3);
}

TEST(TrainTextCheckpoint, RefusesWhatIsNotOneAndWhatItCannotRun) {
  const TensorF t({2}, std::vector<float>{1, 2});
  const std::string other = encode_safetensors({{"w", &t}});
  EXPECT_THROW(read_lab_checkpoint(other, "other.safetensors"), Error);
  TrainConfig c = text_config(PositionMethod::kLearned);
  const Trainer learned(c);
  const LabCheckpoint model = read_lab_checkpoint(learned.checkpoint(), "m.safetensors");
  const std::string_view text = *c.text;
  const auto field_of = [&](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.field();
    }
    return std::string("none");
  };
  EXPECT_EQ(field_of([&] { text_loss_by_position(model, text, 32); }), "context");  // past 16 rows
  RopeOptions linear;
  linear.scaling = RopeScaling::kLinear;
  linear.factor = 2;
  EXPECT_EQ(field_of([&] { text_loss_by_position(model, text, 16, linear); }), "scaling");
  EXPECT_EQ(field_of([&] { text_loss_by_position(model, "short", 16); }), "text");
  EXPECT_EQ(text_loss_by_position(model, text, 16).size(), 16u);
  // A checkpoint whose tensor lost a row.
  SafetensorsFile file = parse_safetensors(learned.checkpoint(), "m.safetensors");
  std::vector<std::pair<std::string, const TensorF*>> named;
  TensorF cut = file.tensors.at("wte.weight");
  cut.shape[0] -= 1;
  cut.data.resize(cut.shape[0] * cut.shape[1]);
  for (const auto& [name, tensor] : file.tensors) {
    named.emplace_back(name, name == "wte.weight" ? &cut : &tensor);
  }
  try {
    read_lab_checkpoint(encode_safetensors(named, StoredDType::kF32, file.metadata), "cut");
    FAIL() << "a tensor of the wrong shape accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tensor wte.weight has shape"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace poslab::train
