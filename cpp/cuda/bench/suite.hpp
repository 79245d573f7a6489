// The benchmark suites and the state they share: the device, the sweep size and the results.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "device_info.hpp"
#include "record.hpp"

namespace poslab::cuda::bench {

struct Context {
  DeviceInfo device;
  bool quick = false;  // a few shapes per kernel, for a first look
  std::vector<Record> records;

  // Times the copy roofline of a memory-bound record (once per byte count), prints the
  // console line and keeps the record.
  void add(Record r);
  int failures() const;

 private:
  std::map<double, Timing> copies_;  // by bytes moved
};

// sinusoidal tables (both variants, both layouts), ALiBi and T5 bias generation.
void run_tables(Context& ctx);
// RoPE apply, both variants, fp32/fp16/bf16, neox and gptj.
void run_rope(Context& ctx);
// Attention forward, naive and fused, fp16 (and bf16), d = 64/128, causal and not.
void run_attention(Context& ctx);
// The position methods in attention at B = 4, H = 16, d = 128, fp16, L = 4096 and 8192: ALiBi
// and T5 in the fused kernel against the naive path with the bias, RoPE on load against the
// RoPE kernel then the fused kernel.
void run_position(Context& ctx);

}  // namespace poslab::cuda::bench
