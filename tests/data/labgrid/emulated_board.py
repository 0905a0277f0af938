"""The test's stand-in for a board's flash programmer, as a labgrid resource
and driver (loaded through the environment config's ``imports``, see
env.yaml): ``EmulatedBoardFlash`` is where the emulated board takes a new
image (an HTTP URL on loopback, served by tests/targets/test_labgrid.py), and
``EmulatedBoardFlashDriver`` a ``BootstrapProtocol`` driver whose ``load``
writes the image there, as ``OpenOCDDriver`` or ``FlashromDriver`` write a
real board's flash. tlsbench reaches it only through labgrid's
``BootstrapProtocol``, as it reaches a farm's real flasher."""

import urllib.request
from pathlib import Path

import attr
from labgrid.driver.common import Driver
from labgrid.factory import target_factory
from labgrid.protocol import BootstrapProtocol
from labgrid.resource.common import Resource
from labgrid.step import step


@target_factory.reg_resource
@attr.s(eq=False)
class EmulatedBoardFlash(Resource):
    url = attr.ib(validator=attr.validators.instance_of(str))


@target_factory.reg_driver
@attr.s(eq=False)
class EmulatedBoardFlashDriver(Driver, BootstrapProtocol):
    bindings = {"flash": "EmulatedBoardFlash"}

    @Driver.check_active
    @step(args=["filename"])
    def load(self, filename=None):
        request = urllib.request.Request(self.flash.url, data=Path(filename).read_bytes(), method="PUT")
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
