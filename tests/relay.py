"""A counting TCP relay for tests: listens on 127.0.0.1, forwards each
connection to a target port and counts the bytes each way, an independent
count of what crossed the wire."""

from __future__ import annotations

import selectors
import socket
import threading
from dataclasses import dataclass


@dataclass
class Counted:
    c2s: int = 0
    s2c: int = 0


class CountingRelay:
    def __init__(self, target_port: int):
        self.target = target_port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.connections: list[Counted] = []
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self._stop:
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            counted = Counted()
            self.connections.append(counted)
            threading.Thread(target=self._pump, args=(client, upstream, counted), daemon=True).start()

    @staticmethod
    def _pump(client: socket.socket, upstream: socket.socket, counted: Counted) -> None:
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sel = selectors.DefaultSelector()
        sel.register(client, selectors.EVENT_READ, "c2s")
        sel.register(upstream, selectors.EVENT_READ, "s2c")
        open_ends = 2
        while open_ends:
            for key, _ in sel.select(timeout=30):
                src = key.fileobj
                dst = upstream if key.data == "c2s" else client
                data = src.recv(65536)  # type: ignore[union-attr]
                if not data:
                    sel.unregister(src)
                    open_ends -= 1
                    try:
                        dst.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    continue
                setattr(counted, key.data, getattr(counted, key.data) + len(data))
                dst.sendall(data)
        client.close()
        upstream.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        self.listener.close()
