"""`tlsbench sizes`: builds the size probes (families.size.images) and
measures them through the runner as a run of plan "code-size": a case per
library and primitive (kind "size"), each measured by the size family like
any other family's case. The libraries are recorded from their pinned
sources and build configuration (a probe is no agent to ask)."""

from __future__ import annotations

from tlsbench.engine import runner
from tlsbench.engine.case import Case
from tlsbench.engine.store import Store
from tlsbench.families.size.family import KIND, OP
from tlsbench.families.size.images import PRIMITIVES, check_built, chosen, library_config, manifest, unsupported
from tlsbench.plans.model import Method
from tlsbench.plans.plan import Plan
from tlsbench.targets import build, sources
from tlsbench.targets import target as targets
from tlsbench.targets.libraries import LibraryInfo

__all__ = ["PRIMITIVES", "chosen", "manifest", "run", "unsupported"]

METRICS = ("flash_bytes", "ram_bytes")


def _library(target: targets.Target, lib: str) -> LibraryInfo:
    """A library as the run records it: its pinned version (or the user's tree) and the agent build's configuration."""
    version = sources.load_lock().get(sources.lock_key(lib))
    user = sources.user_source(lib)  # a user-supplied tree is not the pinned version
    return LibraryInfo(lib, target.cmake_dir(), f"user tree {user.name}" if user else version.version if version
                       else "unknown", library_config(target, lib), target.name, list(METRICS), {},
                       source=sources.describe(lib))


def run(target: targets.Target, store: Store, libraries: list[str] | None = None, opt: str = "Os",
        jobs: int | None = None, probes: list[str] | None = None) -> int:
    """Builds the probes (every one, or these), measures them and stores a
    "code-size" run; returns its id."""
    rows = chosen(probes)
    # library identifiers: wolfssl@5.9 has its own probes, beside the default tree's
    libs = build.firmware_identifiers(libraries)
    build.build_firmware(target, libs, opt=opt, jobs=jobs,
                         size_probes=True if probes is None else rows)
    # the probes of every library, also where its whole agent does not fit the board
    check_built(target, libs, rows, only=probes is not None)
    source = (f"tlsbench sizes --target {target.name}"
              + (f" --profile {','.join(f'{k}={v}' for k, v in target.profiles)}" if target.profiles else "")
              + (f" --probes {','.join(rows)}" if probes is not None else "") + f" --opt {opt}")
    method = {"repeats": 1, "rounds": 1, "warmup": 0, "outliers": "none", "min_sample_ms": 0,
              "size_probes": "per library and primitive a minimal image (agent/sizeprobe) minus the"
                             " library's empty image, from the linker maps; the probe's own object"
                             " (its calls and test vectors) left out"}
    stored = {"name": "code-size", "libraries": libs, "primitives": list(rows), "opt": opt, "method": method}
    plan = Plan(name="code-size", libraries=libs, kinds=[KIND],
                method=Method(warmup=0, repeats=1, outliers="none", min_sample_ms=0, rounds=1))
    cases = [Case(lib, KIND, probe, OP, None) for lib in libs for probe in rows]
    return runner.run_built(plan, stored, source, store, target, [_library(target, lib) for lib in libs], cases)
