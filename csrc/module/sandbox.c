/* sandbox.c: the seccomp-bpf filters of process mode (docs/isolation.md).
 *
 * Exposed on `_core` (added at module exec by sandbox_add_functions):
 *
 *   sandbox_apply(network=False) -> None
 *       The worker's filter.  PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE 0, then a
 *       seccomp-bpf filter installed with prctl(PR_SET_SECCOMP) (no library).
 *       Irreversible for the calling process and everything it forks.  What
 *       it refuses (with EPERM, so Python raises PermissionError rather than
 *       dying):
 *         - running programs: execve, execveat;
 *         - new processes: fork, vfork; clone unless CLONE_THREAD is set and
 *           no namespace flag is (threads still work); clone3 answers ENOSYS
 *           (glibc then falls back to clone, whose flags the filter can read);
 *         - signals to anything but the caller itself: kill, tgkill,
 *           rt_sigqueueinfo and rt_tgsigqueueinfo only when their first
 *           argument is the caller's own pid (as seen in its pid namespace,
 *           read when the filter is installed; the low 32 bits, which are
 *           what the kernel reads of a pid_t), tkill and pidfd_send_signal
 *           never;
 *         - reaching other processes or the kernel's privileged surface:
 *           ptrace, process_vm_readv/writev, kcmp, pidfd_open/getfd, mount,
 *           umount2, pivot_root, chroot, unshare, setns, the new mount API,
 *           module loading, kexec, bpf, perf_event_open, keyrings,
 *           userfaultfd, io_uring (whose requests bypass seccomp),
 *           name_to_handle_at/open_by_handle_at, reboot, swapon/off, acct;
 *         - kernel objects outside its rlimits and scratch, or charged to its
 *           uid across workers: shmget, msgget, semget (System V IPC), memfd_create,
 *           inotify_init(1), fanotify_init;
 *         - outliving its parent: prctl(PR_SET_PDEATHSIG) (the worker is
 *           its pid namespace's init, armed to die with the process that
 *           forked it; that signal is all that ends it when its parent is
 *           gone; the other prctl options stay allowed);
 *         - networking unless `network` is true: socket, and socketpair of
 *           any family but AF_UNIX (a connected pair reaches nothing outside
 *           the worker; asyncio's event loop makes one to wake itself up).
 *           Sockets that exist before the filter (the worker's AF_UNIX
 *           channel to the host) keep working: read/write/sendmsg/recvmsg
 *           are not filtered.
 *       A system call of another architecture (the i386 entry on x86_64, x32)
 *       kills the process: its numbers would not mean what the filter reads.
 *
 *   sandbox_enter_worker_mode() -> None
 *       The policy's worker mode (docs/isolation.md, "Two tiers"): library
 *       code acting for the code is bounded by the kernel, not refused.  Only
 *       in a process that installed the worker's filter; for good.
 *   kernel_bounded() -> bool
 *
 *   sandbox_apply_forkserver() -> None
 *       The fork server's own filter: PR_SET_DUMPABLE 0 (its memory cannot be
 *       opened by another process of its uid) and a filter refusing what a
 *       fork server never needs: execve, ptrace, process_vm_*, kcmp,
 *       pidfd_getfd, module loading, kexec, bpf, perf_event_open, keyrings,
 *       userfaultfd, io_uring, reboot, swapon/off, acct.  Namespaces, mounts
 *       and fork stay allowed: its children build the workers' sandboxes.
 *       Children inherit it; a worker's own filter stacks on top.
 *
 * Linux (x86_64, aarch64) only; elsewhere both raise OSError(ENOSYS).
 */
#include "module.h"
#include "sandbox.h"

#include <errno.h>

#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#define SB_CLONE_NEWTIME 0x00000080
/* Namespace flags a thread may not be cloned with (the kernel refuses most
 * of them with CLONE_THREAD already; the filter does not rely on it). */
#define SB_CLONE_NAMESPACES                                                                     \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |             \
     CLONE_NEWPID | CLONE_NEWNET | SB_CLONE_NEWTIME)

#define SB_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define SB_NONE (-1L) /* a number no kernel header defines: skipped */

#ifdef __NR_execveat
#define SB_NR_execveat __NR_execveat
#else
#define SB_NR_execveat SB_NONE
#endif
#ifdef __NR_fork
#define SB_NR_fork __NR_fork
#else
#define SB_NR_fork SB_NONE
#endif
#ifdef __NR_vfork
#define SB_NR_vfork __NR_vfork
#else
#define SB_NR_vfork SB_NONE
#endif
#ifdef __NR_kcmp
#define SB_NR_kcmp __NR_kcmp
#else
#define SB_NR_kcmp SB_NONE
#endif
#ifdef __NR_pidfd_open
#define SB_NR_pidfd_open __NR_pidfd_open
#else
#define SB_NR_pidfd_open SB_NONE
#endif
#ifdef __NR_pidfd_getfd
#define SB_NR_pidfd_getfd __NR_pidfd_getfd
#else
#define SB_NR_pidfd_getfd SB_NONE
#endif
#ifdef __NR_pidfd_send_signal
#define SB_NR_pidfd_send_signal __NR_pidfd_send_signal
#else
#define SB_NR_pidfd_send_signal SB_NONE
#endif
#ifdef __NR_kexec_file_load
#define SB_NR_kexec_file_load __NR_kexec_file_load
#else
#define SB_NR_kexec_file_load SB_NONE
#endif
#ifdef __NR_userfaultfd
#define SB_NR_userfaultfd __NR_userfaultfd
#else
#define SB_NR_userfaultfd SB_NONE
#endif
#ifdef __NR_io_uring_setup
#define SB_NR_io_uring_setup __NR_io_uring_setup
#define SB_NR_io_uring_enter __NR_io_uring_enter
#define SB_NR_io_uring_register __NR_io_uring_register
#else
#define SB_NR_io_uring_setup SB_NONE
#define SB_NR_io_uring_enter SB_NONE
#define SB_NR_io_uring_register SB_NONE
#endif
#ifdef __NR_open_tree
#define SB_NR_open_tree __NR_open_tree
#define SB_NR_move_mount __NR_move_mount
#define SB_NR_fsopen __NR_fsopen
#define SB_NR_fsconfig __NR_fsconfig
#define SB_NR_fsmount __NR_fsmount
#define SB_NR_fspick __NR_fspick
#else
#define SB_NR_open_tree SB_NONE
#define SB_NR_move_mount SB_NONE
#define SB_NR_fsopen SB_NONE
#define SB_NR_fsconfig SB_NONE
#define SB_NR_fsmount SB_NONE
#define SB_NR_fspick SB_NONE
#endif
#ifdef __NR_mount_setattr
#define SB_NR_mount_setattr __NR_mount_setattr
#else
#define SB_NR_mount_setattr SB_NONE
#endif
#ifdef __NR_memfd_create
#define SB_NR_memfd_create __NR_memfd_create
#else
#define SB_NR_memfd_create SB_NONE
#endif
#ifdef __NR_inotify_init
#define SB_NR_inotify_init __NR_inotify_init
#else
#define SB_NR_inotify_init SB_NONE
#endif
#ifdef __NR_fanotify_init
#define SB_NR_fanotify_init __NR_fanotify_init
#else
#define SB_NR_fanotify_init SB_NONE
#endif
#ifdef __NR_clone3
#define SB_NR_clone3 __NR_clone3
#else
#define SB_NR_clone3 SB_NONE
#endif

/* What no process of ours needs, fork server or worker: refused in both. */
static const long denied_everywhere[] = {
    __NR_execve,
    SB_NR_execveat,
    __NR_ptrace,
    __NR_process_vm_readv,
    __NR_process_vm_writev,
    SB_NR_kcmp,
    SB_NR_pidfd_getfd,
    __NR_init_module,
    __NR_finit_module,
    __NR_delete_module,
    __NR_kexec_load,
    SB_NR_kexec_file_load,
    __NR_bpf,
    __NR_perf_event_open,
    __NR_keyctl,
    __NR_add_key,
    __NR_request_key,
    SB_NR_userfaultfd,
    SB_NR_io_uring_setup,
    SB_NR_io_uring_enter,
    SB_NR_io_uring_register,
    __NR_name_to_handle_at,
    __NR_open_by_handle_at,
    __NR_reboot,
    __NR_swapon,
    __NR_swapoff,
    __NR_acct,
};

/* What a worker may not do besides: make processes, reach other processes by
 * pid or pidfd, change its namespaces or mounts. */
static const long denied_in_worker[] = {
    SB_NR_fork,
    SB_NR_vfork,
    SB_NR_pidfd_open,
    SB_NR_pidfd_send_signal,
    __NR_tkill,
    __NR_mount,
    __NR_umount2,
    __NR_pivot_root,
    __NR_chroot,
    __NR_unshare,
    __NR_setns,
    SB_NR_open_tree,
    SB_NR_move_mount,
    SB_NR_fsopen,
    SB_NR_fsconfig,
    SB_NR_fsmount,
    SB_NR_fspick,
    SB_NR_mount_setattr,
};

/* Kernel objects a worker could hold outside its rlimits and its sized scratch, or charged
 * to its uid across every worker: System V IPC (its own IPC namespace, but the kernel's
 * default sizes), memfds (on the kernel's internal tmpfs), inotify / fanotify instances.
 * POSIX shared memory stays: it is files in /dev/shm, the scratch. */
static const long denied_objects[] = {
    __NR_shmget,
    __NR_msgget,
    __NR_semget,
    SB_NR_memfd_create,
    SB_NR_inotify_init,
    __NR_inotify_init1,
    SB_NR_fanotify_init,
};

/* Refused in a worker unless the network is granted (socketpair: unless
 * AF_UNIX, the socketpair block). */
static const long denied_network[] = {
    __NR_socket,
};

/* Signals: allowed only when the first argument is the worker's own pid. */
static const long signal_own_pid[] = {
    __NR_kill,
    __NR_tgkill,
    __NR_rt_sigqueueinfo,
    __NR_rt_tgsigqueueinfo,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_FILTER                                                                              \
    (16 + COUNT(denied_everywhere) + COUNT(denied_in_worker) + COUNT(denied_objects) +          \
     COUNT(denied_network) + 3 * COUNT(signal_own_pid) + 16)

/* ------------------------------------------------------------- assembler */

/* A filter under construction: jumps name labels (the return instructions
 * at the end, or a block of their own), resolved by fb_finish.  BPF jumps
 * are forward only and at most 255 instructions long, which the layout
 * below respects (checked). */
enum {
    L_ALLOW,
    L_DENY,
    L_NOSYS,
    L_KILL,
    L_SIGNAL, /* the signal block: first argument must be our pid */
    L_CLONE,  /* the clone block: CLONE_THREAD and no namespace flag */
    L_SOCKPAIR, /* the socketpair block: AF_UNIX only */
    L_PRCTL,    /* the prctl block: not PR_SET_PDEATHSIG */
    N_LABELS
};

typedef struct {
    struct sock_filter ins[MAX_FILTER];
    int jt_label[MAX_FILTER]; /* -1: a literal offset */
    int jf_label[MAX_FILTER];
    int n;
    int at[N_LABELS]; /* instruction index of each label, -1 until placed */
    int overflow;
} Filter;

static void
fb_emit(Filter *f, struct sock_filter ins, int jt, int jf)
{
    if (f->n >= (int)MAX_FILTER) {
        f->overflow = 1;
        return;
    }
    f->ins[f->n] = ins;
    f->jt_label[f->n] = jt;
    f->jf_label[f->n] = jf;
    f->n++;
}

static void
fb_stmt(Filter *f, unsigned short code, unsigned int k)
{
    fb_emit(f, (struct sock_filter)BPF_STMT(code, k), -1, -1);
}

/* if (A == k) goto label; else fall through */
static void
fb_jeq(Filter *f, unsigned int k, int label)
{
    fb_emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0), label, -1);
}

static void
fb_label(Filter *f, int label)
{
    f->at[label] = f->n;
}

static void
fb_ret(Filter *f, int label, unsigned int action)
{
    fb_label(f, label);
    fb_stmt(f, BPF_RET | BPF_K, action);
}

/* Resolves the labels; 0, or -1 when the program is too long or a jump
 * cannot be encoded. */
static int
fb_finish(Filter *f)
{
    if (f->overflow) {
        return -1;
    }
    for (int i = 0; i < f->n; i++) {
        int labels[2] = {f->jt_label[i], f->jf_label[i]};
        unsigned char *fields[2] = {&f->ins[i].jt, &f->ins[i].jf};
        for (int j = 0; j < 2; j++) {
            if (labels[j] < 0) {
                continue;
            }
            int target = f->at[labels[j]];
            int off = target - i - 1;
            if (target < 0 || off < 0 || off > 255) {
                return -1;
            }
            *fields[j] = (unsigned char)off;
        }
    }
    return 0;
}

static void
fb_deny_list(Filter *f, const long *nrs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (nrs[i] != SB_NONE) {
            fb_jeq(f, (unsigned int)nrs[i], L_DENY);
        }
    }
}

/* The common head: kill a foreign architecture, load the number. */
static void
fb_head(Filter *f)
{
    fb_stmt(f, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    fb_emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 0, 0), -1,
            L_KILL);
    fb_stmt(f, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    /* x32 system calls (numbers with bit 30 set) */
    fb_emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 0),
            L_KILL, -1);
#endif
}

/* The low 32 bits of the first argument (little-endian on both supported
 * architectures): what the kernel reads of a pid_t or an int. */
#define ARG0_LOW offsetof(struct seccomp_data, args[0])

static void
build_worker(Filter *f, int network, pid_t own)
{
    fb_head(f);
    fb_deny_list(f, denied_everywhere, COUNT(denied_everywhere));
    fb_deny_list(f, denied_in_worker, COUNT(denied_in_worker));
    fb_deny_list(f, denied_objects, COUNT(denied_objects));
    if (!network) {
        fb_deny_list(f, denied_network, COUNT(denied_network));
        fb_jeq(f, __NR_socketpair, L_SOCKPAIR);
    }
    if (SB_NR_clone3 != SB_NONE) {
        fb_jeq(f, (unsigned int)SB_NR_clone3, L_NOSYS);
    }
    for (size_t i = 0; i < COUNT(signal_own_pid); i++) {
        fb_jeq(f, (unsigned int)signal_own_pid[i], L_SIGNAL);
    }
    fb_jeq(f, __NR_clone, L_CLONE);
    fb_jeq(f, __NR_prctl, L_PRCTL);
    fb_stmt(f, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    /* signal block */
    fb_label(f, L_SIGNAL);
    fb_stmt(f, BPF_LD | BPF_W | BPF_ABS, ARG0_LOW);
    fb_emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)own, 0, 0),
            L_ALLOW, L_DENY);
    /* clone block: flags are the low word of args[0] on both architectures */
    fb_label(f, L_CLONE);
    fb_stmt(f, BPF_LD | BPF_W | BPF_ABS, ARG0_LOW);
    fb_emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 0), -1,
            L_DENY);
    fb_emit(f,
            (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SB_CLONE_NAMESPACES, 0, 0),
            L_DENY, L_ALLOW);
    /* socketpair block (no network): the family is the low word of
       args[0] */
    fb_label(f, L_SOCKPAIR);
    fb_stmt(f, BPF_LD | BPF_W | BPF_ABS, ARG0_LOW);
    fb_emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 0),
            L_ALLOW, L_DENY);
    /* prctl block: the option is the low word of args[0] */
    fb_label(f, L_PRCTL);
    fb_stmt(f, BPF_LD | BPF_W | BPF_ABS, ARG0_LOW);
    fb_emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_PDEATHSIG, 0, 0),
            L_DENY, L_ALLOW);
    fb_ret(f, L_ALLOW, SECCOMP_RET_ALLOW);
    fb_ret(f, L_DENY, SB_ERRNO(EPERM));
    fb_ret(f, L_NOSYS, SB_ERRNO(ENOSYS));
    fb_ret(f, L_KILL, SECCOMP_RET_KILL_PROCESS);
}

static void
build_forkserver(Filter *f)
{
    fb_head(f);
    fb_deny_list(f, denied_everywhere, COUNT(denied_everywhere));
    fb_ret(f, L_ALLOW, SECCOMP_RET_ALLOW);
    fb_ret(f, L_DENY, SB_ERRNO(EPERM));
    fb_label(f, L_NOSYS);  /* unused here */
    fb_label(f, L_SIGNAL); /* unused here */
    fb_label(f, L_CLONE);  /* unused here */
    fb_label(f, L_SOCKPAIR); /* unused here */
    fb_label(f, L_PRCTL);    /* unused here */
    fb_ret(f, L_KILL, SECCOMP_RET_KILL_PROCESS);
}

/* Set once this process has installed the worker's filter (sandbox_apply):
 * the condition of sandbox_enter_worker_mode.  Irreversible, like the filter. */
static int worker_filter_installed = 0;

/* Installs `f` after no_new_privs and not-dumpable; None or NULL. */
static PyObject *
install(Filter *f)
{
    if (fb_finish(f) != 0) { /* cannot happen: MAX_FILTER bounds the layout */
        PyErr_SetString(PyExc_SystemError, "seccomp filter does not assemble");
        return NULL;
    }
    struct sock_fprog fprog = {.len = (unsigned short)f->n, .filter = f->ins};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    Py_RETURN_NONE;
}

static void
filter_init(Filter *f)
{
    f->n = 0;
    f->overflow = 0;
    for (int i = 0; i < N_LABELS; i++) {
        f->at[i] = -1;
    }
}

/* sandbox_apply(network=False): returns None (new reference) or NULL. */
static PyObject *
sandbox_apply(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"network", NULL};
    int network = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:sandbox_apply", kwlist, &network)) {
        return NULL;
    }
#ifndef SANDBOX_ARCH
    errno = ENOSYS;
    return PyErr_SetFromErrno(PyExc_OSError);
#else
    Filter *f = PyMem_Malloc(sizeof(Filter));
    if (f == NULL) {
        return PyErr_NoMemory();
    }
    filter_init(f);
    build_worker(f, network, getpid());
    PyObject *res = install(f);
    PyMem_Free(f);
    if (res != NULL) {
        worker_filter_installed = 1;
    }
    return res;
#endif
}

/* sandbox_enter_worker_mode(): None or NULL.  The two tiers of the policy
 * (docs/isolation.md): in a worker whose kernel sandbox is complete, library
 * code acting for the code is bounded by the kernel, not refused
 * (tripwire_kernel_bounded).  Only after this process installed the worker's
 * seccomp filter, with no_new_privs, and for good. */
static PyObject *
sandbox_enter_worker_mode(PyObject *module, PyObject *unused)
{
    if (!worker_filter_installed || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 2 ||
        prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the worker mode of the policy needs the worker's seccomp filter "
                        "installed in this process (sandbox_apply)");
        return NULL;
    }
    tripwire_kernel_bounded = 1;
    Py_RETURN_NONE;
}

/* sandbox_apply_forkserver(): returns None (new reference) or NULL. */
static PyObject *
sandbox_apply_forkserver(PyObject *module, PyObject *unused)
{
#ifndef SANDBOX_ARCH
    errno = ENOSYS;
    return PyErr_SetFromErrno(PyExc_OSError);
#else
    Filter *f = PyMem_Malloc(sizeof(Filter));
    if (f == NULL) {
        return PyErr_NoMemory();
    }
    filter_init(f);
    build_forkserver(f);
    PyObject *res = install(f);
    PyMem_Free(f);
    return res;
#endif
}

#else /* not Linux */

static PyObject *
sandbox_apply(PyObject *module, PyObject *args, PyObject *kwargs)
{
    errno = ENOSYS;
    return PyErr_SetFromErrno(PyExc_OSError);
}

static PyObject *
sandbox_apply_forkserver(PyObject *module, PyObject *unused)
{
    errno = ENOSYS;
    return PyErr_SetFromErrno(PyExc_OSError);
}

static PyObject *
sandbox_enter_worker_mode(PyObject *module, PyObject *unused)
{
    errno = ENOSYS;
    return PyErr_SetFromErrno(PyExc_OSError);
}

#endif

/* kernel_bounded(): whether this process is a worker in worker mode. */
static PyObject *
sandbox_kernel_bounded(PyObject *module, PyObject *unused)
{
    return PyBool_FromLong(tripwire_kernel_bounded);
}

static PyMethodDef sandbox_methods[] = {
    {"sandbox_apply", (PyCFunction)(void (*)(void))sandbox_apply,
     METH_VARARGS | METH_KEYWORDS,
     "sandbox_apply(network=False): no_new_privs and the worker's seccomp filter."},
    {"sandbox_apply_forkserver", sandbox_apply_forkserver, METH_NOARGS,
     "sandbox_apply_forkserver(): not dumpable, and the fork server's seccomp filter."},
    {"sandbox_enter_worker_mode", sandbox_enter_worker_mode, METH_NOARGS,
     "sandbox_enter_worker_mode(): library code is bounded by the kernel, not refused."},
    {"kernel_bounded", sandbox_kernel_bounded, METH_NOARGS,
     "kernel_bounded(): whether this process is a worker in worker mode."},
    {NULL, NULL, 0, NULL},
};

/* Adds the functions above and the jail primitives (jail.c) to module `m`;
 * 0 or -1 with an exception. */
int
sandbox_add_functions(PyObject *m)
{
    if (PyModule_AddFunctions(m, sandbox_methods) < 0) {
        return -1;
    }
    return jail_add_functions(m);
}
