"""Where agents run and how they are built: host, QEMU boards, serial boards."""
