"""The skeleton family's method: DRF's allocation when every user wants as many tasks as
it gets (Ghodsi et al., NSDI'11, Sec. 4.1): equal dominant shares s, user i getting s times
its demand vector over its dominant demand, s as large as the busiest resource allows."""
from dataclasses import dataclass

import numpy as np

from .. import _inputs, _validation, api, rows
from .catalog import DEMANDS


@dataclass(frozen=True)
class Shares:
    """A run's result: the method, the common dominant share, each user's allocation (an
    (n, m) array of fractions of each resource)."""
    method: str
    share: float
    allocation: np.ndarray

    def rows(self, **columns):
        """Tidy rows, one per user: its dominant share and its share of each resource; with
        `columns` added, stamped (drfbench.rows)."""
        return rows.stamped([{"method": self.method, "user": i, "dominant_share": self.share,
                              **{f"share_{r}": float(x) for r, x in enumerate(a)}}
                             for i, a in enumerate(self.allocation)], **columns)


def share(demands, method="skeleton", **options):
    """`method` on `demands` (n users x m resources, each row a user's demand vector,
    fractions of each resource): a Shares."""
    return api.run(method, demands, takes=DEMANDS, **options)


def run_equal(spec, demands, *, scale):
    """The registry's implementation of `skeleton`: s = scale / max_r sum_i d_ir / max_r' d_ir'."""
    d = _validation.finite_non_negative(_validation.real_array(demands, "demands", 2), "demands")
    dominant = d.max(axis=1)
    if not d.size or (dominant == 0).any():
        raise ValueError("demands: every user must demand some resource (a row of zeros, "
                         "or no users)")
    per_share = d / dominant[:, None]             # what one unit of dominant share costs
    s = scale / per_share.sum(axis=0).max()
    return Shares(spec.name, float(s), s * per_share)


def read_inputs(path, names=False):
    """The skeleton_demands kind's reader (`drfbench run`): a CSV, one row per user, one
    column per resource (a first column `user` names the users); with `names` the pair
    (array, the users' names as written or None)."""
    table = _inputs.read_csv(path, "demands", name_column=True)
    demands = table.numbers(table.columns)
    return (demands, table.labels) if names else demands
