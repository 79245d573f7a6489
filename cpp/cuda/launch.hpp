// Launch-size helpers for the host launchers (host code only).
#pragma once

namespace poslab::cuda::detail {

// Multiprocessors of the current device, read once: grid-stride kernels launch a few
// blocks per multiprocessor rather than one block per element.
int multiprocessor_count();

}  // namespace poslab::cuda::detail
