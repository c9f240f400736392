"""The least time faults can cost a run of chained steps, whatever the client: a simulation.

``peer_speed.py``'s condition (d) starts all ``--items`` items at once; each makes ``--steps``
requests in sequence (each needs the one before), and the loopback server answers each after
``--latency`` seconds, or with probability ``--fault-rate`` with a fault instead: HTTP 429 with
``Retry-After: 1``, 500, 503 or a dropped connection, in turn, also after ``--latency``. With
every item started at once, the run lasts as long as its longest chain, and a fault on a chain
adds at least one more round trip (and a 429 its ``Retry-After``).

This script computes that longest chain for an ideal client: no overhead of its own, a 429
waited exactly its ``Retry-After``, any other fault retried at once (``--retry-wait 0``) or
after a random wait up to ``--retry-wait`` seconds, never a request sent twice. Its median over
``--runs`` seeded runs, divided by the fault-free time (``steps x latency``), is the smallest
multiple a client sending each request once and honouring ``Retry-After`` can reach. A real
client's multiple is smaller only where its fault-free time is inflated by its own overhead.

Usage::

    python benchmarks/fault_floor.py
"""

from __future__ import annotations

import argparse
import random
import statistics

FAULT_KINDS = ("429", "500", "503", "drop")


def longest_chain(
    items: int, steps: int, latency: float, fault_rate: float, retry_wait: float, seed: int
) -> float:
    """Seconds until the last of ``items`` chains of ``steps`` requests has its replies."""
    rng = random.Random(seed)
    turn = 0
    longest = 0.0
    for _ in range(items):
        clock = 0.0
        for _ in range(steps):
            while True:
                clock += latency
                if rng.random() >= fault_rate:
                    break
                kind = FAULT_KINDS[turn % len(FAULT_KINDS)]
                turn += 1
                clock += 1.0 if kind == "429" else rng.uniform(0.0, retry_wait)
        longest = max(longest, clock)
    return longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    fault_free = args.steps * args.latency
    print(
        f"{args.items} items of {args.steps} chained requests, {args.latency} s each, "
        f"{args.fault_rate:.0%} faults; fault-free {fault_free:.2f} s; median of {args.runs} runs"
    )
    for retry_wait in (0.0, 0.5):
        chains = [
            longest_chain(args.items, args.steps, args.latency, args.fault_rate, retry_wait, seed)
            for seed in range(args.runs)
        ]
        median = statistics.median(chains)
        print(
            f"other faults retried after up to {retry_wait:.1f} s: longest chain {median:.2f} s, "
            f"{median / fault_free:.2f}x the fault-free time"
        )


if __name__ == "__main__":
    main()
