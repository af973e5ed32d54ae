"""One akshare fetch's bookkeeping: its calls, each counted in the progress plan, and the notes and row flags its
steps add to. Apart from the provider so the steps that read one source each (akshare_titles.py) can take it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from screening.data.providers.akshare_calls import AkshareCalls
from screening.data.providers.fetch_plan import CallPlan


@dataclass
class AkshareFetch:
    """One fetch's calls, each counted in the plan, and the notes its steps add to."""

    calls: AkshareCalls
    plan: CallPlan
    version: str
    notes: list[str]
    session: Any = None  # one requests.Session for the Eastmoney calls this project sends itself
    degraded: list[str] = field(default_factory=list)  # row flags for optional sources that failed

    @property
    def sdk(self) -> str:
        return f"akshare {self.version}"

    def run(self, function: str, label: str, **kw: Any) -> pd.DataFrame | None:
        try:
            return self.calls.run(function, label, **kw)
        finally:
            self.plan.step()
