"""The result cache's tables in the results store (engine/result_cache.py makes
the keys): the parts of each key, the stored case a key finds, what an image
answered to the probe, and which cases of a run were reused."""

from __future__ import annotations

import json
from typing import Any

from tlsbench.engine.store_base import Row, StoreBase


class CacheTables(StoreBase):
    """cache_keys, probe_answers, and the cache columns of cases."""

    def put_cache_key(self, key: str, parts: dict[str, str]) -> None:
        with self._tx():
            self._q("INSERT INTO cache_keys (cache_key, parts_json) VALUES (?,?) ON CONFLICT (cache_key) DO NOTHING",
                    (key, json.dumps(parts, sort_keys=True)))

    def cache_key_parts(self, key: str) -> dict[str, str] | None:
        row = self._q("SELECT parts_json FROM cache_keys WHERE cache_key=?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def cached_case(self, key: str, statuses: tuple[str, ...]) -> Row | None:
        """The measured case (never a copy) stored under this key with one of these statuses, latest first."""
        marks = ",".join("?" * len(statuses))
        return self._q(f"SELECT id, status, reason, iters, transcript FROM cases WHERE cache_key=? AND"
                       f" reused_from IS NULL AND status IN ({marks}) ORDER BY id DESC LIMIT 1",
                       (key, *statuses)).fetchone()

    def put_probe_answer(self, key: str, parts: dict[str, str], answer: dict[str, Any]) -> None:
        with self._tx():
            self._q("INSERT INTO probe_answers (probe_key, parts_json, answer_json) VALUES (?,?,?)"
                    " ON CONFLICT (probe_key) DO NOTHING",
                    (key, json.dumps(parts, sort_keys=True), json.dumps(answer)))  # as answered, in its order

    def probe_answer(self, key: str) -> dict[str, Any] | None:
        """What an image answered to the probe stored under this key, or None."""
        row = self._q("SELECT answer_json FROM probe_answers WHERE probe_key=?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def reuse_marks(self, run_id: int) -> dict[str, int]:
        """case name -> the case its outcome was copied from, for the reused cases of a run."""
        return {r[0]: int(r[1]) for r in self._q(
            "SELECT name, reused_from FROM cases WHERE run_id=? AND reused_from IS NOT NULL", (run_id,))}
