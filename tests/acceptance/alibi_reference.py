"""ALiBi's head slopes as Press et al.'s reference get_slopes computes them (from the paper's
code, not from the C++ core): shared by the CLI and training acceptance scripts."""

import math


def alibi_slopes(n):
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]
