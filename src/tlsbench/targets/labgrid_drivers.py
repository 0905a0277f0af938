"""A labgrid place's power and flashing drivers, through labgrid's own API.

The place's labgrid target comes from the farm's environment config
(``LG_ENV``, labgrid's own variable) when one of its targets holds the
place's ``RemotePlace``; else it is built here as labgrid-client builds it:
a ``Target`` with the place's ``RemotePlace``, whose exported resources
labgrid adds to it. Then:

- power: the target's ``PowerProtocol`` driver, else the driver
  labgrid-client's ``power`` command picks for the place's power resource
  (``NetworkPowerPort`` -> ``NetworkPowerDriver``, ...);
- flashing: the target's ``BootstrapProtocol`` driver (``OpenOCDDriver``,
  ``FlashromDriver``, ...), as labgrid-client's ``bootstrap`` command uses
  it. How a board is flashed depends on its debugger and the farm (an
  OpenOCD config, a script), so only the farm's config can say: without
  one, a place has no flasher here.

Each step is one process (``python -m tlsbench.targets.labgrid_drivers
--coordinator HOST:PORT --place P drivers|cycle|flash IMAGE``), so the
caller bounds it with a timeout: a hung coordinator, power switch or
programmer is one error line, never a hung run. A failure is one line on
stderr naming the place, the step and the driver, and exit status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

# the place's power resource -> the driver labgrid-client's `power` command instantiates for it
POWER_DRIVERS = (
    ("NetworkPowerPort", "NetworkPowerDriver"),
    ("NetworkUSBPowerPort", "USBPowerDriver"),
    ("NetworkSiSPMPowerPort", "SiSPMPowerDriver"),
    ("PDUDaemonPort", "PDUDaemonDriver"),
    ("TasmotaPowerPort", "TasmotaPowerDriver"),
    ("NetworkYKUSHPowerPort", "YKUSHPowerDriver"),
)


def place_target(place: str) -> Any:
    """The place's labgrid target (the coordinator from LG_COORDINATOR)."""
    from labgrid import Environment, Target
    from labgrid.remote.client import find_role_by_place
    from labgrid.resource.remote import RemotePlace

    config = os.environ.get("LG_ENV", "")
    if config:
        env = Environment(config_file=config)
        role = find_role_by_place(env.config.get_targets(), place)
        if role is not None:
            return env.get_target(role)
    target = Target(place)
    RemotePlace(target, name=place)
    return target


def power_driver(target: Any) -> Any | None:
    """The target's power driver (not yet active), or None."""
    import labgrid.driver  # noqa: F401 (registers labgrid's drivers with its factory)
    from labgrid import target_factory
    from labgrid.exceptions import NoDriverFoundError

    try:
        return target.get_driver("PowerProtocol", activate=False)
    except NoDriverFoundError:
        pass
    for resource in target.resources:
        for resource_cls, driver_cls in POWER_DRIVERS:
            if type(resource).__name__ == resource_cls:
                return target_factory.class_from_string(driver_cls)(target, name=None)
    return None


def flash_driver(target: Any) -> Any | None:
    """The target's flashing (BootstrapProtocol) driver, not yet active, or None."""
    from labgrid.exceptions import NoDriverFoundError

    try:
        return target.get_driver("BootstrapProtocol", activate=False)
    except NoDriverFoundError:
        return None


def _name(driver: Any | None) -> str | None:
    return type(driver).__name__ if driver is not None else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tlsbench.targets.labgrid_drivers")
    p.add_argument("--coordinator", required=True)
    p.add_argument("--place", required=True)
    sub = p.add_subparsers(dest="step", required=True)
    sub.add_parser("drivers", help="print the place's power and flashing drivers as JSON")
    sub.add_parser("cycle", help="power-cycle the board")
    f = sub.add_parser("flash", help="write IMAGE to the board")
    f.add_argument("image")
    a = p.parse_args(argv)
    os.environ["LG_COORDINATOR"] = a.coordinator
    what, driver = "reading its resources", None
    try:
        target = place_target(a.place)
        if a.step == "drivers":
            print(json.dumps({"power": _name(power_driver(target)), "flash": _name(flash_driver(target))}))
            return 0
        if a.step == "cycle":
            what, driver = "power cycle", power_driver(target)
            if driver is None:
                raise LookupError("it has no power resource a labgrid power driver can use")
            target.activate(driver)
            driver.cycle()
            return 0
        what, driver = f"flashing {a.image}", flash_driver(target)
        if driver is None:
            raise LookupError("its labgrid environment (LG_ENV) gives it no BootstrapProtocol driver")
        target.activate(driver)
        driver.load(os.path.abspath(a.image))
        return 0
    except Exception as e:  # noqa: BLE001 (a process boundary: any labgrid or backend failure is one line)
        through = f" through {_name(driver)}" if driver is not None else ""
        why = " ".join(str(e).split()) or type(e).__name__
        print(f"labgrid place {a.place}: {what}{through} failed: {type(e).__name__}: {why[:300]}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
