"""The cases of the results store: each case with its rounds, samples and
results, written one transaction per case or round."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable

from tlsbench.engine.case import Result, Sample
from tlsbench.engine.store_base import Row, StoreBase, upsert


class CaseTables(StoreBase):
    """cases, case_rounds, samples, results."""

    def forget_failed(self, run_id: int) -> None:
        """Drops failed cases (with their samples) so a resume measures them again."""
        with self._tx():
            ids = [r[0] for r in self._q(
                "SELECT id FROM cases WHERE run_id=? AND status='failed'", (run_id,))]
            for table in ("samples", "results", "case_rounds"):
                self._many(f"DELETE FROM {table} WHERE case_id=?", [(i,) for i in ids])
            self._many("DELETE FROM cases WHERE id=?", [(i,) for i in ids])

    def put_case(self, run_id: int, *, name: str, library: str, kind: str, alg: str, op: str,
                 size: int | None, params: dict, status: str, reason: str, iters: int | None,
                 started: float, transcript: str,
                 samples: Iterable[Sample] = (),
                 results: Iterable[Result] = (), rounds_done: int = 1, round_info: dict | None = None,
                 cache_key: str | None = None, reused_from: int | None = None) -> int:
        """One transaction per case (or round): all of it is stored, or none of it. ``cache_key``: an
        exact case's result-cache key; ``reused_from``: the stored case its outcome was copied from."""
        with self._tx():
            cur = self._q(
                "INSERT INTO cases (run_id, name, library, kind, alg, op, size, params_json, status,"
                " reason, iters, started, finished, transcript, rounds_done, cache_key, reused_from)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id",
                (run_id, name, library, kind, alg, op, size, json.dumps(params), status, reason,
                 iters, started, time.time(), transcript, rounds_done, cache_key, reused_from),
            )
            case_id = int(cur.fetchone()[0])
            self._put_samples(case_id, samples)
            self._put_results(case_id, results)
            self._put_round_info(case_id, rounds_done - 1, round_info)
        return case_id

    def _put_round_info(self, case_id: int, rnd: int, info: dict | None) -> None:
        if info is None:
            return
        self._q(
            upsert("case_rounds", ("case_id", "round", "stack_at", "heap_shift", "reference_ns",
                                    "best_reference_ns", "attempts", "slow", "reference_after_ns"), 2),
            (case_id, rnd, info.get("stack_at"), info.get("heap_shift"), info.get("reference_ns"),
             info.get("best_reference_ns"), info.get("attempts", 1), int(bool(info.get("slow"))),
             info.get("reference_after_ns")),
        )

    def case_rounds(self, run_id: int) -> list[Row]:
        """Every stored round's placement and pace, with its case's name."""
        return self._q(
            "SELECT c.name, r.* FROM case_rounds r JOIN cases c ON c.id = r.case_id WHERE c.run_id=?"
            " ORDER BY c.id, r.round", (run_id,)).fetchall()

    def add_round(self, case_id: int, *, status: str, reason: str, transcript: str,
                  samples: Iterable[Sample], results: Iterable[Result], rounds_done: int,
                  round_info: dict | None = None) -> None:
        """A later round of a case: its batches, the case's new state and (after
        the last round) its results, in one transaction."""
        with self._tx():
            self._q(
                "UPDATE cases SET status=?, reason=?, finished=?, rounds_done=?,"
                " transcript=transcript || ? WHERE id=?",
                (status, reason, time.time(), rounds_done, f"\n--- round {rounds_done} ---\n" + transcript,
                 case_id),
            )
            self._put_samples(case_id, samples)
            self._q("DELETE FROM results WHERE case_id=?", (case_id,))
            self._put_results(case_id, results)
            self._put_round_info(case_id, rounds_done - 1, round_info)

    def replace_round(self, case_id: int, rnd: int, *, samples: list[Sample], results: Iterable[Result],
                      round_info: dict | None, transcript: str) -> None:
        """A round measured again: its samples (the same indices) replaced, the
        case's results and the round's pace with them, in one transaction."""
        with self._tx():
            self._many("DELETE FROM samples WHERE case_id=? AND idx=? AND warmup=? AND counter=?",
                       [(case_id, s.idx, int(s.warmup), s.counter) for s in samples])
            self._put_samples(case_id, samples)
            self._q("DELETE FROM results WHERE case_id=?", (case_id,))
            self._put_results(case_id, results)
            self._q("UPDATE cases SET finished=?, transcript=transcript || ? WHERE id=?",
                    (time.time(), f"\n--- round {rnd + 1}, measured again ---\n" + transcript, case_id))
            self._put_round_info(case_id, rnd, round_info)

    def put_round_info(self, case_id: int, rnd: int, info: dict) -> None:
        """A round's pace stored again (e.g. one more attempt that was not kept)."""
        with self._tx():
            self._put_round_info(case_id, rnd, info)

    def case_run_and_name(self, case_id: int) -> tuple[int, str] | None:
        row = self._q("SELECT run_id, name FROM cases WHERE id=?", (case_id,)).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def case_id_of(self, run_id: int, name: str) -> int | None:
        row = self._q("SELECT id FROM cases WHERE run_id=? AND name=?", (run_id, name)).fetchone()
        return None if row is None else int(row[0])

    def case_progress(self, run_id: int) -> dict[str, tuple[int, str, int]]:
        return {
            r["name"]: (r["id"], r["status"], r["rounds_done"])
            for r in self._q("SELECT id, name, status, rounds_done FROM cases WHERE run_id=?", (run_id,))
        }

    def _put_samples(self, case_id: int, samples: Iterable[Sample]) -> None:
        self._many("INSERT INTO samples (case_id, idx, warmup, iters, counter, total) VALUES (?,?,?,?,?,?)",
                            [(case_id, s.idx, int(s.warmup), s.iters, s.counter, s.total) for s in samples])

    def _put_results(self, case_id: int, results: Iterable[Result]) -> None:
        self._many(
            "INSERT INTO results (case_id, metric, unit, n, removed, median, mean, stdev, min, max, ci95_low,"
            " ci95_high) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(case_id, r.metric, r.unit, r.n, r.removed, r.median, r.mean, r.stdev, r.min, r.max, r.ci95_low,
              r.ci95_high) for r in results])

    def case_samples(self, case_id: int) -> list[Sample]:
        return [Sample(idx, bool(warm), iters, counter, total) for idx, warm, iters, counter, total in self._q(
            "SELECT idx, warmup, iters, counter, total FROM samples WHERE case_id=?", (case_id,))]

    def per_op_values(self, run_id: int, counter: str) -> dict[str, tuple[str, list[float]]]:
        """case name -> (status, the per-operation values of its measured batches
        of this counter, in batch order); every case of the run is there."""
        out: dict[str, tuple[str, list[float]]] = {}
        for name, status in self._q("SELECT name, status FROM cases WHERE run_id=? ORDER BY id", (run_id,)):
            out[name] = (status, [])
        rows = self._q(
            "SELECT c.name, s.total, s.iters FROM samples s JOIN cases c ON c.id = s.case_id"
            " WHERE c.run_id=? AND s.warmup=0 AND s.counter=? ORDER BY c.id, s.idx",
            (run_id, counter),
        )
        for name, total, iters in rows:
            out[name][1].append(total / iters)
        return out

    def per_op_indexed(self, run_id: int, counter: str) -> dict[str, list[tuple[int, float]]]:
        """case name -> (batch index, per-operation value) of each measured batch of this counter (the
        index says which round a batch came from: stats.rounds_of)."""
        out: dict[str, list[tuple[int, float]]] = {}
        for name, idx, total, iters in self._q(
                "SELECT c.name, s.idx, s.total, s.iters FROM samples s JOIN cases c ON c.id = s.case_id"
                " WHERE c.run_id=? AND s.warmup=0 AND s.counter=? ORDER BY c.id, s.idx", (run_id, counter)):
            out.setdefault(name, []).append((idx, total / iters))
        return out

    def sample_counters(self, run_id: int) -> set[str]:
        """Every counter (metric) with a stored sample in this run."""
        return {r[0] for r in self._q(
            "SELECT DISTINCT s.counter FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id=?", (run_id,))}

    def cases(self, run_id: int) -> list[Row]:
        return self._q(
            "SELECT * FROM cases WHERE run_id=? ORDER BY id", (run_id,)
        ).fetchall()

    def results(self, run_id: int) -> list[Row]:
        return self._q(
            "SELECT c.name, c.library, c.kind, c.alg, c.op, c.size, c.params_json, c.status,"
            " r.metric, r.unit, r.n, r.removed, r.median, r.mean, r.stdev, r.min, r.max,"
            " r.ci95_low, r.ci95_high"
            " FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id=? ORDER BY c.id, r.metric",
            (run_id,),
        ).fetchall()

    def samples(self, case_id: int) -> list[Row]:
        return self._q(
            "SELECT * FROM samples WHERE case_id=? ORDER BY warmup DESC, idx, counter", (case_id,)
        ).fetchall()
