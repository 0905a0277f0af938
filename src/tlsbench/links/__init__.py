"""Links: what a network between the two sides adds to a handshake (a model).

Link profiles are data (src/tlsbench/targets/links/*.toml, loaded by
``profiles``); ``model`` turns a stored handshake (compute per side, flights,
bytes per direction) and a profile into a modelled time to the first
application byte and a radio energy; ``relay`` is a user-space link emulator
on 127.0.0.1 that validates the model against real handshakes; ``view``
renders the model for a stored run."""
