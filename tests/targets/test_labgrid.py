"""A board farm through labgrid, end to end on this machine: the test starts
a labgrid coordinator and an exporter (loopback, free ports); the "boards"
are QEMU mps2-an386 instances of the Mbed TLS firmware whose UART is a TCP
serial port, exported as NetworkSerialPort (tests/data/labgrid/
exporter.yaml, the file docs/labgrid.md shows). A small plan on
labgrid:P1,P2 must give exactly the counts of the direct qemu:mps2-an386
target, each case naming the place that ran it; killing one QEMU mid-run
moves its remaining cases to the other place; places are released after
a run and after an error.

The third place, P3, is a board labgrid can power-cycle and flash: an
emulated board of the test's (EmulatedBoard) behind labgrid's simplerest
power model (NetworkPowerPort, so NetworkPowerDriver switches it) and a
flash resource whose BootstrapProtocol driver comes from the labgrid
environment config (tests/data/labgrid/env.yaml, emulated_board.py). Its
QEMU starts at power-on from the image last flashed. A run on it must
power-cycle it first, flash the image whose SHA-256 each case records,
power-cycle it again when its QEMU is killed and measure the lost case
again, and give the direct target's counts.

The sharing itself (engine/farm.py) is also tested without boards: a dead
board's cases go to the others, a board that answers after its power cycle
measures its case again, no board left stops the run resumable."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import string
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import needs_tools
from images import M4

from tlsbench.engine import farm, runner
from tlsbench.engine.case import Case, Measured
from tlsbench.engine.store import Store
from tlsbench.errors import RunInterrupted
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import labgrid_places
from tlsbench.targets import target as targets

BIN = Path(sys.executable).parent
EXPORTER_YAML = Path(__file__).parents[1] / "data" / "labgrid" / "exporter.yaml"
ENV_YAML = Path(__file__).parents[1] / "data" / "labgrid" / "env.yaml"
PLAN = """
name = "labgrid-farm"
[select]
libraries = ["mbedtls"]
kinds = ["hash", "aead", "kex"]
algorithms = ["sha256", "aes-128-gcm", "x25519"]
sizes = [64]
[method]
repeats = 2
warmup = 0
timeout_s = 120
"""


def _case(name: str) -> Case:
    return Case(library="lib", kind="hash", alg=name, op="hash", size=None)


def test_a_dead_boards_cases_go_to_the_others_and_no_board_left_stops_resumable() -> None:
    """engine/farm.py alone: board A fails its second case and is then dead;
    B measures everything else; the failed case names why."""
    calls: dict[str, list[str]] = {"A": [], "B": []}
    a_dead = threading.Event()

    def on(board: str):
        def measure(case: Case, rnd: int) -> Measured:
            calls[board].append(case.name)
            if board == "A" and len(calls["A"]) == 2:
                a_dead.set()
                return Measured.not_run("failed", "agent crashed")
            time.sleep(0.01)
            return Measured("ok", "", 1, "", [], [])
        return measure

    stored: list[tuple[str, str, str, str]] = []
    boards = [farm.Board("A", on("A"), lambda: "connection refused" if a_dead.is_set() else None),
              farm.Board("B", on("B"), lambda: None)]
    pending = [(0, _case(f"c{i}")) for i in range(8)]
    dead = farm.share(boards, pending, lambda r, c: True,
                      lambda c, r, m, t, b: stored.append((c.name, b, m.status, m.reason)), 1)
    assert dead == {"A": "connection refused"}
    assert sorted(n for n, *_ in stored) == [f"lib/hash/c{i}/hash" for i in range(8)]  # every case once
    assert len(calls["A"]) == 2 and len(calls["B"]) == 6
    failed = [s for s in stored if s[2] == "failed"]
    assert failed == [(calls["A"][1], "A", "failed", "board A stopped answering (connection refused): agent crashed")]

    # a board that answers again after its power cycle measures its case once more; one that does not is dead
    answered = {"A": 0}

    def flaky(case: Case, rnd: int) -> Measured:
        answered["A"] += 1
        return Measured.not_run("failed", "agent crashed") if answered["A"] == 2 else Measured("ok", "", 1, "", [], [])

    cycles: list[str] = []
    down = threading.Event()
    stored.clear()
    board = farm.Board("A", flaky, lambda: "silent" if down.is_set() else None, lambda: cycles.append("A") or None)
    down.set()
    assert farm.share([board], [(0, _case(f"c{i}")) for i in range(3)], lambda r, c: True,
                      lambda c, r, m, t, b: stored.append((c.name, b, m.status, m.reason)), 1) == {}
    assert cycles == ["A"] and answered["A"] == 4  # 3 cases, the second measured twice
    assert [(n, st) for n, _b, st, _r in stored] == [(f"lib/hash/c{i}/hash", "ok") for i in range(3)]
    never = farm.Board("A", lambda c, r: Measured.not_run("failed", "gone"), lambda: "silent", lambda: "still silent")
    with pytest.raises(farm.PlacesLost, match=r"A: silent; power-cycled: still silent"):
        farm.share([never], [(0, _case("c0")), (0, _case("c1"))], lambda r, c: True, lambda *a: None, 2)

    # rounds settled without a board (not wanted any more, or known: e.g. an unavailable library) are stored
    # with no board's name and never make a board look dead
    stored.clear()
    silent = farm.Board("A", lambda c, r: Measured("ok", "", 1, "", [], []), lambda: "silent")
    known = {"lib/hash/c1/hash": Measured.not_run("failed", "agent unavailable: probe failed")}
    assert farm.share([silent], [(0, _case(f"c{i}")) for i in range(4)], lambda r, c: c.name != "lib/hash/c2/hash",
                      lambda c, r, m, t, b: stored.append((c.name, b, m.status, m.reason)), 3,
                      known=lambda c, r: known.get(c.name)) == {}
    assert stored == [("lib/hash/c0/hash", "A", "ok", ""),
                      ("lib/hash/c1/hash", "", "failed", "agent unavailable: probe failed"),
                      ("lib/hash/c3/hash", "A", "ok", "")]

    lost = [farm.Board(n, lambda c, r: Measured.not_run("failed", "gone"), lambda: "gone") for n in ("A", "B")]
    with pytest.raises(farm.PlacesLost) as e:
        farm.share(lost, [(0, _case(f"c{i}")) for i in range(5)], lambda r, c: True,
                   lambda *a: None, 7)
    assert isinstance(e.value, RunInterrupted) and e.value.run_id == 7
    assert str(e.value) == "every board of the run stopped answering (A: gone; B: gone)"


# --- end to end: a coordinator, an exporter, two QEMU boards and a power-cycled, flashed one -------------

LABGRID = ("labgrid-coordinator", "labgrid-exporter", "labgrid-client")
_missing = [t for t in LABGRID if not (BIN / t).exists()]
if _missing and os.environ.get("CI") == "true":
    raise RuntimeError(f"CI: {', '.join(_missing)} missing from {BIN} (scripts/setup installs labgrid)")
_E2E = (pytest.mark.skipif(bool(_missing), reason=f"needs {', '.join(_missing)} (pip install labgrid: scripts/setup)"),
        needs_tools("qemu-system-arm", "arm-none-eabi-gcc"))


def e2e(test):
    for mark in _E2E:
        test = mark(test)
    return test


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited ({proc.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout:g} s")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class EmulatedBoard:
    """A board behind a power switch and a flash programmer, both on one
    loopback HTTP port: labgrid's simplerest power model switches it
    (GET /relay/0/1, /relay/0/0), the test's flashing driver writes its
    image (PUT /flash). Power-on starts QEMU on the board's serial port with
    the image last flashed (none: the board stays silent, as a blank MCU);
    power-off stops it; a flash while on restarts it, as a programmer resets
    the MCU after writing. Each answer comes once QEMU listens."""
    board: targets.Board
    folder: Path
    serial_port: int
    switches: list[str] = field(default_factory=list)  # "on"/"off", as the power switch was set
    flashes: list[str] = field(default_factory=list)  # the SHA-256 of each image written
    booted: list[str] = field(default_factory=list)  # the SHA-256 of the image each QEMU start ran
    fail_power: bool = False
    fail_flash: bool = False
    powered: bool = False
    qemu: subprocess.Popen | None = None

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.image = self.folder / "flash.img"
        board = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, code: int, body: bytes = b"") -> None:
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                parts = self.path.strip("/").split("/")
                if board.fail_power:
                    return self._answer(500)
                if parts == ["relay", "0"]:
                    return self._answer(200, b"1" if board.powered else b"0")
                if parts[:2] != ["relay", "0"] or parts[2:] not in (["0"], ["1"]):
                    return self._answer(404)
                board.switch(parts[2] == "1")
                self._answer(200)

            def do_PUT(self) -> None:  # noqa: N802
                data = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path != "/flash" or board.fail_flash:
                    return self._answer(500)
                board.write(data)
                self._answer(200)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _boot(self) -> None:
        if self.image.exists():
            self.booted.append(_sha256(self.image))
            cmd = targets.qemu_command(self.board, self.image, serial=f"tcp:127.0.0.1:{self.serial_port},server=on,"
                                       "wait=off")
            self.qemu = _start(cmd, self.folder, f"qemu-{len(self.booted)}.log")
            _wait_port(self.serial_port, self.qemu, "the emulated board's QEMU")

    def kill(self) -> None:
        """The board dies (a crash, a brown-out): its power stays on."""
        with self.lock:
            if self.qemu is not None:
                _stop(self.qemu)

    def switch(self, on: bool) -> None:
        with self.lock:
            self.switches.append("on" if on else "off")
            if self.qemu is not None:
                _stop(self.qemu)
                self.qemu = None
            self.powered = on
            if on:
                self._boot()

    def write(self, data: bytes) -> None:
        with self.lock:
            self.image.write_bytes(data)
            self.flashes.append(hashlib.sha256(data).hexdigest())
            if self.qemu is not None:
                _stop(self.qemu)
                self.qemu = None
            if self.powered:
                self._boot()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.kill()


@dataclass
class Farm:
    address: str
    qemus: dict[str, subprocess.Popen]  # place -> its board
    folder: Path
    board_3: EmulatedBoard

    def client(self, *args: str) -> str:
        return subprocess.run([str(BIN / "labgrid-client"), "-x", self.address, *args], check=True,
                              capture_output=True, text=True, timeout=60).stdout

    def acquired(self) -> dict[str, str]:
        text = self.client("-v", "places")
        out, place = {}, ""
        for line in text.splitlines():
            if line.startswith("Place '"):
                place = line.split("'")[1]
            elif line.strip().startswith("acquired:"):
                out[place] = line.split(":", 1)[1].strip()
        return out


def _start(cmd: list[str], folder: Path, log: str) -> subprocess.Popen:
    out = open(folder / log, "wb")  # noqa: SIM115 (closed with the process, read when a step fails)
    return subprocess.Popen(cmd, cwd=folder, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def firmware(firmware_images) -> targets.Target:
    # the board's default images (the farm uses Mbed TLS's): the configuration most modules ask for, so
    # none reconfigures the folder and recompiles the selftest double after this one
    return firmware_images(M4)


@pytest.fixture(scope="module")
def lab(firmware: targets.Target, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Farm]:
    """One farm for the module (the test that kills a board runs last)."""
    tmp_path = tmp_path_factory.mktemp("farm")
    procs: list[subprocess.Popen] = []
    board_3 = EmulatedBoard(firmware.board, tmp_path, _free_port())  # blank and off until tlsbench comes
    try:
        ports = {"P1": _free_port(), "P2": _free_port()}
        qemus = {}
        for place, port in ports.items():
            cmd = targets.qemu_command(firmware.board, firmware.firmware_path("mbedtls"),
                                       serial=f"tcp:127.0.0.1:{port},server=on,wait=off")
            qemus[place] = _start(cmd, tmp_path, f"qemu-{place}.log")
            procs.append(qemus[place])
            _wait_port(port, qemus[place], f"QEMU of {place}")
        coord_port = _free_port()
        address = f"127.0.0.1:{coord_port}"
        procs.append(_start([str(BIN / "labgrid-coordinator"), "-l", address], tmp_path, "coordinator.log"))
        _wait_port(coord_port, procs[-1], "labgrid-coordinator")
        config = tmp_path / "exporter.yaml"
        config.write_text(string.Template(EXPORTER_YAML.read_text()).substitute(
            PORT_1=ports["P1"], PORT_2=ports["P2"], PORT_3=board_3.serial_port, BOARD_3=board_3.port))
        procs.append(_start([str(BIN / "labgrid-exporter"), "-c", address, "-n", "farm", "--hostname", "127.0.0.1",
                             str(config)], tmp_path, "exporter.log"))
        f = Farm(address, qemus, tmp_path, board_3)
        deadline = time.monotonic() + 30
        while "farm/board-3/EmulatedBoardFlash" not in f.client("resources"):
            assert time.monotonic() < deadline, (tmp_path / "exporter.log").read_text()[-2000:]
            time.sleep(0.3)
        for i, place in enumerate(("P1", "P2"), 1):
            f.client("-p", place, "create")
            f.client("-p", place, "add-match", f"farm/board-{i}/NetworkSerialPort")
            f.client("-p", place, "set-tags", "board=mps2-an386")
        f.client("-p", "P3", "create")
        f.client("-p", "P3", "add-match", "farm/board-3/*")  # its serial port, power switch and flash
        f.client("-p", "P3", "set-tags", "board=mps2-an386", "power=yes")
        yield f
    finally:
        for p in reversed(procs):
            _stop(p)
        board_3.close()


@pytest.fixture(scope="module")
def direct(firmware: targets.Target, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], float]:
    """The plan's counts on the direct qemu:mps2-an386 target, measured once for the module."""
    store = Store(tmp_path_factory.mktemp("direct") / "r.sqlite")
    run_id = runner.run(parse_plan(PLAN, "plan"), PLAN, store, show_progress=False, target=firmware)
    assert {c["status"] for c in store.cases(run_id)} == {"ok"}
    return _counts(store, run_id)


def _counts(store: Store, run_id: int) -> dict[tuple[str, str], float]:
    data = report.load(store, run_id)
    return {(c["name"], metric): r["median"] for c in data.cases for metric, r in c["results"].items()}


def _boards(store: Store, run_id: int) -> dict[str, str]:
    return {c["name"]: json.loads(c["params_json"]).get("place", "") for c in store.cases(run_id)}


@e2e
def test_two_places_give_the_counts_of_the_direct_target_and_are_released(lab: Farm, tmp_path: Path, direct: dict,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(labgrid_places.COORDINATOR_ENV, lab.address)
    store = Store(tmp_path / "r.sqlite")
    farm_target = targets.parse("labgrid:P1,P2")  # the board from the places' tag
    assert (farm_target.kind, farm_target.board.name, farm_target.deterministic) == ("labgrid", "mps2-an386", True)
    shared = runner.run(parse_plan(PLAN, "plan"), PLAN, store, show_progress=False, target=farm_target)
    statuses = {c["name"]: c["status"] for c in store.cases(shared)}
    assert set(statuses.values()) == {"ok"} and len(statuses) >= 4
    counts = _counts(store, shared)
    assert counts == direct and any(m == "instructions" for _n, m in counts)
    boards = _boards(store, shared)
    assert set(boards.values()) == {"P1", "P2"}  # both places measured, each case names its own
    # places without power or flash resources: nothing flashed by tlsbench, so no image is named
    assert not any("image_sha256" in json.loads(c["params_json"]) for c in store.cases(shared))
    assert store.get_run(shared).target == "labgrid:P1,P2"
    assert lab.acquired() == {"P1": "None", "P2": "None", "P3": "None"}  # released after the run


@e2e
def test_a_place_with_power_and_flash_is_cycled_flashed_and_recovers(lab: Farm, tmp_path: Path, direct: dict,
                                                                     firmware: targets.Target,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(labgrid_places.COORDINATOR_ENV, lab.address)
    monkeypatch.setenv("LG_ENV", str(ENV_YAML))
    board = lab.board_3
    db = tmp_path / "r.sqlite"
    store = Store(db)
    killed = threading.Event()

    def kill_after_the_first_case() -> None:
        watcher = Store(db)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            runs = watcher.list_runs()
            if runs and _boards(watcher, runs[0]["id"]):
                board.kill()
                killed.set()
                return
            time.sleep(0.05)

    t = threading.Thread(target=kill_after_the_first_case, daemon=True)
    t.start()
    target = targets.parse("labgrid:tag=power=yes")  # P3 alone, its board from its tag
    run_id = runner.run(parse_plan(PLAN, "plan"), PLAN, store, show_progress=False, target=target)
    t.join(timeout=10)
    assert killed.is_set()
    cases = store.cases(run_id)
    assert {c["status"] for c in cases} == {"ok"}  # the case the kill interrupted was measured again
    assert _counts(store, run_id) == direct
    image = _sha256(firmware.firmware_path("mbedtls"))
    # flashed once, and every QEMU start (the first boot, the one after the kill) ran that very image
    assert board.flashes == [image] and board.booted == [image, image]
    assert {json.loads(c["params_json"])["image_sha256"] for c in cases} == {image}
    assert {json.loads(c["params_json"])["place"] for c in cases} == {"P3"}
    # a power cycle before the first case, another when the killed board stopped answering
    assert board.switches == ["off", "on", "off", "on"]
    assert store.get_run(run_id).status == "complete"
    assert lab.acquired()["P3"] == "None"


@e2e
def test_a_place_whose_power_or_flash_fails_is_one_line_and_released(lab: Farm, tmp_path: Path,
                                                                     firmware: targets.Target,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(labgrid_places.COORDINATOR_ENV, lab.address)
    monkeypatch.setenv("LG_ENV", str(ENV_YAML))
    board = lab.board_3
    board.fail_power = True
    try:
        with pytest.raises(labgrid_places.LabgridError) as e:
            runner.run(parse_plan(PLAN, "plan"), PLAN, Store(tmp_path / "r.sqlite"), show_progress=False,
                       target=targets.parse("labgrid:P3"))
    finally:
        board.fail_power = False
    assert str(e.value).startswith("labgrid place P3: power cycle through NetworkPowerDriver failed: HTTPError: 500")
    assert "\n" not in str(e.value)
    assert lab.acquired()["P3"] == "None"

    board.fail_flash = True
    try:  # in a run: the library's agent fails, and each of its cases ends with the failed flash's line
        store = Store(tmp_path / "f.sqlite")
        run_id = runner.run(parse_plan(PLAN, "plan"), PLAN, store, show_progress=False,
                            target=targets.parse("labgrid:P3"))
    finally:
        board.fail_flash = False
    assert {c["status"] for c in store.cases(run_id)} == {"failed"}
    line = (f"labgrid place P3: flashing {firmware.firmware_path('mbedtls')} through EmulatedBoardFlashDriver failed:"
            " HTTPError: HTTP Error 500: Internal Server Error")
    assert all(c["reason"].endswith(": " + line) for c in store.cases(run_id))
    assert lab.acquired()["P3"] == "None"

    # a place with neither resource: none found, and asking it to power-cycle names why
    with labgrid_places.acquired(lab.address, ["P1"]) as places, pytest.raises(labgrid_places.LabgridError) as e:
        assert (places[0].power, places[0].flasher) == (None, None)
        labgrid_places.power_cycle(lab.address, "P1")
    assert str(e.value) == ("labgrid place P1: power cycle failed: LookupError: it has no power resource a labgrid"
                            " power driver can use")
    assert lab.acquired()["P1"] == "None"


def test_a_place_is_flashed_once_per_image_and_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """labgrid_places.ensure_image without a farm: the first image of a run
    is always written, the same image not again, another one is; a failed
    flash leaves no record of an image on the board."""
    written: list[str] = []

    def flash(address: str, place: str, image: Path) -> None:
        if image.name == "broken":
            raise labgrid_places.LabgridError(f"labgrid place {place}: flashing {image} failed")
        written.append(image.name)

    monkeypatch.setattr(labgrid_places, "flash", flash)
    state = tmp_path / "flashed.json"
    images = {}
    for name, data in (("a", b"A"), ("b", b"B"), ("broken", b"X")):
        images[name] = tmp_path / name
        images[name].write_bytes(data)
    for name in ("a", "a", "b", "b", "a"):
        labgrid_places.ensure_image("127.0.0.1:1", "P", "lib", images[name], state)
    assert written == ["a", "b", "a"]
    assert labgrid_places.flashed(state) == {"library": "lib", "image": str(images["a"]),
                                             "sha256": hashlib.sha256(b"A").hexdigest()}
    with pytest.raises(labgrid_places.LabgridError):
        labgrid_places.ensure_image("127.0.0.1:1", "P", "lib", images["broken"], state)
    assert labgrid_places.flashed(state) == {}
    labgrid_places.ensure_image("127.0.0.1:1", "P", "lib", images["a"], state)
    assert written == ["a", "b", "a", "a"]  # after a failed flash the board's image is unknown: written again


@e2e
def test_places_are_released_after_an_error(lab: Farm, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(RuntimeError, match="boom"), labgrid_places.acquired(lab.address, ["P1", "P2"]) as places:
        assert [p.name for p in places] == ["P1", "P2"]
        assert set(lab.acquired().values()) != {"None"}
        raise RuntimeError("boom")
    assert lab.acquired() == {"P1": "None", "P2": "None", "P3": "None"}
    from tlsbench.cli import main

    db = lab.folder / "cli.sqlite"
    assert main(["--db", str(db), "run", "--target", "labgrid:P1,P9", "--board", "mps2-an386",
                 "--labgrid-coordinator", lab.address, "--preset", "cortex-m"]) == 2
    assert f"coordinator {lab.address} has no place P9; places: P1, P2, P3" in capsys.readouterr().err
    assert lab.acquired() == {"P1": "None", "P2": "None", "P3": "None"}  # nothing acquired for a run that cannot start
    assert Store(db).list_runs() == []  # nor stored


@e2e
def test_one_plan_is_shared_by_places_of_two_exporters(lab: Farm, firmware: targets.Target, tmp_path: Path,
                                                        direct: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two machines, each exporting its own board (an exporter of its own, named host-b here): one run
    on a place of each gives the direct target's counts, each case naming the place (and so the machine)
    that ran it; run again, every case is reused from the result cache."""
    monkeypatch.setenv(labgrid_places.COORDINATOR_ENV, lab.address)
    port = _free_port()
    qemu = _start(targets.qemu_command(firmware.board, firmware.firmware_path("mbedtls"),
                                       serial=f"tcp:127.0.0.1:{port},server=on,wait=off"), tmp_path, "qemu-P4.log")
    config = tmp_path / "host-b.yaml"
    config.write_text(f"board-4:\n  NetworkSerialPort:\n    host: 127.0.0.1\n    port: {port}\n")
    exporter = _start([str(BIN / "labgrid-exporter"), "-c", lab.address, "-n", "host-b", "--hostname", "127.0.0.1",
                       str(config)], tmp_path, "exporter-host-b.log")
    try:
        _wait_port(port, qemu, "QEMU of P4")
        deadline = time.monotonic() + 30
        while "host-b/board-4/NetworkSerialPort" not in lab.client("resources"):
            assert time.monotonic() < deadline, (tmp_path / "exporter-host-b.log").read_text()[-2000:]
            time.sleep(0.3)
        lab.client("-p", "P4", "create")
        lab.client("-p", "P4", "add-match", "host-b/board-4/NetworkSerialPort")
        lab.client("-p", "P4", "set-tags", "board=mps2-an386")
        store = Store(tmp_path / "r.sqlite")
        shared = runner.run(parse_plan(PLAN, "plan"), PLAN, store, show_progress=False,
                            target=targets.parse("labgrid:P2,P4"))
        assert _counts(store, shared) == direct
        assert set(_boards(store, shared).values()) == {"P2", "P4"}  # a board of each machine measured
        assert store.reuse_marks(shared) == {}
        again = runner.run(parse_plan(PLAN, "plan"), PLAN, store, show_progress=False,
                           target=targets.parse("labgrid:P2,P4"))
        assert set(store.reuse_marks(again)) == set(_boards(store, shared))  # nothing measured again
        assert _counts(store, again) == direct
        assert lab.acquired()["P4"] == "None"
    finally:
        try:
            lab.client("-p", "P4", "delete")
        finally:
            _stop(exporter)
            _stop(qemu)


@e2e
def test_a_killed_board_moves_its_cases_to_the_other_place(lab: Farm, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(labgrid_places.COORDINATOR_ENV, lab.address)
    db = tmp_path / "r.sqlite"
    store = Store(db)
    killed = threading.Event()

    def kill_p1_after_its_first_case() -> None:
        watcher = Store(db)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not killed.is_set():
            runs = watcher.list_runs()
            if runs and "P1" in _boards(watcher, runs[0]["id"]).values():
                _stop(lab.qemus["P1"])
                killed.set()
                return
            time.sleep(0.05)

    t = threading.Thread(target=kill_p1_after_its_first_case, daemon=True)
    t.start()
    run_id = runner.run(parse_plan(PLAN, "plan"), PLAN, store, show_progress=False,
                        target=targets.parse("labgrid:P1,P2", "mps2-an386"))
    t.join(timeout=10)
    assert killed.is_set()
    cases = store.cases(run_id)
    assert len(cases) == len(runner.expand(parse_plan(PLAN, "plan")))
    failed = [c for c in cases if c["status"] != "ok"]
    # P1 died after its first case: at most its case then in flight failed, naming why; the rest ran on P2
    assert len(failed) <= 1
    for c in failed:
        assert c["reason"].startswith("board P1 stopped answering (serial port socket://127.0.0.1:")
    on_p1 = [n for n, b in _boards(store, run_id).items() if b == "P1"]
    assert 1 <= len(on_p1) <= 2 and len(on_p1) - len(failed) == 1
    assert store.get_run(run_id).status == "complete"
    assert lab.acquired() == {"P1": "None", "P2": "None", "P3": "None"}

def test_the_docs_show_the_exporter_configuration_the_test_uses() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "labgrid.md").read_text()
    assert "```yaml\n" + EXPORTER_YAML.read_text() + "```" in doc


def test_labgrid_target_names_are_checked_before_any_coordinator_is_asked(monkeypatch) -> None:
    from tlsbench.errors import PlanError

    monkeypatch.delenv(labgrid_places.COORDINATOR_ENV, raising=False)
    with pytest.raises(PlanError, match=r"expected labgrid:PLACE\[,PLACE...\] or labgrid:tag=KEY=VALUE"):
        targets.parse("labgrid:P1,,P2", "mps2-an386")
    with pytest.raises(PlanError, match="names a place twice"):
        targets.parse("labgrid:P1,P1", "mps2-an386")
    with pytest.raises(PlanError, match="a labgrid target needs the coordinator: --labgrid-coordinator HOST:PORT"):
        targets.parse("labgrid:P1", "mps2-an386")
    places = {"P1": {"board": "mps2-an386"}, "P2": {"board": "mps2-an386"}, "N": {"board": "nucleo-f446re"}}
    monkeypatch.setattr(labgrid_places, "tags_of", lambda address: places)  # no coordinator needed here
    t = targets.parse("labgrid:P1,P2", None, coordinator="127.0.0.1:20408")
    assert (t.board.name, t.port, t.coordinator, t.deterministic) == ("mps2-an386", "P1,P2", "127.0.0.1:20408", True)
    assert not targets.parse("labgrid:N", None, coordinator="127.0.0.1:1").deterministic  # a real board: cycles
    with pytest.raises(PlanError, match="do not share one `board` tag"):
        targets.parse("labgrid:P1,N", None, coordinator="127.0.0.1:1")
