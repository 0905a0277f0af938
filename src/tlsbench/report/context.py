"""The lines above every report of a run: plan, target, machine, board, method, libraries, user build,
and what did not run or fit, failed, ran slow or was reused."""

from __future__ import annotations

from tlsbench.engine import steadiness
from tlsbench.engine.store import NOTHING_MEASURED
from tlsbench.report.marks import REUSED_MARK
from tlsbench.report.rundata import RunData, board_profile_line, counters_missing, model_error_line
from tlsbench.report.textformat import markdown_text


def features_label(firmware: bool) -> str:
    """What the recorded CPU features are: on the host the code paths the
    libraries take; on a firmware target only the emulator's machine's."""
    return ("host CPU features (not the firmware's)" if firmware
            else "CPU features the libraries dispatch on")


def user_build_lines(user: dict, bullet: str) -> list[str]:
    """The user's config files (path, how applied, SHA-256, each line of the text) and compiler options."""
    out = []
    for lib, c in sorted(user.get("configs", {}).items()):
        how = "the whole configuration" if c["full"] else "layered over ours"
        out.append(f"{bullet}{lib} your configuration: {c['path']} ({how}), sha256 {c['sha256']}")
        out += [f"{bullet}    {line.rstrip()}" for line in c["text"].splitlines() if line.strip()]
    if user.get("cflags"):
        out.append(f"{bullet}your compiler options: {' '.join(user['cflags'])}")
    return out


def context_lines(data: RunData, md: bool) -> list[str]:
    r = data.run
    m = r.machine
    status = (r.status if r.status == "complete"
              else f"{r.status}: no case came out ok (the reasons are in the table)" if r.status == NOTHING_MEASURED
              else f"{r.status} (incomplete: tlsbench run --resume {r.id})")
    bullet = "- " if md else "  "
    method = r.plan["method"]
    firmware = "board" in m
    sampling = ("one operation per sample (exact counts)" if firmware
                else f"samples of >= {method['min_sample_ms']} ms")
    out = [
        (f"## tlsbench run {r.id}: plan {markdown_text(r.plan_name)}, target {markdown_text(r.target)}, {status}"
         if md else f"tlsbench run {r.id}: plan {r.plan_name}, target {r.target}, {status}"),
        f"{bullet}{'host ' if firmware else ''}machine: {m.get('cpu_model')} ({m.get('cores')} cores;"
        + (f" timed on CPU {m['timed_cpu']};" if "timed_cpu" in m else "")
        + f" {features_label(firmware)}: {', '.join(m.get('cpu_flags', [])) or 'none recorded'}),"
        f" {m.get('os')}, kernel {m.get('kernel')}",
    ]
    if firmware:
        out.append(f"{bullet}board: {m['board']} ({m.get('board_cpu')}, {m.get('board_ram_bytes', 0) // 1024} KiB RAM),"
                   f" counter: {m.get('board_counter')}"
                   + (f"; {m['emulator']} {m.get('emulator_options', '')}" if "emulator" in m else "")
                   + f"; built with {m.get('cross_compiler')}, "
                   + (f"picolibc {m['picolibc']}" if "picolibc" in m else f"newlib {m.get('newlib')}"))
    if "size_probes" in method:  # tlsbench sizes: no sampling, images measured
        out.append(f"{bullet}tlsbench {r.tlsbench_version}; method: {method['size_probes']}")
    else:
        out.append(f"{bullet}tlsbench {r.tlsbench_version}; method: {method['repeats']} repeats in"
                   f" {method.get('rounds', 1)} round(s) over the plan, warm-up {method['warmup']} per round,"
                   f" outliers {method['outliers']}, {sampling}")
    board_line = board_profile_line(data)
    if board_line:
        out.append(f"{bullet}board profile of the cycle model: {board_line}")
    if (error_line := model_error_line(data)) is not None:
        out.append(f"{bullet}model error: {error_line}")
    if method.get("env"):
        out.append(f"{bullet}environment of the run's processes: "
                   + " ".join(f"{k}={v}" for k, v in sorted(method["env"].items())))
    out += user_build_lines(m.get("user_build") or {}, bullet)
    for lib in data.libraries:
        out.append(f"{bullet}{lib['library']}: {lib['version']} [{lib['source']}]")
        if firmware:  # the profile, optimisation and seed make firmware numbers what they are
            out.append(f"{bullet}{lib['library']} build: {lib['config']}")
    missing: dict[str, str] = {}
    for lib in data.libraries:
        missing.update(counters_missing(data, lib))
    for counter, why in sorted(missing.items()):
        out.append(f"{bullet}{counter}: not measured on this {'target' if firmware else 'machine'} ({why})")
    no_room_checks = {(c["library"], c["alg"]) for c in data.cases if c["status"] == "does_not_fit"}
    for c in data.checks:
        if c["status"] == "fail" and (c["library"], c["alg"]) not in no_room_checks:
            out.append(f"{bullet}CHECK FAILED, not timed: {c['library']} {c['alg']}: {c['detail']}")
    no_room: dict[str, list[str]] = {}  # reason -> cases: a too-big image is one reason for many cases
    for c in data.cases:
        if c["status"] == "does_not_fit":
            no_room.setdefault(f"{c['library']}: {c['reason']}", []).append(c["name"])
    for why, names in list(no_room.items())[:20]:
        out.append(f"{bullet}DOES NOT FIT: {why}" + (f" ({len(names)} cases)" if len(names) > 1 else f" ({names[0]})"))
    if data.rounds:  # a host run's rounds were paced: how steady the machine was through it
        out.append(f"{bullet}{steadiness.run_line(data.rounds)}")
    slow = [r for r in data.rounds if r["slow"]]
    if slow:  # pacing.py: still slower than the threshold after being measured again
        names = sorted({r["name"] for r in slow})
        out.append(f"{bullet}SLOW PHASE: {len(slow)} of {len(data.rounds)} rounds ran while the reference workload"
                   f" was slow (after measuring again), in {len(names)} cases: {', '.join(names[:5])}"
                   + (" ..." if len(names) > 5 else ""))
    reused = [c for c in data.cases if c.get("reused_from") is not None]
    if reused:
        out.append(f"{bullet}REUSED: {len(reused)} of {len(data.cases)} cases reused from the result cache, marked"
                   f" {REUSED_MARK}: an earlier measurement with the same image, emulator, cycle-model plugin, board"
                   " profile, requests and protocol (exact counts; tlsbench run --no-cache measures them again)")
    failed = [c for c in data.cases if c["status"] == "failed"]
    for c in failed[:20]:
        out.append(f"{bullet}FAILED: {c['name']}: {c['reason']}")
    if len(failed) > 20:
        out.append(f"{bullet}... and {len(failed) - 20} more failed cases")
    return out
