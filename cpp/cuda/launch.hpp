// Launch sizes and the size checks the host launchers share (host code only).
#pragma once

namespace poslab::cuda::detail {

// The element count of an (H, Lq, Lk) bias, once its sizes pass: heads in [1, 65536], lengths
// >= 0, the total under the size cap (checked_numel). `what` names the tensor in the message
// ("ALiBi bias").
long long bias_elements(long long num_heads, long long query_length, long long key_length,
                        const char* what);

// Multiprocessors of the current device, read once: grid-stride kernels launch a few
// blocks per multiprocessor rather than one block per element.
int multiprocessor_count();

}  // namespace poslab::cuda::detail
