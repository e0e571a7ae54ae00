"""Red-team attacks on the process sandbox (docs/isolation.md, "Threat table").

Attacker model: the code of a step with `os`, `signal`, `ctypes` and `numpy` authorized, on a
root host (and on an unprivileged one), i.e. a fully compromised worker (ctypes gives it any
system call the kernel layers allow), attacking the host, its siblings in the same pool, the
fork server and the jail's processes.

Naming: `test_fixed_*` is an attack that succeeded when the red team wrote it (its docstring
says what the hole was and how it was closed); `test_held_*` is an attack that the sandbox
stopped from the start; both assert that the host, the siblings and the fork server are
untouched. `test_known_limit_*` asserts a documented limit (the threat table's last column)
and the bound that applies to it.

Every test stays under about 20 s, and none of them does lasting harm: resource attacks on
host-wide counters (pids, root's inotify instances, root's queued signals) are kept small or
held for well under a second.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import smolagents_native
from smolagents_native import ExecutionTimeoutError, InterpreterError, LocalPythonExecutor
from smolagents_native import WorkerPool
from smolagents_native import _core
from smolagents_native.isolation import protocol as P

from .compromised import run_compromised

ROOT = os.geteuid() == 0
PKG_DIR = os.path.dirname(os.path.abspath(smolagents_native.__file__))
PKG_PARENT = os.path.dirname(PKG_DIR)
ATTACKER_IMPORTS = ["os", "signal", "ctypes", "numpy"]

# ---------------------------------------------------------------------------------------------
# Helpers: code an attacker runs in a real executor (the policy applies to it; in worker mode
# ctypes reaches the kernel).

# The sequence number of the RUN being served, read from the worker's own memory: the
# channel's receive buffer still holds the RUN frame, whose 9-byte header (length, kind 1,
# sequence number) precedes the code, which starts with a marker line. PR_SET_DUMPABLE is not
# filtered, so /proc/self/mem opens once the worker makes itself dumpable again.
_FIND_SEQ = r'''
import ctypes, os
_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
def _read_all(path):
    fd = os.open(path, os.O_RDONLY)
    out = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out += chunk
    os.close(fd)
    return out
_marker = b"#" + b"FORGE-MARK" + b"\n"
_mem = os.open("/proc/self/mem", os.O_RDONLY)
_found = {}
for _line in _read_all("/proc/self/maps").decode().splitlines():
    _parts = _line.split()
    _lo, _hi = (int(_x, 16) for _x in _parts[0].split("-"))
    if not _parts[1].startswith("rw") or _hi - _lo > (256 << 20):
        continue
    try:
        _blob = os.pread(_mem, _hi - _lo, _lo)
    except OSError:
        continue
    _at = _blob.find(_marker)
    while _at >= 0:
        if _at >= 9 and _blob[_at - 5] == 1:
            _length = int.from_bytes(_blob[_at - 9:_at - 5], "little")
            if 16 <= _length < (1 << 20):
                _s = int.from_bytes(_blob[_at - 4:_at], "little")
                _found[_s] = _found.get(_s, 0) + 1
        _at = _blob.find(_marker, _at + 1)
    del _blob
os.close(_mem)
SEQ = max(_found, key=_found.get) if _found else None
'''

_CHANNEL = r'''
import stat
def _is_socket(fd):
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False
CHANNEL = [fd for fd in range(3, 64) if _is_socket(fd)][0]
def varint(n):
    out = b""
    while True:
        if n > 0x7F:
            out += bytes([(n & 0x7F) | 0x80])
            n >>= 7
        else:
            return out + bytes([n])
def pickle_record(data):
    """An encoded value: the extension record "pickle" holding `data`."""
    return b"x\x00" + varint(6) + b"pickle" + b"b" + varint(len(data)) + data
def done_payload(output, updates=(), imported=()):
    """A DONE record (status 0) with `output` (an encoded value), `updates` ((name, value)
    bytes pairs) and `imported` (module names, bytes); protocol._DONE's layout."""
    head = (bytes([0, 0]) + (0).to_bytes(8, "little") + (0).to_bytes(4, "little")
            + len(output).to_bytes(4, "little") + len(updates).to_bytes(4, "little")
            + (0).to_bytes(4, "little") + len(imported).to_bytes(4, "little")
            + (0).to_bytes(4, "little"))  # lineno: none
    body = b""
    for name, value in updates:
        body += (len(name).to_bytes(2, "little") + name + len(value).to_bytes(4, "little")
                 + value)
    for name in imported:
        body += len(name).to_bytes(2, "little") + name
    return head + output + body
def send_frame(kind, seq, payload):
    frame = len(payload).to_bytes(4, "little") + bytes([kind]) + seq.to_bytes(4, "little")
    data = frame + payload
    for at in range(0, len(data), 1 << 18):
        chunk = data[at:at + (1 << 18)]
        while chunk:
            chunk = chunk[os.write(CHANNEL, chunk):]
'''


def _forging_code(build_payload: str, then: str = "import time\ntime.sleep(30)\n") -> str:
    """A step that finds its own sequence number, builds PAYLOAD (`build_payload` assigns
    it) and writes a DONE frame in turn on the channel, then runs `then`."""
    return ("#FORGE-MARK\n" + _FIND_SEQ + _CHANNEL + build_payload
            + "\nsend_frame(10, SEQ, PAYLOAD)\n" + then)


def _rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def _alive(pids) -> list[int]:
    alive = []
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.append(p)
        except OSError:
            pass
    return alive


def _host_python(code: str, *args: str, timeout: float = 90, cwd: str = "/",
                 preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, preexec_fn=preexec)


# =============================================================================================
# Attacks that succeeded when they were written, and the known limits.
# =============================================================================================

# --- Host: hangs and memory through the wire ------------------------------------------------


def test_known_limit_code_with_native_access_reads_the_sequence_number(make_process_executor):
    """KNOWN LIMIT (docs/isolation.md, threat table). The random first
    sequence number ties replies to requests; it is not a secret from the code: with ctypes
    (or `os` and /proc/self/mem) the code reads its own memory and finds the RUN header in
    the channel's receive buffer. Every forged-frame attack in this file uses it; what holds
    is that the host treats any frame in turn as untrusted data (the held tests)."""
    ex = make_process_executor(ATTACKER_IMPORTS)
    seq = ex("#FORGE-MARK\n" + _FIND_SEQ + "SEQ").output
    assert seq == ex._seq
    assert ex("6 * 7").output == 42


def test_fixed_a_pickle_record_is_prechecked_and_unpickled_outside_the_deadline(
        make_process_executor):
    """Was a HOLE, now held. A DONE frame (in turn) whose output is the extension record "pickle": the host
    runs `check_pickle` (pure Python, about 2 us per opcode here) and then the unpickler inside
    `wire_loads`'s build hook, where the deadline is only looked at after the hook returns.
    10 MB of `NONE POP` opcodes keep the host busy ~5-10 s past a 1 s deadline; a frame of
    `frame_bytes` (1 GiB by default) keeps it ~30 min. No cross_classes are needed: the host
    accepts a pickle record from any worker.
    Fix (isolation/protocol.py): refuse the "pickle" record unless the executor lists cross_classes;
    bound check_pickle by the deadline and by an opcode budget (len(data) and the number of
    objects it may make), check the deadline inside the pre-pass loop; or run it in C."""
    ex = make_process_executor(ATTACKER_IMPORTS, timeout_seconds=1)
    code = _forging_code(
        'PAYLOAD = done_payload(pickle_record(b"\\x80\\x04" + b"N0" * 5_000_000 + b"N."))')
    start = time.monotonic()
    with pytest.raises((InterpreterError, ExecutionTimeoutError)):
        ex(code)
    elapsed = time.monotonic() - start
    assert ex("6 * 7").output == 42
    assert elapsed < 1 + 0.5 + 1.5, f"the host was held {elapsed:.1f} s by a 1 s step"


def test_fixed_a_pickle_record_floods_a_dict_with_colliding_keys_outside_the_deadline(
        make_process_executor):
    """Was a HOLE, now held. The codec bounds hash flooding by the deadline (WIRE_INSERT_UNITS), but a pickle
    record builds its dict in C's unpickler, outside any deadline: 35,000 int keys equal
    modulo 2**61 - 1 (490 KB) make each insertion probe all the keys before it. Measured
    here: 280 KB -> 4.9 s, 560 KB -> 23 s, 1.1 MB -> 75 s (quadratic): a 10 MB frame holds
    the host for hours.
    Fix: as above (no pickle records without cross_classes), and never give the unpickler
    an untrusted dict or set: the pre-pass can refuse SETITEM(S)/ADDITEMS/FROZENSET outside a
    listed class's state, or the restricted unpickler can build dicts and sets with a
    deadline check every N insertions (a Python-level load_setitems override)."""
    ex = make_process_executor(ATTACKER_IMPORTS, timeout_seconds=1)
    code = _forging_code(
        "M = (1 << 61) - 1\n"
        "body = b''.join(b'\\x8a\\x0b' + (i * M).to_bytes(11, 'little', signed=True) + b'N'"
        " for i in range(1, 35_001))\n"
        "PAYLOAD = done_payload(pickle_record(b'\\x80\\x04}(' + body + b'u.'))")
    start = time.monotonic()
    with pytest.raises((InterpreterError, ExecutionTimeoutError)):
        ex(code)
    elapsed = time.monotonic() - start
    assert ex("6 * 7").output == 42
    assert elapsed < 1 + 0.5 + 1.5, f"the host was held {elapsed:.1f} s by a 1 s step"


@pytest.mark.no_sanitizer  # address-space limits, RSS or a memory scan: ASan's shadow memory
def test_held_decoded_values_cost_at_most_32_times_their_frame_in_host_memory():
    """HELD (was a hole: an empty set is 2 bytes on the wire and ~230 bytes in the host, so
    one forged DONE of 1 GiB asked the host for >100 GiB). `wire_loads` charges what each
    object costs (type and length, before it is made) against 32 bytes per byte of the
    encoding and 1 MiB: the flood is malformed (the worker would be stopped) before the host
    holds more than that."""
    n = 1_000_000
    header = _core.wire_dumps([None] * n)[:-n]
    frame = header + b"S\x00" * n
    before = _rss()
    with pytest.raises(P.ProtocolError, match="malformed value: it would take more than"):
        P.decode_value(frame, {}, time.monotonic() + 60)
    grown = _rss() - before
    assert grown < 32 * len(frame) + (8 << 20), f"{grown >> 20} MiB for {len(frame)} bytes"


def test_held_the_worker_refuses_what_the_host_would_refuse_and_sends_a_stand_in(
        make_process_executor):
    """The encoder computes the same cost as the decoder: an honest worker never sends a
    value the host refuses (which would stop the worker); the output is a stand-in and the
    executor, its state and its next step are intact."""
    ex = make_process_executor([])
    ex("keep = 41")
    out = ex("[set() for _ in range(200000)]").output
    assert type(out).__name__ == "WorkerValue", type(out)
    assert ex("keep + 1").output == 42


def test_fixed_a_frame_header_alone_makes_the_host_allocate_frame_bytes(make_process_executor):
    """Was a HOLE, now held. `Channel.recv` checks the announced length against frame_bytes (1 GiB by
    default), then allocates `bytearray(length)` (zero-filled: resident at once) before a
    single byte of the payload has arrived. A 10-byte write (a header in turn and one byte)
    holds 1 GiB of host memory until the step's deadline, per executor at once, and for as
    long as the executor lives when timeout_seconds is None. (The threat table lists "a
    40-byte memory bomb" as stopped.)
    Fix (protocol.Channel.recv): grow the payload buffer with what arrives (e.g. receive
    into chunks of at most 1 MiB and join at the end, or double the buffer as bytes come),
    so that memory follows bytes actually sent; and a lower default frame_bytes."""
    ex = make_process_executor(ATTACKER_IMPORTS, timeout_seconds=2)
    code = ("#FORGE-MARK\n" + _FIND_SEQ + _CHANNEL
            + "os.write(CHANNEL, ((1 << 30) - 16).to_bytes(4, 'little') + bytes([10])"
              " + SEQ.to_bytes(4, 'little') + b'x')\nimport time\ntime.sleep(30)\n")
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss())
            time.sleep(0.02)

    base = _rss()
    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        with pytest.raises((InterpreterError, ExecutionTimeoutError)):
            ex(code)
    finally:
        done.set()
        sampler.join()
    assert ex("6 * 7").output == 42
    grown = peak[0] - base
    assert grown < 64 << 20, f"10 bytes from the worker held {grown >> 20} MiB of the host"


@pytest.mark.no_sanitizer  # address-space limits, RSS or a memory scan: ASan's shadow memory
def test_held_a_shared_reference_output_does_not_hang_the_hosts_own_observability():
    """HELD (was a hole; the fix: observability.bounded_str and text_estimate walk each
    distinct object once, the agent's observation is made to its length only). A legitimate step (no forging) returns a 60-level DAG of
    lists (`a = [a, a]`): 200 bytes on the wire, 2**60 nodes as a tree. The executor's own
    observability wrapper (`output_size`, run inside the step whenever logging at INFO,
    tracing, metrics or `measure()` are on, e.g. under our CodeAgent) and the agent's
    observation (`_safe_str`) call str() on it in the host, after the worker answered: no
    deadline and no SIGKILL applies there. The host spins for ever while the string grows
    (here under a 2 GiB RLIMIT_AS; without one, until the OOM killer).
    Fix: refuse, at decode time, an output or variable whose expanded size (the weight the
    decoder already computes for keys, extended to lists and dicts) exceeds a bound, and make
    it a WorkerValue stand-in made in the worker; and use a bounded repr in output_size and
    agent._safe_str."""
    code = textwrap.dedent(r"""
        import resource, sys
        sys.path.insert(0, sys.argv[1])
        from smolagents_native import LocalPythonExecutor, observability as obs
        ex = LocalPythonExecutor([], isolation="process", timeout_seconds=5,
                                 worker_limits={"memory_bytes": 1 << 30})
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # a safety net only
        result, error, metrics = obs.measure(ex, "a = []\nfor i in range(60):\n    a = [a, a]\na")
        print("output_size", metrics.output_size, "error", error)
        ex.close()
    """)
    start = time.monotonic()
    try:
        proc = _host_python(code, PKG_PARENT, timeout=15)
    except subprocess.TimeoutExpired:
        pytest.fail("the host's observability was still in str() of a 200-byte output "
                    f"after {time.monotonic() - start:.0f} s (a step of 5 s)")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "output_size -1" not in proc.stdout, proc.stdout


# --- Host: resources the kernel layers do not bound ------------------------------------------


@pytest.mark.no_sanitizer  # address-space limits, RSS or a memory scan: ASan's shadow memory
def test_fixed_sysv_shared_memory_and_memfds_escape_rlimit_as_and_the_scratch_size():
    """Was a HOLE, now held. The worker's memory is bounded by RLIMIT_AS and its files by the scratch tmpfs
    (disk_bytes). SysV shared memory (its own IPC namespace, whose shmmax/shmall are the
    kernel's defaults: unbounded) outlives shmdt() and is not in the address space: with
    RLIMIT_AS 256 MiB and a 32 MiB scratch the worker holds 512 MiB of host RAM in four
    segments (and could hold all of it); memfd_create files (64 MiB each, RLIMIT_FSIZE, up to
    RLIMIT_NOFILE of them: 16 GiB) are on the kernel's internal tmpfs, not the sized scratch.
    Neither is charged to the worker's rlimits; the OOM killer cannot pin detached SysV
    memory on the worker either.
    Fix: in the jail's init, write kernel/shmmax, shmall and shmmni of the new IPC namespace
    (0 or small) before /proc/sys is made read-only, or deny shmget/shmat (csrc/module/sandbox.c);
    deny memfd_create (or bound RLIMIT_NOFILE x RLIMIT_FSIZE); best: a memory cgroup per
    worker, which charges shmem to it."""
    result = run_compromised(textwrap.dedent(r"""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmat.restype = ctypes.c_void_p
        libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        libc.shmget.argtypes = [ctypes.c_long, ctypes.c_size_t, ctypes.c_int]
        libc.shmdt.argtypes = [ctypes.c_void_p]
        def shmem():
            for line in open('/proc/meminfo'):
                if line.startswith('Shmem:'):
                    return int(line.split()[1]) * 1024
        before = shmem()
        size = 128 << 20
        for i in range(4):
            sid = libc.shmget(0, size, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
            if sid < 0:
                result['shmget'] = ctypes.get_errno()
                break
            addr = libc.shmat(sid, None, 0)
            if addr is None or addr == ctypes.c_void_p(-1).value:
                result['shmat'] = ctypes.get_errno()
                break
            ctypes.memset(addr, 1, size)
            libc.shmdt(addr)
        result['shm'] = shmem() - before
        before = shmem()
        chunk = b'\x01' * (1 << 20)
        for i in range(4):
            fd = libc.memfd_create(b'x', 0)
            if fd < 0:
                result['memfd_create'] = ctypes.get_errno()
                break
            for j in range(64):
                os.write(fd, chunk)
        result['memfd'] = shmem() - before
    """), disk_bytes=32 << 20, limits={"memory_bytes": 256 << 20, "open_files": 256,
                                       "file_bytes": 64 << 20, "cpu_seconds": 60})
    assert "error" not in result, result
    held = result["shm"] + result["memfd"]
    bound = (256 << 20) + (32 << 20)
    assert held <= bound, (
        f"the worker held {result['shm'] >> 20} MiB of SysV shm and {result['memfd'] >> 20} "
        f"MiB of memfds beyond RLIMIT_AS 256 MiB and a 32 MiB scratch")


def test_fixed_a_worker_can_take_every_pid_of_the_host():
    """Was a HOLE, now held. No bound on the worker's tasks: RLIMIT_NPROC is the host's (96365 here), no
    pids cgroup, and threads are allowed (clone with CLONE_THREAD). Threads with 16 KiB
    stacks fit thousands in RLIMIT_AS; every one takes a pid in the host's pid namespace.
    This host's kernel.pid_max is 32768: one worker can leave the whole machine unable to
    fork (not run here: the test stops at 1000 threads).
    Fix: RLIMIT_NPROC in worker._set_limits (it counts per user namespace, so per worker),
    e.g. 256, and a `threads` entry in worker_limits; or a pids cgroup per worker."""
    with open("/proc/sys/kernel/pid_max") as f:
        pid_max = int(f.read())
    result = run_compromised(textwrap.dedent(r"""
        import ctypes, os, resource
        libc = ctypes.CDLL(None, use_errno=True)
        result['nproc'] = resource.getrlimit(resource.RLIMIT_NPROC)
        attr = ctypes.create_string_buffer(128)
        libc.pthread_attr_init(attr)
        libc.pthread_attr_setstacksize(attr, ctypes.c_size_t(16384))
        start = ctypes.cast(libc.pause, ctypes.c_void_p)
        tid = ctypes.c_ulong()
        n = 0
        for i in range(1000):
            if libc.pthread_create(ctypes.byref(tid), attr, start, None) != 0:
                break
            n += 1
        result['threads'] = n
    """))
    assert "error" not in result, result
    assert result["threads"] < 1000, (
        f"1000 threads made, RLIMIT_NPROC {result['nproc']}, host pid_max {pid_max}")


def _worker_holds_then_host_tries(ex, hold: str, host_try):
    """Run `hold` (a step that keeps a host-wide resource), then `host_try()` in the host at
    once, then end the worker (the window is a fraction of a second)."""
    try:
        held = ex(hold).output
        outcome = host_try()
    finally:
        ex.close()
    return held, outcome


def test_fixed_inotify_instances_made_in_a_worker_are_charged_to_host_root():
    """Was a HOLE, now held (root host; on an unprivileged host, to the host's own uid). The worker's user
    namespace is created by the jail's init while it is still root, and the kernel charges a
    namespace's ucounts to its creator in the parent namespace as well: 128 inotify
    instances made in the worker (RLIMIT_NOFILE 256 allows them) are root's 128
    (fs.inotify.max_user_instances). While the worker holds them, every root process on the
    machine (systemd, udev, file watchers, this host) gets EMFILE from inotify_init.
    Fix: create the worker's user namespace from an unprivileged uid (setresuid to
    WORKER_UID before unshare(CLONE_NEWUSER) in jail.build_jail; the supervisor, or a
    root host's fork server, still writes the map), and deny inotify_init/inotify_init1/fanotify_init in the worker's filter.
    The window here is a fraction of a second."""
    libc = ctypes.CDLL(None, use_errno=True)
    ex = LocalPythonExecutor(ATTACKER_IMPORTS, isolation="process", timeout_seconds=20)

    def host_try():
        fd = libc.inotify_init1(0)
        err = ctypes.get_errno()
        if fd >= 0:
            os.close(fd)
        return fd, err

    held, (fd, err) = _worker_holds_then_host_tries(
        ex, "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nfds = []\n"
            "for i in range(250):\n    fd = libc.inotify_init1(0)\n    if fd < 0:\n"
            "        break\n    fds.append(fd)\nlen(fds)", host_try)
    assert fd >= 0, (f"the worker made {held} inotify instances; the host's own "
                     f"inotify_init1 then failed with errno {err}")


def test_fixed_realtime_signals_queued_in_a_worker_are_charged_to_host_root():
    """Was a HOLE, now held (root host; on an unprivileged host, the host's uid). Same cause as the inotify
    hole: RLIMIT_SIGPENDING counts up the user-namespace chain to the namespace's creator,
    root. The worker blocks SIGRTMIN and queues it to itself (rt_sigqueueinfo with its own
    pid is allowed) up to its RLIMIT_SIGPENDING, which is root's (96365 here): then every
    root process's sigqueue() of a real-time signal fails with EAGAIN (and the kernel drops
    queued signals for root processes).
    Fix: set RLIMIT_SIGPENDING (and RLIMIT_MSGQUEUE, RLIMIT_MEMLOCK, RLIMIT_NPROC, which
    are charged the same way) low in worker._set_limits, and create the user namespace
    from an unprivileged uid. The window here is a fraction of a second."""
    libc = ctypes.CDLL(None, use_errno=True)
    sig = signal.SIGRTMIN + 2
    got: list = []
    previous = signal.signal(sig, lambda *a: got.append(1))
    ex = LocalPythonExecutor(ATTACKER_IMPORTS, isolation="process", timeout_seconds=20)

    def host_try():
        rc = libc.sigqueue(os.getpid(), sig, 0)
        return rc, ctypes.get_errno()

    try:
        held, (rc, err) = _worker_holds_then_host_tries(
            ex, "import ctypes, os, signal\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})\nn = 0\n"
                "while n < 200000:\n"
                "    if libc.sigqueue(os.getpid(), signal.SIGRTMIN, 0) != 0:\n        break\n"
                "    n += 1\nn", host_try)
    finally:
        time.sleep(0.05)
        signal.signal(sig, previous)
    assert rc == 0, (f"the worker queued {held} signals; the host's own sigqueue then "
                     f"failed with errno {err}")


# --- Host files and code: grants that meet paths the host trusts -----------------------------


def test_held_a_writable_grant_cannot_redirect_a_sibling_grant(tmp_path):
    """Was a HOLE, now held: grants are pinned by device and inode when the executor is
    created and bound without following links (the respawned worker refuses to start), and a
    granted path that passes through a link is refused (the new executor is not created).
    Before: executor A may write /ws; executor B (same pool, or created later) may read
    /ws/sub. A replaces /ws/sub by a symbolic link `../../..<...>/etc`. The host resolves
    B's grant with realpath when B is created (sandbox_spec), and the jail's init binds
    `/oldroot<path>` following links when B's worker is replaced: either way B's view now
    holds the host's /etc (any host directory: `/` gives the whole file system with uid
    65534's rights; on an unprivileged host, the host user's rights: ~/.ssh). A read-write
    grant of B is redirected read-write.
    Fix: resolve grants once, on the host, and pin them by (st_dev, st_ino) in the spec;
    in jail._build_root open each source with openat2(RESOLVE_NO_SYMLINKS) / O_PATH |
    O_NOFOLLOW component by component, check the inode, and bind /proc/self/fd/N; refuse a
    grant below another executor's (or the same executor's) writable grant."""
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    os.chmod(tmp_path, 0o755)
    os.chmod(ws, 0o777)
    (ws / "sub" / "data.txt").write_text("public\n")
    up = "../" * (len(str(ws).strip("/").split("/")))
    with WorkerPool(size=4) as pool:
        b = LocalPythonExecutor(["os"], isolation="process", pool=pool,
                                readable_dirs=[str(ws / "sub")])
        assert b(f"import os\nsorted(os.listdir({str(ws / 'sub')!r}))").output == ["data.txt"]
        a = LocalPythonExecutor(ATTACKER_IMPORTS, isolation="process", pool=pool,
                                writable_dirs=[str(ws)])
        a(f"import os\nos.rename({str(ws / 'sub')!r}, {str(ws / 'old')!r})\n"
          f"os.symlink({up + 'etc'!r}, {str(ws / 'sub')!r})")
        jail = _descendants(b.worker_pid)
        os.kill(b.worker_pid, signal.SIGKILL)  # any replacement: crash, timeout, protocol
        deadline = time.monotonic() + 10
        while _alive(jail) and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(InterpreterError):
            b("1")
        read = ("import os\ntry:\n"
                f"    fd = os.open({str(ws / 'sub' / 'hostname')!r}, os.O_RDONLY)\n"
                "    out = os.read(fd, 100)\nexcept OSError as exc:\n    out = exc.errno\nout")
        with pytest.raises(InterpreterError, match="holds a link now"):
            b(read)  # its replacement worker refuses to start
        with pytest.raises(ValueError, match="passes through a symbolic link"):
            LocalPythonExecutor(["os"], isolation="process", pool=pool,
                                readable_dirs=[str(ws / "sub")])
        for ex in (a, b):
            ex.close()


def test_held_a_grant_replaced_by_another_directory_is_not_bound(tmp_path):
    """The other half of the pin above: a granted path that is still no link but another
    directory (same name, another inode: the granted one renamed away and a new one made in
    its place) is not bound into a replacement worker, which refuses to start and says why;
    no worker sees the new directory's content."""
    ws = tmp_path / "ws"
    ws.mkdir()
    os.chmod(tmp_path, 0o755)
    granted = ws / "data"
    granted.mkdir()
    (granted / "data.txt").write_text("public\n")
    with WorkerPool(size=2) as pool:
        b = LocalPythonExecutor(["os"], isolation="process", pool=pool,
                                readable_dirs=[str(granted)])
        listing = f"import os\nsorted(os.listdir({str(granted)!r}))"
        assert "data.txt" in b(listing).output
        os.rename(granted, tmp_path / "old")
        granted.mkdir()
        (granted / "secret.txt").write_text("swapped in\n")
        jail = _descendants(b.worker_pid)
        os.kill(b.worker_pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _alive(jail) and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(InterpreterError):
            b("1")  # the step the kill ended
        with pytest.raises(InterpreterError, match="another file than when the executor"):
            b(listing)  # its replacement refuses to start
        b.close()


_PLANT = textwrap.dedent(r"""
    import os
    fd = os.open({marker!r}, os.O_CREAT | os.O_WRONLY, 0o644)
    os.write(fd, ("uid=%d pid=%d" % (os.getuid(), os.getpid())).encode())
    os.close(fd)
    raise ImportError("planted")
""")


def test_held_a_worker_cannot_plant_a_module_the_fork_server_imports(tmp_path):
    """Was a HOLE (editable installs, i.e. a checkout granted writable, e.g. an agent working
    on its own repository): the fork server started with the package's parent directory at
    sys.path[0], before the standard library, so a `secrets.py` a worker wrote there ran as
    ROOT in the next fork server, outside any sandbox.
    Now held twice: a writable grant that holds a directory the host imports from is refused
    when the executor is created, and the fork server loads the package from its own
    directory, never putting the directory around it on sys.path (a module planted there
    some other way is not imported)."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copytree(PKG_DIR, checkout / "smolagents_native",
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.chmod(tmp_path, 0o755)
    os.chmod(checkout, 0o777)
    marker = checkout / "PWNED"
    host = textwrap.dedent(r"""
        import os, sys
        checkout, plant = sys.argv[1], sys.argv[2]
        sys.path.insert(0, checkout)
        from smolagents_native import LocalPythonExecutor, WorkerPool
        with WorkerPool(size=2) as pool:
            try:
                LocalPythonExecutor(["os"], isolation="process", pool=pool,
                                    writable_dirs=[checkout])
                print("grant accepted")
            except ValueError as exc:
                print("grant refused:", exc)
            LocalPythonExecutor([], isolation="process", pool=pool).close()
        # planted some other way, after the host imported what it needs
        with open(os.path.join(checkout, "secrets.py"), "w") as f:
            f.write(plant)
        with WorkerPool(size=2) as pool:  # the next fork server
            LocalPythonExecutor([], isolation="process", pool=pool).close()
    """)
    proc = _host_python(host, str(checkout), _PLANT.format(marker=str(marker)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "grant refused: the writable directory" in proc.stdout, proc.stdout
    assert not marker.exists(), (
        "the fork server ran a planted module outside the sandbox: " + marker.read_text())


def test_held_a_worker_cannot_plant_a_module_the_host_imports(tmp_path):
    """Was a HOLE (a directory on the host's sys.path granted writable, e.g. the agent's own
    directory: `python agent.py` puts it at sys.path[0]): a worker wrote `zoneinfo.py` there
    and returned ZoneInfo('UTC'), and the host's builder imported it lazily, as the host.
    Now held: the grant is refused when the executor is created (it holds a directory the
    host imports from), and `isolation.wire` imports zoneinfo with itself, never at a worker's
    request."""
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(agent_dir, 0o777)
    script = agent_dir / "agent.py"
    script.write_text(textwrap.dedent(r"""
        import os, sys
        here, pkg_parent = sys.argv[1], sys.argv[2]
        sys.path.insert(1, pkg_parent)
        from smolagents_native import LocalPythonExecutor
        try:
            LocalPythonExecutor(["os", "zoneinfo"], isolation="process", writable_dirs=[here])
            print("grant accepted")
        except ValueError as exc:
            print("grant refused:", exc)
        import smolagents_native.isolation.wire
        print("zoneinfo loaded:", "zoneinfo" in sys.modules)
    """))
    proc = subprocess.run([sys.executable, str(script), str(agent_dir), PKG_PARENT],
                          capture_output=True, text=True, timeout=90, cwd="/")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "grant refused: the writable directory" in proc.stdout, proc.stdout
    assert "zoneinfo loaded: True" in proc.stdout


def test_held_a_worker_cannot_make_the_fork_server_import_an_entry_point(monkeypatch):
    """Was PARTIAL, now held: `WorkerPool.learn` takes public, non-test module names only (no
    `__main__` entry point, no private module, no tests or conftest). Before: the modules a
    step imported are reported in DONE and `WorkerPool.learn` kept the names the executor's
    authorization covers; with a wildcard ("numpy.*") that is any
    module of the package, including entry points with import-time effects. A worker forges
    its DONE (in turn) reporting `numpy.f2py.__main__`: the pool's fork server (root, outside
    the sandbox; at a fork server's start even before its seccomp filter) imports it for the
    next executor of the pool that authorizes numpy, i.e. runs f2py's command line with the
    fork server's argv. Nothing installed here does harm beyond that, but which host code runs
    outside the sandbox is the worker's choice (any `__main__`, test module or conftest of
    the package); a worker may also fill MAX_LEARNED with 512 junk names.
    Fix (WorkerPool.learn): keep only names the host itself has imported (sys.modules of the
    host) or can find, never `__main__`, `tests`, `testing`, `conftest` parts; or preload
    only what the host names."""
    pytest.importorskip("numpy")
    from smolagents_native.isolation import worker as W
    from smolagents_native import isolation

    preloads: list = []
    real = isolation._ForkServer.request

    def recording(self, kind, value, fd=None, timeout=None):
        if kind == W.PRELOAD:
            preloads.extend(value)
        return real(self, kind, value, fd, timeout)

    monkeypatch.setattr(isolation._ForkServer, "request", recording)
    with WorkerPool(size=2) as pool:
        a = LocalPythonExecutor(["numpy.*", *ATTACKER_IMPORTS], isolation="process",
                                pool=pool, timeout_seconds=10)
        a(_forging_code("PAYLOAD = done_payload(b'N', imported=[b'numpy.f2py.__main__'])"))
        a.close()
        LocalPythonExecutor(["numpy"], isolation="process", pool=pool).close()
    chosen = [m for m in preloads if m.endswith("__main__")]
    assert not chosen, f"the worker made the fork server import {chosen}"


# =============================================================================================
# HELD: attacks the sandbox stops (these tests pass).
# =============================================================================================


def test_held_the_worker_holds_its_channel_and_dev_null_only(make_process_executor):
    """Every fd of a real worker at the start of a step: 0-2 /dev/null, the channel."""
    ex = make_process_executor(ATTACKER_IMPORTS)
    fds = ex("import os\nout = {}\nfor fd in os.listdir('/proc/self/fd'):\n    try:\n"
             "        out[int(fd)] = os.readlink('/proc/self/fd/' + fd)\n"
             "    except OSError:\n        pass\nout").output
    assert {k: v for k, v in fds.items() if not v.startswith("socket:")} == {
        0: "/dev/null", 1: "/dev/null", 2: "/dev/null"}
    assert sum(v.startswith("socket:") for v in fds.values()) == 1


def test_held_proc_namespace_and_mount_escapes():
    """/proc holds the worker alone (pid 1, its jail's init: no other process's root, fds or
    memory to open), namespace ioctls towards the parents, the new mount API (open_tree_attr,
    which the filter does not list, included), host files outside the binds, /sys, `..` from a
    bind: all refused or pointing back into the jail."""
    result = run_compromised(textwrap.dedent(r"""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        def errno_of(fn):
            try:
                fn()
                return 0
            except OSError as exc:
                return exc.errno
        result['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
        result['self'] = os.readlink('/proc/self')
        result['root1'] = sorted(os.listdir('/proc/1/root')) == sorted(os.listdir('/'))
        own_user = os.stat('/proc/self/ns/user').st_ino
        for name in ('user', 'pid', 'mnt'):
            fd = os.open('/proc/self/ns/' + name, os.O_RDONLY)
            owner = libc.ioctl(fd, 0xb701)  # NS_GET_USERNS: only the worker's own, if any
            result['ns_' + name] = (owner < 0 or os.fstat(owner).st_ino == own_user,
                                    libc.ioctl(fd, 0xb702))  # NS_GET_PARENT
        # open_tree_attr(AT_FDCWD, "/", OPEN_TREE_CLONE | AT_RECURSIVE, NULL, 0)
        result['open_tree_attr'] = (libc.syscall(467, -100, b'/', 1 | 0x8000, None, 0),
                                    ctypes.get_errno())
        result['shadow'] = errno_of(lambda: os.close(os.open('/etc/shadow', os.O_RDONLY)))
        result['root_home'] = errno_of(lambda: os.listdir('/root/.ssh'))
        result['sys'] = errno_of(lambda: os.listdir('/sys'))
        result['dotdot'] = sorted(os.listdir('/usr/..'))
        result['write_root'] = errno_of(lambda: os.close(os.open('/x', os.O_CREAT | os.O_WRONLY)))
        result['sysrq'] = errno_of(lambda: os.close(os.open('/proc/sysrq-trigger', os.O_WRONLY)))
    """))
    assert "error" not in result, result
    assert result["pids"] == [1] and result["self"] == "1" and result["root1"], result
    for name in ("user", "pid", "mnt"):
        assert result["ns_" + name] == (True, -1), result
    assert result["open_tree_attr"][0] == -1, result
    assert result["shadow"] and result["root_home"] and result["sys"], result
    assert "boot" not in result["dotdot"] and "home" not in result["dotdot"], result
    assert result["write_root"] and result["sysrq"], result


_I386_GETPID = bytes([0xB8, 0x14, 0, 0, 0, 0xCD, 0x80, 0xC3])  # mov eax,20; int 0x80; ret


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86_64 system call ABIs")
@pytest.mark.parametrize("how", ["i386", "x32"])
def test_held_foreign_system_call_abis_kill_the_worker(how):
    """An i386 system call (int 0x80) or an x32 one (bit 30 of the number) would be read
    with other numbers than the filter checks: the worker is killed, not let through."""
    if how == "i386":
        call = (f"code = {_I386_GETPID!r}\n"
                "libc.mmap.restype = ctypes.c_void_p\n"
                "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,"
                " ctypes.c_int, ctypes.c_int, ctypes.c_long]\n"
                "page = libc.mmap(None, 4096, 7, 0x22, -1, 0)\n"
                "ctypes.memmove(page, code, len(code))\n"
                "result['rc'] = ctypes.CFUNCTYPE(ctypes.c_int)(page)()\n")
    else:
        call = "result['rc'] = libc.syscall(0x40000000 | 39)\n"  # x32 getpid
    with pytest.raises(P.ProtocolError, match="closed the channel"):
        run_compromised("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n" + call,
                        timeout=20)


def test_held_processes_namespaces_and_kernel_surfaces_from_raw_system_calls():
    """clone without CLONE_THREAD or with a namespace flag, clone3, vfork, execveat,
    io_uring, userfaultfd, bpf, perf, keyrings, unshare/setns, mount, pidfd_open: refused.
    (seccomp() itself and personality() stay allowed: they only narrow the caller.)"""
    result = run_compromised(textwrap.dedent(r"""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        def call(nr, *args):
            rc = libc.syscall(nr, *[ctypes.c_long(a) for a in args])
            return rc, ctypes.get_errno()
        thread = 0x00010000 | 0x00000800 | 0x00000100  # CLONE_THREAD | SIGHAND | VM
        result['clone_process'] = call(56, 17, 0, 0, 0, 0)  # SIGCHLD: a new process
        result['clone_thread_newuser'] = call(56, thread | 0x10000000, 0, 0, 0, 0)
        result['clone_thread_newns'] = call(56, thread | 0x00020000, 0, 0, 0, 0)
        result['clone3'] = call(435, 0, 0)
        result['vfork'] = call(58)
        result['execveat'] = call(322, -100, 0, 0, 0, 0)
        result['io_uring_setup'] = call(425, 1, 0)
        result['userfaultfd'] = call(323, 0)
        result['bpf'] = call(321, 0, 0, 0)
        result['perf_event_open'] = call(298, 0, 0, -1, -1, 0)
        result['keyctl'] = call(250, 0, 0)
        result['unshare'] = call(272, 0x10000000)
        result['setns'] = call(308, 0, 0)
        result['mount'] = call(165, 0, 0, 0, 0, 0)
        result['pidfd_open'] = call(434, 1, 0)
        result['ptrace'] = call(101, 16, 1, 0, 0)
    """))
    assert "error" not in result, result
    assert result.pop("clone3") == (-1, 38)  # ENOSYS: libc falls back to clone
    for key, (rc, err) in result.items():
        assert rc == -1 and err == 1, (key, rc, err)


@pytest.mark.no_sanitizer  # address-space limits, RSS or a memory scan: ASan's shadow memory
def test_held_another_executors_secrets_are_not_in_the_attackers_memory():
    """The attacker's worker is a fork of the fork server: it scans its whole memory
    (/proc/self/mem, made readable by PR_SET_DUMPABLE) for a sibling's worker_env value, a
    variable sent in, a variable of its state and its granted directory's name. None is
    there (the needles are built at run time; each is found once: itself)."""
    needles = [b"sk-SECRET-ABCDEF123", b"VARSECRET-77881", b"STATESECRET-5521",
               b"victim-private-dir-QZX"]
    scan = textwrap.dedent(r"""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 1, 0, 0, 0)
        needles = [n[::-1] for n in NEEDLES]
        fd = os.open("/proc/self/maps", os.O_RDONLY)
        text = b""
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            text += chunk
        os.close(fd)
        mem = os.open("/proc/self/mem", os.O_RDONLY)
        hits = {n: 0 for n in needles}
        for line in text.decode().splitlines():
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if not parts[1].startswith("r"):
                continue
            pos = lo
            while pos < hi:
                try:
                    blob = os.pread(mem, min(16 << 20, hi - pos), pos)
                except OSError:
                    break
                for n in needles:
                    hits[n] += blob.count(n)
                pos += 16 << 20
        os.close(mem)
        hits
    """).replace("NEEDLES", repr([n[::-1] for n in needles]))
    private = f"/tmp/victim-private-dir-QZX-{os.getpid()}"
    os.makedirs(private, exist_ok=True)
    try:
        with WorkerPool(size=4) as pool:
            victim = LocalPythonExecutor(["os"], isolation="process", pool=pool,
                                         worker_env={"API_KEY": needles[0].decode()},
                                         readable_dirs=[private])
            victim.send_variables({"tok": needles[1].decode()})
            victim(f"x = {needles[2].decode()!r}")
            attacker = LocalPythonExecutor(ATTACKER_IMPORTS, isolation="process", pool=pool)
            hits = attacker(scan).output
            assert victim("x").output == needles[2].decode()
            victim.close()
            attacker.close()
    finally:
        os.rmdir(private)
    assert all(count == 1 for count in hits.values()), hits


def test_held_nothing_of_a_sandbox_outlives_a_host_killed_with_sigkill(spawn_way):
    """A host SIGKILLed mid-step (a worker busy in a C loop, with a second thread): the fork
    server sees its control socket close and kills its children (supervisors, or a root
    host's workers, each its jail's init); each worker dies with its supervisor
    (PR_SET_PDEATHSIG)."""
    host = textwrap.dedent(r"""
        import sys, threading
        sys.path.insert(0, sys.argv[1])
        from smolagents_native import LocalPythonExecutor
        from smolagents_native.isolation import jail
        jail.SUPERVISED = sys.argv[2] == "supervisor"
        ex = LocalPythonExecutor(["os", "ctypes", "time"], isolation="process",
                                 timeout_seconds=600)
        ex("x = 1")
        print(ex._server.proc.pid, ex.worker_pid, flush=True)
        ex("import ctypes\nlibc = ctypes.CDLL(None)\n"
           "start = ctypes.cast(libc.pause, ctypes.c_void_p)\n"
           "tid = ctypes.c_ulong()\nlibc.pthread_create(ctypes.byref(tid), None, start, None)\n"
           "import time\nwhile True:\n    time.sleep(1)")
    """)
    proc = subprocess.Popen([sys.executable, "-c", host, PKG_PARENT, spawn_way],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        server, holder = (int(x) for x in proc.stdout.readline().split())
        time.sleep(1.0)
        everything = _descendants(server) | {server}
        assert holder in everything
        assert len(everything) >= (3 if spawn_way == "supervisor" else 2)
        proc.kill()
        proc.wait(10)
        deadline = time.monotonic() + 10
        while _alive(everything) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _alive(everything) == []
    finally:
        if proc.poll() is None:
            proc.kill()


def test_held_the_backstop_and_close_end_every_thread_of_the_worker(make_process_executor):
    """A worker with extra threads (made through libc) whose main thread then blocks every
    signal and waits in C, out of the policy's reach: the host's SIGKILL at deadline + grace
    ends the whole jail; close() does the same for a worker between steps."""
    ex = make_process_executor(ATTACKER_IMPORTS, timeout_seconds=1)
    spawn = ("import ctypes, signal\nlibc = ctypes.CDLL(None)\n"
             "start = ctypes.cast(libc.pause, ctypes.c_void_p)\ntid = ctypes.c_ulong()\n"
             "for i in range(8):\n    libc.pthread_create(ctypes.byref(tid), None, start, None)\n")
    jail = _descendants(ex.worker_pid) | {ex.worker_pid}
    start = time.monotonic()
    with pytest.raises(ExecutionTimeoutError):
        ex(spawn + "signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())\n"
                   "libc.pause()")
    assert time.monotonic() - start < 1 + 0.5 + 3
    deadline = time.monotonic() + 10
    while _alive(jail) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(jail) == []
    ex(spawn)
    jail = _descendants(ex.worker_pid) | {ex.worker_pid}
    assert len(os.listdir(f"/proc/{max(jail)}/task")) > 8
    ex.close()
    deadline = time.monotonic() + 10
    while _alive(jail) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(jail) == []


_SPIN = bytes([0xEB, 0xFE])  # jmp $ (x86_64): a thread that never ends and never yields


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86_64 machine code")
def test_known_limit_a_native_thread_burns_cpu_until_cpu_seconds(make_process_executor):
    """KNOWN LIMIT (docs/isolation.md, threat table). The step's deadline bounds the step,
    not what it started: a thread made with pthread_create on a spinning start routine keeps a CPU busy
    after its step has answered. RLIMIT_CPU (worker_limits["cpu_seconds"], 3600 s by default)
    bounds it: the kernel kills the worker, and the next step says so and gets a new worker."""
    ex = make_process_executor(ATTACKER_IMPORTS, timeout_seconds=5,
                               worker_limits={"cpu_seconds": 2})
    ex(f"import ctypes\nlibc = ctypes.CDLL(None)\ncode = {_SPIN!r}\n"
       "libc.mmap.restype = ctypes.c_void_p\n"
       "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,"
       " ctypes.c_int, ctypes.c_long]\n"
       "page = libc.mmap(None, 4096, 7, 0x22, -1, 0)\nctypes.memmove(page, code, len(code))\n"
       "tid = ctypes.c_ulong()\n"
       "libc.pthread_create(ctypes.byref(tid), None, ctypes.c_void_p(page), None)\n'started'")
    worker = max(_descendants(ex.worker_pid) | {ex.worker_pid})  # a supervisor's child
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/{worker}") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not os.path.exists(f"/proc/{worker}"), "the spinning worker outlived cpu_seconds"
    with pytest.raises(InterpreterError):
        ex("6 * 7")
    assert ex("6 * 7").output == 42


def test_held_frames_out_of_turn_and_slowloris_within_the_deadline(make_process_executor):
    """With the sequence number known (read from memory): a RESULT/OK/unknown kind in turn,
    a DONE with a malformed record, and a header with half a payload, then silence: each
    ends at the deadline (+ grace) at most, the worker replaced, the host usable."""
    ex = make_process_executor(ATTACKER_IMPORTS, timeout_seconds=2)
    for build in ("PAYLOAD = b''\nsend_frame(12, SEQ, b'')",  # OK during a step
                  "PAYLOAD = b'\\x00' * 7"):  # a DONE too short for its record
        start = time.monotonic()
        with pytest.raises((InterpreterError, ExecutionTimeoutError)):
            ex(_forging_code(build))
        assert time.monotonic() - start < 2 + 0.5 + 3
        assert ex("6 * 7").output == 42
    slow = ("#FORGE-MARK\n" + _FIND_SEQ + _CHANNEL
            + "os.write(CHANNEL, (1000).to_bytes(4, 'little') + bytes([10])"
              " + SEQ.to_bytes(4, 'little') + b'\\x00' * 10)\nimport time\ntime.sleep(30)\n")
    start = time.monotonic()
    with pytest.raises((InterpreterError, ExecutionTimeoutError)):
        ex(slow)
    assert time.monotonic() - start < 2 + 0.5 + 3
    assert ex("6 * 7").output == 42


def test_held_mutated_encodings_never_crash_the_hosts_decoder():
    """wire.c decodes what a worker sends in the host's own process: a memory-safety bug
    there would be a host compromise. 30,000 random mutations of valid encodings (bytes
    changed, tags inserted, encodings spliced into each other) of every kind of value the
    codec knows: each one decodes or is refused with an exception; the process survives.
    (Run for 2 x 60 s, about 8.8 million inputs, while this file was written: no crash.)"""
    import collections
    import datetime
    import decimal
    import fractions
    import random
    import uuid

    from smolagents_native.isolation import wire as _wire

    shared = [1, 2]
    seeds = [None, True, 1, -5, 2**70, 1.5, 1j, "h\u00e9llo", b"\x00\xff", bytearray(b"ab"),
             [1, [2, 3]], (1, (2,)), {"a": [1, {"b": 2}]}, {1, 2}, frozenset({(1, 2)}),
             datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
             decimal.Decimal("1.5"), fractions.Fraction(1, 3), collections.OrderedDict(a=1),
             collections.deque([1, 2], 5), collections.Counter("aab"),
             collections.defaultdict(list, {"x": [1]}), uuid.UUID(int=7), range(1, 10, 2),
             slice(1, 2), [shared, shared, (shared,)]]
    try:
        import numpy as np

        seeds += [np.arange(6).reshape(2, 3), np.array(["a", "bc"]), np.float32(1.5),
                  np.dtype("<M8[ns]"), np.array([1, None], dtype=object)]
    except ImportError:
        pass
    encodings = [_wire.dumps(s) for s in seeds]
    rnd = random.Random(1234)
    for _ in range(30_000):
        data = bytearray(rnd.choice(encodings))
        for _ in range(rnd.randint(1, 4)):
            op = rnd.random()
            if op < 0.4 and data:
                data[rnd.randrange(len(data))] = rnd.randrange(256)
            elif op < 0.6:
                data.insert(rnd.randrange(len(data) + 1),
                            rnd.choice(b"NTFifcsbaltdSZrx\x00\x7f\xff"))
            elif op < 0.8 and len(data) > 1:
                del data[rnd.randrange(len(data))]
            else:
                other = rnd.choice(encodings)
                at = rnd.randrange(len(data) + 1)
                data[at:at] = other[:rnd.randrange(len(other) + 1)]
        try:
            P.decode_value(bytes(data), {}, time.monotonic() + 1)
        except Exception:
            pass
