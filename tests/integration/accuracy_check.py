"""The accuracy rule of the framework proofs: ucudnn's error against an FP64 reference may be at most
twice plain cuDNN's on the same inputs, or the dtype's floor times the reference's magnitude where
plain cuDNN is (nearly) exact."""

import argparse
import math


def add_accuracy_arguments(parser, dtypes, timeout, show):
    """The options every accuracy proof takes, beside ucudnn_launch's, and its children's."""
    parser.add_argument("--limits", default="64KiB,1MiB", help="per-kernel workspace limits, one ucudnn run each")
    parser.add_argument("--dtypes", default=",".join(dtypes), help="comma-separated, of: " + ", ".join(dtypes))
    parser.add_argument("--seed", type=int, default=None, help="repeat a run: the seed it printed")
    parser.add_argument("--out", help="folder for the children's logs and the JSON summary")
    parser.add_argument("--timeout", type=int, default=timeout, help="seconds per child")
    parser.add_argument("--show", type=int, default=show, help="worst cases listed per run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--results", help=argparse.SUPPRESS)


class AccuracyCheck:
    """Collects one ucudnn run's checks against the plain run, then records and prints them."""

    def __init__(self):
        self.failures, self.worst, self.skipped, self.checked = [], [], [], 0

    def failed_runs(self, label, plain_error, ucudnn_error):
        """Whether a case did not run: plain failing skips it, ucudnn failing alone fails it."""
        if plain_error:
            self.skipped.append(f"{label}: plain run failed: {plain_error}")
        elif ucudnn_error:
            self.failures.append(f"{label}: failed under ucudnn only: {ucudnn_error}")
        return bool(plain_error or ucudnn_error)

    def check(self, label, e_ucudnn, e_plain, scale, floor):
        """One tensor: errors are max |value - FP64 reference|, `scale` the reference's max |value|."""
        self.checked += 1
        bound = max(2 * e_plain, floor * max(1.0, scale))
        ratio = e_ucudnn / bound if bound > 0 else (0.0 if e_ucudnn == 0 else math.inf)
        line = (f"{label}: error {e_ucudnn:.3e}, plain's {e_plain:.3e}, bound {bound:.3e} "
                f"(max |FP64| {scale:.3g})")
        self.worst.append((ratio, line))
        if not e_ucudnn <= bound:  # NaN fails too
            self.failures.append(line)

    def worst_first(self, count):
        """The `count` checks nearest their bound (or over it): (error / bound, line)."""
        return sorted(self.worst, key=lambda item: -item[0])[:count]

    def record_into(self, record, show):
        record.update(checked=self.checked, failures=self.failures, skipped=self.skipped,
                      worst=[line for _, line in self.worst_first(show)])

    def print_details(self, limit, show, failures_shown=None):
        for line in self.failures[:failures_shown]:
            print(f"FAIL [{limit}] {line}")
        print(f"[{limit}] worst against the bound (error / bound):")
        for ratio, line in self.worst_first(show):
            print(f"    {ratio:6.3f}  {line}")
        for line in self.skipped[:5]:
            print(f"    skipped: {line}")
