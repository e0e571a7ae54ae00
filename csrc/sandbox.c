/* sandbox.c: the kernel-side confinement of a process-mode worker.
 *
 * Exposed on `_core` (added at module exec by sandbox_add_functions):
 *
 *   sandbox_apply(network=False) -> None
 *       PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE 0, then a seccomp-bpf filter
 *       installed with prctl(PR_SET_SECCOMP) (no library).  Irreversible for
 *       the calling process and everything it forks.  What the filter refuses
 *       (with EPERM, so Python raises PermissionError rather than dying):
 *         - running programs: execve, execveat;
 *         - new processes: fork, vfork, clone without CLONE_THREAD (threads
 *           still work), clone3 (ENOSYS: glibc then falls back to clone, whose
 *           flags the filter can read);
 *         - reaching other processes or the kernel's privileged surface:
 *           ptrace, process_vm_readv/writev, kcmp, pidfd_open/getfd,
 *           mount, umount2, pivot_root, chroot, unshare, setns, the new mount
 *           API, module loading, kexec, bpf, perf_event_open, keyrings,
 *           userfaultfd, io_uring (whose requests bypass seccomp),
 *           name_to_handle_at/open_by_handle_at, reboot, swapon/off, acct;
 *         - networking unless `network` is true: socket, socketpair.  Sockets
 *           that exist before the filter (the worker's AF_UNIX channel to the
 *           host) keep working: read/write/sendmsg/recvmsg are not filtered.
 *       A system call of another architecture (the i386 entry on x86_64, x32)
 *       kills the process: its numbers would not mean what the filter reads.
 *
 *   sandbox_unshare_network() -> None
 *       unshare(CLONE_NEWUSER | CLONE_NEWNET): a network namespace with only a
 *       loopback interface, down.  The fallback when bubblewrap is not
 *       installed (bubblewrap also gives the file-system view).
 *
 * Linux only; elsewhere both raise OSError(ENOSYS).
 */
#include "interp.h"
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
#include <unistd.h>

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

#define SB_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

/* System calls refused with EPERM in every worker.  A number the kernel
 * headers of the build machine do not define is simply not listed. */
static const long denied_always[] = {
    __NR_execve,
#ifdef __NR_execveat
    __NR_execveat,
#endif
#ifdef __NR_fork
    __NR_fork,
#endif
#ifdef __NR_vfork
    __NR_vfork,
#endif
    __NR_ptrace,
    __NR_process_vm_readv,
    __NR_process_vm_writev,
#ifdef __NR_kcmp
    __NR_kcmp,
#endif
#ifdef __NR_pidfd_open
    __NR_pidfd_open,
#endif
#ifdef __NR_pidfd_getfd
    __NR_pidfd_getfd,
#endif
    __NR_mount,
    __NR_umount2,
    __NR_pivot_root,
    __NR_chroot,
    __NR_unshare,
    __NR_setns,
#ifdef __NR_open_tree
    __NR_open_tree,
    __NR_move_mount,
    __NR_fsopen,
    __NR_fsconfig,
    __NR_fsmount,
    __NR_fspick,
#endif
#ifdef __NR_mount_setattr
    __NR_mount_setattr,
#endif
    __NR_init_module,
    __NR_finit_module,
    __NR_delete_module,
    __NR_kexec_load,
#ifdef __NR_kexec_file_load
    __NR_kexec_file_load,
#endif
    __NR_bpf,
    __NR_perf_event_open,
    __NR_keyctl,
    __NR_add_key,
    __NR_request_key,
#ifdef __NR_userfaultfd
    __NR_userfaultfd,
#endif
#ifdef __NR_io_uring_setup
    __NR_io_uring_setup,
    __NR_io_uring_enter,
    __NR_io_uring_register,
#endif
    __NR_name_to_handle_at,
    __NR_open_by_handle_at,
    __NR_reboot,
    __NR_swapon,
    __NR_swapoff,
    __NR_acct,
};

/* Refused unless the network is granted. */
static const long denied_network[] = {
    __NR_socket,
    __NR_socketpair,
};

#define N_ALWAYS (sizeof(denied_always) / sizeof(denied_always[0]))
#define N_NETWORK (sizeof(denied_network) / sizeof(denied_network[0]))
/* header (arch check, load nr, x32 check) + one jump per number + clone3
 * + clone (2) + the return instructions */
#define MAX_FILTER (8 + N_ALWAYS + N_NETWORK + 16)

static void
put(struct sock_filter *prog, int *n, struct sock_filter ins)
{
    prog[(*n)++] = ins;
}

/* Fills `prog` with the filter; returns its length.  Layout:
 *   0: load arch; if not ours -> KILL
 *   load nr; (x86_64) nr >= x32 bit -> KILL
 *   for each denied nr: jeq -> DENY
 *   clone3 -> ENOSYS
 *   clone -> load flags; CLONE_THREAD set -> ALLOW else DENY
 *   ALLOW / DENY / ENOSYS / KILL
 * Jump offsets are computed against the labels at the end. */
static int
build_filter(struct sock_filter *prog, int network)
{
    long nrs[N_ALWAYS + N_NETWORK];
    int nn = 0;
    for (size_t i = 0; i < N_ALWAYS; i++) {
        nrs[nn++] = denied_always[i];
    }
    if (!network) {
        for (size_t i = 0; i < N_NETWORK; i++) {
            nrs[nn++] = denied_network[i];
        }
    }
    /* Instruction count before the labels, so the label positions are known:
     * arch: 2, load nr: 1, x32: 1 (x86_64 only), denials: nn, clone3: 1,
     * clone: 1 (jeq) + 1 (load arg) + 1 (jset) + 1 (reload nr, unused path
     * never taken) -> we end the clone branch with direct jumps. */
#if defined(__x86_64__)
    const int x32 = 1;
#else
    const int x32 = 0;
#endif
    const int body = 2 + 1 + x32 + nn + 1 + 3;
    const int L_ALLOW = body;
    const int L_DENY = body + 1;
    const int L_NOSYS = body + 2;
    const int L_KILL = body + 3;
    int n = 0;
#define OFF(label) ((unsigned char)((label) - n - 1))

    put(prog, &n, (struct sock_filter)BPF_STMT(
                      BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    put(prog, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH,
                                               0, OFF(L_KILL)));
    put(prog, &n, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                               offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    put(prog, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u,
                                               OFF(L_KILL), 0));
#endif
    for (int i = 0; i < nn; i++) {
        put(prog, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                                   (unsigned int)nrs[i], OFF(L_DENY), 0));
    }
#ifdef __NR_clone3
    put(prog, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3,
                                               OFF(L_NOSYS), 0));
#else
    put(prog, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu,
                                               OFF(L_NOSYS), 0));
#endif
    /* clone(flags, ...): the flags are the low word of args[0] on both
     * x86_64 and aarch64 (little-endian). */
    put(prog, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0,
                                               OFF(L_ALLOW)));
    put(prog, &n, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                               offsetof(struct seccomp_data, args[0])));
    put(prog, &n, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD,
                                               OFF(L_ALLOW), OFF(L_DENY)));
    /* labels */
    put(prog, &n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    put(prog, &n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SB_ERRNO(EPERM)));
    put(prog, &n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SB_ERRNO(ENOSYS)));
    put(prog, &n, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#undef OFF
    return n;
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
    struct sock_filter prog[MAX_FILTER];
    int len = build_filter(prog, network);
    if (len > (int)MAX_FILTER) { /* cannot happen: MAX_FILTER bounds the layout */
        PyErr_SetString(PyExc_SystemError, "seccomp filter too long");
        return NULL;
    }
    struct sock_fprog fprog = {.len = (unsigned short)len, .filter = prog};
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
#endif
}

/* sandbox_unshare_network(): returns None (new reference) or NULL. */
static PyObject *
sandbox_unshare_network(PyObject *module, PyObject *unused)
{
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    Py_RETURN_NONE;
}

#else /* not Linux */

static PyObject *
sandbox_apply(PyObject *module, PyObject *args, PyObject *kwargs)
{
    errno = ENOSYS;
    return PyErr_SetFromErrno(PyExc_OSError);
}

static PyObject *
sandbox_unshare_network(PyObject *module, PyObject *unused)
{
    errno = ENOSYS;
    return PyErr_SetFromErrno(PyExc_OSError);
}

#endif

static PyMethodDef sandbox_methods[] = {
    {"sandbox_apply", (PyCFunction)(void (*)(void))sandbox_apply,
     METH_VARARGS | METH_KEYWORDS,
     "sandbox_apply(network=False): no_new_privs and the worker's seccomp filter."},
    {"sandbox_unshare_network", sandbox_unshare_network, METH_NOARGS,
     "sandbox_unshare_network(): new user and network namespaces."},
    {NULL, NULL, 0, NULL},
};

/* Adds the functions above to module `m`; 0 or -1 with an exception. */
int
sandbox_add_functions(PyObject *m)
{
    return PyModule_AddFunctions(m, sandbox_methods);
}
