"""``evaltoolkit compare A B``: a paired comparison of two saved runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..records import read_results

if TYPE_CHECKING:
    pass
from ._common import _HelpFormatter


def _compare(args: argparse.Namespace) -> int:
    from ..meta import compare_runs

    first, second = Path(args.a), Path(args.b)
    scorer = args.scorer
    if scorer is not None and len(scorer) > 2:
        raise ConfigurationError(
            f"--scorer takes one id, or two (A's, then B's); got {len(scorer)}: " + " ".join(scorer)
        )
    run_a, run_b = read_results(first), read_results(second)
    table = compare_runs(
        run_a,
        run_b,
        score=args.score,
        scorer=None if scorer is None else scorer[0] if len(scorer) == 1 else tuple(scorer),
        group=args.group,
        n_bootstrap=args.n_bootstrap,
        seed=args.seed,
    )
    if scorer is None:  # compare_runs took the one scorer both runs have
        scorer = [next(name for name in run_a.scorer_ids if name in run_b.scorer_ids)]
    compared = scorer[0] if len(scorer) == 1 else f"{scorer[0]} (A) and {scorer[1]} (B)"
    print(f"A: {first}\nB: {second}\nscorer: {compared}")
    shown = table.drop(columns=["test", "note"])  # each said in words below
    print(shown.to_string(index=False, float_format=lambda value: f"{value:.4g}"))
    for row in table.to_dict(orient="records"):
        print(
            f"{row['score']}: B - A = {row['difference']:+.4f} "
            f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}] (95% paired bootstrap), "
            f"p = {row['p_value']:.3g} ({row['test']}); B higher on {row['wins']}, equal on "
            f"{row['ties']}, lower on {row['losses']} of {row['n_pairs']} pairs"
            + (f" ({row['failed']} left out: failed in a run)" if row["failed"] else "")
            + (f"; note: {row['note']}" if row["note"] else "")
        )
    return 0


def _add_compare_command(commands: Any) -> None:
    compare = commands.add_parser(
        "compare",
        help="is the difference between two runs of the same items real? (paired)",
        description="Pair two saved runs of the same items by id and print, per score "
        "column, each run's mean, the mean difference B - A with a paired bootstrap interval, "
        "the Wilcoxon signed-rank p-value (over groups with --group) and wins / ties / losses "
        "of B against A.",
        formatter_class=_HelpFormatter,
    )
    compare.add_argument("a", help="results file of run A (.parquet, .csv, .jsonl)")
    compare.add_argument("b", help="results file of run B, the same items")
    compare.add_argument(
        "--score",
        default=None,
        help="the score column (score, or an axis such as alignment; default: all)",
    )
    compare.add_argument(
        "--scorer",
        nargs="+",
        default=None,
        metavar="ID",
        help="the scorer id (default: the shared one), or two: A's and B's, for runs whose "
        "scorers are named differently",
    )
    compare.add_argument(
        "--group",
        default=None,
        help="an item field whose groups are resampled and tested over (e.g. doc_id)",
    )
    compare.add_argument("--n-bootstrap", type=int, default=1000, help="bootstrap resamples")
    compare.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    compare.set_defaults(handler=_compare)


# -- cache ----------------------------------------------------------------------------------
