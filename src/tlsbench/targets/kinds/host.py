"""This machine: the host agents themselves, timed by a noisy clock."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from tlsbench import paths, versions
from tlsbench.errors import PlanError, TlsbenchError
from tlsbench.targets import sources
from tlsbench.targets.base import Log, Target

if TYPE_CHECKING:
    from tlsbench.plans.plan import Plan
    from tlsbench.targets.libraries import LibraryInfo


class HostTarget(Target):
    kind: ClassVar[str] = "host"
    takes_argument: ClassVar[bool] = False
    paced: ClassVar[bool] = True
    suites_by_handshake: ClassVar[bool] = True

    @classmethod
    def from_spec(cls, name: str, rest: str, board: str | None, profiles: tuple[tuple[str, str], ...],
                  coordinator: str | None) -> Target:
        if profiles:
            raise PlanError("--profile selects firmware builds; host agents use each library's host profile")
        return HOST

    def describe(self) -> str:
        return "this machine, Linux (agents built by tlsbench build)"

    def agent_path(self, library: str) -> Path:
        return paths.agent_path(library)

    def launcher(self, library: str) -> Path:
        return paths.agent_path(library)

    def fit(self, plan: Plan, log: Log) -> None:
        if plan.device_side:
            raise TlsbenchError("[tls] device_side (--device-side) puts one side on a device: give a firmware "
                                "target (--target qemu:BOARD)")

    def probe_library(self, library: str, timeout: float | None = None) -> LibraryInfo:
        from tlsbench.targets.libraries import probe

        return probe(library) if timeout is None else probe(library, timeout=timeout)

    def listing_probe(self, library: str) -> LibraryInfo:
        return self.probe_library(library, timeout=20)

    def build(self, libraries: list[str] | None, opt: str, jobs: int | None, one_side: bool, log: Log) -> None:
        from tlsbench.targets import build

        if one_side:
            raise PlanError("--one-side is a firmware image: give --target qemu:BOARD")
        build.build_agents(libraries, jobs=jobs, log=log)

    def listed_libraries(self) -> list[str]:
        return versions.identifiers()

    def library_lines(self, library: str) -> list[str]:
        """Every pinned version, built or not."""
        v = versions.version_of(library)
        default = " (default)" if "@" not in library else ""
        out = [f"{library:12}  {v.note}{default}"]
        if not paths.agent_path(library).exists():
            return [*out, f"{'':12}  not built (tlsbench build --libraries {library}); source: "
                          f"{sources.describe(library)}"]
        try:
            info = self.listing_probe(library)
        except TlsbenchError as e:
            return [*out, f"{library:8}  unavailable: {e}"]
        return [*out, f"{'':12}  built: {info.version}", f"{'':12}  {info.source}", f"{'':12}  config: {info.config}"]


HOST = HostTarget("host")
