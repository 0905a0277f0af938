"""Plan files for the tests, written from their sections (a plan the tests
read as TOML text, as a user's would be): one place for the shape of a plan
file, and each test says only what its plan is about."""

from __future__ import annotations

import json

# the two suites most plans measure: TLS 1.3's and TLS 1.2's (ECDHE-ECDSA)
TLS13_SUITE = "TLS_AES_128_GCM_SHA256"
TLS12_SUITE = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"

# the [method] of a plan run on an emulated board: one boot per case, the emulator's own pace
BOARD_METHOD = {"repeats": 1, "warmup": 0, "timeout_s": 300}


def plan_text(name: str | None = None, **sections: dict[str, object]) -> str:
    """A plan's TOML: its name (if any), then each section ([select], [tls],
    [method], ...) in the order given; lists and strings written as TOML
    writes them (`libraries = ["mbedtls", "wolfssl"]`)."""
    lines = [] if name is None else [f"name = {json.dumps(name)}"]
    for section, fields in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
    return "\n" + "\n".join(lines) + "\n"


def device_plan(name: str, libraries: list[str], suites: list[str], handshakes: list[str],
                method: dict[str, object] | None = None, **tls: object) -> str:
    """A TLS plan run on an emulated board (x25519, an ECDSA P-256 chain);
    tls adds to or overrides the [tls] section, method to BOARD_METHOD."""
    method = {**BOARD_METHOD, **(method or {})}
    section = {"suites": suites, "groups": ["x25519"], "certs": ["ecdsa-p256"], "handshakes": handshakes, **tls}
    return plan_text(name, select={"libraries": libraries, "kinds": ["tls"]}, tls=section, method=method)



def device_case_names(libraries: list[str], side: str) -> list[str]:
    """The cases a device_plan of both suites with full and resume-psk-only
    handshakes expands to, the device as side: TLS 1.3's full and resumed
    handshakes, TLS 1.2's full one (resume-psk-only is TLS 1.3's)."""
    tls13 = f"{TLS13_SUITE}/x25519/ecdsa-p256-full"
    tls12 = f"{TLS12_SUITE}/x25519/ecdsa-p256-full"
    return ([f"{lib}/tls/{tls13}/{opt}device={side}" for lib in libraries for opt in ("", "resume-psk-only+")]
            + [f"{lib}/tls/{tls12}/device={side}" for lib in libraries])

def memory_tls(suites: list[str], groups: list[str], handshakes: list[str]) -> dict[str, object]:
    """A [tls] section of in-memory handshakes with an ECDSA P-256 chain."""
    return {"suites": suites, "groups": groups, "certs": ["ecdsa-p256"], "handshakes": handshakes,
            "transports": ["memory"]}


def one_size_plan(name: str, libraries: list[str], kind: str, algorithms: list[str], **method: object) -> str:
    """A plan of one kind's algorithms on 64-byte inputs (one cheap case
    each); method is its [method] section, in the order given (it comes last,
    so a test may append a field to it)."""
    select = {"libraries": libraries, "kinds": [kind], "algorithms": algorithms, "sizes": [64]}
    return plan_text(name, select=select, method=method)
