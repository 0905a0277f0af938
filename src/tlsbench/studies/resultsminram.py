"""docs/results-min-ram.md from stored runs: the least heap a TLS handshake completes with, per library,
handshake and side, on the emulated Cortex-M4. The runs come in pairs, each command made twice (the second
measured again, not from the result cache): `min-ram` pairs (both sides in one image) and `min-ram-device`
pairs (the device's side against a host peer). The page says whether the two runs of each pair agree
(`tlsbench compare`), shows the first run's figures, and states what they say, each statement computed
from the stored figures. The runs are made by scripts/regenerate-docs (docs/data/pages.toml).

    tlsbench study results-min-ram --db DB --run N --run N2 [--run M --run M2 ...] -o docs/results-min-ram.md
"""

from __future__ import annotations

import argparse
import datetime
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace

from tlsbench.engine.store import Store
from tlsbench.errors import TlsbenchError
from tlsbench.families.minram import KIND, SIDES
from tlsbench.families.minram import fits as fits_view
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls.names import TlsVariant
from tlsbench.outfile import write_whole
from tlsbench.plans.plan import presets
from tlsbench.report import compare, compare_text, resultsdoc, tables
from tlsbench.report.tables import RunData
from tlsbench.studies.pagecommand import add_page_parser


@dataclass(frozen=True)
class Pair:
    """One command made twice: the page shows the first run and checks the second against it."""

    first: RunData
    second: RunData
    agreement: list[str]  # compare's summary lines, first -> second
    agrees: bool  # every exact figure of both runs the same, no case in one run only
    reused: tuple[int, int] = (0, 0)  # each run's cases copied from the result cache (not measured in it)


def profile_label(data: RunData, library: str) -> str:
    """"mbedtls (small)": the library with the build profile its run used."""
    profile = (data.run.machine.get("profiles") or {}).get(library, "default")
    return f"{library} ({profile})"


def handshake_label(case: dict) -> str:
    """"TLS 1.3 X25519 + ECDSA P-256, PSK resumption (psk_ke)" from the case's suite and variant."""
    v = TlsVariant.parse(case["op"])
    group = (v.group or "").upper().replace("P256", "P-256")
    cert = v.cred.upper().replace("ECDSA-P", "ECDSA P-").replace("RSA", "RSA ")
    if tls_catalog.version_of(case["alg"]) == 13:
        text = f"TLS 1.3 {group} + {cert}"
    else:
        kx = case["alg"].removeprefix("TLS_").split("_WITH_")[0].replace("_", "-")
        text = f"TLS 1.2 {kx} ({group}, {cert.split(' ', 1)[-1]})"
    if v.handshake == "resume-psk-only":
        text += ", PSK resumption (psk_ke)"
    elif v.handshake != "full":
        text += f", {v.handshake}"
    return text


def _variant(case: dict) -> TlsVariant:
    return TlsVariant.parse(case["op"])


def _order(case: dict) -> tuple:
    v = _variant(case)
    return (tls_catalog.version_of(case["alg"]), v.handshake != "full", v.handshake, v.max_frag)


def _value(case: dict, metric: str) -> int | None:
    r = case["results"].get(metric)
    return None if r is None else int(r["median"])


def _fmt(n: int | None) -> str:
    return "n/m" if n is None else f"{n:,}"


def min_ram_cases(data: RunData) -> list[dict]:
    """The run's min-ram cases, library by library in the run's order, then by protocol, handshake and mfl."""
    libs = [lib["library"] for lib in data.libraries]
    cases = [c for c in data.cases if c["kind"] == KIND]
    return sorted(cases, key=lambda c: (libs.index(c["library"]) if c["library"] in libs else len(libs), _order(c)))


def heap_rows(data: RunData) -> list[list[str]]:
    """Per case: each side's least heap, uncapped peak and stack, and the largest record the client sends."""
    rows = []
    for c in min_ram_cases(data):
        v = _variant(c)
        head = [profile_label(data, c["library"]), handshake_label(c), str(v.max_frag) if v.max_frag else "none"]
        if c["status"] != "ok":
            rows.append([*head, f"{c['status']}: {c['reason'] or ''}", *[""] * 6])
            continue
        sides = [side for side in SIDES if not v.device or side == v.device]
        cells = []
        for side in SIDES:
            metrics = ("min_heap_bytes", "conn_heap_peak_bytes", "stack_bytes")
            cells += [_fmt(_value(c, f"{side}_{m}")) for m in metrics] if side in sides else ["host peer", "", ""]
        frag = _value(c, "negotiated_max_frag_bytes")
        rows.append([*head, *cells, "-" if frag is None else f"{frag:,}"])
    return rows


HEAP_HEADER = ["library (profile)", "handshake", "mfl asked", "client min heap", "client uncapped peak",
               "client stack", "server min heap", "server uncapped peak", "server stack", "client sends at most"]


def _sides(data: RunData) -> Iterable[tuple[dict, str, int, int]]:
    """Each measured side of each ok case: (case, side, least heap, uncapped peak)."""
    for c in min_ram_cases(data):
        if c["status"] != "ok":
            continue
        for side in SIDES:
            least, peak = _value(c, f"{side}_min_heap_bytes"), _value(c, f"{side}_conn_heap_peak_bytes")
            if least is not None and peak is not None:
                yield c, side, least, peak


def fallback_finding(runs: list[RunData]) -> str:
    """Whether a library completes with less heap than its uncapped peak (it falls back under a cap)."""
    sides = [(d, c, side, least, peak) for d in runs for c, side, least, peak in _sides(d)]
    below = [(d, c, side, least, peak) for d, c, side, least, peak in sides if least < peak]
    text = (f"**The least heap equals the uncapped peak in {len(sides) - len(below)} of {len(sides)} case sides**:"
            " there, one byte less than the peak fails (the search confirms it), so the library does not fall"
            " back under a cap.")
    if below:
        text += " Less than the peak suffices in " + "; ".join(
            f"{profile_label(d, c['library'])}, {handshake_label(c)}"
            + (f", mfl {_variant(c).max_frag}" if _variant(c).max_frag else "")
            + f", {side}: {least:,} B against a peak of {peak:,} B" for d, c, side, least, peak in below) + "."
    return text


def _base_name(case: dict) -> str:
    """The case's name without its max_fragment_length option."""
    v = _variant(case)
    if not v.max_frag:
        return case["name"]
    return case["name"].removesuffix(case["op"]) + replace(v, max_frag=0).op(case["alg"])


def mfl_rows(data: RunData) -> list[list[str]]:
    """Each case with a maximum fragment length against the same case without: the change of each side's
    least heap and configuration heap."""
    by_name = {c["name"]: c for c in data.cases if c["kind"] == KIND and c["status"] == "ok"}
    rows = []
    for c in min_ram_cases(data):
        base = by_name.get(_base_name(c))
        if c["status"] != "ok" or not _variant(c).max_frag or base is None:
            continue
        cells = []
        for side in SIDES:
            for metric in ("min_heap_bytes", "endpoint_heap_bytes"):
                a, b = _value(base, f"{side}_{metric}"), _value(c, f"{side}_{metric}")
                cells.append("n/m" if a is None or b is None else f"{b - a:+,}")
        rows.append([profile_label(data, c["library"]), handshake_label(c), str(_variant(c).max_frag), *cells])
    return rows


MFL_HEADER = ["library (profile)", "handshake", "mfl asked", "client min heap", "client config heap",
              "server min heap", "server config heap"]


def record_size_rows(runs: list[RunData], library: str) -> list[list[str]]:
    """The library's cases under its first two build profiles (e.g. Mbed TLS small and small-2k): each side's
    least heap under each and the difference."""
    by_profile: dict[str, dict[str, dict]] = {}  # profile -> case name -> ok case (the first run of each)
    for d in runs:
        cases = {c["name"]: c for c in min_ram_cases(d) if c["library"] == library and c["status"] == "ok"}
        if cases:
            by_profile.setdefault(profile_label(d, library), cases)
    if len(by_profile) < 2:
        return []
    first, second = list(by_profile.values())[:2]
    rows = []
    for name, base in first.items():
        other = second.get(name)
        for side in SIDES if other else ():
            a, b = _value(base, f"{side}_min_heap_bytes"), _value(other, f"{side}_min_heap_bytes")
            if a is not None and b is not None:
                v = _variant(base)
                rows.append([handshake_label(base), str(v.max_frag) if v.max_frag else "none", side,
                             f"{a:,}", f"{b:,}", f"{b - a:+,}"])
    return rows


def record_size_header(runs: list[RunData], library: str) -> list[str]:
    profiles = dict.fromkeys(profile_label(d, library) for d in runs
                             if any(c["library"] == library for c in min_ram_cases(d)))
    return ["handshake", "mfl asked", "side", *(f"{p} min heap" for p in list(profiles)[:2]), "difference"]


def psk_finding(data: RunData) -> list[str]:
    """TLS 1.3 PSK resumption without (EC)DHE against the full TLS 1.3 handshake, per library."""
    out = []
    ok = {c["name"]: c for c in min_ram_cases(data) if c["status"] == "ok"}
    for c in ok.values():
        v = _variant(c)
        if v.handshake != "resume-psk-only" or v.max_frag:
            continue
        full = ok.get(c["name"].removesuffix(c["op"]) + replace(v, handshake="full").op(c["alg"]))
        if full is None:
            continue
        figures = [tuple(_value(x, f"{side}_min_heap_bytes") for side in SIDES) for x in (c, full)]
        out.append(f"{profile_label(data, c['library'])}: {' / '.join(_fmt(n) for n in figures[0])} B (client /"
                   f" server) with PSK resumption, {' / '.join(_fmt(n) for n in figures[1])} B for the full TLS 1.3"
                   " handshake")
    return out


def device_rows(device: RunData, main: list[RunData]) -> list[list[str]]:
    """Each device side's least heap against the same side of the same case with both sides in one image
    (a min-ram run of the same library and profile), when one was made."""
    in_image = {(profile_label(d, c["library"]), c["name"]): c for d in main for c in min_ram_cases(d)
                if c["status"] == "ok"}
    rows = []
    for c in min_ram_cases(device):
        v = _variant(c)
        label = profile_label(device, c["library"])
        base = in_image.get((label, c["name"].removesuffix(c["op"]) + replace(v, device="").op(c["alg"])))
        if c["status"] != "ok" or not v.device or base is None:
            continue
        a, b = _value(base, f"{v.device}_min_heap_bytes"), _value(c, f"{v.device}_min_heap_bytes")
        if a is not None and b is not None:
            rows.append([label, handshake_label(c), v.device, f"{a:,}", f"{b:,}", f"{b - a:+,}"])
    return rows


DEVICE_HEADER = ["library (profile)", "handshake", "side", "in one image: min heap", "against a host peer: min heap",
                 "difference"]


def static_ram_line(data: RunData) -> str:
    """Each library's own .data + .bss, from the run's link map."""
    libs = {r["library"]: int(r["ram_bytes"]) for r in data.code_sizes if r["component"] == "library"}
    if not libs:
        return "no link map stored with this run: static RAM not measured"
    return ", ".join(f"{profile_label(data, lib)} {n:,} B" for lib, n in libs.items())


def fit_lines(data: RunData) -> list[str]:
    """Per library (profile): how many of its case sides fit each RAM size (the totals of tlsbench fits)."""
    f = fits_view.fits(data.cases, data.code_sizes, boards=[])
    libs = dict.fromkeys(r.case.split("/", 1)[0] for r in f.rows)
    out = []
    for lib in libs:
        rows = [r for r in f.rows if r.case.startswith(f"{lib}/")]
        if any(r.total is None for r in rows):
            out.append(f"{profile_label(data, lib)}: no static RAM stored, fits nothing")
            continue
        counts = [f"{sum(r.total <= k * 1024 for r in rows)} fit {k} KiB" for k in fits_view.SIZES_KIB]
        out.append(f"{profile_label(data, lib)}, {len(rows)} case sides: " + ", ".join(counts))
    return out


OVERRIDDEN = "\n# overridden on the command line: "  # cli.run: a preset's flags, after its text in the plan source


def run_command(data: RunData) -> str:
    """The command that made the run, as resultsdoc.command rebuilds it, with the flags that narrowed its
    preset (`--libraries mbedtls`), which the run stored after the preset's text."""
    run = data.run
    text = resultsdoc.command(run)
    preset = presets().get(run.plan_name)
    if preset is None or not run.plan_source.startswith(preset.read_text() + OVERRIDDEN):
        return text
    flags = run.plan_source.removeprefix(preset.read_text() + OVERRIDDEN).strip()
    target = text.split(" --target ", 1)[1].split(" (PLAN: ", 1)[0]
    return f"tlsbench run --preset {run.plan_name} {flags} --target {target}"


def _minutes(data: RunData) -> str:
    run = data.run
    if run.finished is None:
        return "did not finish"
    minutes, secs = divmod(round(run.finished - run.created), 60)
    return f"{minutes} min {secs:02d} s"


def _commit(data: RunData) -> str:
    return data.run.tlsbench_version.partition("+")[2] or data.run.tlsbench_version


def _as_made(data: RunData, reused: int) -> str:
    """The run's command; with --no-cache when it copied no case from the result cache (what that flag gives)."""
    return run_command(data) + ("" if reused else " --no-cache")


def _measured(data: RunData, reused: int) -> str:
    """How many of the run's cases it measured itself, and how many it copied from the result cache."""
    if not reused:
        return f"run {data.run.id} measured all {len(data.cases)} cases"
    return (f"run {data.run.id} copied {reused} of its {len(data.cases)} cases from the result cache (measured"
            " before with the same image, inputs and code)")


def pair_line(pair: Pair) -> str:
    a, b = pair.first.run, pair.second.run
    verdict = "every exact figure is identical" if pair.agrees else "**the runs DIFFER** (tlsbench compare)"
    return (f"- runs {a.id} and {b.id} (`{_as_made(pair.first, pair.reused[0])}`; tlsbench"
            f" {_commit(pair.first)} and {_commit(pair.second)}): {verdict}; `tlsbench compare {a.id} {b.id}`: "
            + "; ".join(pair.agreement) + f"; {_measured(pair.first, pair.reused[0])},"
            f" {_measured(pair.second, pair.reused[1])}. Wall time {_minutes(pair.first)} and"
            f" {_minutes(pair.second)} on a shared machine (noisy: not a figure to rely on).")


def _versions(runs: list[RunData]) -> str:
    return ", ".join(dict.fromkeys(f"{lib['library']} {lib.get('version', '')}".strip()
                                   for d in runs for lib in d.libraries))


def _fits_section(data: RunData) -> list[str]:
    f = fits_view.fits(data.cases, data.code_sizes)
    return [fits_view.render(f, tables.markdown, md=True).rstrip("\n"), ""]


INTRO = ("Heap peak is not the least heap a handshake needs: under a cap a library may fall back or fail. These"
         " figures come from the `min-ram` cases (docs/method.md, \"The least RAM a handshake needs\"): for each"
         " library, handshake and side, a bisection of a heap cap on the counting allocator (the other side"
         " uncapped) finds the smallest cap with which the handshake and a 64-byte request and response, checked"
         " byte for byte, complete; that limit passes and one byte less fails, each probed again. All figures"
         " are exact counts on the emulated board (QEMU `-icount`, seeded keys, a fixed random stream), not"
         " models.")
COUNTED = ("Counted per side: the heap its configuration holds (certificates, keys, settings, made once outside"
           " any connection), the least heap one connection completes with (each block at newlib's usable size),"
           " the side's stack peak at that cap (each side on a painted stack), and the image's static RAM (.data"
           " + .bss of the library, its adapter and the C runtime, from the link map). Not counted: the"
           " allocator's per-block headers and fragmentation, the main and interrupt stacks, the harness's own"
           " buffers (request and record lines, painted stacks: reported apart under each fits table), the"
           " in-memory link's buffers, the application's own RAM. A device running one side needs at least the"
           " total shown; whether a real allocator finds the blocks in that much RAM is not measured here.")
DEVICE = ("The same search with the heap cap on the firmware only: the client alone on the emulated board (its"
          " one-side image), its server the host agent of the same library, uncapped, the records relayed over"
          " the UART (docs/method.md, \"The device's side against a host peer\").")
MBEDTLS_BUFFERS = ("Mbed TLS sizes its record buffers at compile time (`MBEDTLS_SSL_IN/OUT_CONTENT_LEN`: 4 KiB in"
                   " the small profile, 2 KiB in small-2k; no `MBEDTLS_SSL_VARIABLE_BUFFER_LENGTH`), so a maximum"
                   " fragment length cannot lower its heap; the compile-time size can.")


def _findings(main: list[RunData]) -> list[str]:
    out = ["## What the figures say", "", f"- {fallback_finding(main)}"]
    mfl = [row for d in main for row in mfl_rows(d)]
    if mfl:
        unchanged = {row[0] for row in mfl if all(cell in ("+0", "n/m") for cell in row[3:])}
        changed = dict.fromkeys(row[0] for row in mfl if row[0] not in unchanged)
        text = "- **A maximum fragment length (RFC 6066) asked by the client**, against the same case without one:"
        if unchanged:
            text += f" no change of either side's heap for {', '.join(sorted(unchanged))}"
        if changed:
            text += ("; " if unchanged else " ") + f"a change for {', '.join(changed)} (the table)"
        out += [text + ".", ""]
        out[-1:] = [f"  {MBEDTLS_BUFFERS}", ""]
        out += [tables.markdown(MFL_HEADER, mfl), ""]
    for lib in dict.fromkeys(c["library"] for d in main for c in min_ram_cases(d)):
        sizes = record_size_rows(main, lib)
        if sizes:
            header = record_size_header(main, lib)
            out += [f"- **{lib} under two build profiles** ({header[3].removesuffix(' min heap')} against"
                    f" {header[4].removesuffix(' min heap')}, the same cases): the least heap differs by"
                    f" {', '.join(dict.fromkeys(row[-1] for row in sizes))} B.", "",
                    tables.markdown(header, sizes), ""]
    psk = [line for d in main for line in psk_finding(d)]
    if psk:
        out += ["- **TLS 1.3 PSK resumption without (EC)DHE** against the full TLS 1.3 handshake: "
                + "; ".join(psk) + "."]
    for d in main:
        out += [f"- **Static RAM** of each library (its .data + .bss, run {d.run.id}'s link map):"
                f" {static_ram_line(d)}. With configuration heap, least heap and stack (`tlsbench fits`):"
                f" {'; '.join(fit_lines(d))}."]
    return [*out, ""]


# compare's summary lines of a pair, whether every exact figure agrees, and each run's cases from the result cache
Agreement = tuple[list[str], bool, tuple[int, int]]


def is_device_run(data: RunData) -> bool:
    """One side on the device against a host peer (the min-ram-device preset), not both in one image."""
    return any(_variant(c).device for c in min_ram_cases(data))


def pairs_of(runs: list[RunData], agreement: list[Agreement]) -> list[Pair]:
    if len(runs) % 2:
        raise TlsbenchError(f"{len(runs)} runs: give them in pairs, each command's first run then its second")
    for d in runs:
        if not min_ram_cases(d):
            raise TlsbenchError(f"run {d.run.id} ({d.run.plan_name}) has no {KIND} case (results-min-ram renders"
                                f" the least-heap searches)")
    out = []
    for i in range(0, len(runs), 2):
        a, b = runs[i], runs[i + 1]
        if (a.run.plan_name, a.run.target, a.run.machine.get("profiles")) != (
                b.run.plan_name, b.run.target, b.run.machine.get("profiles")):
            raise TlsbenchError(f"runs {a.run.id} and {b.run.id} are not a pair (plan, target or profiles differ)")
        out.append(Pair(a, b, *agreement[i // 2]))
    return out


def agreement_of(store: Store, a: int, b: int) -> Agreement:
    """compare's summary lines of two runs (how many cases and exact metrics are the same), whether they
    agree (every exact figure the same, no case measured in one run only), and how many cases each run
    copied from the result cache."""
    c = compare.compare(store, a, b)
    lines = [line for line in compare_text.header_lines(c) if line.startswith(("summary:", "deterministic metrics:"))]
    agrees = (all(e.verdict == "same" for e in c.exact)
              and all(r.verdict in ("same", "not measured") for r in c.rows))
    return lines, agrees, (len(store.reuse_marks(a)), len(store.reuse_marks(b)))


def render(runs: list[RunData], agreement: list[Agreement]) -> str:
    pairs = pairs_of(runs, agreement)
    device = [p for p in pairs if is_device_run(p.first)]
    main = [p.first for p in pairs if p not in device]
    day = datetime.datetime.fromtimestamp(runs[0].run.created, datetime.UTC).strftime("%Y-%m-%d")
    out = ["# The least RAM a TLS handshake needs: Mbed TLS and wolfSSL on a Cortex-M4", "", INTRO, "",
           f"Made from {day} with today's default versions ({_versions(runs)}) by `scripts/regenerate-docs"
           " docs/results-min-ram.md` (its runs: docs/data/pages.toml), which renders the page with `tlsbench"
           " study results-min-ram`. " + (
               "Each command was run twice with `--no-cache`: every case measured in both runs, none copied from"
               " the result cache." if all(p.reused == (0, 0) for p in pairs) else
               "Each command was run twice; each pair's line says how many cases a run copied from the result"
               " cache.") + " The tables are each first run's.", "",
           "## Commands", "", "```",
           *(f"{_as_made(p.first, p.reused[0])}   # twice: runs {p.first.run.id} and {p.second.run.id}"
             for p in pairs), "```", "",
           *(pair_line(p) for p in pairs), ""]
    if main:
        out += ["## Least heap per side (bytes)", "",
                "Certificates: the seeded ECDSA P-256 chain (root, intermediate, leaf; `full`). \"mfl asked\": the"
                " maximum fragment length (RFC 6066) the client asks for (case option `mfl=<n>`); \"client sends at"
                " most\": what the client's library then reports as its largest record plaintext (the server"
                " accepted). The uncapped peak is the same connection's peak without a cap, to the end of the"
                " response.", "", tables.markdown(HEAP_HEADER, [row for d in main for row in heap_rows(d)]), ""]
        for d in main:
            out += [f"## Fits on (`tlsbench fits {d.run.id}`: `{run_command(d)}`)", "", *_fits_section(d)]
        out += _findings(main)
        out += ["## What is counted, and what is not", "", COUNTED, ""]
    for p in device:
        out += [f"## The device's side against a host peer (`{run_command(p.first)}`, run {p.first.run.id})", "",
                DEVICE, "", tables.markdown(HEAP_HEADER, heap_rows(p.first)), "", *_fits_section(p.first)]
        if rows := device_rows(p.first, main):
            out += ["The device's side against the same side with both sides in one image (the tables above, same"
                    " library, profile and case):", "", tables.markdown(DEVICE_HEADER, rows), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def add_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    add_page_parser(sub, db, "results-min-ram", "docs/results-min-ram.md from stored runs (scripts/regenerate-docs"
                    " makes the runs)", "a stored min-ram or min-ram-device run; in pairs, each command's first run"
                    " then its second", command, __doc__)


def command(a: argparse.Namespace) -> int:
    runs = [tables.load_stored(a.db, r) for r in a.run]
    store = Store(a.db, read_only=True)
    try:
        agreement = [agreement_of(store, a.run[i], a.run[i + 1]) for i in range(0, len(a.run) - 1, 2)]
    finally:
        store.close()
    text = render(runs, agreement)
    write_whole(a.output, text)
    print(f"{a.output}: runs {', '.join(map(str, a.run))}", file=sys.stderr)
    differ = [p for p in pairs_of(runs, agreement) if not p.agrees]
    if differ:
        print(f"results-min-ram: runs {differ[0].first.run.id} and {differ[0].second.run.id} differ"
              f" (tlsbench compare {differ[0].first.run.id} {differ[0].second.run.id})", file=sys.stderr)
        return 1
    return 0
