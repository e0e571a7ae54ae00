"""The kernel sandbox of one process-mode worker (docs/isolation.md, "The layers").

`sandbox_spec(...)` (host side) says what a worker may see: the Python installation and the
system's data read-only, the directories the host granted, the scratch size, the network,
the rlimits, what to do when a layer is unavailable. It is plain data: the fork server gets
it with each SPAWN request and never anything of the executor's own (its variables, its
environment), so no executor's secret is ever in the memory the fork server's children copy.

On a root host the fork server forks the jail's init itself into a new pid namespace
(`worker._spawn`), and `init_direct(...)` creates the other namespaces there, as root; the fork
server writes its uid map when asked. On any other host (or with `SUPERVISED`),
`supervise(spec, channel_fd, server_pid)` runs in the fork server's child (the *supervisor*)
and never returns: it creates the namespaces and forks the jail's init into them (pid 1 of a
new pid namespace), drops its own privileges and waits, then exits the way the worker ended.
Either way the fork server reports the worker's end, and killing the process it forked kills
the jail (PR_SET_PDEATHSIG).

`build_jail(...)` runs in the jail's init: a private root on tmpfs (read-only binds, a sized
scratch tmpfs at /tmp, its own /proc with /proc/sys and friends read-only, a minimal /dev),
pivot_root, then an unprivileged uid on the host (65534, or the host's own uid when the host
is not root) with every capability dropped and the securebits locked. The init then becomes
the worker (`worker.worker_main`: its rlimits and seccomp filter last, then the executor), the
one process of its pid namespace. Each step that fails names its layer, the kernel's message
and the remedy (`LayerUnavailable`); the host decides, by `isolation_fallback`, whether the
worker may go on without it.
"""

from __future__ import annotations

import os
import socket
import stat
import sys
from typing import Any

# smolagents_native/, the package this subpackage is in (the worker must read all of it).
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKER_UID = 65534  # "nobody": the worker's uid inside, and on the host when the host is root
WORKER_GID = 65534
SCRATCH = "/tmp"  # the worker's working directory, $HOME and $TMPDIR: a private, sized tmpfs
DEFAULT_DISK_BYTES = 256 << 20
# A root host's fork server forks each jail's init itself (`worker._spawn`, `init_direct`);
# True: a supervisor per worker, as for any other host (read when a fork server starts; the
# tests set it to cover both ways).
SUPERVISED = False

# What a worker sees of the host's /etc: the files libraries read for the system's data
# (time zone, certificates, fonts, MIME types), never the whole directory (/etc/ssl/private,
# /etc/shadow). /etc/passwd and /etc/group are the worker's own (nobody, nogroup).
ETC_DATA = (
    "/etc/localtime", "/etc/timezone", "/etc/ssl/certs", "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates", "/etc/pki/tls/certs", "/etc/fonts", "/etc/mime.types",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
    "/etc/matplotlibrc",
)
ETC_NETWORK = (
    "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf",
    "/etc/host.conf", "/etc/services", "/etc/protocols",
)
DEVICES = ("null", "zero", "full", "random", "urandom")
# /proc entries that reach host-wide kernel state: read-only in the worker's /proc (its
# user namespace already denies writing them; this holds without relying on that).
PROC_READONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs", "latency_stats")

# The layers, in the order they are set up, and what to do when one is unavailable.
REMEDIES = {
    "user namespace": (
        "enable user namespaces (sysctl user.max_user_namespaces > 0; on Debian before 11 "
        "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ "
        "kernel.apparmor_restrict_unprivileged_userns=0), or run the host as root; in a "
        "container, allow unshare(2) (Docker: --security-opt seccomp=unconfined)"
    ),
    "namespaces": (
        "allow unshare(2) of mount, pid, ipc, uts and network namespaces (in a container: "
        "Docker --security-opt seccomp=unconfined --security-opt apparmor=unconfined, or "
        "Podman's default), or enable user namespaces"
    ),
    "file system view": (
        "allow mounts in the worker's mount namespace (in a container: Docker "
        "--security-opt apparmor=unconfined)"
    ),
    "proc": (
        "the host's /proc hides some of its entries (a container's masked paths), so the "
        "kernel refuses a new /proc in an unprivileged namespace: run the container with "
        "--security-opt systempaths=unconfined, or run the host as root"
    ),
    "capabilities": "a kernel with capability support (CONFIG_SECURITY)",
    "seccomp": "a kernel with seccomp filters (CONFIG_SECCOMP_FILTER)",
}


class GrantChanged(Exception):
    """A granted path is a link now, or another file than the host resolved: the worker does
    not start, whatever `isolation_fallback` allows (no weaker view is a remedy for it)."""


class LayerUnavailable(Exception):
    """A sandbox layer could not be set up: `layer` (a REMEDIES key), the kernel's message."""

    def __init__(self, layer: str, message: str):
        super().__init__(layer, message)
        self.layer = layer
        self.message = message

    def text(self) -> str:
        return (
            f"the {self.layer} layer of the process sandbox is unavailable: {self.message}. "
            f"Remedy: {REMEDIES.get(self.layer, 'see docs/isolation.md')}"
        )


# ---------------------------------------------------------------------------------------------
# Host side: the spec.


def _readonly_roots() -> list[str]:
    """Directories of the Python installation the worker must read: the prefixes, this
    package (an editable checkout), site-packages and zip entries of sys.path, the directory
    of the interpreter's real file."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.add(_PACKAGE_DIR)
    for entry in sys.path:  # site directories, not the host's working directory
        if entry and os.path.isabs(entry) and os.path.exists(entry) and (
            os.path.basename(entry) in ("site-packages", "dist-packages")
            or entry.endswith(".zip")
        ):
            roots.add(entry)
    for exe in (sys.executable, os.path.realpath(sys.executable)):
        if exe:
            roots.add(os.path.dirname(os.path.dirname(os.path.abspath(exe))))
    # Every root by its real path too: a symlinked prefix must resolve inside the sandbox.
    roots |= {os.path.realpath(r) for r in roots}
    return _outermost(r for r in roots if r and os.path.isabs(r) and os.path.exists(r))


def _outermost(paths: Any) -> list[str]:
    out: list[str] = []
    for p in sorted({os.path.normpath(p) for p in paths}, key=lambda p: (len(p), p)):
        if p == "/" or any(p == r or p.startswith(r.rstrip("/") + "/") for r in out):
            continue
        out.append(p)
    return out


def sandbox_spec(
    network: bool, paths: tuple[tuple[str, bool], ...], disk_bytes: int | None,
    limits: dict[str, Any], fallback: str,
) -> dict[str, Any]:
    """What a worker may see and use: plain data sent with each SPAWN request.

    `binds`: (real path, writable), each mounted at its real path; `links`: (path, real
    path) for every given path that is, or passes through, a symbolic link, recreated as a
    link in the worker's root, so the path the host gave works there too."""
    wanted: list[tuple[str, bool]] = [("/usr", False)]
    wanted += [(root, False) for root in _readonly_roots()]
    wanted += [(p, False) for p in (*ETC_DATA, *(ETC_NETWORK if network else ()))
               if os.path.lexists(p)]
    for path, writable in paths:
        given = os.path.normpath(os.path.abspath(path))
        real = os.path.realpath(given)
        if real != given:
            # A link in a granted path is where a worker granted the directory holding it
            # could point another executor's grant anywhere (it would be followed when the
            # grant is resolved): grants are taken as real paths only.
            raise ValueError(
                f"the granted path {path!r} passes through a symbolic link (it leads to "
                f"{real!r}): grant the real path")
        wanted.append((given, bool(writable)))
    binds: dict[str, bool] = {}
    links: dict[str, str] = {}
    for path, writable in wanted:
        real = os.path.realpath(path)
        if not os.path.exists(real):
            continue
        if real != os.path.normpath(path):
            links[os.path.normpath(path)] = real
        binds[real] = binds.get(real, False) or writable
    # A read-only path inside another read-only bind is already there.
    kept: list[tuple[str, bool]] = []
    for path in sorted(binds, key=lambda p: (len(p), p)):
        writable = binds[path]
        if not writable and any(
            not w and (path == r or path.startswith(r.rstrip("/") + "/")) for r, w in kept
        ):
            continue
        kept.append((path, writable))
    pinned = []
    for path, writable in sorted(kept):
        st = os.stat(path)
        pinned.append((path, writable, st.st_dev, st.st_ino))
    return {
        # (real path, writable, device, inode): the jail binds what the host resolved, not
        # what a path resolves to later (`_open_pinned`)
        "binds": pinned,
        "links": sorted(links.items()),
        "network": bool(network),
        "disk_bytes": int(disk_bytes if disk_bytes is not None else DEFAULT_DISK_BYTES),
        "limits": dict(limits),
        "fallback": fallback,
    }


# ---------------------------------------------------------------------------------------------
# The supervisor (the fork server's child).


def _write(path: str, text: str, dir_fd: int | None = None) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _map_ids(pid: str, outer_uid: int, outer_gid: int, proc_fd: int | None = None) -> None:
    """The user namespace of `pid` ("self" or a number, under /proc or the directory
    `proc_fd`): WORKER_UID inside is `outer_uid` outside, WORKER_GID is `outer_gid`; no
    setgroups."""
    base = pid if proc_fd is not None else f"/proc/{pid}"
    _write(f"{base}/setgroups", "deny", proc_fd)
    _write(f"{base}/uid_map", f"{WORKER_UID} {outer_uid} 1\n", proc_fd)
    _write(f"{base}/gid_map", f"{WORKER_GID} {outer_gid} 1\n", proc_fd)


def _keep_only(fds: set[int]) -> None:
    """Close every file descriptor but `fds` (and 0-2)."""
    low = 3
    for fd in sorted(fds):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 1 << 20)


def supervise(spec: dict[str, Any], channel_fd: int, server_pid: int) -> None:
    """The supervisor's whole life (it ends with os._exit). Set-up failures are sent to the
    host on the channel (a SETUP_FAIL frame), then the process exits with status 70.

    Two processes per worker: this supervisor (the fork server's child, in the host's pid
    namespace: the handle the fork server and the host hold; it only waits once the jail is
    built) and the jail's init (pid 1 of the new pid namespace: it builds the jail, then
    becomes the worker in it). Each dies with its parent (PR_SET_PDEATHSIG)."""
    from .. import _core

    import signal

    _core.jail_set_pdeathsig(signal.SIGKILL)
    if os.getppid() != server_pid:
        os._exit(70)
    os.setsid()
    strict = spec["fallback"] == "error"
    host_root = os.geteuid() == 0
    flags = (
        _core.JAIL_CLONE_NEWNS | _core.JAIL_CLONE_NEWPID | _core.JAIL_CLONE_NEWIPC
        | _core.JAIL_CLONE_NEWUTS | _core.JAIL_CLONE_NEWCGROUP
        | (0 if spec["network"] else _core.JAIL_CLONE_NEWNET)
    )
    missing: list[list[str]] = []
    # A root host creates the namespaces as root (its mounts can then reach any path) and the
    # jail enters its user namespace after building its root; any other host needs the user
    # namespace first, for the rights to create the others.
    userns = "late" if host_root else "early"
    namespaces = True
    host_uid, host_gid = os.geteuid(), os.getegid()  # in a new user namespace: unmapped
    try:
        if userns == "early":
            _core.jail_unshare(_core.JAIL_CLONE_NEWUSER | flags)
            # The fork server is not dumpable, and a process that is not has its /proc
            # files owned by root: its own maps could not be written.
            _core.jail_set_dumpable(True)
            try:
                _map_ids("self", host_uid, host_gid)
            finally:
                _core.jail_set_dumpable(False)
        else:
            _core.jail_unshare(flags)
    except OSError as exc:
        layer = "user namespace" if userns == "early" else "namespaces"
        if strict:
            _refuse(channel_fd, LayerUnavailable(layer, str(exc)))
        missing.append([layer, str(exc)])
        namespaces = False
        userns = "none"
    # The host's /proc, held open: the jail's pivot_root also moves this process's root
    # (they share the mount namespace), after which "/proc" is the jail's own.
    proc_fd = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    # Likewise /dev/null: this process opens no path once the jail is being built.
    devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    ask_r, ask_w = os.pipe()  # jail -> supervisor: "map my ids"
    ack_r, ack_w = os.pipe()  # supervisor -> jail: done
    life_r, life_w = os.pipe()  # the jail sees EOF when the supervisor has gone
    pid = os.fork()
    if pid == 0:
        os.close(ask_r)
        os.close(ack_w)
        os.close(life_w)
        os.close(proc_fd)
        os.close(devnull)
        _jail_init(spec, channel_fd, namespaces, userns, missing, ask_w, ack_r, life_r,
                   supervised=True)
    os.close(ask_w)
    os.close(ack_r)
    os.close(life_r)
    os.close(channel_fd)
    os.dup2(devnull, 2)
    _keep_only({ask_r, ack_w, life_w, proc_fd})
    # A root host: the jail asks once it has built its root and entered its user namespace.
    request = os.read(ask_r, 1)
    if request == b"M":
        try:
            _map_ids(str(pid), WORKER_UID, WORKER_GID, proc_fd)
            os.write(ack_w, b"1")
        except OSError:
            os.write(ack_w, b"0")
    os.close(ask_r)
    os.close(ack_w)
    os.close(proc_fd)
    _wait_only(host_root)
    if os.getppid() != server_pid:
        os._exit(70)
    _core.jail_reap(pid)


def _wait_only(host_root: bool) -> None:
    """What a process that only waits keeps: no privileges, no core file, the worker's
    seccomp filter (which refuses to change the parent-death signal: armed again before it,
    since dropping privileges changes the credentials, which clears it)."""
    from .. import _core

    import resource
    import signal

    try:
        _core.jail_drop_privileges(uid=WORKER_UID if host_root else -1,
                                   gid=WORKER_GID if host_root else -1)
    except OSError:
        pass
    _core.jail_set_pdeathsig(signal.SIGKILL)
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        _core.sandbox_apply(network=False)
    except OSError:
        pass


def init_direct(spec: dict[str, Any], channel_fd: int, life_r: int, ask_w: int,
                ack_r: int) -> None:
    """The jail's init forked by a root fork server straight into the pid namespace it made
    for it (`worker._spawn`): pid 1 of that namespace, the fork server's child. It does what
    a supervisor does for a root host (the other namespaces, created as root;
    docs/isolation.md, *The layers*), then what the init does (`_jail_init`: the jail, then
    the worker); the fork server, root outside, writes its uid map when asked on `ask_w`
    (answered on `ack_r`), as a supervisor would. Never returns. `life_r` reads EOF once the
    fork server has gone."""
    from .. import _core

    # Before anything: die with the fork server (its pid is not visible from here, so the
    # pipe tells whether it went before the signal was armed).
    _die_with_parent(life_r)
    flags = (
        _core.JAIL_CLONE_NEWNS | _core.JAIL_CLONE_NEWIPC | _core.JAIL_CLONE_NEWUTS
        | _core.JAIL_CLONE_NEWCGROUP | (0 if spec["network"] else _core.JAIL_CLONE_NEWNET)
    )
    missing: list[list[str]] = []
    namespaces, userns = True, "late"
    try:
        _core.jail_unshare(flags)
    except OSError as exc:
        if spec["fallback"] == "error":
            _refuse(channel_fd, LayerUnavailable("namespaces", str(exc)))
        missing.append(["namespaces", str(exc)])
        namespaces, userns = False, "none"
    _jail_init(spec, channel_fd, namespaces, userns, missing, ask_w, ack_r, life_r,
               supervised=False)


def _jail_init(
    spec: dict[str, Any], channel_fd: int, namespaces: bool, userns: str,
    missing: list[list[str]], ask_w: int, ack_r: int, life_r: int, supervised: bool,
) -> None:
    """The jail's init (pid 1 of the new pid namespace): builds the jail, then becomes the
    worker in it (`worker.worker_main`), the one process of its namespace; exits when the
    worker ends. Never returns. `ask_w` / `ack_r`: the request for its uid map and the
    answer, to the supervisor or the fork server (root outside); `supervised`: whether a
    supervisor forked it (else the fork server did)."""
    code = 70
    try:
        _keep_only({channel_fd, ask_w, ack_r, life_r})
        jail = build_jail(spec, namespaces, userns, missing, ask_w, ack_r, life_r)
        jail["supervisor"] = supervised
        from .worker import worker_main

        worker_main(channel_fd, spec, jail)
        code = 0
    except LayerUnavailable as exc:
        _refuse(channel_fd, exc)
    except BaseException as exc:  # noqa: BLE001 - reported, then the worker ends
        _report(channel_fd, exc)
    finally:
        os._exit(code)


def _refuse(channel_fd: int, exc: LayerUnavailable) -> None:
    """A layer the spec requires is unavailable: say so to the host, then end (status 70)."""
    from . import protocol as P

    try:
        P.send_frame(channel_fd, P.SETUP_FAIL, 0, exc.text().encode())
    finally:
        os._exit(70)


def _report(channel_fd: int, exc: BaseException) -> None:
    """Tell the host why the sandbox could not be set up (best effort)."""
    from . import protocol as P

    try:
        P.send_frame(channel_fd, P.SETUP_FAIL, 0,
                     f"the process sandbox could not be set up: "
                     f"{type(exc).__name__}: {exc}".encode(errors="replace"))
    except BaseException:  # noqa: BLE001
        pass


# ---------------------------------------------------------------------------------------------
# The worker's jail.


def _die_with_parent(life_r: int) -> None:
    """Arm SIGKILL at the supervisor's death, then make sure it had not died already (its
    end of the `life_r` pipe closes with it). Arm it again after every credential change,
    which clears it."""
    from .. import _core

    import signal

    _core.jail_set_pdeathsig(signal.SIGKILL)
    os.set_blocking(life_r, False)
    try:
        if os.read(life_r, 1) == b"":
            os._exit(70)  # the supervisor ended before the death signal was armed
    except BlockingIOError:
        pass


def _mkdirs(path: str, mode: int = 0o755) -> None:
    """`os.makedirs(path, mode, exist_ok=True)` (parents 0o777, less the umask, as it makes
    them), a system call or two where the directory's parent exists: the jail's root is
    built from a few dozen of them, in the init of every sandbox."""
    try:
        os.mkdir(path, mode)
    except FileExistsError:
        if not os.path.isdir(path):
            raise
    except FileNotFoundError:
        parent = os.path.dirname(path)
        if parent == path:
            raise
        _mkdirs(parent, 0o777)
        try:
            os.mkdir(path, mode)
        except FileExistsError:
            if not os.path.isdir(path):
                raise


def _mount_point(target: str, is_dir: bool) -> None:
    """Create the mount point `target` for a bind of a directory (`is_dir`) or a file."""
    if is_dir:
        _mkdirs(target)
    else:
        _mkdirs(os.path.dirname(target))
        if not os.path.lexists(target):
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))


def _build_root(
    spec: dict[str, Any], run: Any, strict: bool, missing: list[list[str]]
) -> tuple[list[str], str]:
    """Build the worker's root under /newroot and pivot into it. `run(layer, fn, *args)`
    calls fn and turns an OSError into LayerUnavailable(layer). Returns what was bound and
    what /proc is."""
    from .. import _core

    fs = "file system view"
    nosuid_nodev = _core.JAIL_MS_NOSUID | _core.JAIL_MS_NODEV
    # Our mounts never propagate to the host's namespace.
    run(fs, _core.jail_mount, None, "/", None, _core.JAIL_MS_REC | _core.JAIL_MS_PRIVATE, None)
    # A staging tmpfs over /tmp (in this namespace only): the old root is kept at
    # /oldroot, so every source path stays reachable as /oldroot/<path> whatever the new
    # root hides.
    run(fs, _core.jail_mount, "tmpfs", "/tmp", "tmpfs", nosuid_nodev, "size=64k,mode=0755")
    for d in ("/tmp/newroot", "/tmp/oldroot"):
        os.mkdir(d, 0o755)
    run(fs, _core.jail_mount, "tmpfs", "/tmp/newroot", "tmpfs", nosuid_nodev,
        "size=4m,nr_inodes=4096,mode=0755")
    run(fs, _core.jail_pivot_root, "/tmp", "/tmp/oldroot")
    new, old = "/newroot", "/oldroot"
    bound = []

    def bind(source: str, target: str, readonly: bool) -> None:
        src = old + source
        if not os.path.lexists(src):
            return
        _mount_point(new + target, os.path.isdir(src))
        run(fs, _core.jail_bind, src, new + target, readonly)
        bound.append(target)

    def bind_pinned(source: str, readonly: bool, dev: int, ino: int) -> None:
        pinned = _open_pinned(old, source, dev, ino)
        if pinned is None:
            return
        fd, mode = pinned
        try:
            # the descriptor's own mode (not a stat of its /proc/self/fd path: one system
            # call less, through procfs, per bind in every sandbox)
            _mount_point(new + source, stat.S_ISDIR(mode))
            run(fs, _core.jail_bind, src_of(fd), new + source, readonly)
        finally:
            os.close(fd)
        bound.append(source)

    def src_of(fd: int) -> str:
        return f"{old}/proc/self/fd/{fd}"

    # /bin, /lib...: as the host has them (links into /usr, or directories).
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = f"{old}/{name}"
        if os.path.islink(host):
            os.symlink(os.readlink(host), f"{new}/{name}")
        elif os.path.isdir(host):
            bind(f"/{name}", f"/{name}", True)
    # Scratch: one sized tmpfs for /tmp, the working directory, $HOME and /dev/shm.
    _mkdirs(new + SCRATCH)
    run(fs, _core.jail_mount, "tmpfs", new + SCRATCH, "tmpfs", nosuid_nodev,
        f"size={spec['disk_bytes']},nr_inodes={max(1024, spec['disk_bytes'] // 4096)},"
        f"mode=1777,uid={WORKER_UID},gid={WORKER_GID}")
    # The Python installation, the system's data and the host's grants (real paths),
    # parents before children; then the links the host's paths pass through.
    for source, writable, dev, ino in spec["binds"]:
        bind_pinned(source, not writable, dev, ino)
    for path, target in spec["links"]:
        if not os.path.lexists(new + path):
            _mkdirs(os.path.dirname(new + path))
            os.symlink(target, new + path)
    # /etc: the worker's own identity files beside the bound data.
    _mkdirs(new + "/etc")
    for name, text in (
        ("passwd", f"nobody:x:{WORKER_UID}:{WORKER_GID}:nobody:{SCRATCH}:/usr/sbin/nologin\n"),
        ("group", f"nogroup:x:{WORKER_GID}:\n"),
        ("hostname", "sandbox\n"),
    ):
        if not os.path.lexists(f"{new}/etc/{name}"):
            fd = os.open(f"{new}/etc/{name}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                os.write(fd, text.encode())
            finally:
                os.close(fd)
    _mkdirs(new + "/var")
    os.symlink(SCRATCH, new + "/var/tmp")
    # /dev: a few device nodes bound from the host, the usual links.
    _mkdirs(new + "/dev")
    run(fs, _core.jail_mount, "tmpfs", new + "/dev", "tmpfs", _core.JAIL_MS_NOSUID,
        "size=64k,nr_inodes=64,mode=0755")
    for name in DEVICES:
        source = f"{old}/dev/{name}"
        if os.path.exists(source):
            _mount_point(f"{new}/dev/{name}", False)
            run(fs, _core.jail_mount, source, f"{new}/dev/{name}", None,
                _core.JAIL_MS_BIND, None)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"),
                         ("shm", SCRATCH)):
        os.symlink(target, f"{new}/dev/{name}")
    # /proc: the jail's own (this process is the init of the new pid namespace), mounted
    # while the host's is still visible (the kernel lets an unprivileged namespace mount a
    # proc only when one is already fully visible in it).
    _mkdirs(new + "/proc")
    try:
        _mount_proc(run, new)
        proc = "own pid namespace; " + ", ".join(
            f"/proc/{n}" for n in PROC_READONLY) + " read-only"
    except LayerUnavailable as exc:
        if strict:
            raise
        missing.append([exc.layer, exc.message])
        proc = "none"
    run(fs, _core.jail_pivot_root, new)  # the old root is detached
    return bound, proc


def _open_pinned(root: str, path: str, dev: int, ino: int) -> tuple[int, int] | None:
    """An O_PATH descriptor of `path` under `root`, reached component by component without
    following any link, and checked to be the file the host resolved (device and inode),
    with its mode; None when it is gone. Raises GrantChanged when it is a link now, or
    another file: a worker granted a directory above it may have swapped it since."""
    flags = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(root, flags | os.O_DIRECTORY)
    try:
        st = None
        for part in [p for p in path.split("/") if p]:
            try:
                nxt = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                return None
            os.close(fd)
            fd = nxt
            st = os.fstat(fd)
            if stat.S_ISLNK(st.st_mode):
                raise GrantChanged(
                    f"the granted path {path} holds a link now (a worker granted a directory "
                    "above it may have replaced it): the link is not followed; create the "
                    "executor again with the real path")
        if st is None:  # the root itself
            st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (dev, ino):
            raise GrantChanged(
                f"the granted path {path} is another file than when the executor was "
                "created (a worker may have replaced it): create the executor again")
        out, fd = fd, -1
        return out, st.st_mode
    finally:
        if fd >= 0:
            os.close(fd)


def _mount_proc(run: Any, root: str) -> None:
    from .. import _core

    run("proc", _core.jail_mount, "proc", root + "/proc", "proc",
        _core.JAIL_MS_NOSUID | _core.JAIL_MS_NODEV | _core.JAIL_MS_NOEXEC, None)
    for name in PROC_READONLY:
        path = f"{root}/proc/{name}"
        if os.path.exists(path):
            run("proc", _core.jail_bind, path, path, True)


def build_jail(
    spec: dict[str, Any], namespaces: bool, userns: str,
    missing: list[list[str]], ask_w: int, ack_r: int, life_r: int,
) -> dict[str, Any]:
    """Confine the calling process (the jail's init, which becomes the worker next) and
    return the jail's description: everything short of the seccomp filter and
    the rlimits, which `worker.worker_main` applies last. Raises LayerUnavailable when a
    layer fails and the spec is strict."""
    from .. import _core

    _die_with_parent(life_r)
    os.setsid()
    strict = spec["fallback"] == "error"

    def run(layer: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except OSError as exc:
            raise LayerUnavailable(layer, str(exc)) from None

    view: dict[str, Any] = {"root": "host", "proc": "host", "scratch": None}
    if namespaces:
        try:
            view["bound"], view["proc"] = _build_root(spec, run, strict, missing)
            view["root"] = "private tmpfs (read-only)"
            view["scratch"] = SCRATCH
        except LayerUnavailable as exc:
            if strict:
                raise
            missing.append([exc.layer, exc.message])
        if view["root"] != "host":
            run("file system view", _core.jail_remount_readonly, "/")
            try:
                socket.sethostname("sandbox")
            except OSError:
                pass
    os.chdir(SCRATCH if view["scratch"] else "/")
    # The uid: a root host's worker enters its user namespace now (its root is built) and
    # asks the supervisor, still root outside, to map it; without one it becomes 65534.
    uid = gid = -1
    if userns == "late":
        # Still root on the host: become 65534 there first (no supplementary groups: inside
        # a user namespace they could no longer be dropped), so that the namespace is
        # 65534's: what the worker holds in it (processes, queued signals, inotify
        # instances) is charged to 65534 up the namespace chain, never to root. Then the
        # namespace (an unprivileged creation), whose map the supervisor or the fork server,
        # root outside, writes: 65534 inside is kuid 65534.
        os.setgroups([])
        os.setresgid(WORKER_GID, WORKER_GID, WORKER_GID)
        os.setresuid(WORKER_UID, WORKER_UID, WORKER_UID)
        try:
            run("user namespace", _core.jail_unshare, _core.JAIL_CLONE_NEWUSER)
            os.write(ask_w, b"M")
            if os.read(ack_r, 1) != b"1":
                raise LayerUnavailable("user namespace", "the ids could not be mapped")
        except LayerUnavailable as exc:
            if strict:
                raise
            missing.append([exc.layer, exc.message])
            userns = "none"
    if userns == "none" and os.geteuid() == 0:
        uid, gid = WORKER_UID, WORKER_GID  # no namespace at all: the uid itself
    os.close(ask_w)
    os.close(ack_r)
    try:
        securebits = run("capabilities", _core.jail_drop_privileges, uid, gid)
    except LayerUnavailable as exc:
        if strict:
            raise
        missing.append([exc.layer, exc.message])
        securebits = None
    if view["root"] == "host":
        # No root of its own: the worker reads the host's files with its own uid.
        python = [p for p in (os.path.dirname(os.__file__),  # the standard library
                              _PACKAGE_DIR)  # this package
                  if not os.access(p, os.R_OK | os.X_OK)]
        if python:
            raise RuntimeError(
                f"without a mount namespace the worker reads the host's files as uid "
                f"{os.getuid()}, which cannot read the Python installation at {python[0]} "
                "(a directory on its path does not let others in): make it readable by "
                "others, or let the sandbox have its namespaces")
    # A change of credentials clears the parent-death signal: armed again, last.
    _die_with_parent(life_r)
    os.close(life_r)
    return {
        "namespaces": namespaces,
        "user_namespace": userns != "none",
        "securebits": securebits,
        "view": view,
        "missing": missing,
    }
