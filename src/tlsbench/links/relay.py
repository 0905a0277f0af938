"""A link emulator in user space (the kernel here has no netem): a TCP relay
on 127.0.0.1 that, per direction, cuts what it receives into packets of the
link's largest payload, sends them one after another at the direction's
bandwidth (each packet's headers and frames counted as the model counts
them) and delivers each a fixed one-way latency after its last bit.

For every connection it records when the relay accepted it and when each
chunk was delivered with the bytes delivered so far, so a test can read when
the last handshake byte arrived. The TCP handshake itself is not delayed
(the client connects to the relay at once)."""

from __future__ import annotations

import heapq
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field

from tlsbench.links.model import direction
from tlsbench.links.profiles import LinkProfile


@dataclass
class Timeline:
    accepted_ns: int = 0
    # per direction: (delivery time, bytes delivered so far, including this chunk)
    c2s: list[tuple[int, int]] = field(default_factory=list)
    s2c: list[tuple[int, int]] = field(default_factory=list)

    def reached(self, way: str, nbytes: int) -> int | None:
        """When the first nbytes of that direction had been delivered (monotonic ns)."""
        for t, total in getattr(self, way):
            if total >= nbytes:
                return t
        return None


class _Pacer:
    """One direction: a send queue at the link's bandwidth, then the latency."""

    def __init__(self, profile: LinkProfile, kbit_s: float):
        self.profile = profile
        self.kbit_s = kbit_s
        self.busy_until = 0

    def schedule(self, now: int, nbytes: int) -> list[tuple[int, int]]:
        """(delivery time, size) of each packet of a chunk that arrived at `now`."""
        p = self.profile
        out = []
        left = nbytes
        while left:
            n = min(left, p.max_payload)
            left -= n
            start = max(now, self.busy_until)
            self.busy_until = start + int(direction(p, n, 1, self.kbit_s).serialisation_ns)
            out.append((self.busy_until + int(p.one_way_latency_ms * 1_000_000), n))
        return out


class LinkRelay:
    def __init__(self, target_port: int, profile: LinkProfile):
        self.target = target_port
        self.profile = profile
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))  # loopback only
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.timelines: list[Timeline] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            tl = Timeline(accepted_ns=time.monotonic_ns())
            self.timelines.append(tl)
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._run, args=(client, upstream, tl), daemon=True).start()

    def _run(self, client: socket.socket, upstream: socket.socket, tl: Timeline) -> None:
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        p = self.profile
        ways = {"c2s": (client, upstream, _Pacer(p, p.up_kbit_s)),
                "s2c": (upstream, client, _Pacer(p, p.down_kbit_s))}
        pending: list[tuple[int, int, str, bytes]] = []  # (deliver at, sequence, direction, data)
        seq = 0
        delivered = {"c2s": 0, "s2c": 0}
        closed: set[str] = set()
        sel = selectors.DefaultSelector()
        for way, (src, _dst, _p) in ways.items():
            sel.register(src, selectors.EVENT_READ, way)
        try:
            while len(closed) < 2 or pending:
                now = time.monotonic_ns()
                while pending and pending[0][0] <= now:
                    _t, _s, way, data = heapq.heappop(pending)
                    if data:
                        ways[way][1].sendall(data)
                        delivered[way] += len(data)
                        getattr(tl, way).append((time.monotonic_ns(), delivered[way]))
                    else:  # the source closed: pass it on once its data is through
                        try:
                            ways[way][1].shutdown(socket.SHUT_WR)
                        except OSError:
                            pass
                timeout = max(0.0, (pending[0][0] - now) / 1e9) if pending else 1.0
                if len(closed) == 2:
                    time.sleep(timeout)
                    continue
                for key, _ in sel.select(timeout=timeout):
                    way = key.data
                    src, _dst, pacer = ways[way]
                    data = src.recv(65536)  # type: ignore[union-attr]
                    arrived = time.monotonic_ns()
                    if not data:
                        sel.unregister(src)
                        closed.add(way)
                        last = max([t for t, _s, w, _d in pending if w == way], default=arrived)
                        heapq.heappush(pending, (last, seq, way, b""))
                        seq += 1
                        continue
                    offset = 0
                    for at, n in pacer.schedule(arrived, len(data)):
                        heapq.heappush(pending, (at, seq, way, data[offset:offset + n]))
                        seq += 1
                        offset += n
        except OSError:
            pass
        finally:
            sel.close()
            client.close()
            upstream.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.listener.close()

    def __enter__(self) -> LinkRelay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
