"""Link profiles: small TOML files, one link each, every figure with its source.

A wrong key, type or value is a PlanError naming the file, the line and what
is allowed (the same locator as plan files)."""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tlsbench.errors import PlanError
from tlsbench.plans.checks import Locator as _Locator

# key -> (type, minimum, what it is); None minimum: no bound (strings, booleans, lists)
FIELDS: dict[str, tuple[type, float | None, str]] = {
    "name": (str, None, "the profile's name (the file's stem)"),
    "description": (str, None, "one line"),
    "one_way_latency_ms": (float, 0.0, "one-way latency, ms"),
    "up_kbit_s": (float, 1e-9, "bandwidth device (client) -> server, kbit/s"),
    "down_kbit_s": (float, 1e-9, "bandwidth server -> device (client), kbit/s"),
    "mtu_bytes": (int, 1, "largest packet (network header included), bytes"),
    "packet_header_bytes": (int, 0, "per-packet headers (e.g. IPv6 + TCP), bytes"),
    "tcp": (bool, None, "TLS runs over TCP (a TCP handshake before it, the initial window)"),
    "initial_window_segments": (int, 1, "TCP initial window, segments"),
    "frame_payload_bytes": (int, 0, "largest frame payload when packets are fragmented into frames; "
                                    "0: one frame per packet"),
    "frame_overhead_bytes": (int, 0, "per-frame overhead on the air or wire, bytes"),
    "frame_time_us": (float, 0.0, "fixed time per frame besides its bytes (preamble, gaps, link ACK), µs"),
    "tx_nj_per_byte": (float, 0.0, "radio energy per byte sent, nJ/B"),
    "rx_nj_per_byte": (float, 0.0, "radio energy per byte received, nJ/B"),
    "energy_source": (str, None, "where the nJ/B figures come from"),
    "sources": (list, None, "the standards and datasheets of the figures"),
    "typical": (list, None, "which figures are typical values rather than specifications"),
}
REQUIRED = ("description", "one_way_latency_ms", "up_kbit_s", "down_kbit_s", "mtu_bytes",
            "packet_header_bytes", "tcp", "sources")


@dataclass(frozen=True)
class LinkProfile:
    name: str
    description: str
    one_way_latency_ms: float
    up_kbit_s: float
    down_kbit_s: float
    mtu_bytes: int
    packet_header_bytes: int
    tcp: bool
    sources: tuple[str, ...]
    typical: tuple[str, ...] = ()
    initial_window_segments: int = 10  # RFC 6928
    frame_payload_bytes: int = 0
    frame_overhead_bytes: int = 0
    frame_time_us: float = 0.0
    tx_nj_per_byte: float | None = None
    rx_nj_per_byte: float | None = None
    energy_source: str = ""

    @property
    def max_payload(self) -> int:
        """Payload bytes per packet (the TCP MSS over TCP)."""
        return self.mtu_bytes - self.packet_header_bytes


def links_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "targets" / "links"


def parse_profile(text: str, source: str, name: str) -> LinkProfile:
    loc = _Locator(source, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"{source}: not valid TOML: {e}") from None
    values: dict[str, object] = {}
    for key, value in data.items():
        if key not in FIELDS:
            near = difflib.get_close_matches(key, FIELDS, n=2, cutoff=0.5)
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            raise loc.error(None, key, f"unknown key{hint}; allowed: {', '.join(FIELDS)}")
        kind, minimum, what = FIELDS[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise loc.error(None, key, f"must be a {kind.__name__} ({what}), got {value!r}")
        if kind is list and not all(isinstance(v, str) and v for v in value):  # type: ignore[union-attr]
            raise loc.error(None, key, "must be a list of non-empty strings")
        if minimum is not None and value < minimum:  # type: ignore[operator]
            raise loc.error(None, key, f"must be >= {minimum:g} ({what}), got {value!r}")
        values[key] = tuple(value) if isinstance(value, list) else value
    for key in REQUIRED:
        if key not in values:
            raise PlanError(f"{source}: missing key {key} ({FIELDS[key][2]})")  # no line to point at
    if values.setdefault("name", name) != name:
        raise loc.error(None, "name", f"must be the file's stem {name!r}, got {values['name']!r}")
    if int(values["packet_header_bytes"]) >= int(values["mtu_bytes"]):  # type: ignore[call-overload]
        raise loc.error(None, "packet_header_bytes", "must be smaller than mtu_bytes (no room for payload)")
    if ("tx_nj_per_byte" in values) != ("rx_nj_per_byte" in values):
        raise loc.error(None, "tx_nj_per_byte" if "tx_nj_per_byte" in values else "rx_nj_per_byte",
                        "tx_nj_per_byte and rx_nj_per_byte go together (a radio energy needs both)")
    if "tx_nj_per_byte" in values and not values.get("energy_source"):
        raise loc.error(None, "tx_nj_per_byte", "needs energy_source (where the nJ/B figures come from)")
    return LinkProfile(**values)  # type: ignore[arg-type]


def load_profile(path: Path) -> LinkProfile:
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise PlanError(f"cannot read link profile {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise PlanError(f"{path}: not UTF-8 text (byte offset {e.start})") from None
    return parse_profile(text, str(path), path.stem)


def all_profiles() -> dict[str, LinkProfile]:
    return {p.stem: load_profile(p) for p in sorted(links_dir().glob("*.toml"))}


def get_profile(name_or_path: str) -> LinkProfile:
    """A shipped profile by name, or a profile file by path."""
    if name_or_path.endswith(".toml"):
        return load_profile(Path(name_or_path))
    path = links_dir() / f"{name_or_path}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in links_dir().glob("*.toml"))
        near = difflib.get_close_matches(name_or_path, known, n=2)
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        raise PlanError(f"unknown link {name_or_path!r}{hint} (known: {', '.join(known)}; or a .toml file)")
    return load_profile(path)
