"""This machine: the host agents themselves, timed by a noisy clock."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from tlsbench import paths, versions
from tlsbench.errors import PlanError, TlsbenchError
from tlsbench.targets import sources
from tlsbench.targets.base import Target

if TYPE_CHECKING:
    from tlsbench.plans.model import Plan
    from tlsbench.targets.libraries import LibraryInfo


class HostTarget(Target):
    kind: ClassVar[str] = "host"
    takes_argument: ClassVar[bool] = False
    paced: ClassVar[bool] = True
    suites_by_handshake: ClassVar[bool] = True
    builds_user_images: ClassVar[bool] = True

    @classmethod
    def from_spec(cls, name: str, rest: str, board: str | None, profiles: tuple[tuple[str, str], ...],
                  coordinator: str | None) -> Target:
        if profiles:
            raise PlanError("--profile selects firmware builds; host agents use each library's host profile")
        return HOST

    def describe(self) -> str:
        return "this machine, Linux (agents built by tlsbench build)"

    @classmethod
    def listing(cls) -> list[tuple[str, str]]:
        return [("host", HOST.describe())]

    def agent_path(self, library: str) -> Path:
        return paths.agent_path(library, self.build_name)

    def launcher(self, library: str) -> Path:
        return self.agent_path(library)

    def agent_environment(self) -> dict[str, str]:
        # every agent of the run (servers too) from the user's build
        return {paths.AGENT_DIR_ENV: str(self.build_dir())} if self.user else {}

    def prepare_user_build(self, libraries: list[str]) -> None:
        if self.user:  # the user's host agents, built when missing
            from tlsbench.targets import build

            build.ensure_host_agents(self, self.user.with_aliases(libraries))

    def turned_off(self) -> dict[str, set[str]]:
        from tlsbench.targets import build

        return build.turned_off(self)

    def fit(self, plan: Plan) -> None:
        if plan.device_side:
            raise TlsbenchError("[tls] device_side (--device-side) puts one side on a device: give a firmware "
                                "target (--target qemu:BOARD)")

    def probe_library(self, library: str, timeout: float | None = None) -> LibraryInfo:
        from tlsbench.targets.libraries import probe

        path = self.agent_path(library) if self.user else None
        return probe(library, path=path) if timeout is None else probe(library, timeout=timeout, path=path)

    def listing_probe(self, library: str) -> LibraryInfo:
        return self.probe_library(library, timeout=20)

    def build(self, libraries: list[str] | None, opt: str, jobs: int | None, one_side: bool) -> None:
        from tlsbench.targets import build

        if one_side:
            raise PlanError("--one-side is a firmware image: give --target qemu:BOARD")
        build.build_host_agents(self, libraries, jobs=jobs)

    def listed_libraries(self) -> list[str]:
        return versions.identifiers()

    def library_lines(self, library: str) -> list[str]:
        """Every pinned version, built or not."""
        v = versions.version_of(library)
        default = " (default)" if "@" not in library else ""
        out = [f"{library:12}  {v.note}{default}"]
        if not self.agent_path(library).exists():
            return [*out, f"{'':12}  not built (tlsbench build --libraries {library}); source: "
                          f"{sources.describe(library)}"]
        try:
            info = self.listing_probe(library)
        except TlsbenchError as e:
            return [*out, f"{library:8}  unavailable: {e}"]
        return [*out, f"{'':12}  built: {info.version}", f"{'':12}  {info.source}", f"{'':12}  config: {info.config}"]


HOST = HostTarget("host")
