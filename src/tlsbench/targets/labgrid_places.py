"""Boards of a labgrid farm: places found, acquired and released through a
labgrid coordinator, and the serial resource each place holds.

`--target labgrid:P1,P2` names places; `labgrid:tag=board=nucleo-f446re`
selects every place with that tag. The coordinator's address comes from
``--labgrid-coordinator`` or ``LG_COORDINATOR`` (labgrid's own variable).

Acquiring and releasing go through ``labgrid-client`` (the documented
interface, one process per step, so a hung coordinator is a timeout here
and never a hung run); the list of places and their tags through labgrid's
Python client session. A place's serial port is its ``NetworkSerialPort``
resource (ser2net on an exporter, or any raw TCP serial): the firmware
bridge opens it as pyserial's ``socket://HOST:PORT``, the same line
protocol as a serial board (targets/bridge.py). Places are released when
the run ends, fails or is interrupted (``acquired`` is a context manager).

A place's power and flashing go through labgrid's drivers
(targets/labgrid_drivers.py, one process per step under a time limit):
which drivers it has is read when it is acquired; ``power_cycle`` and
``recover`` switch its power, ``ensure_image`` writes a firmware image
once per image and run and records its SHA-256 in the place's flash state.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from tlsbench.errors import PlanError, SetupError, TlsbenchError

COORDINATOR_ENV = "LG_COORDINATOR"
INSTALL = "labgrid is installed by ./scripts/setup (pip install labgrid, requirements.lock)"
_PLACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_TAG = re.compile(r"tag=([A-Za-z0-9_.-]+)=([A-Za-z0-9_.-]+)")


class LabgridError(TlsbenchError):
    """The coordinator or a place could not be used: one line naming which and why."""


@dataclass(frozen=True)
class Place:
    name: str
    url: str  # the serial resource, as pyserial opens it: socket://HOST:PORT
    tags: tuple[tuple[str, str], ...] = ()
    power: str | None = None  # the labgrid driver that switches its power (targets/labgrid_drivers.py)
    flasher: str | None = None  # the labgrid driver that flashes it


def coordinator(given: str | None = None) -> str:
    """The coordinator's HOST:PORT: the option, else LG_COORDINATOR."""
    address = given or os.environ.get(COORDINATOR_ENV, "")
    if not address:
        raise PlanError(f"a labgrid target needs the coordinator: --labgrid-coordinator HOST:PORT or {COORDINATOR_ENV}")
    if not re.fullmatch(r"[A-Za-z0-9_.:\[\]-]+", address):
        raise PlanError(f"--labgrid-coordinator {address!r}: expected HOST:PORT, e.g. 127.0.0.1:20408")
    return address


def parse_selection(text: str) -> tuple[str, ...] | tuple[str, str]:
    """'P1,P2' -> the place names; 'tag=KEY=VALUE' -> ('tag', 'KEY=VALUE')."""
    m = _TAG.fullmatch(text)
    if m:
        return ("tag", f"{m[1]}={m[2]}")
    names = tuple(n.strip() for n in text.split(","))
    bad = [n for n in names if not _PLACE.fullmatch(n)]
    if not names or bad:
        raise PlanError(f"labgrid target {text!r}: expected labgrid:PLACE[,PLACE...] or labgrid:tag=KEY=VALUE")
    if len(set(names)) != len(names):
        raise PlanError(f"labgrid target {text!r} names a place twice")
    return names


def _client() -> str:
    exe = shutil.which("labgrid-client") or str(Path(sys.executable).with_name("labgrid-client"))
    if not Path(exe).exists():
        raise SetupError(f"labgrid-client not found: {INSTALL}")
    return exe


def _env() -> dict[str, str]:
    # the user the places are acquired as: every step, and the drivers' RemotePlace, must be that user
    return {**os.environ, "LG_USERNAME": os.environ.get("LG_USERNAME", "tlsbench")}


def _lg(address: str, place: str | None, *args: str, timeout: float = 60) -> str:
    """One labgrid-client step; its error is one line naming the step."""
    cmd = [_client(), "-x", address, *(["-p", place] if place else []), *args]
    try:
        # without the user's environment config: with one, labgrid-client adds lines of its own to `env`
        env = {k: v for k, v in _env().items() if k != "LG_ENV"}
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        raise LabgridError(f"labgrid coordinator {address}: `labgrid-client {' '.join(args)}`"
                           f" did not answer within {timeout:g} s") from e
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        where = f"place {place}" if place else f"coordinator {address}"
        raise LabgridError(f"labgrid {where}: {' '.join(args)} failed: {why}")
    return done.stdout


def tags_of(address: str) -> dict[str, dict[str, str]]:
    """Every place the coordinator knows, with its tags."""
    out: dict[str, dict[str, str]] = {}
    current = None
    for line in _lg(address, None, "-v", "places").splitlines():
        m = re.match(r"Place '([^']+)':", line)
        if m:
            current = out.setdefault(m[1], {})
            continue
        m = re.match(r"\s+tags:\s*(.*)$", line)
        if m and current is not None:
            for item in m[1].split(","):
                key, sep, value = item.strip().partition("=")
                if sep:
                    current[key] = value
    return out


def resolve(address: str, selection: str) -> dict[str, dict[str, str]]:
    """The places a target names (known to the coordinator), with their tags."""
    known = tags_of(address)
    sel = parse_selection(selection)
    if sel[0] == "tag" and len(sel) == 2 and "=" in sel[1]:
        key, _, value = sel[1].partition("=")
        found = {n: t for n, t in sorted(known.items()) if t.get(key) == value}
        if not found:
            raise LabgridError(f"no place of coordinator {address} has tag {key}={value}; places: "
                               f"{', '.join(sorted(known)) or 'none'}")
        return found
    missing = [n for n in sel if n not in known]
    if missing:
        raise LabgridError(f"coordinator {address} has no place {', '.join(missing)}; places: "
                           f"{', '.join(sorted(known)) or 'none'}")
    return {n: known[n] for n in sel}


def board_of(places: dict[str, dict[str, str]], given: str | None) -> str:
    """The board profile: --board, else every place's `board` tag (one, the same)."""
    if given:
        return given
    boards = {t.get("board") for t in places.values()}
    if len(boards) != 1 or None in boards:
        raise PlanError(f"labgrid places {', '.join(places)} do not share one `board` tag ({boards}): give --board")
    return str(boards.pop())


def _serial_url(address: str, place: str) -> str:
    env = yaml.safe_load(_lg(address, place, "env")) or {}
    resources = (env.get("targets", {}).get(place, {}) or {}).get("resources", [])
    for res in resources:
        port = res.get("NetworkSerialPort") if isinstance(res, dict) else None
        if port:
            host, number = str(port.get("host", "")), int(port.get("port", 0))
            if not re.fullmatch(r"[A-Za-z0-9_.:-]+", host) or not 0 < number < 65536:
                raise LabgridError(f"labgrid place {place}: its NetworkSerialPort {host}:{number} is not HOST:PORT")
            return f"socket://{host}:{number}"
    raise LabgridError(f"labgrid place {place} has no NetworkSerialPort resource (export the board's serial port"
                       " through ser2net, see docs/labgrid.md)")


def _drivers_step(address: str, place: str, *args: str, timeout: float) -> str:
    """One step of the place's labgrid drivers, in its own process
    (targets/labgrid_drivers.py); its error is that process's one line."""
    cmd = [sys.executable, "-m", "tlsbench.targets.labgrid_drivers", "--coordinator", address, "--place", place,
           *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env())
    except subprocess.TimeoutExpired as e:
        raise LabgridError(f"labgrid place {place}: {args[0]} through its labgrid drivers did not end within"
                           f" {timeout:g} s") from e
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        raise LabgridError(lines[-1] if lines else f"labgrid place {place}: {args[0]} failed: exit {done.returncode}")
    return done.stdout


def drivers_of(address: str, place: str) -> tuple[str | None, str | None]:
    """The labgrid drivers that power-cycle and flash the (acquired) place,
    None where it has none. A place whose drivers cannot be read (e.g. a
    resource class labgrid does not know) is still used over its serial
    port, without them, as before it had any: said on stderr."""
    try:
        lines = _drivers_step(address, place, "drivers", timeout=120).strip().splitlines()
        found = json.loads(lines[-1] if lines else "")  # the step's answer is its last line
    except (LabgridError, ValueError) as e:
        print(f"warning: {e}; the place is used without power or flashing drivers", file=sys.stderr)
        return None, None
    return found.get("power"), found.get("flash")


def power_cycle(address: str, place: str) -> None:
    _drivers_step(address, place, "cycle", timeout=120)


def flash(address: str, place: str, image: Path) -> None:
    _drivers_step(address, place, "flash", str(image), timeout=600)


def flashed(state: Path) -> dict[str, str]:
    """What tlsbench last flashed on a place in this run ({} when nothing):
    library, image, sha256."""
    try:
        return dict(json.loads(state.read_text()))
    except (OSError, ValueError):
        return {}


def ensure_image(address: str, place: str, library: str, image: Path, state: Path) -> None:
    """Flashes ``image`` through the place's labgrid flasher unless this run
    already did (``state`` records the last image flashed): a place's first
    image of a run is always flashed, so the run knows the very image each
    case ran on, not just the library the board names."""
    sha = hashlib.sha256(image.read_bytes()).hexdigest()
    if flashed(state).get("sha256") == sha:
        return
    state.unlink(missing_ok=True)  # a failed flash leaves the board's image unknown
    flash(address, place, image)
    state.write_text(json.dumps({"library": library, "image": str(image), "sha256": sha}) + "\n")


def recover(address: str, place: Place, boot_s: float = 30.0) -> str | None:
    """Power-cycles a board that stopped answering; None when it answers
    again, else why not."""
    if place.power is None:
        return "it has no power resource to cycle it with"
    try:
        power_cycle(address, place.name)
    except (LabgridError, SetupError) as e:
        return str(e)
    return answers(place.url, timeout=boot_s)


def answers(url: str, timeout: float = 10.0) -> str | None:
    """None when the firmware behind ``url`` answers ``hello`` within
    ``timeout`` seconds; else why not (a refused connection, silence)."""
    import serial

    from tlsbench.targets import serialport

    try:
        port = serialport.open_port(url, 115200)
    except serialport.PortError as e:
        return str(e)
    try:
        port.reset_input_buffer()
        port.write(b"hello\n")
        deadline, buf = time.monotonic() + timeout, b""
        while time.monotonic() < deadline:
            buf += port.read(256)
            if b" end " in buf and buf.endswith(b"\n"):
                return None
        return f"no answer to hello on {url} within {timeout:g} s"
    except (OSError, serial.SerialException) as e:  # the connection went away
        return f"{url}: {e}"
    finally:
        port.close()


def release(address: str, names: list[str]) -> list[str]:
    """Releases each place; returns the ones that could not be (named, not raised: this runs on the way out)."""
    left = []
    for name in names:
        try:
            _lg(address, name, "release", timeout=30)
        except (LabgridError, SetupError) as e:
            print(f"warning: {e}", file=sys.stderr)
            left.append(name)
    return left


@contextmanager
def acquired(address: str, names: list[str]) -> Iterator[list[Place]]:
    """Acquires every place (all or none), yields them with their serial
    port, releases them at the end, on an error and on Ctrl-C."""
    held: list[str] = []
    try:
        places = []
        for name in names:
            _lg(address, name, "acquire")
            held.append(name)
            places.append(Place(name, _serial_url(address, name), (), *drivers_of(address, name)))
        yield places
    finally:
        release(address, held)


__all__ = ["COORDINATOR_ENV", "LabgridError", "Place", "acquired", "answers", "board_of", "coordinator",
           "drivers_of", "ensure_image", "flash", "flashed", "parse_selection", "power_cycle", "recover", "release",
           "resolve"]
