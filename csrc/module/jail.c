/* jail.c: the kernel primitives a process-mode worker's sandbox is built
 * from (docs/isolation.md, "The layers").  The layout itself (which
 * namespaces, which mounts, in which order) is decided in Python
 * (smolagents_native/isolation/jail.py); this file only makes the system calls the
 * standard library does not offer on every supported version, each raising
 * OSError with the call and its arguments in the message, so that the host's
 * error names the layer and the kernel's own reason.
 *
 * Exposed on `_core` (jail_add_functions, called at module exec):
 *
 *   jail_unshare(flags: int) -> None          unshare(2)
 *   jail_setns(fd: int, nstype: int) -> None  setns(2)
 *   jail_mount(source, target, fstype, flags, data) -> None     mount(2)
 *   jail_bind(source, target, readonly) -> None
 *       a recursive bind mount with nosuid and nodev, read-only for the whole
 *       subtree when asked (mount_setattr(2) with AT_RECURSIVE; kernels
 *       before 5.12: a remount of the top mount that keeps its locked flags)
 *   jail_remount_readonly(target) -> None
 *   jail_pivot_root(new_root, put_old=None) -> None
 *       makes new_root the root of the calling mount namespace; the old one
 *       stays at put_old when given, else is detached (pivot_root(".", ".")
 *       then umount2(".", MNT_DETACH))
 *   jail_drop_privileges(uid=-1, gid=-1) -> int
 *       locks the securebits (no root semantics, no ambient raise, no
 *       keep-caps), empties the bounding and ambient sets, switches to
 *       uid/gid (when >= 0, with no supplementary groups), then empties the
 *       permitted, effective and inheritable sets.  Returns the securebits.
 *   jail_reap(pid) -> never returns
 *       waits for child pid (reaping any other child), then _exit()s with its
 *       exit status, or 128 + the signal that killed it
 *   jail_set_pdeathsig(signal) -> None        prctl(PR_SET_PDEATHSIG)
 *   jail_set_dumpable(flag) -> None           prctl(PR_SET_DUMPABLE)
 *   jail_end_on_signals() -> int
 *       for the init of a pid namespace (which the kernel does not end with a
 *       signal it, or another process of its namespace, sends it at its
 *       default action): a handler that ends the process with status
 *       128 + the signal for every signal whose default action ends a
 *       process and whose action is the default; returns how many
 *   JAIL_CLONE_NEWUSER, ..._NEWNS, ..._NEWPID, ..._NEWNET, ..._NEWIPC,
 *   ..._NEWUTS, ..._NEWCGROUP; JAIL_MS_NOSUID, ..._NODEV, ..._NOEXEC,
 *   ..._RDONLY: integer constants.
 *
 * Linux only; elsewhere every function raises OSError(ENOSYS).
 */
#include <Python.h>

#include "sandbox.h"

#include <errno.h>

#if defined(__linux__)
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MS_REC
#define MS_REC 16384
#endif
#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
/* securebits (linux/securebits.h), spelled out: the header's macros need
 * its issecure_mask helper */
#define JAIL_SECBIT_NOROOT (1 << 0)
#define JAIL_SECBIT_NOROOT_LOCKED (1 << 1)
#define JAIL_SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#define JAIL_SECBIT_KEEP_CAPS_LOCKED (1 << 5)
#define JAIL_SECBIT_NO_CAP_AMBIENT_RAISE (1 << 6)
#define JAIL_SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1 << 7)

/* mount_setattr(2) (Linux 5.12), declared here: <linux/mount.h> clashes with
 * <sys/mount.h> on older C libraries */
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442 /* the same number on every architecture */
#endif
#define JAIL_AT_RECURSIVE 0x8000
#define JAIL_MOUNT_ATTR_RDONLY 0x00000001
#define JAIL_MOUNT_ATTR_NOSUID 0x00000002
#define JAIL_MOUNT_ATTR_NODEV 0x00000004
struct jail_mount_attr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};

/* OSError(errno, "<call>: <strerror>") with the call and its arguments in
 * the message; always returns NULL. */
static PyObject *
jail_error(const char *fmt, ...)
{
    int err = errno;
    va_list vargs;
    va_start(vargs, fmt);
    PyObject *what = PyUnicode_FromFormatV(fmt, vargs);
    va_end(vargs);
    if (what == NULL) {
        return NULL;
    }
    PyObject *msg = PyUnicode_FromFormat("%U: %s", what, strerror(err));
    Py_DECREF(what);
    if (msg == NULL) {
        return NULL;
    }
    PyObject *args = Py_BuildValue("(iN)", err, msg);
    if (args != NULL) {
        PyErr_SetObject(PyExc_OSError, args);
        Py_DECREF(args);
    }
    return NULL;
}

/* jail_unshare(flags): None (new reference) or NULL. */
static PyObject *
jail_unshare(PyObject *module, PyObject *arg)
{
    int flags;
    if (!PyArg_Parse(arg, "i:jail_unshare", &flags)) {
        return NULL;
    }
    if (unshare(flags) != 0) {
        return jail_error("unshare(0x%x)", flags);
    }
    Py_RETURN_NONE;
}

/* jail_setns(fd, nstype): None or NULL. */
static PyObject *
jail_setns(PyObject *module, PyObject *args)
{
    int fd, nstype;
    if (!PyArg_ParseTuple(args, "ii:jail_setns", &fd, &nstype)) {
        return NULL;
    }
    if (setns(fd, nstype) != 0) {
        return jail_error("setns(%d, 0x%x)", fd, nstype);
    }
    Py_RETURN_NONE;
}

/* jail_mount(source, target, fstype, flags, data): None or NULL.  source,
 * fstype and data may be None. */
static PyObject *
jail_mount(PyObject *module, PyObject *args)
{
    const char *source, *target, *fstype, *data;
    unsigned long flags;
    if (!PyArg_ParseTuple(args, "zszkz:jail_mount", &source, &target, &fstype, &flags,
                          &data)) {
        return NULL;
    }
    if (mount(source, target, fstype, flags, data) != 0) {
        return jail_error("mount(%s, %s, %s, 0x%x, %s)", source ? source : "NULL", target,
                          fstype ? fstype : "NULL", (unsigned int)flags, data ? data : "NULL");
    }
    Py_RETURN_NONE;
}

/* The flags a remount of `target` must keep: those the kernel locks when a
 * mount crosses into a less privileged namespace (nosuid, nodev, noexec,
 * rdonly, the atime settings), read from statvfs.  0 when unknown. */
static unsigned long
locked_flags(const char *target)
{
    struct statvfs st;
    if (statvfs(target, &st) != 0) {
        return 0;
    }
    unsigned long out = 0;
    if (st.f_flag & ST_NOSUID) {
        out |= MS_NOSUID;
    }
    if (st.f_flag & ST_NODEV) {
        out |= MS_NODEV;
    }
    if (st.f_flag & ST_NOEXEC) {
        out |= MS_NOEXEC;
    }
    if (st.f_flag & ST_RDONLY) {
        out |= MS_RDONLY;
    }
    if (st.f_flag & ST_NOATIME) {
        out |= MS_NOATIME;
    }
    if (st.f_flag & ST_NODIRATIME) {
        out |= MS_NODIRATIME;
    }
    if (st.f_flag & ST_RELATIME) {
        out |= MS_RELATIME;
    }
    return out;
}

/* Read-only (when `readonly`), nosuid and nodev for the mount at `target`
 * and every mount under it.  0, or -1 with errno set. */
static int
restrict_tree(const char *target, int readonly)
{
    struct jail_mount_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.attr_set = JAIL_MOUNT_ATTR_NOSUID | JAIL_MOUNT_ATTR_NODEV;
    if (readonly) {
        attr.attr_set |= JAIL_MOUNT_ATTR_RDONLY;
    }
    if (syscall(__NR_mount_setattr, AT_FDCWD, target, JAIL_AT_RECURSIVE, &attr,
                sizeof(attr)) == 0) {
        return 0;
    }
    if (errno != ENOSYS) {
        return -1;
    }
    /* Before 5.12: the top mount only (submounts keep their own flags). */
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | locked_flags(target);
    if (readonly) {
        flags |= MS_RDONLY;
    }
    return mount(NULL, target, NULL, flags, NULL);
}

/* jail_bind(source, target, readonly): None or NULL. */
static PyObject *
jail_bind(PyObject *module, PyObject *args)
{
    const char *source, *target;
    int readonly;
    if (!PyArg_ParseTuple(args, "ssp:jail_bind", &source, &target, &readonly)) {
        return NULL;
    }
    if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) != 0) {
        return jail_error("bind mount of %s on %s", source, target);
    }
    if (restrict_tree(target, readonly) != 0) {
        return jail_error("making the bind mount %s %s", target,
                          readonly ? "read-only, nosuid, nodev" : "nosuid, nodev");
    }
    Py_RETURN_NONE;
}

/* jail_remount_readonly(target): None or NULL. */
static PyObject *
jail_remount_readonly(PyObject *module, PyObject *arg)
{
    const char *target = PyUnicode_AsUTF8(arg);
    if (target == NULL) {
        return NULL;
    }
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | locked_flags(target);
    if (mount(NULL, target, NULL, flags, NULL) != 0) {
        return jail_error("remounting %s read-only", target);
    }
    Py_RETURN_NONE;
}

/* jail_pivot_root(new_root, put_old=None): None or NULL.  Without put_old
 * the old root is detached and the working directory is the new root; with
 * it (a path under new_root) the old root stays mounted there. */
static PyObject *
jail_pivot_root(PyObject *module, PyObject *args)
{
    const char *new_root, *put_old = NULL;
    if (!PyArg_ParseTuple(args, "s|z:jail_pivot_root", &new_root, &put_old)) {
        return NULL;
    }
    if (put_old != NULL) {
        if (syscall(SYS_pivot_root, new_root, put_old) != 0) {
            return jail_error("pivot_root(%s, %s)", new_root, put_old);
        }
        if (chdir("/") != 0) {
            return jail_error("chdir(/)");
        }
        Py_RETURN_NONE;
    }
    if (chdir(new_root) != 0) {
        return jail_error("chdir(%s)", new_root);
    }
    /* pivot_root(".", "."): the old root is stacked on the new one, then
     * detached; no directory for it is needed. */
    if (syscall(SYS_pivot_root, ".", ".") != 0) {
        return jail_error("pivot_root(%s)", new_root);
    }
    if (umount2(".", MNT_DETACH) != 0) {
        return jail_error("detaching the old root");
    }
    if (chdir("/") != 0) {
        return jail_error("chdir(/)");
    }
    Py_RETURN_NONE;
}

/* jail_drop_privileges(uid=-1, gid=-1): the securebits (int, new
 * reference) or NULL. */
static PyObject *
jail_drop_privileges(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"uid", "gid", NULL};
    long uid = -1, gid = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|ll:jail_drop_privileges", kwlist, &uid,
                                     &gid)) {
        return NULL;
    }
    /* A process that holds no capability (a host that is not root, without a
     * user namespace) cannot set its securebits nor shrink its bounding set,
     * and has nothing they would take away (no_new_privs stops execve from
     * granting any): steps 1 and 2 are then skipped. */
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capget, &hdr, data) != 0) {
        return jail_error("capget");
    }
    int holds = 0;
    for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
        holds |= data[i].permitted != 0 || data[i].effective != 0;
    }
    /* 1. No root semantics for uid 0 (execve would not grant capabilities),
     * no ambient capabilities, capabilities not kept across a uid change;
     * each locked.  Needs CAP_SETPCAP, which the caller still has. */
    int bits = JAIL_SECBIT_NOROOT | JAIL_SECBIT_NOROOT_LOCKED |
               JAIL_SECBIT_NO_SETUID_FIXUP_LOCKED | JAIL_SECBIT_KEEP_CAPS_LOCKED |
               JAIL_SECBIT_NO_CAP_AMBIENT_RAISE | JAIL_SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    if (holds && prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0) {
        return jail_error("prctl(PR_SET_SECUREBITS, 0x%x)", bits);
    }
    /* 2. The bounding set: every capability the kernel knows (it answers
     * EINVAL past the last one). */
    for (int cap = 0; holds && cap < 64; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
            if (errno == EINVAL) {
                break;
            }
            return jail_error("prctl(PR_CAPBSET_DROP, %d)", cap);
        }
    }
    /* 3. The ambient set (absent before 4.3: nothing to clear then). */
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
        return jail_error("prctl(PR_CAP_AMBIENT_CLEAR_ALL)");
    }
    /* 4. The ids. */
    if (gid >= 0) {
        if (setgroups(0, NULL) != 0 && errno != EPERM) {
            return jail_error("setgroups(0)");
        }
        if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0) {
            return jail_error("setresgid(%ld)", gid);
        }
    }
    if (uid >= 0 && setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) {
        return jail_error("setresuid(%ld)", uid);
    }
    /* 5. Permitted, effective, inheritable: empty. */
    hdr.version = _LINUX_CAPABILITY_VERSION_3;
    hdr.pid = 0;
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capset, &hdr, data) != 0) {
        return jail_error("capset(0)");
    }
    int now = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
    if (now < 0) {
        return jail_error("prctl(PR_GET_SECUREBITS)");
    }
    return PyLong_FromLong(now);
}

/* jail_reap(pid): never returns.  Waits for child `pid` (a supervisor's: the
 * worker; any other child is reaped meanwhile) and ends the calling process
 * the way the child ended: the same exit status, or 128 + the signal that
 * killed it (the status a worker that ends on a signal's action gives,
 * jail_end_on_signals: the host reads both as that signal).  Runs no Python
 * code, so a forked process waiting here touches none of its copied pages. */
static PyObject *
jail_reap(PyObject *module, PyObject *arg)
{
    int pid;
    if (!PyArg_Parse(arg, "i:jail_reap", &pid)) {
        return NULL;
    }
    for (;;) {
        int status = 0;
        pid_t got = waitpid(-1, &status, 0);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            _exit(70); /* no child left: the worker is gone */
        }
        if (got != pid) {
            continue;
        }
        if (WIFSIGNALED(status)) {
            _exit(128 + WTERMSIG(status));
        }
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 70);
    }
}

/* jail_set_pdeathsig(signal): None or NULL. */
static PyObject *
jail_set_pdeathsig(PyObject *module, PyObject *arg)
{
    int sig;
    if (!PyArg_Parse(arg, "i:jail_set_pdeathsig", &sig)) {
        return NULL;
    }
    if (prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0) {
        return jail_error("prctl(PR_SET_PDEATHSIG, %d)", sig);
    }
    Py_RETURN_NONE;
}

/* jail_set_dumpable(flag): None or NULL. */
static PyObject *
jail_set_dumpable(PyObject *module, PyObject *arg)
{
    int flag;
    if (!PyArg_Parse(arg, "p:jail_set_dumpable", &flag)) {
        return NULL;
    }
    if (prctl(PR_SET_DUMPABLE, flag, 0, 0, 0) != 0) {
        return jail_error("prctl(PR_SET_DUMPABLE, %d)", flag);
    }
    Py_RETURN_NONE;
}

/* The action jail_end_on_signals installs: end the process as the signal's
 * default action would have, with the status the host reads as that signal
 * (128 + the signal; worker.describe_status).  Async-signal-safe. */
static void
end_as_signal(int sig)
{
    _exit(128 + sig);
}

/* jail_end_on_signals(): the number of signals given the action, or NULL.
 * The kernel drops a signal sent to the init of a pid namespace from inside
 * that namespace (by itself included) when its action is the default one;
 * only SIGKILL and SIGSTOP from an ancestor namespace, and a fault's signal,
 * still end it.  A worker that is its namespace's init takes this action for
 * every signal whose default action ends a process (signal(7): terminate or
 * core) and whose action is still the default (Python's own handlers, what
 * it ignores, a sanitizer's handlers are kept): `os.kill(os.getpid(),
 * SIGTERM)`, `signal.raise_signal(SIGSEGV)`, `abort()`, SIGXCPU at the soft
 * CPU limit end it as they end any other process.  The real-time signals
 * libc reserves for itself are skipped (sigaction refuses them). */
static PyObject *
jail_end_on_signals(PyObject *module, PyObject *unused)
{
    static const int ending[] = {
        SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGTRAP,   SIGABRT, SIGBUS,
        SIGFPE,  SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE,   SIGALRM, SIGTERM,
        SIGXCPU, SIGXFSZ, SIGIO,   SIGSYS,  SIGVTALRM, SIGPROF,
#ifdef SIGSTKFLT
        SIGSTKFLT,
#endif
#ifdef SIGPWR
        SIGPWR,
#endif
    };
    int n_ending = (int)(sizeof(ending) / sizeof(ending[0]));
    int count = 0;
    for (int i = 0; i < n_ending + (SIGRTMAX - SIGRTMIN + 1); i++) {
        int sig = i < n_ending ? ending[i] : SIGRTMIN + (i - n_ending);
        struct sigaction old;
        if (sigaction(sig, NULL, &old) != 0) {
            return jail_error("sigaction(%d)", sig);
        }
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) {
            continue;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = end_as_signal;
        sigfillset(&sa.sa_mask);
        if (sigaction(sig, &sa, NULL) != 0) {
            return jail_error("sigaction(%d)", sig);
        }
        count++;
    }
    return PyLong_FromLong(count);
}

static int
add_constants(PyObject *m)
{
    static const struct {
        const char *name;
        long value;
    } consts[] = {
        {"JAIL_CLONE_NEWUSER", CLONE_NEWUSER},
        {"JAIL_CLONE_NEWNS", CLONE_NEWNS},
        {"JAIL_CLONE_NEWPID", CLONE_NEWPID},
        {"JAIL_CLONE_NEWNET", CLONE_NEWNET},
        {"JAIL_CLONE_NEWIPC", CLONE_NEWIPC},
        {"JAIL_CLONE_NEWUTS", CLONE_NEWUTS},
        {"JAIL_CLONE_NEWCGROUP", CLONE_NEWCGROUP},
        {"JAIL_MS_NOSUID", MS_NOSUID},
        {"JAIL_MS_NODEV", MS_NODEV},
        {"JAIL_MS_NOEXEC", MS_NOEXEC},
        {"JAIL_MS_RDONLY", MS_RDONLY},
        {"JAIL_MS_REC", MS_REC},
        {"JAIL_MS_PRIVATE", MS_PRIVATE},
        {"JAIL_MS_BIND", MS_BIND},
    };
    for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
        if (PyModule_AddIntConstant(m, consts[i].name, consts[i].value) < 0) {
            return -1;
        }
    }
    return 0;
}

#else /* not Linux */

#define JAIL_UNSUPPORTED(name)                                                                \
    static PyObject *name(PyObject *module, PyObject *args)                                 \
    {                                                                                         \
        errno = ENOSYS;                                                                       \
        return PyErr_SetFromErrno(PyExc_OSError);                                             \
    }
JAIL_UNSUPPORTED(jail_unshare)
JAIL_UNSUPPORTED(jail_setns)
JAIL_UNSUPPORTED(jail_mount)
JAIL_UNSUPPORTED(jail_bind)
JAIL_UNSUPPORTED(jail_remount_readonly)
JAIL_UNSUPPORTED(jail_pivot_root)
JAIL_UNSUPPORTED(jail_set_pdeathsig)
JAIL_UNSUPPORTED(jail_reap)
JAIL_UNSUPPORTED(jail_end_on_signals)
JAIL_UNSUPPORTED(jail_set_dumpable)
static PyObject *
jail_drop_privileges(PyObject *module, PyObject *args, PyObject *kwargs)
{
    errno = ENOSYS;
    return PyErr_SetFromErrno(PyExc_OSError);
}
static int
add_constants(PyObject *m)
{
    return 0;
}

#endif

static PyMethodDef jail_methods[] = {
    {"jail_unshare", jail_unshare, METH_O, "jail_unshare(flags): unshare(2)."},
    {"jail_setns", jail_setns, METH_VARARGS, "jail_setns(fd, nstype): setns(2)."},
    {"jail_mount", jail_mount, METH_VARARGS,
     "jail_mount(source, target, fstype, flags, data): mount(2)."},
    {"jail_bind", jail_bind, METH_VARARGS,
     "jail_bind(source, target, readonly): recursive bind mount, nosuid, nodev."},
    {"jail_remount_readonly", jail_remount_readonly, METH_O,
     "jail_remount_readonly(target): remount a mount read-only."},
    {"jail_pivot_root", jail_pivot_root, METH_VARARGS,
     "jail_pivot_root(new_root, put_old=None): new_root becomes / of this mount namespace."},
    {"jail_drop_privileges", (PyCFunction)(void (*)(void))jail_drop_privileges,
     METH_VARARGS | METH_KEYWORDS,
     "jail_drop_privileges(uid=-1, gid=-1): lock the securebits, drop every capability."},
    {"jail_reap", jail_reap, METH_O,
     "jail_reap(pid): wait for child pid, then exit as it ended (never returns)."},
    {"jail_set_pdeathsig", jail_set_pdeathsig, METH_O,
     "jail_set_pdeathsig(signal): prctl(PR_SET_PDEATHSIG)."},
    {"jail_set_dumpable", jail_set_dumpable, METH_O,
     "jail_set_dumpable(flag): prctl(PR_SET_DUMPABLE)."},
    {"jail_end_on_signals", jail_end_on_signals, METH_NOARGS,
     "jail_end_on_signals(): a pid namespace's init ends on the signals that end a process."},
    {NULL, NULL, 0, NULL},
};

/* Adds the functions and constants above to module `m`; 0 or -1. */
int
jail_add_functions(PyObject *m)
{
    if (PyModule_AddFunctions(m, jail_methods) < 0) {
        return -1;
    }
    return add_constants(m);
}
