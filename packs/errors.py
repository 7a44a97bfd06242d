"""What is wrong with a pack: every problem with its file, its path inside the file and the reason."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One problem: ``file`` inside the pack ("" for the pack as a whole), a JSON-pointer ``path`` and why."""

    file: str
    path: str
    reason: str

    def __str__(self) -> str:
        where = self.file or "(pack)"
        return f"{where}{' ' + self.path if self.path else ''}: {self.reason}"

    def as_dict(self) -> dict[str, str]:
        return {"file": self.file, "path": self.path, "reason": self.reason}


class PackInvalid(Exception):
    """A pack that cannot be used; ``problems`` lists every one found, not the first only."""

    def __init__(self, problems: Iterable[Problem], *, origin: str = "") -> None:
        self.problems = sorted(set(problems))
        self.origin = origin
        super().__init__(f"{origin or 'The pack'} has {len(self.problems)} problem(s): "
                         + "; ".join(str(p) for p in self.problems[:5]) + ("…" if len(self.problems) > 5 else ""))
