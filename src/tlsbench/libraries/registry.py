"""The libraries under test: one registration line each, in catalog order
(the order of listings, builds and a plan's default libraries)."""

from __future__ import annotations

from tlsbench.libraries import bearssl, gnutls, mbedtls, openssl, wolfssl
from tlsbench.libraries.record import Library

LIBRARIES: tuple[Library, ...] = (
    mbedtls.LIBRARY,
    wolfssl.LIBRARY,
    openssl.LIBRARY,
    gnutls.LIBRARY,
    bearssl.LIBRARY,
)


def names() -> list[str]:
    return [lib.name for lib in LIBRARIES]


def get(name: str) -> Library | None:
    """The record of a library by its bare name (None: no such library)."""
    return next((lib for lib in LIBRARIES if lib.name == name), None)


def lacking(identifier: str, alg: str) -> str:
    """Why a library's agent does not offer an algorithm: the library's own reason where no build of it has
    it (every version and configuration alias: "mbedtls@a2" is Mbed TLS), else its build's configuration."""
    record = get(identifier.split("@", 1)[0])  # versions.base, which imports this module
    return (record.lacks.get(alg) if record else None) or "not supported by this library build"


def default_plan() -> tuple[str, ...]:
    """The libraries a plan that names none measures."""
    return tuple(lib.name for lib in LIBRARIES if lib.in_default_plan)


def firmware() -> tuple[str, ...]:
    """The libraries whose firmware images a build that names none builds."""
    return tuple(lib.name for lib in LIBRARIES if lib.firmware == "default")


def firmware_on_request() -> tuple[str, ...]:
    """Firmware libraries built only when named, so a default firmware build builds what it always did."""
    return tuple(lib.name for lib in LIBRARIES if lib.firmware == "on-request")
