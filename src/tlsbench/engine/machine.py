"""What machine made a run: collected once per run, stored with it."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

from tlsbench import __version__, paths
from tlsbench.engine import pacing

# CPU flags the libraries dispatch on (OpenSSL's OPENSSL_ia32cap and armcap,
# wolfSSL's and Mbed TLS's CPUID checks), so a run says which code paths its
# figures come from: OpenSSL's RSA takes its AVX-512 IFMA path (avx512ifma with
# avx512vl) when the CPU has it, AES-GCM its VAES/VPCLMULQDQ path, SHA-256 SHA-NI;
# big-number code uses BMI2/ADX (mulx, adcx/adox). Arm: asimd, aes, pmull, sha2, sha3.
CPU_FEATURES = ("aes", "pclmulqdq", "vaes", "vpclmulqdq", "sha_ni", "avx", "avx2", "avx512f", "avx512vl",
                "avx512bw", "avx512ifma", "bmi2", "adx", "asimd", "pmull", "sha2", "sha3")


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _cpuinfo() -> dict[str, str]:
    info: dict[str, str] = {}
    for line in _read("/proc/cpuinfo").splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key and key not in info:
            info[key] = value.strip()
    return info


def _cmd(*args: str) -> str:
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def tlsbench_revision() -> str:
    rev = _cmd("git", "-C", str(paths.root()), "describe", "--always", "--dirty", "--abbrev=12")
    return f"{__version__}+{rev}" if rev else __version__


def collect(target=None) -> dict[str, object]:
    cpu = _cpuinfo()
    flags = set((cpu.get("flags") or cpu.get("Features") or "").split())
    os_release = dict(
        line.split("=", 1) for line in _read("/etc/os-release").splitlines() if "=" in line
    )
    governor = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").strip()
    mem_kb = next(
        (int(line.split()[1]) for line in _read("/proc/meminfo").splitlines() if line.startswith("MemTotal")),
        0,
    )
    return {
        "hostname": platform.node(),
        "cpu_model": cpu.get("model name") or cpu.get("CPU part") or platform.processor(),
        "cpu_flags": [f for f in CPU_FEATURES if f in flags],  # dispatch order, as listed above
        "cores": os.cpu_count(),
        "memory_mib": mem_kb // 1024,
        "arch": platform.machine(),
        "kernel": platform.release(),
        "os": os_release.get("PRETTY_NAME", "").strip('"'),
        "cpu_governor": governor or "unknown (no cpufreq)",
        "compiler": _cmd("cc", "--version").splitlines()[0] if _cmd("cc", "--version") else "unknown",
        "python": platform.python_version(),
        "tlsbench": tlsbench_revision(),
        **(target.metadata() if target is not None else {}),  # e.g. a board's core, compiler, emulator
        # what the paced rounds' references timed: runs compare their references only when it is the same
        **({"reference_workload": pacing.KIND} if target is not None and target.paced else {}),
        # the user's config files (text, SHA-256) and compiler options: they decide the figures
        **({"user_build": target.user.record()} if target is not None and target.user else {}),
    }
