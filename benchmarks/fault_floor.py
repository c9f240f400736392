"""The least time faults can cost a run of chained steps, whatever the client: a simulation.

In ``peer_speed.py`` each of ``--items`` items makes ``--steps`` requests in sequence (each
needs the one before), and the loopback server answers each after ``--latency`` seconds, or
with probability ``--fault-rate`` with a fault instead: HTTP 429 with ``Retry-After: 1``, 500,
503 or a dropped connection, in turn, also after ``--latency``. An item holds one of the run's
slots from its first request to its last (what ``concurrency`` means); with as many slots as
items (condition (d)) the run lasts as long as its longest chain, and a fault on a chain adds at
least one more round trip (and a 429 its ``Retry-After``).

This script runs that schedule for an ideal client: no overhead of its own, a 429 waited
exactly its ``Retry-After``, any other fault retried at once or after a random wait up to
0.5 s (evaltoolkit's ``backoff_base``), never a request sent twice, at 32 slots (evaltoolkit's
default) and 100. The median over ``--runs`` seeded runs, divided by the fault-free time, is the
smallest multiple a client sending each request once and honouring ``Retry-After`` can reach.
A real client's multiple is smaller only where its fault-free time is inflated by its own
overhead.

Usage::

    python benchmarks/fault_floor.py
"""

from __future__ import annotations

import argparse
import heapq
import random
import statistics

FAULT_KINDS = ("429", "500", "503", "drop")


def run_time(
    items: int,
    slots: int,
    steps: int,
    latency: float,
    fault_rate: float,
    retry_wait: float,
    seed: int,
) -> float:
    """Seconds until the last of ``items`` chains of ``steps`` requests, ``slots`` at a time,
    has its replies."""
    rng = random.Random(seed)
    turn = 0
    free_at = [0.0] * slots
    last = 0.0
    for _ in range(items):
        clock = heapq.heappop(free_at)  # the item starts when a slot is free
        for _ in range(steps):
            while True:
                clock += latency
                if rng.random() >= fault_rate:
                    break
                kind = FAULT_KINDS[turn % len(FAULT_KINDS)]
                turn += 1
                clock += 1.0 if kind == "429" else rng.uniform(0.0, retry_wait)
        heapq.heappush(free_at, clock)
        last = max(last, clock)
    return last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    print(
        f"{args.items} items of {args.steps} chained requests, {args.latency} s each, "
        f"{args.fault_rate:.0%} faults; median of {args.runs} runs"
    )
    for slots in (32, args.items):
        shape = (args.items, slots, args.steps, args.latency)
        fault_free = run_time(*shape, 0.0, 0.0, 0)
        for retry_wait in (0.0, 0.5):
            median = statistics.median(
                run_time(*shape, args.fault_rate, retry_wait, seed) for seed in range(args.runs)
            )
            print(
                f"{slots} slots, other faults retried after up to {retry_wait:.1f} s: "
                f"{median:.2f} s against {fault_free:.2f} s fault-free, "
                f"{median / fault_free:.2f}x"
            )


if __name__ == "__main__":
    main()
