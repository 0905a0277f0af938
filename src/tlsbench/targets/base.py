"""The one interface of a place where agents run (as mupq's ``Platform``):
the runner, the CLI and the families ask a target what they need and never
test which kind it is. One class per kind lives in ``targets/kinds/``; the
table in ``targets/target.py`` maps a name's prefix to its class."""

from __future__ import annotations

import dataclasses
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from tlsbench import paths, versions
from tlsbench.errors import PlanError
from tlsbench.libraries import registry
from tlsbench.targets import cyclemodel, hwcrypto, modelerror, sources, userconfig
from tlsbench.targets.board import Board

# the record probe_library answers and how its answer is kept: this contract's, so the runner imports them here
from tlsbench.targets.libraries import LibraryInfo, from_answer
from tlsbench.targets.libraries import answer_of as answer_of

if TYPE_CHECKING:
    from tlsbench.engine.case import Result
    from tlsbench.plans.model import Plan
    from tlsbench.targets.boardprofiles import Profile


class DeviceLink(Protocol):
    """The firmware's line channel for one side of a handshake on the device (targets/devicelink.py)."""

    resets: bool
    lines: Iterator[str]

    def send(self, data: bytes) -> None: ...

    def greet(self, session: Any, library: str) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Target(ABC):
    name: str  # "host", "qemu:mps2-an386", "serial:/dev/ttyACM0"
    board: Board | None = None
    port: str | None = None  # serial device
    # library -> build profile (agent/adapters/<lib>/profiles/<name>.h), when not the library's default
    profiles: tuple[tuple[str, str], ...] = ()
    # the lean image for one side of a handshake on the device (tls-device): one painted stack, no in-memory
    # link, a request line and records sized for one side's chunks (agent/CMakeLists.txt, TB_ONE_SIDE)
    one_side: bool = False
    # labgrid: the coordinator's HOST:PORT; on one place's own target, that place (port is then its serial URL)
    coordinator: str | None = None
    place: str | None = None
    flasher: str | None = None  # one place's labgrid flashing driver, when it has one
    user: userconfig.UserBuild = userconfig.NONE  # the user's config files and compiler options (--config, --cflags)

    # the name's prefix: stored and shown, never branched on outside targets/
    kind: ClassVar[str]
    # its name is KIND:ARGUMENT (a board, a port, places), not the kind alone
    takes_argument: ClassVar[bool] = True
    # missing or stale images are built before a run (emulated boards: nothing to flash)
    builds_on_demand: ClassVar[bool] = False
    # a clock to keep steady: rounds are placed on purpose and paced (engine/layout.py, engine/pacing.py)
    paced: ClassVar[bool] = False
    # a board's memory is the budget: running out of it means "does not fit", not an error
    memory_bound: ClassVar[bool] = False
    # what the runner starts is a firmware image behind a launcher (else the host agent itself)
    runs_firmware: ClassVar[bool] = False
    # every launch boots a fresh image: the random stream and allocator start over (minimum-RAM searches)
    fresh_per_launch: ClassVar[bool] = False
    # a --board profile's cycle model applies to its runs (the emulator's plugin counts them)
    models_cycles: ClassVar[bool] = False
    # `tlsbench build` for it also builds the emulator's cycle-model plugin
    builds_cycle_plugin: ClassVar[bool] = True
    # `tlsbench list suites` answers by real handshakes without --check
    suites_by_handshake: ClassVar[bool] = False
    # the plan a run without --plan or --preset runs (None: the default plan)
    default_preset: ClassVar[str | None] = None
    # --config/--cflags build images of the user's own configuration here (a board flashed by others cannot)
    builds_user_images: ClassVar[bool] = False
    # several of its agents may run at once, each launch its own emulator (no board shared between them)
    concurrent_sessions: ClassVar[bool] = False

    def __post_init__(self) -> None:
        # a profile whose code the core cannot run is refused here, before anything is built
        for lib, prof in self.profiles if self.board is not None else ():
            record = registry.get(lib)
            problem = record.profile_refusal(prof, self.board.cpu, self.name) if record else None
            if problem:
                raise PlanError(problem)

    @classmethod
    def known_names(cls) -> list[str]:
        """How this kind's targets are named, for help and error messages."""
        return [cls.kind]

    @classmethod
    def listing(cls) -> list[tuple[str, str]]:
        """(name, what it is) of each target of this kind, for `tlsbench list targets`."""
        return [(n, f"a {cls.kind} target") for n in cls.known_names()]

    @classmethod
    @abstractmethod
    def from_spec(cls, name: str, rest: str, board: str | None, profiles: tuple[tuple[str, str], ...],
                  coordinator: str | None) -> Target:
        """The target named ``name`` (``rest``: after the colon); bad input is a PlanError."""
        ...

    @property
    def deterministic(self) -> bool:
        """Whether its metrics are exact: the same work gives the same counts."""
        return False

    def one_at_a_time(self) -> str | None:
        """Why its cases are measured one at a time (None: several sessions may run at once, run --jobs)."""
        if not self.deterministic:
            return "its metrics are timed on a clock, which a case running beside it would slow: one case at a time"
        if not self.concurrent_sessions:
            return "its cases run on boards, one image at a time each (several places measure side by side)"
        return None

    @property
    def build_name(self) -> str:
        """The build folder under build/: one per board (a serial target
        shares its board's firmware build)."""
        if self.board is None:
            return "host" + userconfig.suffix(self.user)
        suffix = "".join(f"-{lib}.{prof}" for lib, prof in self.profiles) + ("-oneside" if self.one_side else "")
        suffix += _user_trees_suffix() + userconfig.suffix(self.user)
        return f"{'qemu' if self.board.machine else 'board'}-{self.board.name}{suffix}"

    def build_dir(self) -> Path:
        return paths.root() / "build" / self.build_name

    def with_user_build(self, user: userconfig.UserBuild) -> Target:
        """This target building the user's configuration (none: the target as it is)."""
        if not user:
            return self
        if not self.builds_user_images:
            raise PlanError("--config/--cflags build their own images: give --target host or qemu:BOARD and build"
                            " them there (tlsbench build --target qemu:BOARD --config ...), then flash them yourself")
        return dataclasses.replace(self, user=user)

    def image_of(self, library: str) -> tuple[Target, str]:
        """Where a library's image is built: here, or for a configuration alias ("mbedtls@a2") the target of
        its own build (its folder keyed by its config) and the library that build makes ("mbedtls")."""
        if library not in self.user.aliases:
            return self, library
        return dataclasses.replace(self, user=self.user.for_alias(library)), versions.base(library)

    def agent_environment(self) -> dict[str, str]:
        """What a run's processes need in their environment to start this target's agents."""
        return {}

    def prepare_user_build(self, libraries: list[str]) -> None:
        """Builds what a run of the user's configuration needs before its plan is fitted (firmware: built
        on demand with the other images)."""
        return None

    def agent_path(self, library: str) -> Path:
        """The executable the runner starts for this library (a launcher for firmware)."""
        return self.build_dir() / f"tlsbench-agent-{library}"

    def flash_state(self) -> Path:
        """What tlsbench last flashed on this labgrid place in this run (labgrid_places.ensure_image)."""
        return self.agent_path("any").parent / "flashed.json"

    def cmake_dir(self) -> Path:
        return self.build_dir() / "cmake"

    def firmware_path(self, library: str) -> Path:
        # "mbedtls@3.6.7" -> tlsbench-agent-mbedtls-3.6.7 (CMake names have no '@')
        image, library = self.image_of(library)
        return image.cmake_dir() / ("tlsbench-agent-" + library.replace("@", "-"))

    def map_path(self, library: str) -> Path:
        image, library = self.image_of(library)
        return image.cmake_dir() / ("tlsbench-agent-" + library.replace("@", "-") + ".map")

    @abstractmethod
    def describe(self) -> str:
        """One line: what this target is."""
        ...

    # ---- a run on it ----

    def fit(self, plan: Plan) -> None:
        """Makes the plan one this target can run (its libraries, its method); bad plans are errors."""
        return None  # a target that runs any plan as given

    def for_plan(self, plan: Plan) -> Target:
        """The target whose images run this plan (a device-side plan: the one-side image)."""
        return self

    def prepare_images(self, libraries: list[str]) -> None:
        """Builds what the libraries need here when it is missing or stale (raises TlsbenchError)."""
        return None  # nothing built on demand: agents and flashed boards are built on purpose

    def does_not_fit(self, library: str) -> str | None:
        """Why this library's image does not fit the board, in bytes, or None."""
        return None

    @abstractmethod
    def probe_library(self, library: str, timeout: float | None = None) -> LibraryInfo:
        """The library's agent here, asked what it is and supports (raises AgentError)."""
        ...

    def image_sha256(self, library: str) -> str | None:
        """The SHA-256 of the image whose answers decide the library's figures here, read without
        starting it (raises AgentError as probe_library does); None where no image decides them."""
        return None

    def listing_probe(self, library: str) -> LibraryInfo:
        """probe_library for `tlsbench list`, which waits less where agents answer at once."""
        return self.probe_library(library)

    @abstractmethod
    def launcher(self, library: str) -> Path:
        """The executable to start for this library."""
        ...

    def code_sizes(self, library: str) -> list[tuple[str, int, int]] | None:
        """(component, flash bytes, RAM bytes) from the image's linker map; None: no image to measure."""
        return None

    def metadata(self) -> dict[str, object]:
        """What makes its numbers what they are, stored with the run's machine."""
        return {}

    @contextmanager
    def held(self) -> Iterator[tuple[Target, list | None]]:
        """Holds what a whole run needs, released however it ends; yields the
        target to probe and check on, and the boards that share the cases
        (None: this target measures them all)."""
        yield self, None

    def measure_on_places(self, places: list | None, session: Any, pending: list, progress_of: dict,
                          progress: Any, run_id: int) -> bool:
        """Measures the pending rounds on the boards held() gave, side by side, each stored by the session;
        False: this target is one place and the runner measures them itself."""
        return False

    def stored_probe(self, library: str, answer: dict, agent_sha256: str) -> LibraryInfo:
        """The library's LibraryInfo from a probe answer stored for its image (answer_of), as probe_library
        would give it, with no agent started."""
        return from_answer(library, self.launcher(library), answer, agent_sha256)

    # ---- what the runner asks about a run on it ----

    def board_profile(self) -> Profile | None:
        """The cycle model's board profile of the run, as read now (from the run's environment; a user's
        file edited since the run started is refused), or None."""
        return cyclemodel.active_profile()

    def cycle_plugin(self) -> Path:
        """The emulator's cycle-model plugin: part of what decides an exact outcome (the result cache)."""
        return cyclemodel.plugin_path()

    def derived_results(self, results: list[Result]) -> list[Result]:
        """The results the board profile's model derives from a case's measured ones (time and energy
        from model cycles; none without a profile)."""
        return cyclemodel.derived_results(results)

    def model_error(self) -> dict | None:
        """The measured error of the cycle model on the board profile's core, as `run --json` carries it
        beside a model figure (None: no profile)."""
        profile = self.board_profile()
        return modelerror.as_json(profile.core) if profile else None

    def refusal(self, library: str, kind: str, alg: str, board: Profile | None) -> str | None:
        """Why a case cannot run here (None: it can): a "hw" build's algorithm without the peripheral that
        ``board`` (its board_profile() where it models cycles, read once per run) would give it."""
        base = versions.base(library)
        return hwcrypto.refusal(base, dict(self.profiles).get(base), board, kind, alg)

    def turned_off(self) -> dict[str, set[str]]:
        """What the user's configurations turned off, per library and per alias (raises TlsbenchError);
        none where no configuration of the user's is built."""
        return {}

    def unsupported_reason(self, library: str, case_name: str, off: dict[str, set[str]], reason: str) -> str:
        """An unsupported case's reason naming the define the user's configuration turned off (``off``:
        turned_off()) when one is why."""
        return userconfig.unsupported_reason(library, case_name, off, reason)

    def device_link(self, library: str, timeout: float) -> DeviceLink | None:
        """A channel to this library's firmware for one side of a handshake on
        the device; None where that side cannot run (raises TlsbenchError)."""
        return None

    # ---- tlsbench build and list ----

    @abstractmethod
    def build(self, libraries: list[str] | None, opt: str, jobs: int | None, one_side: bool) -> None:
        """Builds its agents or images (``tlsbench build --target``)."""
        ...

    @abstractmethod
    def listed_libraries(self) -> list[str]:
        """The libraries `tlsbench list` shows for it."""
        ...

    def listing_note(self, libraries: list[str]) -> str | None:
        """The line before a listing of its libraries, algorithms or suites."""
        return None

    @abstractmethod
    def library_lines(self, library: str) -> list[str]:
        """`tlsbench list libraries`: what it says of one library here."""
        ...


def _user_trees_suffix() -> str:
    """Firmware from a user-supplied library tree (TLSBENCH_<LIB>_SOURCE, e.g.
    wolfSSL 5.9.2 for post-quantum images) gets its own build folder, named by
    the tree's folder, so the default trees' images are not rebuilt over."""
    out = ""
    for lib in registry.firmware():
        tree = sources.user_source(lib)
        if tree is not None:
            out += f"-{lib}.tree-" + re.sub(r"[^A-Za-z0-9._-]+", "_", tree.name)
    return out
