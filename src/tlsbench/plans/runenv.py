"""The environment a run's processes start with (plan key ``[method] env``).

Every process a run starts (agents, TLS servers, client tools) inherits
tlsbench's environment, so the plan's variables are set on it for the length
of the run and restored afterwards. They are stored with the run's plan and
shown in its report; compare lists a difference in them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

from tlsbench.errors import PlanError

# variables that change which code runs, like LD_PRELOAD: the dynamic loader's, an interpreter's
# module path, OpenSSL's configuration and module folders (they load providers and engines),
# glibc's character-set and locale modules, a shell's start-up file. Tunables that keep the code
# (OPENSSL_ia32cap, GNUTLS_CPUID_OVERRIDE: the presets use them) stay allowed.
LOADER_ENV = re.compile(r"LD_[A-Za-z0-9_]*|PATH|PYTHON(PATH|HOME|STARTUP|USERBASE|EXECUTABLE)|OPENSSL_CONF"
                        r"|OPENSSL_CONF_INCLUDE|OPENSSL_MODULES|OPENSSL_ENGINES|GNUTLS_SYSTEM_PRIORITY_FILE"
                        r"|GCONV_PATH|LOCPATH|NLSPATH|BASH_ENV|ENV|PERL5LIB|PERL5OPT|RUBYLIB|RUBYOPT|NODE_OPTIONS"
                        r"|NODE_PATH|QEMU_LD_PREFIX")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_assignments(items: list[str], allow_loader: bool = False) -> dict[str, str]:
    """NAME=VALUE strings from the command line."""
    env: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise PlanError(f"--env takes NAME=VALUE, got {item!r}")
        if name in env:
            raise PlanError(f"--env sets {name} twice")
        env[name] = value
    return check_env(env, allow_loader)


def check_env(value: object, allow_loader: bool = False) -> dict[str, str]:
    """An environment for the run's processes: names as in a shell, string values."""
    if not isinstance(value, dict):
        raise PlanError('must be a table of NAME = "value"')
    for name, v in value.items():
        if not ENV_NAME.fullmatch(name):
            raise PlanError(f"{name!r} is not a valid environment variable name")
        if not isinstance(v, str):
            raise PlanError(f"{name}: the value must be a string, got {v!r}")
        if "\0" in v:
            raise PlanError(f"{name}: the value contains a NUL character")
        if name.startswith("TLSBENCH_"):
            raise PlanError(f"{name}: tlsbench's own settings cannot be set by a plan")
        if LOADER_ENV.fullmatch(name) and not allow_loader:
            raise PlanError(f"{name} changes which code runs and is measured: refused unless allowed "
                            "([method] allow_loader_env = true, or --allow-loader-env)")
    return dict(value)


@contextmanager
def applied(env: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
