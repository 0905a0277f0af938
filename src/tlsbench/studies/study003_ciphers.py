"""Study 003's authenticated ciphers (study003.py): the paper's Table 3 (throughput on 15 KB packets, software
and hardware) and Table 5 (stack, heap and flash of the software and hardware builds), from the aead-15k
preset run as built and with the board profile's modelled CRYP and HASH."""

from __future__ import annotations

from tlsbench.families.size import crypto_modules
from tlsbench.families.size.maps import Part
from tlsbench.libraries import registry
from tlsbench.report import rundata, tables
from tlsbench.report.tables import RunData
from tlsbench.studies import studysources as src
from tlsbench.studies.studypage import Page, holds, libraries, median, num, primitive_case, ratio
from tlsbench.studies.studyruns import Want
from tlsbench.targets import firmware
from tlsbench.targets import target as targets

SIZE = 15360  # the paper's "packet of 15Kb"
HW = ("--profile", "wolfssl=hw,mbedtls=hw")
# per board profile: the preset as built and with its modelled CRYP and HASH; the paper's F217 (a CRYP without
# GCM) first, then the F439 (the same family's CRYP with GCM); Table 5 is the F217's
AEAD_RUNS = ((Want("aead-15k", "qemu:mps2-an385", "stm32f217"), Want("aead-15k", "qemu:mps2-an385", "stm32f217", HW)),
             (Want("aead-15k", "qemu:mps2-an386", "stm32f439zi"),
              Want("aead-15k", "qemu:mps2-an386", "stm32f439zi", HW)))
# the paper's names (Table 3 and Table 5 spell them differently) -> our algorithm
AEADS = {"AES128-CBC+HMAC": "aes-128-cbc-hmac-sha1", "AES128-GCM": "aes-128-gcm",
         "Chacha20-Poly1305": "chacha20-poly1305"}
_TABLE5 = {"Chacha20-poly1305": ("chacha20-poly1305", False), "AES128-GCM SW": ("aes-128-gcm", False),
           "AES128-CBC-HMAC-SHA1 SW": ("aes-128-cbc-hmac-sha1", False), "AES128-GCM HW": ("aes-128-gcm", True),
           "AES128-CBC-HMAC-SHA1 HW": ("aes-128-cbc-hmac-sha1", True)}


def page_ciphers(page: Page, runs: dict[Want, tuple[int, RunData]], text: str) -> None:
    page.add("## AEAD throughput on 15 KB packets (the paper's Table 3, software and hardware)", "")
    missing = [w.command() for pair in AEAD_RUNS for w in pair if w not in runs]
    if missing:
        page.add(f"Not on this page: no complete run of `{'`, `'.join(missing)}` is stored.", "")
    pairs = [(runs[sw][1], runs[hw][1]) for sw, hw in AEAD_RUNS if sw in runs and hw in runs]
    if pairs:
        _throughput(page, pairs, text)
    page.add("## Stack, heap and flash of the software and hardware builds (the paper's Table 5)", "")
    paper_board = AEAD_RUNS[0]
    if all(w in runs for w in paper_board):
        _space(page, runs[paper_board[0]][1], runs[paper_board[1]][1], text)
    else:
        page.add(f"Not on this page: it is made from the runs on the paper's board ({paper_board[0].board}).", "")


def _note(case: dict | None) -> str:
    """Why a case has no figure, its reason in full (a hw case's names what the driver hands over)."""
    if case is None:
        return "not in the run"
    return f"{tables.STATUS_TEXT.get(case['status'], case['status'])}: {case['reason'] or ''}"


def _rate(case: dict | None) -> float | None:
    t = median(case, "model_time_ns") if case and case["status"] == "ok" else None
    return None if not t else SIZE / (t / 1e9)


def _board(data: RunData) -> str:
    profile = rundata.model_profile(data)
    return "n/m" if profile is None else f"{profile.name} ({profile.clock_hz / 1e6:g} MHz)"


def _throughput(page: Page, pairs: list[tuple[RunData, RunData]], text: str) -> None:
    libs = sorted({lib for sw, _hw in pairs for lib in libraries(sw)})
    page.add("Published: bytes/s as printed, 15 KB packets at 120 MHz (the paper's STM32F217 with its wolfSSL build;"
             " its HW rows with the authors' own library \"for our new generation hardware accelerators\" plugged"
             " into wolfSSL (its Section 6), not necessarily the F217's own CRYP and HASH, which have no GCM mode)."
             " Ours, per board profile: 15,360 bytes / the model time of one encryption of 15,360 bytes at the"
             " profile's clock (AES-128-CBC + HMAC-SHA1 is the TLS 1.2 MAC-then-encrypt record; GCM and"
             " ChaCha20-Poly1305 with the TLS 1.2 AAD). **A model**: the board profile's cycle model of the"
             " firmware's exact instructions; `hw` adds the profile's modelled CRYP and HASH, whose busy times are"
             " the sources below (the driver's register traffic is counted). The stm32f217 profile's CRYP has no"
             " GCM mode: GCM's counter blocks go to its AES and GHASH stays software; the stm32f439zi's has one"
             " (RM0090), at 180 MHz. Beside the paper, not a validation of the model: the peripherals differ"
             " (docs/cycle-model.md, 'Beside the IoT paper'). Ratio: published / ours.", "")
    pub = {f.key: f.value for f in src.aead_throughput(text)}
    rows = []
    for sw, hw in pairs:
        for name, alg in AEADS.items():
            row = [_board(hw), name, num(pub.get((name, "SW")))]
            for lib in libs:
                case = primitive_case(sw, lib, alg, "encrypt", SIZE)
                rate = _rate(case)
                row += [num(rate) if rate is not None else _note(case), ratio(pub.get((name, "SW")), rate)]
            published_hw = pub.get((name, "HW"))
            row.append(num(published_hw) if published_hw is not None else "NA (the paper: no hardware for it)")
            for lib in libs:
                case = primitive_case(hw, lib, alg, "encrypt", SIZE)
                rate = _rate(case)
                row += [num(rate) if rate is not None else _note(case), ratio(published_hw, rate)]
            rows.append(row)
    header = ["board profile", "AEAD", "published SW (B/s)",
              *(x for lib in libs for x in (f"{lib} SW model (B/s)", "ratio")),
              "published HW (B/s)", *(x for lib in libs for x in (f"{lib} hw model (B/s)", "ratio"))]
    page.table(header, rows)
    for _sw, hw in pairs:
        profile = rundata.model_profile(hw)
        if profile is not None:
            page.add(f"The `hw` run's accelerators on {profile.name} (its board profile as the run stored it):", "")
            page.add(*(f"- {a.summary()}. Source: {a.source}" for a in profile.accelerators.values()), "")

    def faster(hw: RunData, lib: str) -> str:
        gcm, cbc = (_rate(primitive_case(hw, lib, alg, "encrypt", SIZE))
                    for alg in ("aes-128-gcm", "aes-128-cbc-hmac-sha1"))
        if gcm is None or cbc is None:
            return "not measured"
        return f"{holds(gcm > cbc)} (GCM / CBC+HMAC throughput {gcm / cbc:.2f})"

    page.shapes([f"in hardware AES-128-GCM is faster than AES-128-CBC + HMAC-SHA1 (the paper: 8.76 / 6.14 MB/s;"
                 f" ours on {_board(hw)})" for _sw, hw in pairs], "paper", libs,
                [["holds (its Table 3)"] * len(pairs), *([faster(hw, lib) for _sw, hw in pairs] for lib in libs)])


def _image_objects(data: RunData, lib: str) -> dict[str, Part] | None:
    """The run's own image of lib per object file (its sha256 checked), or None when the image here is
    another (built again since, or the run was made elsewhere)."""
    profiles = data.run.machine.get("profiles") or {}
    target = targets.parse(data.run.target, profiles=",".join(f"{k}={v}" for k, v in profiles.items()) or None)
    want = next(x["agent_sha256"] for x in data.libraries if x["library"] == lib)
    path = target.firmware_path(lib)
    if not path.exists() or firmware.image_sha256(path) != want:
        return None
    return crypto_modules.object_parts(target.map_path(lib), lib)


def _objects(lib: str, alg: str) -> tuple[str, ...]:
    record = registry.get(lib)
    return record.cipher_modules.get(alg, ()) if record is not None else ()


def _flash(parts: dict[str, Part], lib: str, alg: str, driver: bool) -> tuple[int, int]:
    names = [*_objects(lib, alg), *([crypto_modules.DRIVER] if driver else [])]
    got = [parts[n] for n in names if n in parts]
    return sum(p.flash_bytes for p in got), sum(p.ram_bytes for p in got)


def _space(page: Page, sw: RunData, hw: RunData, text: str) -> None:
    libs = libraries(sw)
    page.add("Published: bytes as printed (stack, heap; flash = code + constant data). Ours, per library: the"
             " stack and heap peak of one encryption of 15,360 bytes (the Table 3 cases on the paper's board,"
             f" {_board(sw)}, SW rows as built, HW rows in the `hw` build), exact on the firmware; the flash of"
             " the cipher's own modules in the run's image, **measured** from its linker map"
             " (families/size/crypto_modules.py), with their static RAM (.data + .bss) apart. What ours"
             " counts, per library: " + "; ".join(
                 f"{lib}: " + ", ".join(f"{alg} {' + '.join(o.removesuffix('.c.obj') for o in _objects(lib, alg))}"
                                        for alg in AEADS.values()) for lib in libs) +
             "; the HW rows add the `hw` build's whole accelerator driver (adapters/*/hw*.c,"
             " platform/cortexm/hwcrypto.c: every primitive it hands over, not this cipher's part alone)."
             " Not one to one with the paper: its split is per cipher as its build linked it; ours counts whole"
             " object files (wolfSSL's aes.c holds every AES mode, Mbed TLS's md.c its message-digest layer with"
             " HMAC), the same AES module in both AES rows, and not the libraries' cipher layers. Mbed TLS's `hw`"
             " build replaces its modules (the _ALT hooks); its stand-in, which computes the model's results, is"
             " left out (a product has none). wolfSSL's crypto callbacks keep wolfCrypt's software as the fallback,"
             " so its `hw` flash only grows. Mbed TLS keeps its AES tables in RAM (built at first use), not in"
             " flash.", "")
    pub = {f.key: f.value for f in src.cipher_space(text)}
    images = {(lib, is_hw): _image_objects(data, lib) for lib in libs for is_hw, data in ((False, sw), (True, hw))}
    rows = []
    for name, (alg, is_hw) in _TABLE5.items():
        row = [name, f"{num(pub[(name, 'stack')])} / {num(pub[(name, 'heap')])}",
               f"{num(pub[(name, 'flash')])} ({num(pub[(name, 'code')])} + {num(pub[(name, 'const')])})"]
        for lib in libs:
            case = primitive_case(hw if is_hw else sw, lib, alg, "encrypt", SIZE)
            if case is None or case["status"] != "ok":
                row += [_note(case), "", ""]
                continue
            row.append(f"{num(median(case, 'stack_bytes'))} / {num(median(case, 'heap_peak_bytes'))}")
            parts = images[(lib, is_hw)]
            if parts is None:
                row += ["not measured: the run's image is not in this checkout (built again since, or made"
                        " elsewhere): run it again here", ""]
                continue
            if not _objects(lib, alg):  # never a zero for modules nobody named
                row += [f"not measured: {lib}'s record names no modules of {alg} (cipher_modules)", ""]
                continue
            flash, ram = _flash(parts, lib, alg, is_hw)
            row += [num(flash), num(ram)]
        rows.append(row)
    header = ["cipher (the paper's row)", "published stack / heap (B)", "published flash (code + const) (B)"]
    for lib in libs:
        header += [f"{lib} stack / heap (B)", f"{lib} flash (B)", f"{lib} static RAM (B)"]
    page.table(header, rows)
