"""The process boundary, attacked (docs/isolation.md, "Threat table"): payloads written as an
attacker with `os`, `signal`, `ctypes` or `numpy` authorized would write them, each asserting
that the host, the other executors and the fork server are untouched and that the executor is
usable afterwards. Two kinds of attacker:

- a real executor (`make_process_executor`): the code goes through the interpreter's policy
  first, as every step does;
- a compromised worker (`run_compromised`): the same sandbox, the same layers, with plain
  `exec` instead of the interpreter: what any code reaches once the policy is out of the way.

The file runs as root (CI's default) and as an unprivileged user (CI's second run of
tests/isolation); the expectations that differ say so.
"""

from __future__ import annotations

import os
import pickle
import resource
import subprocess
import sys
import time
import warnings

import pytest

import smolagents_native
from smolagents_native import ExecutionTimeoutError, InterpreterError, LocalPythonExecutor
from smolagents_native.isolation import protocol as P

from .compromised import run_compromised

ROOT = os.geteuid() == 0
# The worker's uid on the host: 65534 when the host is root, else the host's own uid.
HOST_UID = 65534 if ROOT else os.geteuid()


@pytest.fixture(autouse=True)
def bystanders(pool):
    """Around every attack: a sibling executor of the same pool with a value in it, the pool's
    fork server, and host sysctls a root worker could flip. After it: all untouched."""
    sysctls = {n: _read(f"/proc/sys/kernel/{n}") for n in ("core_uses_pid", "core_pattern")}
    sibling = LocalPythonExecutor([], isolation="process", pool=pool)
    sibling("kept = 'sibling value'")
    server = pool.server()
    yield
    assert server.alive(), "the fork server did not survive the attack"
    assert sibling("kept").output == "sibling value"
    assert {n: _read(f"/proc/sys/kernel/{n}") for n in sysctls} == sysctls
    sibling.close()


def _channel_fd(ex) -> int:
    """The worker's end of its channel to the host, as the code can find it (os)."""
    fds = ex(
        "import os, stat\n"
        "def is_socket(fd):\n"
        "    try:\n"
        "        return stat.S_ISSOCK(os.fstat(fd).st_mode)\n"
        "    except OSError:\n"
        "        return False\n"
        "[fd for fd in range(3, 64) if is_socket(fd)]"
    ).output
    assert len(fds) == 1
    return fds[0]


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


# ---------------------------------------------------------------------------------------------
# 1. Nobody outside: an unprivileged uid on the host, no capability, /proc/sys read-only.


def test_sysctl_writes_are_refused_and_the_host_unchanged(spawn_way):
    before = {n: _read(f"/proc/sys/kernel/{n}") for n in ("core_uses_pid", "core_pattern")}
    result = run_compromised(
        "import os\n"
        "for name, text in (('core_uses_pid', '1'), ('core_pattern', '|/bin/sh -c id'),\n"
        "                   ('../sysrq-trigger', 'h')):\n"
        "    try:\n"
        "        fd = os.open('/proc/sys/kernel/' + name, os.O_WRONLY)\n"
        "        os.write(fd, text.encode())\n"
        "        result[name] = 'written'\n"
        "    except OSError as exc:\n"
        "        result[name] = exc.errno\n"
        "try:\n"  # through the jail init's root: the same file system
        "    os.open('/proc/1/root/proc/sys/kernel/core_pattern', os.O_WRONLY)\n"
        "    result['via_init'] = 'opened'\n"
        "except OSError as exc:\n"
        "    result['via_init'] = exc.errno\n",
        supervised=spawn_way == "supervisor",
    )
    assert "error" not in result, result
    assert all(v != "written" and v != "opened" for v in result.values()), result
    after = {n: _read(f"/proc/sys/kernel/{n}") for n in before}
    assert after == before


def test_no_capability_no_privilege_no_root_semantics(spawn_way):
    result = run_compromised(
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "status = dict(l.rstrip('\\n').split(':\\t', 1) for l in open('/proc/self/status') if ':\\t' in l)\n"
        "result['caps'] = [status[k] for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')]\n"
        "result['nnp'] = status['NoNewPrivs']\n"
        "result['seccomp'] = status['Seccomp']\n"
        "result['uid'] = os.getuid()\n"
        "result['map'] = open('/proc/self/uid_map').read().split()\n"
        "result['securebits'] = libc.prctl(27, 0, 0, 0, 0)\n"  # PR_GET_SECUREBITS
        "def errno_of(fn):\n"
        "    try:\n"
        "        fn()\n"
        "        return 0\n"
        "    except OSError as exc:\n"
        "        return exc.errno\n"
        "result['setuid0'] = errno_of(lambda: os.setuid(0))\n"
        "result['unshare'] = libc.unshare(0x10000000), ctypes.get_errno()\n"  # CLONE_NEWUSER
        "result['mount'] = libc.mount(b'none', b'/tmp', b'tmpfs', 0, None), ctypes.get_errno()\n"
        "result['chroot'] = errno_of(lambda: os.chroot('/tmp'))\n"
        "result['setgroups'] = open('/proc/self/setgroups').read().strip()\n"
        "result['gid_map'] = open('/proc/self/gid_map').read().split()\n",
        supervised=spawn_way == "supervisor",
    )
    assert "error" not in result, result
    assert result["caps"] == ["0000000000000000"] * 5
    assert result["nnp"] == "1" and result["seccomp"] == "2"
    assert result["uid"] == 65534
    # the same map whichever process wrote it: 65534 inside is the host's unprivileged uid
    assert result["map"] == ["65534", str(HOST_UID), "1"] and HOST_UID != 0
    assert result["gid_map"][:1] == ["65534"] and result["setgroups"] == "deny"
    # NOROOT, NO_SETUID_FIXUP_LOCKED, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE(_LOCKED)
    assert result["securebits"] & 0b11101011 == 0b11101011
    assert result["setuid0"] != 0
    assert result["unshare"] == (-1, 1) and result["mount"] == (-1, 1)
    assert result["chroot"] != 0


def test_files_a_worker_writes_belong_to_an_unprivileged_host_uid(make_process_executor,
                                                                  tmp_path):
    granted = tmp_path / "out"
    granted.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(granted, 0o777)
    ex = make_process_executor(["os"], granted_paths=[str(granted)])
    ex(f"import os\nfd = os.open({str(granted / 'made.txt')!r}, os.O_CREAT | os.O_WRONLY)\n"
       "os.write(fd, b'x')\nos.close(fd)")
    st = os.stat(granted / "made.txt")
    assert st.st_uid == HOST_UID and st.st_uid != 0
    out = ex("import os\n(os.getuid(), os.getgid())").output
    assert out == (65534, 65534)
    sandbox = ex.sandbox
    assert sandbox["host_uid"] == HOST_UID and sandbox["capabilities"]["effective"] == 0
    assert "user" in sandbox["namespaces"] and sandbox["missing"] == []


# ---------------------------------------------------------------------------------------------
# 2. One sandbox per executor: its own pid namespace and /proc, its own scratch.


def test_a_worker_sees_only_its_own_processes(make_process_executor):
    victim = make_process_executor(["os"])
    victim("secret = 'victim value'")
    attacker = make_process_executor(["os"])
    out = attacker(
        "import os\n"
        "pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
        f"targets = [1, {victim.worker_pid}, {os.getpid()}, {victim._server.pid}]\n"
        "opened = []\n"
        "for pid in targets:\n"
        "    try:\n"
        "        fd = os.open(f'/proc/{pid}/mem', os.O_RDWR)\n"
        "        opened.append(pid)\n"
        "        os.close(fd)\n"
        "    except OSError:\n"
        "        pass\n"
        "(pids, opened, os.getpid())"
    ).output
    pids, opened, me = out
    assert pids == [1] and me == 1  # the worker alone, its jail's init
    assert opened == []
    assert victim("secret").output == "victim value"


def test_ptrace_process_vm_and_pidfds_reach_nothing():
    result = run_compromised(
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "nr = {'x86_64': dict(ptrace=101, process_vm_readv=310, pidfd_open=434,\n"
        "                     pidfd_getfd=438, kcmp=312),\n"
        "      'aarch64': dict(ptrace=117, process_vm_readv=270, pidfd_open=434,\n"
        "                      pidfd_getfd=438, kcmp=272)}[os.uname().machine]\n"
        "buf = ctypes.create_string_buffer(64)\n"
        "iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 64)\n"
        "for pid in (1, 2, 3):\n"
        "    result[f'ptrace{pid}'] = libc.syscall(nr['ptrace'], 16, pid, 0, 0), ctypes.get_errno()\n"
        "    result[f'vm{pid}'] = (libc.syscall(nr['process_vm_readv'], pid, iov, 1, iov, 1, 0),\n"
        "                          ctypes.get_errno())\n"
        "    result[f'pidfd{pid}'] = libc.syscall(nr['pidfd_open'], pid, 0), ctypes.get_errno()\n"
        "result['kcmp'] = libc.syscall(nr['kcmp'], 1, 2, 0, 0, 0), ctypes.get_errno()\n"
    )
    assert "error" not in result, result
    for key, (rc, err) in result.items():
        assert rc == -1 and err == 1, (key, rc, err)  # EPERM: the seccomp filter


def _scratch_files(ex, listing):
    """`listing` of the scratch without the mount points of read-only binds under /tmp (a
    checkout or a venv there is bound at its own path)."""
    binds = ex.sandbox["read_only"] + ex.sandbox["writable"]
    points = {p.split("/")[2] for p in binds if p.startswith("/tmp/")}
    return sorted(name for name in listing if name not in points)


def test_scratch_is_private_sized_and_gone_with_the_executor(make_process_executor):
    a = make_process_executor(["os"])
    a("import os\nfd = os.open('/tmp/left-by-a', os.O_CREAT | os.O_WRONLY)\nos.write(fd, b'a')\n"
      "os.close(fd)\nfd = os.open('in-cwd', os.O_CREAT | os.O_WRONLY)\nos.close(fd)")
    assert _scratch_files(a, a("import os\nos.listdir('/tmp')").output) == ["in-cwd", "left-by-a"]
    b = make_process_executor(["os"])
    cwd, tmp, here = b("import os\n(os.getcwd(), os.listdir('/tmp'), os.listdir('.'))").output
    assert cwd == "/tmp" and _scratch_files(b, tmp) == [] and _scratch_files(b, here) == []
    assert not os.path.exists("/tmp/left-by-a")  # not the host's /tmp either
    a.close()
    c = make_process_executor(["os"])
    assert _scratch_files(c, c("import os\nos.listdir('/tmp')").output) == []


def test_no_executor_secret_passes_through_the_fork_server(make_process_executor, monkeypatch):
    """The fork server's children copy its memory: it must never have held an executor's
    configuration, environment or variables. Every request it gets is recorded."""
    from smolagents_native import isolation

    seen: list[bytes] = []
    real = isolation._ForkServer.request

    def recording(self, kind, value, fd=None, timeout=None):
        seen.append(pickle.dumps(value))
        return real(self, kind, value, fd, timeout)

    monkeypatch.setattr(isolation._ForkServer, "request", recording)
    secret = "sk-worker-env-0123456789"
    ex = make_process_executor(["os", "signal"], worker_env={"API_KEY": secret})
    ex.send_variables({"token": "variable-secret-9876"})
    assert ex("import os\nos.environ['API_KEY']").output == secret
    with pytest.raises(InterpreterError):
        ex("import signal\nsignal.raise_signal(signal.SIGSEGV)")  # a replacement: SPAWN again
    assert ex("token").output == "variable-secret-9876"
    assert len(seen) >= 2
    for frame in seen:
        assert secret.encode() not in frame and b"variable-secret" not in frame


# ---------------------------------------------------------------------------------------------
# 3. Signals: only to the worker itself; the fork server and the siblings are out of reach.


def test_signals_reach_only_the_worker_itself():
    result = run_compromised(
        "import ctypes, os, signal\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "nr = {'x86_64': dict(kill=62, tkill=200, tgkill=234, rt_sigqueueinfo=129,\n"
        "                     pidfd_send_signal=424),\n"
        "      'aarch64': dict(kill=129, tkill=130, tgkill=131, rt_sigqueueinfo=138,\n"
        "                      pidfd_send_signal=424)}[os.uname().machine]\n"
        "info = ctypes.create_string_buffer(128)\n"
        "me = os.getpid()\n"
        "result['me'] = me\n"
        "for target in (-1, 0, me + 1, me + 2, me | (1 << 32), (me + 1) | (1 << 32)):\n"
        "    result[f'kill{target}'] = (libc.syscall(nr['kill'], ctypes.c_long(target), 0),\n"
        "                               ctypes.get_errno())\n"
        "    result[f'tgkill{target}'] = (libc.syscall(nr['tgkill'], ctypes.c_long(target), 1, 0),\n"
        "                                 ctypes.get_errno())\n"
        "    result[f'sigq{target}'] = (libc.syscall(nr['rt_sigqueueinfo'], ctypes.c_long(target),\n"
        "                                            0, info), ctypes.get_errno())\n"
        "result['tkill'] = libc.syscall(nr['tkill'], me, 0), ctypes.get_errno()\n"
        "result['pidfd'] = libc.syscall(nr['pidfd_send_signal'], 0, 0, None, 0), ctypes.get_errno()\n"
        "result['self'] = libc.syscall(nr['kill'], os.getpid(), 0)\n"
    )
    assert "error" not in result, result
    me = result.pop("me")
    assert me == 1  # the worker is its jail's init
    assert result.pop("self") == 0  # its own pid: allowed
    # me | 1 << 32: the kernel reads the low 32 bits, the worker's own pid: allowed
    own_high = me | (1 << 32)
    assert result.pop(f"kill{own_high}")[0] == 0
    result.pop(f"tgkill{own_high}")
    result.pop(f"sigq{own_high}")
    for key, (rc, err) in result.items():
        assert rc == -1 and err == 1, (key, rc, err)


def test_fork_server_is_out_of_reach_and_siblings_keep_their_deadline(make_process_executor,
                                                                     pool):
    attacker = make_process_executor(["os", "signal"])
    for pid in (1, 2, 3):
        with pytest.raises(InterpreterError, match="PermissionError|Operation not permitted|"
                           "FileNotFoundError|No such file"):
            attacker(f"import os, signal\n"
                     f"signal.pidfd_send_signal(os.open('/proc/{pid}', os.O_RDONLY), "
                     "signal.SIGSTOP)")
    server = pool.server()
    status = _read(f"/proc/{server.pid}/status")
    assert "\nSeccomp:\t2" in status and "\nNoNewPrivs:\t1" in status
    assert server.hardened == "seccomp filter, not dumpable"
    sibling = make_process_executor(["time"], timeout_seconds=2)
    start = time.monotonic()
    with pytest.raises(ExecutionTimeoutError):
        sibling("import time\ntime.sleep(60)")
    assert time.monotonic() - start < 2 + 5  # the deadline plus slack, not a hang
    assert sibling("1 + 1").output == 2


def test_a_signal_storm_leaves_the_host_and_the_siblings_alone(make_process_executor, pool):
    victim = make_process_executor()
    victim("kept = 41")
    result = run_compromised(
        "import ctypes, os, signal\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "kill = {'x86_64': 62, 'aarch64': 129}[os.uname().machine]\n"
        "allowed = [pid for pid in range(1, 70000) if pid != os.getpid()\n"
        "           if libc.syscall(kill, pid, signal.SIGSTOP) == 0]\n"
        "result['allowed'] = allowed\n"
    )
    assert result == {"allowed": []}
    assert victim("kept + 1").output == 42
    assert pool.server().alive()


@pytest.mark.parametrize("supervised", [False, True])
def test_the_worker_cannot_clear_the_signal_that_ends_it_with_its_parent(supervised):
    """The worker is its pid namespace's init: nothing in the jail outlives it, and what ends
    it when the process that forked it (the fork server, or a supervisor) is gone is its
    parent-death signal. Its filter refuses to change that signal; other prctl options work."""
    result = run_compromised(
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "sig = ctypes.c_int(-1)\n"
        "result['pid'] = os.getpid()\n"
        "result['armed'] = libc.prctl(2, ctypes.byref(sig), 0, 0, 0), sig.value\n"  # GET
        "result['clear'] = libc.prctl(1, 0, 0, 0, 0), ctypes.get_errno()\n"  # SET 0
        "nr = {'x86_64': 157, 'aarch64': 167}[os.uname().machine]\n"
        "result['other'] = (libc.syscall(nr, ctypes.c_long(1 | (1 << 32)), ctypes.c_long(0)),\n"
        "                   ctypes.get_errno())\n"
        "result['name'] = libc.prctl(15, b'renamed', 0, 0, 0)\n"  # PR_SET_NAME
        "sig.value = -1\n"
        "result['after'] = libc.prctl(2, ctypes.byref(sig), 0, 0, 0), sig.value\n",
        supervised=supervised,
    )
    assert result == {"pid": 1, "armed": (0, 9), "clear": (-1, 1), "other": (-1, 1),
                      "name": 0, "after": (0, 9)}, result


# ---------------------------------------------------------------------------------------------
# 4. Forged frames: data only, lengths checked before allocating, bounded in time.


def test_pickles_cannot_call_constructors_of_data_types():
    import collections

    hostile = [
        # deque(range(2**62), 0): a hang in C in the host
        pickle.dumps(collections.deque(range(3), 0)).replace(b"K\x03", b"\x8a\x08" + (2**62).to_bytes(8, "little")),
        b"\x80\x05\x95\x1c\x00\x00\x00\x00\x00\x00\x00\x8c\x08builtins\x94\x8c\tbytearray\x94\x93\x94J\x00\x00\x00`\x85\x94R\x94.",
        b"cbuiltins\nfrozenset\n(cbuiltins\nrange\n(J\x00\x00\x00@tRtR.",
        b"\x80\x05K\x01r\xff\xff\xff\x7f.",  # a memo index of 2**31: a huge memo table
    ]
    import tracemalloc

    tracemalloc.start()
    try:
        import collections

        listed = {P.class_key(collections.ChainMap): collections.ChainMap}
        for data in hostile:
            start = time.monotonic()
            # with no class listed a pickle record is refused outright; with one, the pre-pass
            # refuses calling anything else
            with pytest.raises(P.ProtocolError, match="lists no cross_classes"):
                P.decode_value(pickle_record(data), {})
            with pytest.raises(pickle.UnpicklingError):
                P.decode_value(pickle_record(data), listed)
            assert time.monotonic() - start < 1.0
        assert tracemalloc.get_traced_memory()[1] < 16 << 20
    finally:
        tracemalloc.stop()


def pickle_record(data: bytes) -> bytes:
    """An encoded value holding `data` as a pickle record, as a worker could forge it."""
    from smolagents_native import _core

    return _core.wire_dumps(object(), lambda obj: (P.PICKLE_EXT, data))


def test_data_frames_are_bounded_before_allocating_and_in_time():
    """The data-only codec against a worker's forged values: sizes claimed beyond the frame,
    a deep nest, colliding keys that make every insertion slower (hash flooding), a payload
    shared by many records: refused at once, or stopped by the deadline."""
    import tracemalloc

    from smolagents_native import _core

    forged = [
        b"l\xff\xff\xff\xff\xff\xff\xff\xff\x3f",  # a list of 2**62 items in 10 bytes
        b"s\xff\xff\xff\xff\x0f" + b"x" * 16,  # a str of 4 GiB
        b"l\x01" * 100_000 + b"N",  # 100,000 nested lists
    ]
    tracemalloc.start()
    try:
        for data in forged:
            with pytest.raises(P.ProtocolError, match="malformed value"):
                P.decode_value(data, {})
        assert tracemalloc.get_traced_memory()[1] < 16 << 20
    finally:
        tracemalloc.stop()
    # 300,000 int keys equal modulo 2**61 - 1: each insertion probes all the ones before
    # (written record by record: building the dict here would take as long)
    n = 300_000
    count = bytearray()
    while True:
        count.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            break
    flood = b"d" + bytes(count) + b"".join(
        _core.wire_dumps(i * ((1 << 61) - 1)) + b"N" for i in range(300_000))
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        P.decode_value(flood, {}, time.monotonic() + 0.3)
    assert time.monotonic() - start < 2.0


def test_oversized_and_malformed_frames_replace_the_worker(make_process_executor):
    ex = make_process_executor(["os", "time"], timeout_seconds=5,
                               worker_limits={"frame_bytes": 1 << 20})
    fd = _channel_fd(ex)
    seq = ex._seq + 1
    frames = [
        P.HEADER.pack(2**31, P.DONE, seq),  # announces 2 GiB
        P.HEADER.pack(16, 99, seq) + b"\x00" * 16,  # an unknown kind
        P.HEADER.pack(8, P.DONE, seq) + b"\x01\x02",  # truncated, then nothing
        P.HEADER.pack(4, P.CALL, seq) + b"\xff\xff\xff\xff",  # a malformed tool call
    ]
    for frame in frames:
        start = time.monotonic()
        with pytest.raises((InterpreterError, ExecutionTimeoutError)):
            ex(f"import os\nos.write({fd}, {frame!r})\nimport time\ntime.sleep(60)")
        assert time.monotonic() - start < 5 + 0.5 + 5
        assert ex("6 * 7").output == 42
    # a real report over the bound
    with pytest.raises(InterpreterError, match="exceeds the limit"):
        ex("'x' * (2 << 20)")
    assert ex("'ok'").output == "ok"


def test_a_worker_that_stops_reading_cannot_hold_the_host_past_the_deadline(
        make_process_executor):
    # A compromised worker asks for a tool whose result is larger than the socket's buffer,
    # then never reads: sending the result is bounded by the step's deadline as waiting is.
    import threading

    ex = make_process_executor(["os"], timeout_seconds=3)
    ex.send_tools({"big": lambda: b"x" * (16 << 20)})
    fd = _channel_fd(ex)
    ex("1")  # the tools synced: the next request is the step
    seq = ex._seq + 1
    call = b"".join(P.encode_call("big", (), {}, frozenset()))
    frame = P.HEADER.pack(len(call), P.CALL, seq) + call
    outcome = []

    def step():
        try:
            # then blocks in a C call, which only the host's backstop ends
            ex(f"import os\nos.write({fd}, {frame!r})\nr, w = os.pipe()\nos.read(r, 1)")
        except BaseException as exc:  # noqa: BLE001 - what the step ended with
            outcome.append(exc)

    thread = threading.Thread(target=step, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(3 + 0.5 + 10)
    if thread.is_alive():
        ex.close()  # unblocks the host's send (the worker is killed)
        thread.join(10)
        pytest.fail("the host was still sending to a worker that does not read")
    assert time.monotonic() - start < 3 + 0.5 + 10
    assert outcome and isinstance(outcome[0], ExecutionTimeoutError), outcome
    assert ex("6 * 7").output == 42  # a new worker took over


def test_replies_are_tied_to_their_request(make_process_executor):
    ex = make_process_executor(["os"])
    fd = _channel_fd(ex)
    # A step that sends its own report for a *later* step, then its real one.
    for ahead in (1, 2):
        seq = ex._seq + 1 + ahead
        envelope = b"".join(P.encode_done(0, P.encode_value("stale"), False, "", 0, {}, []))
        frame = P.HEADER.pack(len(envelope), P.DONE, seq) + envelope
        with pytest.raises(InterpreterError, match="broke the protocol"):
            ex(f"import os\nos.write({fd}, {frame!r})\n'real'")
    # Every later step gets its own answer, never the forged one.
    assert [ex(f"{i} * 10").output for i in range(5)] == [0, 10, 20, 30, 40]


# ---------------------------------------------------------------------------------------------
# 6. The stand-in text of an output the host refuses is made in the step, within its time.


def test_a_refused_output_is_described_within_the_step(make_process_executor):
    np = pytest.importorskip("numpy")
    del np
    ex = make_process_executor(["numpy"], timeout_seconds=2)
    start = time.monotonic()
    try:
        out = ex("import numpy as np\nnp.set_printoptions(threshold=10**9)\nnp.zeros(3 * 10**7)")
        assert len(repr(out.output)) <= 10_003
    except (InterpreterError, ExecutionTimeoutError):
        pass
    assert time.monotonic() - start < 2 + 0.5 + 4
    assert ex("1 + 1").output == 2


def test_stand_ins_of_code_defined_objects(make_process_executor):
    ex = make_process_executor(timeout_seconds=3)
    out = ex("class Broken:\n    def __repr__(self):\n        raise ValueError('no')\nBroken()")
    assert repr(out.output) == "<Broken object>"
    out = ex("class Long:\n    def __repr__(self):\n        return 'y' * 50_000\nLong()")
    assert repr(out.output) == "y" * 10_000 + "..."
    start = time.monotonic()
    try:
        ex("class Slow:\n    def __repr__(self):\n        while True:\n            pass\nSlow()")
    except (InterpreterError, ExecutionTimeoutError):
        pass
    assert time.monotonic() - start < 3 + 0.5 + 4
    assert ex("'fine'").output == "fine"


# ---------------------------------------------------------------------------------------------
# 7. Disk: a sized scratch, RAM the host bounds.


def test_disk_fill_ends_at_the_scratch_size(make_process_executor):
    ex = make_process_executor(["os"], worker_limits={"disk_bytes": 32 << 20},
                               timeout_seconds=20)
    assert ex.sandbox["disk_bytes"] == 32 << 20
    free_before = os.statvfs("/").f_bavail * os.statvfs("/").f_frsize
    with pytest.raises(InterpreterError, match="No space left|ENOSPC|Errno 28"):
        ex("import os\nchunk = b'x' * (1 << 20)\nfor i in range(400):\n"
           "    fd = os.open(f'/tmp/fill-{i % 8}', os.O_CREAT | os.O_WRONLY | os.O_APPEND)\n"
           "    os.write(fd, chunk)\n    os.close(fd)")
    used = ex("import os\nst = os.statvfs('/tmp')\n(st.f_blocks - st.f_bfree) * st.f_frsize").output
    assert used <= 32 << 20
    free_after = os.statvfs("/").f_bavail * os.statvfs("/").f_frsize
    assert free_before - free_after < 16 << 20  # nothing landed on the host's disk
    with pytest.raises(InterpreterError, match="No space left|Errno 28"):
        ex("import os\nfor i in range(200000):\n"
           "    os.close(os.open(f'/tmp/n{i}', os.O_CREAT | os.O_WRONLY))")
    assert ex("'usable'").output == "usable"


def test_default_scratch_limit_and_cross_executor_files(make_process_executor):
    a = make_process_executor(["os"])
    assert a.sandbox["disk_bytes"] == 256 << 20 and a.sandbox["scratch"] == "/tmp"
    a("import os\nfd = os.open('note', os.O_CREAT | os.O_WRONLY)\nos.write(fd, b'a')")
    b = make_process_executor(["os"])
    with pytest.raises(InterpreterError, match="FileNotFoundError|No such file"):
        b("import os\nos.open('/tmp/note', os.O_RDONLY)")


# ---------------------------------------------------------------------------------------------
# 8. Never weaker in silence: a missing layer is an error naming it, unless the host opts in.

_DENY_UNSHARE = r"""
import ctypes, os, struct, sys, warnings
sys.path.insert(0, sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 272, "aarch64": 97}[os.uname().machine]
# seccomp: unshare -> EPERM (as Docker's default profile answers), anything else allowed;
# "but-pid": a lone CLONE_NEWPID is allowed (a root fork server then makes the jail's pid
# namespace, and its init is refused the others)
if sys.argv[3] == "all":
    code = (
        (0x20, 0, 0, 0),            # ld [nr]
        (0x15, 0, 1, nr),           # jeq nr -> next, else skip
        (0x06, 0, 0, 0x00050001),   # ret ERRNO(EPERM)
        (0x06, 0, 0, 0x7fff0000),   # ret ALLOW
    )
else:
    code = (
        (0x20, 0, 0, 0),            # ld [nr]
        (0x15, 0, 3, nr),           # jeq nr -> next, else ALLOW
        (0x20, 0, 0, 16),           # ld [args[0]] (low word)
        (0x15, 1, 0, 0x20000000),   # jeq CLONE_NEWPID -> ALLOW, else next
        (0x06, 0, 0, 0x00050001),   # ret ERRNO(EPERM)
        (0x06, 0, 0, 0x7fff0000),   # ret ALLOW
    )
prog = b"".join(struct.pack("HBBI", *ins) for ins in code)
buf = ctypes.create_string_buffer(prog)
class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fprog = Fprog(len(code), ctypes.addressof(buf))
assert libc.prctl(38, 1, 0, 0, 0) == 0                      # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) == 0    # PR_SET_SECCOMP, FILTER
from smolagents_native import InterpreterError, LocalPythonExecutor
mode = sys.argv[2]
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ex = LocalPythonExecutor(["os"], isolation="process", isolation_fallback=mode)
        out = ex("import os\n(os.getuid(), 6 * 7)").output
        sandbox = dict(ex.sandbox)
        ex.close()
    print(repr(("ok", out, sandbox["missing"], sandbox["host_uid"],
                [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)])))
except InterpreterError as exc:
    print(repr(("refused", str(exc))))
"""


def _host_without_namespaces(mode: str, refused: str = "all") -> tuple:
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(smolagents_native.__file__)))
    proc = subprocess.run([sys.executable, "-c", _DENY_UNSHARE, pkg_parent, mode, refused],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    import ast

    return ast.literal_eval(proc.stdout.strip().splitlines()[-1])


# "all": the kernel refuses every namespace; "but-pid": all but a lone pid namespace (a root
# host's fork server makes it, the jail's init is refused the others).
@pytest.mark.parametrize("refused", ["all", "but-pid"])
def test_a_missing_layer_refuses_to_start_and_names_it(refused):
    outcome = _host_without_namespaces("error", refused)
    assert outcome[0] == "refused"
    layer = "namespaces" if ROOT else "user namespace"
    assert f"the {layer} layer of the process sandbox is unavailable" in outcome[1]
    assert "Operation not permitted" in outcome[1] and "Remedy:" in outcome[1]


def _python_readable_by_others() -> bool:
    """Whether uid 65534 could read this interpreter's installation with the host's view: the
    interpreter, the standard library and this package (what isolation/jail.py checks), each directory
    readable and every directory above it traversable by others (a clone made with mktemp -d
    is 0700)."""
    import stat

    import smolagents_native

    for start in (os.path.dirname(os.path.realpath(sys.executable)),
                  os.path.dirname(os.__file__),
                  os.path.dirname(os.path.abspath(smolagents_native.__file__))):
        path = os.path.realpath(start)
        if os.stat(path).st_mode & (stat.S_IROTH | stat.S_IXOTH) != stat.S_IROTH | stat.S_IXOTH:
            return False
        while path != "/":
            path = os.path.dirname(path)
            if not os.stat(path).st_mode & stat.S_IXOTH:
                return False
    return True


@pytest.mark.parametrize("refused", ["all", "but-pid"])
def test_a_weaker_sandbox_warns_or_is_allowed_when_the_host_opts_in(refused):
    outcome = _host_without_namespaces("warn", refused)
    if ROOT and not _python_readable_by_others():
        # Without namespaces a root host's worker is uid 65534 with the host's file system:
        # an installation under a private directory (pyenv in /root) is out of its reach,
        # and the error says so rather than failing at the first import.
        assert outcome[0] == "refused"
        assert "cannot read the Python installation" in outcome[1], outcome[1]
        return
    assert outcome[0] == "ok" and outcome[1][1] == 42
    missing, host_uid, warned = outcome[2], outcome[3], outcome[4]
    assert [m[0] for m in missing] == ["namespaces" if ROOT else "user namespace"]
    assert len(warned) == 1 and "the process sandbox runs without" in warned[0]
    # Without namespaces a root host's worker still runs as 65534, never 0.
    assert outcome[1][0] == (65534 if ROOT else os.geteuid()) and host_uid != 0
    outcome = _host_without_namespaces("allow", refused)
    assert outcome[0] == "ok" and outcome[2] and outcome[4] == []


_LOW_LIMITS = r"""
import resource, sys
sys.path.insert(0, sys.argv[1])
for res, value in ((resource.RLIMIT_AS, 3 << 30), (resource.RLIMIT_NOFILE, 200),
                   (resource.RLIMIT_FSIZE, 32 << 20), (resource.RLIMIT_CPU, 1000)):
    resource.setrlimit(res, (value, value))
from smolagents_native import LocalPythonExecutor
ex = LocalPythonExecutor([], isolation="process", max_memory_bytes=None)
print(repr((ex("6 * 7").output, dict(ex.sandbox)["limits"])))
ex.close()
"""


@pytest.mark.no_sanitizer  # address-space limits, RSS or a memory scan: ASan's shadow memory
def test_host_limits_below_the_workers_are_kept():
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(smolagents_native.__file__)))
    proc = subprocess.run([sys.executable, "-c", _LOW_LIMITS, pkg_parent],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    import ast

    out, limits = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
    assert out == 42
    assert {k: limits[k] for k in ("memory_bytes", "open_files", "file_bytes", "cpu_seconds")} == {
        "memory_bytes": 3 << 30, "open_files": 200, "file_bytes": 32 << 20, "cpu_seconds": 1000}


def test_the_worker_starts_whatever_path_started_the_host(tmp_path):
    venv_bin = os.path.dirname(sys.executable)
    rel = os.path.relpath(sys.executable, str(tmp_path))
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(smolagents_native.__file__)))
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from smolagents_native import LocalPythonExecutor\n"
            "ex = LocalPythonExecutor([], isolation='process')\nprint(ex('6 * 7').output)")
    proc = subprocess.run([rel, "-c", code, pkg_parent], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "42"
    assert os.path.isdir(venv_bin)


@pytest.mark.skipif(not ROOT, reason="a host that is not root: its worker writes as the host")
def test_a_writable_grant_the_worker_cannot_write_is_refused_at_once(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o755)
    with pytest.raises(ValueError, match="cannot be written by the sandbox worker.*chown 65534"):
        LocalPythonExecutor(["os"], isolation="process", writable_dirs=[str(locked)])


def test_worker_limits_are_validated():
    with pytest.raises(ValueError, match="unknown worker_limits: disk"):
        LocalPythonExecutor([], isolation="process", worker_limits={"disk": 1})
    with pytest.raises(ValueError, match="isolation_fallback"):
        LocalPythonExecutor([], isolation="process", isolation_fallback="maybe")


def test_rlimits_in_force_are_reported(make_process_executor):
    ex = make_process_executor(worker_limits={"open_files": 64})
    limits = ex.sandbox["limits"]
    assert limits["open_files"] == 64
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    expected = 4 << 30 if hard == resource.RLIM_INFINITY else min(4 << 30, hard)
    if os.environ.get("SMOLAGENTS_NATIVE_SANITIZE", "0") in ("", "0"):
        assert limits["memory_bytes"] == expected
    assert warnings is not None
