"""`tlsbench link RUN --link NAME`: the link model applied to each TLS case of
a stored run, read -> pure model -> render, every figure labelled a model
with the link's sources."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from fractions import Fraction

from tlsbench.engine.metrics import format_time
from tlsbench.errors import PlanError
from tlsbench.links import model
from tlsbench.links.profiles import LinkProfile
from tlsbench.report.tables import RunData, aligned, is_handshake, markdown, model_error_line


@dataclass(frozen=True)
class Row:
    case: str
    breakdown: model.Breakdown | None
    energy: tuple[model.Energy, model.Energy] | None
    skipped: str = ""  # why the model was not applied


def _boards():  # tlsbench.targets.boardprofiles, when the cycle model is present
    try:
        return importlib.import_module("tlsbench.targets.boardprofiles")
    except ModuleNotFoundError:
        raise PlanError("board profiles come with the cycle model, which this checkout does not have") from None


def load_board(ref: str):  # -> tlsbench.targets.boardprofiles.Profile
    """A shipped profile by name, or the user's own file by its path."""
    return _boards().resolve(ref)


def run_board(data: RunData) -> str | None:
    """The board profile whose cycle model the run added (recorded in its environment), if any."""
    env = (data.run.plan or {}).get("method", {}).get("env", {}) if data.run is not None else {}
    return env.get("TLSBENCH_MODEL_BOARD")


def board_for(data: RunData, asked: str | None):
    """The board for compute time and energy: the run's own cycle-model board by
    default (as the run stored it); another one would pair one board's cycles
    with another's clock and current, so it is refused."""
    own = run_board(data)
    stored = getattr(data, "board_profile", None)
    board = load_board(asked) if asked else None
    if board is not None and own:
        same = board.sha256 == stored["sha256"] if stored else asked == own
        if not same:
            own_name = stored["name"] if stored else own
            raise PlanError(f"run {data.run.id} was modelled on board {own_name}; --board {asked} would pair its"
                            f" cycles with another board's clock and current (run it again with --board {asked})")
    if board is not None:
        return board
    if stored:
        return _boards().from_stored(stored["name"], stored["origin"], stored["text"])
    return load_board(own) if own else None


def _side_compute_energy(res: dict[str, float], side: str, board) -> tuple[float | None, float | None, str]:
    """(cycles, nJ per cycle, source) for one side, or Nones: the run's own
    model energy first, then model cycles x the board's energy per cycle."""
    if f"{side}_model_energy_nj" in res:
        return res[f"{side}_model_energy_nj"], 1.0, "the run's cycle model (cycles x V x I / f of its board)"
    per_cycle = getattr(board, "energy_nj_per_cycle", None) if board is not None else None
    if f"{side}_model_cycles" in res and per_cycle is not None:
        return res[f"{side}_model_cycles"], per_cycle, f"board {board.name}: run current x supply / clock"
    return None, None, ""


def _compute(res: dict[str, float], board, server_host: bool = False) -> model.Compute:
    if server_host:
        return model.client_compute(res)
    if board is not None and "client_model_cycles" in res and "client_model_time_ns" not in res:
        clock = Fraction(board.clock_hz)
        return model.Compute(model.exact(res["client_model_cycles"]) * 1_000_000_000 / clock,
                             model.exact(res["server_model_cycles"]) * 1_000_000_000 / clock,
                             f"firmware model cycles / {board.name}'s clock (cycle model)")
    return model.compute_from_results(res)


def rows(data: RunData, profile: LinkProfile, board=None, tcp_handshake: bool | None = None,
         server_host: bool = False) -> list[Row]:
    """server_host: the server runs on a host elsewhere: only the client's compute is charged."""
    out = []
    for case in data.cases:
        if not is_handshake(case):
            continue
        res = {m: float(r["median"]) for m, r in case["results"].items() if r.get("median") is not None}
        if not {"c2s_bytes", "s2c_bytes"} <= res.keys():
            continue  # capacity, baseline or a failed case: no handshake bytes
        if "flights" not in res:
            out.append(Row(case["name"], None, None, "no flight count stored (a run older than the link model)"))
            continue
        try:
            compute = _compute(res, board, server_host)
        except model.NotTime as e:
            out.append(Row(case["name"], None, None, str(e)))
            continue
        b = model.time_to_first_byte(profile, compute, int(res["flights"]), int(res["c2s_bytes"]),
                                     int(res["s2c_bytes"]), tcp_handshake)
        energy = tuple(model.side_energy(profile, b, side, *(_side_compute_energy(res, side, board)
                                                            if side == "client" or not server_host else ()))
                       for side in ("client", "server"))
        out.append(Row(case["name"], b, energy))  # type: ignore[arg-type]
    return out


def _ms(ns: Fraction) -> str:
    return format_time(float(ns))


def _share(part: Fraction, total: Fraction) -> str:
    return f"{_ms(part)} ({float(part / total):.0%})" if total else _ms(part)


def _uj(nj: Fraction | None) -> str:
    return "-" if nj is None else f"{float(nj) / 1000:,.1f} µJ"


def render(data: RunData, profile: LinkProfile, board=None, tcp_handshake: bool | None = None,
           fmt: str = "table", server_host: bool = False) -> str:
    header = ["case", "client compute", "server compute", "latency", "serialisation", "TCP + window",
              "time to first byte", "radio client", "radio server", "compute client", "compute server"]
    body = []
    skipped = []
    whats = set()
    for r in rows(data, profile, board, tcp_handshake, server_host):
        if r.breakdown is None or r.energy is None:
            skipped.append(f"{r.case}: {r.skipped}")
            continue
        b, (ec, es) = r.breakdown, r.energy
        whats.add(b.compute.what)
        server = "host: not charged" if b.compute.server_ns is None else _share(b.compute.server_ns, b.total_ns)
        body.append([r.case, _share(b.compute.client_ns, b.total_ns), server,
                     _share(b.latency_ns, b.total_ns), _share(b.serialisation_ns, b.total_ns),
                     _ms(b.tcp_handshake_ns + b.window_wait_ns), _ms(b.total_ns), _uj(ec.radio_nj), _uj(es.radio_nj),
                     _uj(ec.compute_nj), _uj(es.compute_nj)])
    p = profile
    tcp = ("with the TCP handshake (1 RTT)" if p.tcp and tcp_handshake is not False
           else "without a TCP handshake" + ("" if p.tcp else " (TLS does not run over TCP on this link)"))
    lines = [f"MODEL, not a measurement: time to the first application byte and energy over link {p.name}",
             f"  {p.description}",
             f"  one-way latency {p.one_way_latency_ms:g} ms, {p.up_kbit_s:g} kbit/s up (client to server),"
             f" {p.down_kbit_s:g} kbit/s down, packets of {p.mtu_bytes} B with {p.packet_header_bytes} B of"
             f" headers, {tcp}",
             f"  compute: {'; '.join(sorted(whats)) or '-'}"
             + (f"; board {board.summary()}" if board is not None and hasattr(board, "summary") else ""),
             *([f"  cycle model error: {error}"] if (error := model_error_line(data)) is not None else []),
             *(["  the server on a host elsewhere: only the client's compute is charged; the client's own TCP"
                " stack cost is not modelled (its TCP handshake is the link's round trip alone)"]
               if server_host else []),
             "  no loss, no retransmission, initial TCP window of "
             f"{p.initial_window_segments} segments, no Nagle or delayed ACK, radio duty cycling ignored"
             " (docs/method.md, 'Links')", ""]
    table = markdown(header, body) if fmt == "markdown" else aligned(header, body)
    lines.append(table if body else "(no TLS case of this run has handshake bytes, flights and compute time)")
    if skipped:
        lines += ["", "not modelled:"] + [f"  {s}" for s in skipped]
    lines += ["", "sources:"] + [f"  {s}" for s in p.sources]
    if p.energy_source:
        lines.append(f"  radio energy: {p.energy_source}")
    else:
        lines.append("  radio energy: none published for this link (shown as -)")
    if p.typical:
        lines += ["typical values, not specifications:"] + [f"  {s}" for s in p.typical]
    return "\n".join(lines) + "\n"
