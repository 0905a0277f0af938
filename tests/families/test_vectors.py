"""The references themselves: FFDHE primes from their RFC 7919 definition."""

from __future__ import annotations

import random

from tlsbench.families.primitive.vectors import FFDHE_PRIMES


def _probably_prime(n: int, rounds: int = 16) -> bool:
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    rng = random.Random(7)
    for _ in range(rounds):
        x = pow(rng.randrange(2, n - 2), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def test_ffdhe_primes_are_the_rfc_safe_primes() -> None:
    for name, bits in (("ffdhe2048", 2048), ("ffdhe3072", 3072)):
        p = FFDHE_PRIMES[name]
        assert p.bit_length() == bits
        # RFC 7919 appendix A: every group starts with 64 one bits, then the digits of e
        assert hex(p).startswith("0xffffffffffffffffadf85458a2bb4a9aafdc5620273d3cf1")
        assert hex(p).endswith("ffffffffffffffff")
        assert _probably_prime(p) and _probably_prime((p - 1) // 2)
