/* window.c: the window, the one place where the per-thread mechanisms of a
 * running step are armed, suspended, resumed and disarmed.
 *
 * While interpreted code runs on a thread (a step, or a hook: interpreted
 * code host code calls after the step), the mechanisms of window.def are
 * armed on that thread.  Every transition is driven by that table, in its
 * order:
 *
 *   open / rejoin          top to bottom (arming order)
 *   close / rejoin_done    bottom to top
 *   suspend (a tool call)  bottom to top
 *   resume                 top to bottom
 *
 * Each mechanism has one static adapter per transition below
 * (w_<name>_<transition>); the transitions are loops over the table, so a
 * mechanism added to window.def without its adapters does not compile, and
 * one order holds for all of them.  The partial pause of the interpreter's
 * own imports (tripwire and gadget refusals off while module bodies run) is
 * here too; the pause of a reviewed pure call (gadget refusals only) is the
 * gadget table's own business (gadgets_pause).
 *
 * The run state of a window (running, its thread, hook or step, the
 * per-window counters) is set by window_begin and cleared by window_end;
 * the budget counters by limits_start (limits.c), which the caller runs
 * first: a step's lowering already runs under its deadline.
 */
#include "interp.h"
#include "tripwire.h"

#include <pthread.h>

/* ------------------------------------------------------------- adapters */

static int
w_ownstate_open(Interp *in, WindowSave *w)
{
    (void)w;
    if (ownstate_enter(in) < 0) {
        ownstate_leave(in); /* what it kept */
        return -1;
    }
    return 0;
}
static void
w_ownstate_close(Interp *in, WindowSave *w)
{
    (void)w;
    ownstate_leave(in); /* the host's decimal context back */
}
static void
w_ownstate_suspend(Interp *in, WindowSave *w)
{
    /* the tool computes with the host's decimal context */
    w->decimal_prev = ownstate_switch(in, 0);
}
static void
w_ownstate_resume(Interp *in, WindowSave *w)
{
    ownstate_switch_back(in, 0, w->decimal_prev);
    w->decimal_prev = NULL;
}
static void
w_ownstate_rejoin(Interp *in, WindowSave *w)
{
    /* the executor's decimal context, not the tool's */
    w->decimal_prev = ownstate_switch(in, 1);
}
static void
w_ownstate_rejoin_done(Interp *in, WindowSave *w)
{
    ownstate_switch_back(in, 1, w->decimal_prev);
    w->decimal_prev = NULL;
}

static int
w_provenance_open(Interp *in, WindowSave *w)
{
    w->prov_prev = provenance_arm(in);
    return 0;
}
static void
w_provenance_close(Interp *in, WindowSave *w)
{
    (void)in;
    provenance_disarm(w->prov_prev);
}
static void
w_provenance_suspend(Interp *in, WindowSave *w)
{
    (void)in;
    w->prov_prev = provenance_arm(NULL); /* the tool's classes are not the
                                            code's */
}
#define w_provenance_resume w_provenance_close
#define w_provenance_rejoin(in, w) ((void)w_provenance_open((in), (w)))
#define w_provenance_rejoin_done w_provenance_close

static int
w_gadgets_open(Interp *in, WindowSave *w)
{
    gadgets_arm(in, &w->gadgets);
    return 0;
}
static void
w_gadgets_close(Interp *in, WindowSave *w)
{
    (void)in;
    gadgets_disarm(&w->gadgets);
}
static void
w_gadgets_suspend(Interp *in, WindowSave *w)
{
    (void)in;
    gadgets_suspend(&w->gadgets); /* the tripwire is off already */
}
static void
w_gadgets_resume(Interp *in, WindowSave *w)
{
    (void)in;
    gadgets_resume(&w->gadgets); /* the tripwire is not on yet */
}
#define w_gadgets_rejoin(in, w) ((void)w_gadgets_open((in), (w)))
#define w_gadgets_rejoin_done w_gadgets_close

static int
w_memlimit_open(Interp *in, WindowSave *w)
{
    memlimit_begin(in, &w->mem); /* a new window's accounting */
    return 0;
}
static void
w_memlimit_close(Interp *in, WindowSave *w)
{
    memlimit_end(in, &w->mem);
}
static void
w_memlimit_suspend(Interp *in, WindowSave *w)
{
    (void)in;
    memlimit_suspend(&w->mem); /* the tool's allocations are not counted */
}
static void
w_memlimit_resume(Interp *in, WindowSave *w)
{
    (void)in;
    memlimit_resume(&w->mem);
}
static void
w_memlimit_rejoin(Interp *in, WindowSave *w)
{
    memlimit_rejoin(in, &w->mem); /* the step's accounting goes on */
}
#define w_memlimit_rejoin_done w_memlimit_resume

static int
w_tripwire_open(Interp *in, WindowSave *w)
{
    w->tripwire_prev = tripwire_arm(in);
    return 0;
}
static void
w_tripwire_close(Interp *in, WindowSave *w)
{
    (void)in;
    tripwire_restore(w->tripwire_prev);
}
static void
w_tripwire_suspend(Interp *in, WindowSave *w)
{
    (void)in;
    w->tripwire_prev = tripwire_suspend();
}
#define w_tripwire_resume w_tripwire_close
#define w_tripwire_rejoin(in, w) ((void)w_tripwire_open((in), (w)))
#define w_tripwire_rejoin_done w_tripwire_close

/* ---------------------------------------------------------------- table */

typedef struct {
    const char *name;
    int (*open)(Interp *, WindowSave *);
    void (*close)(Interp *, WindowSave *);
    void (*suspend)(Interp *, WindowSave *);
    void (*resume)(Interp *, WindowSave *);
    void (*rejoin)(Interp *, WindowSave *);
    void (*rejoin_done)(Interp *, WindowSave *);
} WindowMech;

#define WINDOW_MECH(m, why)                                                 \
    static void w_##m##_rejoin_fn(Interp *in, WindowSave *w)                \
    {                                                                       \
        w_##m##_rejoin(in, w);                                              \
    }
#include "window.def"
#undef WINDOW_MECH

static const WindowMech mechs[] = {
#define WINDOW_MECH(m, why)                                                 \
    {#m,                 w_##m##_open,   w_##m##_close, w_##m##_suspend,    \
     w_##m##_resume,     w_##m##_rejoin_fn, w_##m##_rejoin_done},
#include "window.def"
#undef WINDOW_MECH
};
#define NMECHS ((int)(sizeof(mechs) / sizeof(mechs[0])))

/* ---------------------------------------------------------- transitions */

int
window_open(Interp *in, WindowSave *w)
{
    for (int i = 0; i < NMECHS; i++) {
        if (mechs[i].open(in, w) < 0) {
            /* nothing after it was armed: the ones before it off again */
            while (--i >= 0) {
                mechs[i].close(in, w);
            }
            return -1;
        }
    }
    return 0;
}

void
window_close(Interp *in, WindowSave *w)
{
    for (int i = NMECHS - 1; i >= 0; i--) {
        mechs[i].close(in, w);
    }
}

Interp *
window_suspend(WindowSave *w)
{
    /* the window of this thread, if any (a tool called outside a step,
       by host code, has none: the mechanisms are off already) */
    Interp *in = tripwire_armed_tls;
    for (int i = NMECHS - 1; i >= 0; i--) {
        mechs[i].suspend(in, w);
    }
    if (in != NULL) {
        /* interpreted code the tool enters (a __str__ of the code's object,
           a finalizer run by the collector meanwhile) rejoins the window */
        in->tool_calls++;
    }
    return in;
}

void
window_resume(Interp *in, WindowSave *w)
{
    if (in != NULL) {
        in->tool_calls--;
    }
    for (int i = 0; i < NMECHS; i++) {
        mechs[i].resume(in, w);
    }
}

void
interp_rearm(Interp *in, InterpRearm *r)
{
    r->boundary = provenance_reenter();
    r->tool_calls = in->tool_calls;
    r->rearmed = in->tool_calls > 0 || tripwire_armed_tls != in;
    if (r->rearmed) {
        /* a tool's host code called back into the code (a __str__, a key
           function, a finalizer run by the collector during the tool), or
           a finalizer of the code ran during an import: the code's checks,
           as during the step */
        in->tool_calls = 0;
        for (int i = 0; i < NMECHS; i++) {
            mechs[i].rejoin(in, &r->w);
        }
    }
    /* and from a pure call: the gadget refusals on again */
    r->paused = -1;
    if (in->gadgets_paused > 0) {
        gadgets_reenter(in, &r->gadgets_pure, &r->paused);
    }
}

void
interp_rearm_done(Interp *in, InterpRearm *r)
{
    if (r->paused >= 0) {
        gadgets_reenter_done(in, &r->gadgets_pure, r->paused);
    }
    if (r->rearmed) {
        for (int i = NMECHS - 1; i >= 0; i--) {
            mechs[i].rejoin_done(in, &r->w);
        }
    }
    in->tool_calls = r->tool_calls;
    provenance_reenter_done(r->boundary);
}

void
window_pause_import(Interp *in, WindowPause *p)
{
    p->tripwire_prev = tripwire_suspend();
    gadgets_pause(in, &p->gadgets);
}

void
window_unpause_import(Interp *in, WindowPause *p)
{
    gadgets_unpause(in, &p->gadgets);
    tripwire_restore(p->tripwire_prev);
}

/* ------------------------------------------------------------ run state */

void
window_begin(Interp *in, int hook)
{
    in->running = 1;
    in->in_hook = hook;
    in->run_thread = (unsigned long)pthread_self();
    in->run_ts = PyThreadState_Get();
    in->abort = ABORT_NONE;
    in->pure_ok = -1; /* gadgets.c: decided again for this window */
    in->gadgets_paused = 0;
    in->tool_calls = 0;
}

void
window_end(Interp *in)
{
    /* in_hook and running drop together: a thread waiting in
       interp_wrong_thread that saw the hook over but the window still
       running would fail instead of waiting */
    in->in_hook = 0;
    in->running = 0;
    in->abort = ABORT_NONE;
    nesting_forget(in);
}

