"""How a library takes a user's own configuration file (--config): each
library's documented mechanism, declared by its record (config_mechanism),
applied by targets/userconfig.py, which knows no library by name.

A mechanism says what the compiler includes to see the whole configuration,
what of it the harness needs (HARNESS NEEDS: refused before building when
off), which cases each define decides (so a case the user's file turns off
is "unsupported" with the define named), and how the file is layered: the
include paths and defines with which the library's build sees it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Need:
    """A define the harness needs from a library's configuration."""
    define: str
    why: str
    value: str | None = None  # the value it must have (None: defined at all)
    firmware_only: bool = False


@dataclass(frozen=True)
class Layering:
    """Where one build of a library reads its configuration from."""
    adapter: Path  # agent/adapters/<library>
    tree: Path  # the library's unpacked source tree
    profile: str  # the build profile's name (agent/adapters/<library>/profiles/<profile>.h)
    firmware: bool

    @property
    def profile_header(self) -> Path:
        return self.adapter / "profiles" / f"{self.profile}.h"

    def bare(self) -> list[str]:
        return ["-DTB_BARE_METAL=1"] if self.firmware else []


@dataclass(frozen=True)
class ConfigMechanism(ABC):
    header: str  # what the compiler includes to see the whole configuration
    layered: str  # the help text's one line on how the file is applied
    needs: tuple[Need, ...]
    # (pattern on a case's name library/kind/alg/op, define): the define the case needs on ("!NAME": off)
    case_needs: tuple[tuple[str, str], ...]

    def staged_name(self, library: str, full: bool) -> str:
        """The fixed name under which the build compiles its copy of the user's file."""
        return f"{library}_user_config.h"

    def full_name_problem(self, path: Path) -> str | None:
        """Why a file cannot be the whole configuration under its name (None: it can)."""
        return None

    def build_file(self, staged: Path, full: bool, profile_header: Path, write: WriteFile) -> Path:
        """What the build is given as the user's configuration (TB_<LIB>_USER_CONFIG)."""
        return staged

    @abstractmethod
    def preprocessor_args(self, where: Layering, user_file: Path | None, full: bool, write: WriteFile) -> list[str]:
        """The include paths and defines with which the library's build sees the user's file over ours
        (user_file None: ours alone, to tell what the user's turned off)."""


class WriteFile:
    """Writes a generated header into the build folder (only when its text changes) and returns its path."""

    def __init__(self, folder: Path, write) -> None:
        self.folder, self._write = folder, write

    def __call__(self, name: str, text: str) -> Path:
        return self._write(self.folder / name, text)


@dataclass(frozen=True)
class MbedtlsUserConfig(ConfigMechanism):
    """Mbed TLS: the user's file as MBEDTLS_USER_CONFIG_FILE after our base
    (tb_mbedtls_config.h) and the build profile; with full:, the whole
    MBEDTLS_CONFIG_FILE (the profile still after it)."""

    def _layer(self, profile_header: Path, user_file: Path, name: str, write: WriteFile) -> Path:
        return write(name, "/* written by tlsbench: the build profile, then the user's configuration */\n"
                           f'#include "{profile_header}"\n#include "{user_file}"\n')

    def build_file(self, staged: Path, full: bool, profile_header: Path, write: WriteFile) -> Path:
        return staged if full else self._layer(profile_header, staged, "tb_mbedtls_user_layer.h", write)

    def preprocessor_args(self, where: Layering, user_file: Path | None, full: bool, write: WriteFile) -> list[str]:
        ours = where.adapter / "tb_mbedtls_config.h"
        if user_file is None:
            base, user = ours, where.profile_header
        elif full:
            base, user = user_file, where.profile_header
        else:
            base, user = ours, self._layer(where.profile_header, user_file, "tb_mbedtls_check.h", write)
        return [f"-I{where.tree / 'include'}", f'-DMBEDTLS_CONFIG_FILE="{base}"',
                f'-DMBEDTLS_USER_CONFIG_FILE="{user}"', *where.bare()]


@dataclass(frozen=True)
class WolfsslUserSettings(ConfigMechanism):
    """wolfSSL: our user_settings.h (WOLFSSL_USER_SETTINGS) includes the
    user's file last (after our base and profile, so it may #undef what it
    turns off); with full:, their own user_settings.h instead of ours."""

    def staged_name(self, library: str, full: bool) -> str:
        return "user_settings.h" if full else super().staged_name(library, full)

    def full_name_problem(self, path: Path) -> str | None:
        if path.name == "user_settings.h":
            return None
        return (f"wolfSSL reads a file named user_settings.h (WOLFSSL_USER_SETTINGS); rename {path.name} or layer it"
                " without full:")

    def preprocessor_args(self, where: Layering, user_file: Path | None, full: bool, write: WriteFile) -> list[str]:
        if user_file is None:
            settings = [f"-I{where.adapter}"]
        elif full:
            settings = [f"-I{user_file.parent}"]
        else:
            settings = [f"-I{where.adapter}", f'-DTB_WOLFSSL_USER_CONFIG="{user_file}"']
        return [*settings, f"-I{where.tree}", "-DWOLFSSL_USER_SETTINGS",
                f'-DTB_WOLFSSL_PROFILE_HEADER="profiles/{where.profile}.h"', *where.bare()]
