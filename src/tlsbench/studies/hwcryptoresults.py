"""docs/results-hwcrypto.md from stored runs: software against the modelled crypto peripherals, per board.

Each board is two runs of the same cases on its emulated core: the libraries' own builds (software), then
`--profile wolfssl=hw,mbedtls=hw` (their drivers to the board profile's [accelerators]). Runs are given in
pairs, software first (docs/data/pages.toml lists the commands; scripts/regenerate-docs makes them). TLS
handshake runs pair the same way and make the page's handshake section; a handshake run on a count profile
(`tlsbench board count-profiles BOARD FOLDER`: one accelerator's figure one cycle higher) gives how many
blocks or operations each handshake handed to that peripheral (its model cycles less the hw run's).

    tlsbench --db DB study results-hwcrypto --run SW --run HW ... -o docs/results-hwcrypto.md
    (RUNS="SW HW ..." scripts/results-hwcrypto [OUT])
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path

from tlsbench.errors import PlanError
from tlsbench.families import registry as families
from tlsbench.families.base import HANDSHAKES
from tlsbench.families.size import crypto_modules
from tlsbench.libraries import registry
from tlsbench.outfile import write_whole
from tlsbench.report import tables
from tlsbench.studies.pagecommand import add_page_parser
from tlsbench.targets import boardprofiles, firmware, hwcount, modelerror
from tlsbench.targets import target as targets

Say = Callable[[str], None]  # one line of the page


def add_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    add_page_parser(sub, db, "results-hwcrypto", "docs/results-hwcrypto.md from stored runs, software and hw per"
                    " board (scripts/results-hwcrypto)", "a stored run (repeatable): per board its software run, then"
                    " its hw run; handshake runs pair the same way, count-profile runs anywhere", command, __doc__)


def command(a: argparse.Namespace) -> int:
    docs = {str(r): json.loads(tables.render(tables.load_stored(a.db, r), "json")) for r in a.run}
    write_whole(a.output, render(docs))
    print(f"wrote {a.output} (runs {' '.join(docs)})")
    return 0


def board(doc: dict) -> str:
    return doc["plan"]["method"]["env"].get("TLSBENCH_MODEL_BOARD", "")


def counted(doc: dict) -> tuple[str, str] | None:
    """(board, algorithm) of a run on a count profile (tlsbench.targets.hwcount), else None."""
    ref = board(doc)
    return hwcount.counted_algorithm(boardprofiles.parse(Path(ref))) if boardprofiles.is_file(ref) else None


def is_handshakes(doc: dict) -> bool:
    """A run of handshakes (the kinds whose family's view is the handshakes'), not of primitives."""
    kinds = doc["plan"].get("kinds") or []
    return bool(kinds) and set(kinds) <= set(families.kinds_with(HANDSHAKES))


def hw_build(doc: dict) -> bool:
    return all("profiles/hw.h" in lib["config"] for lib in doc["libraries"])


def profiles_of(doc: dict) -> dict[str, str]:
    """Each library's firmware build profile, from its build text ("profile c (adapters/...)")."""
    found = {lib["library"]: re.search(r"\bprofile (\S+) \(", lib["config"]) for lib in doc["libraries"]}
    return {name: m.group(1).strip("'") for name, m in found.items() if m}


def build_profiles(doc: dict) -> str:
    return ", ".join(f"{name} {profile}" for name, profile in profiles_of(doc).items()) or "as built"


def command_line(doc: dict) -> str:
    """The `tlsbench run` command that makes a run like this one."""
    p = doc["plan"]
    words = ["tlsbench run --target", doc["target"], "--board", board(doc), "--libraries", ",".join(p["libraries"])]
    if is_handshakes(doc):
        t = p["tls"]
        words += ["--kinds", ",".join(p["kinds"]), "--suites", ",".join(t["suites"]), "--groups", ",".join(t["groups"]),
                  "--certs", ",".join(t["certs"]), "--handshakes", ",".join(t["handshakes"])]
    else:
        words += ["--algorithms", ",".join(p["algorithms"]), "--ops", ",".join(p["ops"]),
                  "--sizes", ",".join(map(str, p["sizes"]))]
    words += ["--repeats", str(p["method"]["repeats"]), "--warmup", str(p["method"]["warmup"])]
    if hw_build(doc):
        words += ["--profile", ",".join(f"{lib}=hw" for lib in p["libraries"])]
    else:
        chosen = {name: profile for name, profile in profiles_of(doc).items()
                  if profile != (registry.get(name).default_profile if registry.get(name) else None)}
        if chosen:
            words += ["--profile", ",".join(f"{name}={profile}" for name, profile in chosen.items())]
    return " ".join(words)


def cells(case: dict | None) -> tuple[str, str, float | None]:
    """instructions, model cycles (text) and the model cycles (number), or why there are none."""
    if case is None:
        return "not run", "", None
    if case["status"] != "ok":
        return f"{case['status']}: {case['reason']}", "", None
    r = case["results"]
    return f"{r['instructions']['median']:,.0f}", f"{r['model_cycles']['median']:,.0f}", r["model_cycles"]["median"]


def image_parts(doc: dict, lib: str) -> dict | None:
    """The crypto code of the run's own image of lib, from its linker map (the image's sha256 checked); None
    when that image is not here any more (built again since, or another machine's run)."""
    profiles = ",".join(f"{name}=hw" for name in doc["plan"]["libraries"]) if hw_build(doc) else None
    target = targets.parse(doc["target"], profiles=profiles)
    want = next(x["agent_sha256"] for x in doc["libraries"] if x["library"] == lib)
    path = target.firmware_path(lib)
    if not path.exists() or firmware.image_sha256(path) != want:
        return None
    return crypto_modules.crypto_parts(target.map_path(lib), lib)


def _part(parts: dict, name: str) -> crypto_modules.Part:
    """A part of an image's crypto code, or an empty one where the image has none."""
    return parts.get(name, crypto_modules.Part("none"))


def code_sizes(a: dict, b: dict, say: Say) -> None:
    """Software and hw images side by side: the flash and static RAM of the accelerated primitives' code."""
    say("Code size of those primitives in the two builds, **measured** from the images' linker maps (the images")
    say("these runs used, sha256 checked; families/size/crypto_modules.py): the library's own AES, GCM, SHA-1 and")
    say("SHA-256 modules, plus in the `hw` build its driver (adapters/*/hw*.c, platform/cortexm/hwcrypto.c, with")
    say("its test switch). Mbed TLS's stand-in (its modules compiled once more, which computes the model's")
    say("results) is shown apart and left out of the `hw` total: a product has none. wolfSSL's crypto callbacks")
    say("keep wolfCrypt's software as the fallback (and the stand-in), so its `hw` build only adds. Static RAM")
    say("is .data + .bss (stack and heap not measured here); the modelled register block is left out (a")
    say("peripheral's on a chip).\n")
    say("| library | software flash B | software static RAM B | hw flash B (modules + driver) |"
        " hw static RAM B | hw driver flash B | stand-in flash B (not in the total) |")
    say("|---|---|---|---|---|---|---|")
    for lib in b["plan"]["libraries"]:
        sw, hw = image_parts(a, lib), image_parts(b, lib)
        if sw is None or hw is None:  # a size is measured from the run's own image or not shown
            gone = " and ".join(f"run {d['run']}'s" for d, parts in ((a, sw), (b, hw)) if parts is None)
            say(f"| {lib} | not measured: {gone} image is not in this checkout (built again since, or made"
                " elsewhere): run it again here | | | | | |")
            continue
        mods, drv, standin = (_part(hw, name) for name in (crypto_modules.MODULES, crypto_modules.DRIVER,
                                                             crypto_modules.STANDIN))
        sw_mods = _part(sw, crypto_modules.MODULES)
        say(f"| {lib} | {sw_mods.flash_bytes:,} | {sw_mods.ram_bytes:,} | {mods.flash_bytes + drv.flash_bytes:,} |"
            f" {mods.ram_bytes + drv.ram_bytes:,} | {drv.flash_bytes:,} |"
            f" {f'{standin.flash_bytes:,}' if standin.flash_bytes else 'none'} |")
    say("")


def intro(given: list[str], say: Say) -> None:
    say("# Software against hardware crypto, per board (model)\n")
    say(f"Generated by `scripts/results-hwcrypto` from stored runs {', '.join(given)} (software, then the")
    say("`hw` builds, per board; `tlsbench report --db DB N`). **Every cycle and time figure here is a model**,")
    say("not a measurement on a board: the cycle model of docs/cycle-model.md (the board profile's core, clock and")
    say("flash wait states) plus the board profile's crypto peripherals, each figure with its source below")
    say("(docs/cycle-model.md, \"Crypto accelerators\": the driver's instructions are counted, the")
    say("peripheral's busy time is the profile's per block, the result comes from a stand-in the model leaves")
    say("out). Instructions are exact counts (QEMU -icount), the same in every run. One sample per case.\n")
    say("How each `hw` build reaches the peripheral (agent/adapters/*/hw.c): wolfSSL through its crypto")
    say("callbacks: SHA-1 and SHA-256 (so HMAC) on the HASH, AES-CBC on the CRYP, AES-128-GCM on the CRYP's GCM")
    say("mode where the profile declares one, else wolfCrypt's GCM hands its counter blocks to the CRYP's ECB")
    say("(GHASH, the tag's block and the XOR stay its software, counted). Mbed TLS through MBEDTLS_SHA1_ALT,")
    say("MBEDTLS_SHA256_ALT, MBEDTLS_AES_ALT and MBEDTLS_GCM_ALT: AES-128-GCM on the CRYP's GCM mode where the")
    say("profile declares one (init, header, payload and tag phases, as wolfSSL's driver), else its GCM's block")
    say("cipher on the ECB with GHASH in its software, counted.")
    say("A public-key accelerator (the STM32 PKA), where the profile declares one: wolfSSL's ECDSA P-256, ECDH P-256")
    say("and RSA-2048 through its crypto callbacks, Mbed TLS's ECDSA P-256 through MBEDTLS_ECDSA_SIGN_ALT and")
    say("MBEDTLS_ECDSA_VERIFY_ALT (its ECDH and RSA are not handed over: they run as built, software, under `hw`); the")
    say("driver loads the operands into the PKA RAM, starts it, polls and reads the result back, all counted; the")
    say("PKA's time is the profile's figure per operation.")
    say("A case the board cannot accelerate is `unsupported` with the reason, never run in software under")
    say("the `hw` name.\n")


def pair_head(sw: str, hw: str, a: dict, b: dict, say: Say) -> None:
    """Under a board's heading: its core's model error, the two runs' commands and the libraries."""
    profile = boardprofiles.load(board(a))
    # the core model's validated error (the peripherals' busy times are the manuals' figures, not validated)
    say(f"Model error of its core: {modelerror.sentence(profile.core)}.\n")
    say(f"Software (run {sw}):\n\n```sh\n{command_line(a)}\n```\n\nHardware (run {hw}):\n\n```sh\n"
        f"{command_line(b)}\n```\n")
    versions = ", ".join(f"{lib['library']} {lib['version']}" for lib in b["libraries"])
    say(f"Libraries: {versions} (software build profiles: {build_profiles(a)}).\n")


def primitives_section(sw: str, hw: str, a: dict, b: dict, say: Say) -> None:
    """One board's primitives, software against hw, and their code sizes."""
    name = board(a)
    if board(b) != name or hw_build(a) or not hw_build(b):
        raise PlanError(f"results-hwcrypto: runs {sw} and {hw} are not one board's software and hw runs")
    profile = boardprofiles.load(name)
    say(f"## {name}: {profile.description}\n")
    pair_head(sw, hw, a, b, say)
    say("Its accelerators (the board profile's `[accelerators]`; `tlsbench board show " + name + "`):\n")
    for accel in profile.accelerators.values():
        say(f"- {accel.summary()}. Source: {accel.source}")
    if not profile.accelerators:
        say("- none declared")
    say("")
    say("| case | size B | library | software instructions | software model cycles | hw instructions |"
        " hw model cycles | hw model time | software / hw (model cycles) |")
    say("|---|---|---|---|---|---|---|---|---|")
    by_name = {c["name"]: c for c in b["cases"]}
    for case in a["cases"]:
        si, sc, scn = cells(case)
        hi, hc, hcn = cells(by_name.get(case["name"]))
        time = ""
        ratio = ""
        if hcn is not None:
            ns = by_name[case["name"]]["results"]["model_time_ns"]["median"]
            time = model_time(ns)
            if scn is not None:
                ratio = f"{scn / hcn:.2f}"
        label = f"{case['alg']} {case['op']}"
        say(f"| {label} | {case['size'] or ''} | {case['library']} | {si} | {sc} | {hi} | {hc} | {time} | {ratio} |")
    say("")
    code_sizes(a, b, say)


def render(docs: dict[str, dict]) -> str:
    """The page from the runs' JSON documents (`tlsbench report N --format json`), in the order given."""
    given = list(docs)
    counts = [i for i in given if counted(docs[i])]
    handshakes = [i for i in given if i not in counts and is_handshakes(docs[i])]
    ids = [i for i in given if i not in counts and i not in handshakes]
    for what, runs in (("runs of primitives", ids), ("handshake runs", handshakes)):
        if len(runs) % 2:
            raise PlanError(f"results-hwcrypto: the {what} come in pairs (software, hw): {' '.join(runs)}")
    lines: list[str] = []
    say = lines.append
    intro(given, say)
    for sw, hw in zip(ids[::2], ids[1::2], strict=True):
        primitives_section(sw, hw, docs[sw], docs[hw], say)
    if handshakes:
        handshake_section(docs, counts, list(zip(handshakes[::2], handshakes[1::2], strict=True)), say)
    return "".join(line + "\n" for line in lines)


def model_time(ns: float) -> str:
    return f"{ns / 1e6:,.2f} ms" if ns >= 1e6 else f"{ns / 1e3:,.1f} µs"


def sent(docs: dict[str, dict], counts: list[str], hw_doc: dict, name: str, side: str) -> tuple[str, list[str]]:
    """What the case's side handed to each peripheral, from the board's count runs (their model cycles less
    the hw run's, the instructions the same), and those runs."""
    hw_case = next(c for c in hw_doc["cases"] if c["name"] == name)
    found, used = [], []
    for i in counts:
        doc = docs[i]
        base, algorithm = counted(doc) or ("", "")
        if base != board(hw_doc) or doc["target"] != hw_doc["target"] or not hw_build(doc):
            continue
        case = next((c for c in doc["cases"] if c["name"] == name), None)
        if case is None or case["status"] != "ok" or hw_case["status"] != "ok":
            continue
        r, h = case["results"], hw_case["results"]
        if r[f"{side}_instructions"]["median"] != h[f"{side}_instructions"]["median"]:
            raise PlanError(f"results-hwcrypto: run {i} ({algorithm} counted) ran other instructions than run"
                            f" {hw_doc['run']} in {name}'s {side}: not the same build")
        n = r[f"{side}_model_cycles"]["median"] - h[f"{side}_model_cycles"]["median"]
        used.append(i)
        if n:
            unit = "operation" if profile_accels(base)[algorithm].cycles_per_block == 0 else "block"
            found.append(f"{algorithm} {n:,.0f} {unit}{'s' if n != 1 else ''}")
    if not used:
        return "not counted (no count run)", used
    return (", ".join(found) or "nothing"), used


def profile_accels(name: str) -> dict:
    return boardprofiles.load(name).accelerators


def handshake_section(docs: dict[str, dict], counts: list[str], pairs: list[tuple[str, str]], say: Say) -> None:
    """Each board's handshakes per side, software against hw, with what each side sent to the peripherals."""
    say("## Handshakes, software against hardware (model)\n")
    say("The same full TLS handshake, both sides on the emulated board in memory, in the libraries' own builds")
    say("and in their `hw` builds (model cycles per side, as docs/results-boards.md; **a model**, the peripherals'")
    say("figures the board profile's, cited above). 'sent to the peripherals' is what that side of one handshake")
    say("handed to the modelled hardware: the blocks (64 bytes for SHA, 16 for AES, GCM's header and length")
    say("blocks included) or whole operations (the PKA's), counted exactly by the cycle model: the same hw run")
    say("on a copy of the board profile whose one algorithm's figure per block or operation is one cycle")
    say("higher (tlsbench board count-profiles) takes that many more model cycles and not one more")
    say("instruction. Everything not listed there ran in the library's software, counted.\n")
    say("What a handshake cannot hand over, and why (from the libraries' source, 2026-11-28; docs/cycle-model.md,")
    say("\"Crypto accelerators\"): wolfSSL's records on a CRYP without GCM (stm32f217): wolfCrypt's GCM gives its")
    say("counter blocks to the ECB only when the output is not the input (wolfcrypt/src/aes.c, \"can not handle")
    say("inline encryption\") and wolfSSL seals and opens records in place. Mbed TLS's CTR_DRBG: its 256-bit key")
    say("(the drivers take AES-128 only). Mbed TLS's ECDH (no MBEDTLS_ECDH_*_ALT driver written) and RSA")
    say("(MBEDTLS_RSA_ALT would replace all of rsa.c): its ECDHE key pair and secret and its RSA stay software on")
    say("the PKA board. The F217's HASH has no SHA-256, so a SHA-256 suite's transcript stays software there.")
    say("wolfSSL's server checks its own RSA signature with the public key after signing (src/internal.c,")
    say("VerifyRsaSign: \"check for signature faults\"): the public operation on the server's side.\n")
    for sw, hw in pairs:
        a, b = docs[sw], docs[hw]
        name = board(a)
        if board(b) != name or hw_build(a) or not hw_build(b):
            raise PlanError(f"results-hwcrypto: runs {sw} and {hw} are not one board's software and hw handshake runs")
        profile = boardprofiles.load(name)
        certs = ", ".join(a["plan"]["tls"]["certs"])
        say(f"### {name}, {certs} certificates: {profile.description}\n")
        pair_head(sw, hw, a, b, say)
        say("| handshake | library | side | software instructions | software model cycles | hw instructions |"
            " hw model cycles | hw model time | software / hw (model cycles) | sent to the peripherals |")
        say("|---|---|---|---|---|---|---|---|---|---|")
        by_name = {c["name"]: c for c in b["cases"]}
        all_used: set[str] = set()
        for case in a["cases"]:
            other = by_name.get(case["name"])
            for side in ("client", "server"):
                cells_ = []
                for c in (case, other):
                    if c is None:
                        cells_.append(("not run", "", None, None))
                    elif c["status"] != "ok":
                        cells_.append((f"{c['status']}: {c['reason']}", "", None, None))
                    else:
                        r = c["results"]
                        cells_.append((f"{r[f'{side}_instructions']['median']:,.0f}",
                                       f"{r[f'{side}_model_cycles']['median']:,.0f}",
                                       r[f"{side}_model_cycles"]["median"], r[f"{side}_model_time_ns"]["median"]))
                (si, sc, scn, _), (hi, hc, hcn, hns) = cells_
                ratio = f"{scn / hcn:.2f}" if scn is not None and hcn is not None else ""
                what, used = sent(docs, counts, b, case["name"], side) if other is not None else ("", [])
                all_used.update(used)
                label = f"{case['alg']} {case['op']}"
                say(f"| {label} | {case['library']} | {side} | {si} | {sc} | {hi} | {hc} |"
                    f" {model_time(hns) if hns is not None else ''} | {ratio} | {what} |")
        say("")
        if all_used:
            say(f"Counted in runs {', '.join(sorted(all_used, key=int))} (the hardware run on each count profile"
              f" of {name}).\n")

