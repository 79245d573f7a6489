// What the language models share (lm.hpp): the streaming next-token loss against a plain
// −log softmax in double, top-k, and telling the architecture from a config or a checkpoint.
#include "poslab/models/lm.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "reference.hpp"

namespace {

using poslab::Error;
using poslab::LmArchitecture;
using poslab::TensorF;

std::vector<double> plain_losses(const TensorF& logits, const std::vector<long long>& tokens) {
  const std::size_t V = logits.dim(1);
  std::vector<double> out;
  for (std::size_t t = 0; t + 1 < tokens.size(); ++t) {
    double mx = -INFINITY, s = 0;
    for (std::size_t v = 0; v < V; ++v) mx = std::max(mx, double(logits.data[t * V + v]));
    for (std::size_t v = 0; v < V; ++v) s += std::exp(double(logits.data[t * V + v]) - mx);
    out.push_back(mx + std::log(s) - logits.data[t * V + std::size_t(tokens[t + 1])]);
  }
  return out;
}

TEST(NextTokenLoss, AnySplitOfTheVocabularyGivesMinusLogSoftmax) {
  const std::size_t T = 9, V = 301;
  // Logits of trained-model size (|x| up to 30), so the running maximum has to move.
  const TensorF logits = ref::random_tensor({T, V}, 4, -30.0, 30.0);
  const std::vector<long long> tokens{0, 300, 5, 5, 17, 299, 1, 150, 42};
  const std::vector<double> want = plain_losses(logits, tokens);
  EXPECT_ALLCLOSE(poslab::next_token_losses(logits, tokens), want, ref::kTight);
  for (const std::size_t panel : {std::size_t{1}, std::size_t{7}, std::size_t{64}, V}) {
    poslab::NextTokenLoss loss(tokens, V);
    std::vector<float> block;
    for (std::size_t v0 = 0; v0 < V; v0 += panel) {
      const std::size_t n = std::min(panel, V - v0);
      block.assign(T * n, 0.0f);
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t c = 0; c < n; ++c) block[t * n + c] = logits.data[t * V + v0 + c];
      loss.add(block.data(), n, v0, n);
    }
    const TensorF got = loss.losses();
    EXPECT_EQ(got.shape, (poslab::Shape{T - 1}));
    EXPECT_ALLCLOSE(got, want, ref::kTight) << "panel " << panel;
  }
}

TEST(NextTokenLoss, BadInputsAreRefused) {
  EXPECT_THROW(poslab::NextTokenLoss({3}, 10), Error);      // no next token
  EXPECT_THROW(poslab::NextTokenLoss({3, 10}, 10), Error);  // outside the vocabulary
  EXPECT_THROW(poslab::NextTokenLoss({3, -1}, 10), Error);
  poslab::NextTokenLoss loss({1, 2}, 4);
  const float row[4] = {0, 1, 2, 3};
  loss.add(row, 4, 0, 2);
  EXPECT_THROW(loss.losses(), Error);  // columns 2 and 3 never came
  EXPECT_THROW(loss.add(row, 4, 3, 2), Error);
  EXPECT_THROW(poslab::next_token_losses(TensorF({3, 4}), {1, 2}), Error);  // T mismatch
}

TEST(TopK, HighestFirstTiesByLowerIdProbabilitiesBySoftmax) {
  const float logits[6] = {1.0f, 3.0f, 2.0f, 3.0f, -1.0f, 0.0f};
  const poslab::TopK top = poslab::top_k(logits, 6, 3);
  EXPECT_EQ(top.ids, (std::vector<std::int32_t>{1, 3, 2}));
  double s = 0;
  for (float x : logits) s += std::exp(double(x) - 3.0);
  EXPECT_NEAR(top.probs[0], 1.0 / s, 1e-7);
  EXPECT_NEAR(top.probs[2], std::exp(-1.0) / s, 1e-7);
  EXPECT_EQ(poslab::top_k(logits, 6, 100).ids.size(), 6u);
}

poslab::SafetensorsHeader header_with(const std::vector<std::string>& names) {
  poslab::SafetensorsHeader h;
  for (const std::string& n : names) h.entries.push_back({n, poslab::StoredDType::kF32, {1}, 0, 4});
  return h;
}

TEST(LmArchitecture, IsReadOffTheConfigOrTheTensorNames) {
  EXPECT_EQ(poslab::lm_architecture_of_config(R"({"model_type": "gpt_neox"})", "c"),
            LmArchitecture::kGptNeox);
  EXPECT_EQ(poslab::lm_architecture_of_config(R"({"model_type": "gpt2"})", "c"),
            LmArchitecture::kGpt2);
  EXPECT_EQ(poslab::lm_architecture_of_config(R"({"model_type": "llama"})", "c"),
            LmArchitecture::kLlama);
  EXPECT_EQ(poslab::lm_architecture_of_config(R"({"n_embd": 8})", "c"), std::nullopt);
  try {
    poslab::lm_architecture_of_config(R"({"model_type": "t5"})", "c.json");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("c.json: \"model_type\" \"t5\" is not supported"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(poslab::lm_architecture_of_config("[1]", "c"), Error);
  EXPECT_EQ(poslab::lm_architecture_of_checkpoint(
                header_with({"embed_out.weight", "gpt_neox.embed_in.weight"}), "m"),
            LmArchitecture::kGptNeox);
  EXPECT_EQ(poslab::lm_architecture_of_checkpoint(header_with({"transformer.wte.weight"}), "m"),
            LmArchitecture::kGpt2);
  EXPECT_EQ(poslab::lm_architecture_of_checkpoint(header_with({"wte.weight"}), "m"),
            LmArchitecture::kGpt2);
  EXPECT_EQ(poslab::lm_architecture_of_checkpoint(
                header_with({"lm_head.weight", "model.embed_tokens.weight"}), "m"),
            LmArchitecture::kLlama);
  EXPECT_THROW(poslab::lm_architecture_of_checkpoint(header_with({"model.embed_tokens"}), "m"),
               Error);
  EXPECT_EQ(poslab::parse_lm_architecture("gpt_neox"), LmArchitecture::kGptNeox);
  EXPECT_EQ(poslab::parse_lm_architecture("llama"), LmArchitecture::kLlama);
  EXPECT_THROW(poslab::parse_lm_architecture("t5"), Error);
}

TEST(LmArchitecture, Gpt2ConfigJsonReadsBack) {
  const poslab::Gpt2Config c{100, 16, 32, 2, 4};  // vocabulary, positions, width, layers, heads
  const std::string text = c.to_json();
  const poslab::Gpt2Config back = poslab::Gpt2Config::from_json(text, "c");
  EXPECT_EQ(back.dims.width, 32);
  EXPECT_EQ(back.dims.heads, 4);
  EXPECT_EQ(back.dims.context, 16);
  EXPECT_EQ(poslab::lm_architecture_of_config(text, "c"), LmArchitecture::kGpt2);
}

}  // namespace
