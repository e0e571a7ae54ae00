/* wire.c: the data-only value codec of the process boundary.
 *
 * Values cross from the (untrusted) worker to the host as a description of
 * data, never as instructions: decoding builds only None, bool, int, float,
 * complex, str, bytes, bytearray, list, tuple, dict, set and frozenset, and
 * hands every other value to a hook of the caller's (`build`) as a name and
 * a payload of such data.  No constructor named by the bytes is ever run.
 *
 * Exposed on `_core` (added at module exec by wire_add_functions):
 *
 *   wire_dumps(obj, ext=None, max_depth=200) -> bytes
 *       Encodes `obj`.  The builtin types above are encoded when their type
 *       is exact; any other value (subclasses included) is passed to
 *       `ext(value)`, which returns None (the value cannot cross: TypeError
 *       "a value of type T cannot cross the process boundary") or a
 *       (name: str, payload) tuple; the payload is encoded in turn.  Nesting
 *       (containers and extension values) deeper than max_depth is a
 *       ValueError; so is a cycle through a tuple, set, frozenset or
 *       extension value (it could not be rebuilt: see REF below).
 *
 *   wire_loads(data, build=None, max_depth=200, deadline=None) -> object
 *       Decodes one value from `data` (any contiguous buffer).  The input is
 *       untrusted: every length is checked against the bytes present before
 *       anything is allocated, so the memory decoded is bounded by a
 *       constant times len(data); nesting is bounded by max_depth; anything
 *       malformed is a ValueError whose message starts with
 *       "malformed value:".  An extension record calls build(name, payload)
 *       and takes its result (ValueError when `build` is None).  `deadline`
 *       is a time.monotonic() value (limits_now() reads CLOCK_MONOTONIC,
 *       the clock of time.monotonic() on Linux): the clock is read every
 *       4096 items, every 256 dict or set insertions (a flood of colliding
 *       keys makes each insertion slower than the last) and after every call
 *       of `build`; past it, TimeoutError("decoding passed the deadline").
 *       Pending signals are handled at the same points.
 *
 * Wire format.  An encoding is exactly one value; a value is one tag byte
 * and its payload.  Lengths and counts are unsigned LEB128 varints: at most
 * 10 bytes, below 2**64, no over-long form (no trailing zero group).
 *
 *   'N'                        None
 *   'T' / 'F'                  True / False
 *   'i' zigzag varint          int in [-2**63, 2**63)
 *   'I' varint n, n bytes      int, little-endian two's complement, n >= 1
 *   'f' 8 bytes                float, IEEE 754 binary64, little-endian
 *   'c' 16 bytes               complex: real, then imaginary, as 'f'
 *   's' varint n, n bytes      str, UTF-8 (lone surrogates: surrogatepass) M
 *   'b' varint n, n bytes      bytes                                      M
 *   'a' varint n, n bytes      bytearray                                  M
 *   'l' varint n, n values     list                                       M
 *   't' varint n, n values     tuple                                      M*
 *   'd' varint n, n key-value  dict, in iteration order                   M
 *   'S' varint n, n values     set                                        M*
 *   'Z' varint n, n values     frozenset                                  M*
 *   'r' varint i               the value of memo entry i (REF)
 *   'x' varint k [varint n, n bytes] value
 *                              extension value: k = 0 introduces a name (n
 *                              bytes of UTF-8, 1 <= n <= 255) that takes the
 *                              next name number; k >= 1 reuses name number
 *                              k - 1.  The value is the payload given to
 *                              build(name, payload).                      M*
 *
 * M: the record takes the next memo index (0, 1, 2...) when its tag is
 * read, before its items, so a later REF to the same object keeps identity
 * and a list or dict can contain itself.  M*: until the record is complete
 * its entry is "under construction", and a REF to it is malformed: a tuple,
 * set, frozenset or extension value is only made once its items are known,
 * so a cycle through one cannot be rebuilt (the encoder refuses it).
 *
 * Bounds of the decoder.  A count claims at least one byte per item (two per
 * dict entry) out of the bytes not already claimed by the items still owed
 * to the enclosing containers (`owed`), so all the slots allocated by one
 * decode add up to at most len(data).  A dict key or set item is hashed and
 * compared; a tuple or frozenset built with shared references can stand for
 * exponentially many items (t = (t1, t1), t1 = (t2, t2)...), which one hash
 * would walk without end, so each decoded value carries a weight (its item
 * count with references expanded, saturating; a str, bytes or big int
 * counts one more per 16 bytes) and a key heavier than WIRE_MAX_KEY_WEIGHT
 * is malformed.  The memory a decode makes is bounded by what it costs
 * (`foot_*` below: an estimate, from above where CPython's growth allows, of
 * each object's bytes with its memo entry, from its type and length only, so
 * that the encoder computes the same sum from the value): more than
 * WIRE_MEM_PER_BYTE times len(data) plus WIRE_MEM_SLACK is malformed, and
 * the encoder refuses (ValueError) a value whose decode would be.  Memo
 * entries hold strong references
 * (the decoder's and the encoder's: an object the `ext` hook returned and
 * dropped must not have its address reused while the encoder remembers it).
 */
#include "module.h"
#include "wire.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define WIRE_DEFAULT_DEPTH 200
/* countdown units between two looks at the clock (a unit: about one item) */
#define WIRE_CHECK_EVERY 4096
/* units charged per dict or set insertion: the clock is read every 256
 * (with 2M colliding int keys, 256 insertions take about 20 ms when the
 * table holds 5,000, where a deadline of 0.2 s falls) */
#define WIRE_INSERT_UNITS 16
#define WIRE_NAME_MAX 255
/* heaviest dict key or set item (items with references expanded) */
#define WIRE_MAX_KEY_WEIGHT ((uint64_t)1 << 20)
#define WIRE_WEIGHT_SAT ((uint64_t)1 << 62)
/* the memory a decode may make: per byte of the encoding, and in all */
#define WIRE_MEM_PER_BYTE 32
#define WIRE_MEM_SLACK ((size_t)1 << 20)

enum {
    TAG_NONE = 'N',
    TAG_TRUE = 'T',
    TAG_FALSE = 'F',
    TAG_INT = 'i',
    TAG_BIGINT = 'I',
    TAG_FLOAT = 'f',
    TAG_COMPLEX = 'c',
    TAG_STR = 's',
    TAG_BYTES = 'b',
    TAG_BYTEARRAY = 'a',
    TAG_LIST = 'l',
    TAG_TUPLE = 't',
    TAG_DICT = 'd',
    TAG_SET = 'S',
    TAG_FROZENSET = 'Z',
    TAG_REF = 'r',
    TAG_EXT = 'x',
};

/* 64 bits in little-endian order (and back). */
static inline uint64_t
wire_le64(uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(x);
#else
    return x;
#endif
}

/* Saturating sum of two weights. */
static inline uint64_t
weight_add(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return (s < a || s > WIRE_WEIGHT_SAT) ? WIRE_WEIGHT_SAT : s;
}

/* ================================================================ costs */

/* What a decoded object costs, in bytes (64-bit CPython 3.10-3.15: the
 * object, its GC header, its table or items, the decoder's memo entry).
 * Each depends only on what both ends see (a type, a length, an int's
 * value, a str's kind), never on how the encoder's object was built. */
#define FOOT_MEMO 48 /* 16 bytes, in an array doubled by realloc (old and new at once) */

static inline size_t
foot_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* the smallest power of two >= n (n <= 2**62) */
static inline size_t
foot_pow2(size_t n)
{
    size_t p = 1;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

static inline size_t
foot_int64(long long x)
{
    return x >= -5 && x <= 256 ? 0 : 40; /* cached; or up to 3 digits */
}

static inline size_t
foot_bigint(size_t nbytes)
{
    return foot_add(32, nbytes / 2 * 3); /* 30-bit digits in 4 bytes */
}

/* list, tuple, dict, set or frozenset of n items, bytes or bytearray of n
 * bytes, an extension value */
static size_t
foot_record(unsigned char tag, size_t n)
{
    if (n > ((size_t)1 << 58)) {
        return SIZE_MAX;
    }
    switch (tag) {
    case 'l':
        return 72 + 8 * n + FOOT_MEMO;
    case 't':
        return 64 + 8 * n + FOOT_MEMO;
    case 'b':
        return 40 + n + FOOT_MEMO;
    case 'a':
        return 64 + n + FOOT_MEMO;
    case 'd': {
        /* a dict grown by insertion: at most 2**k >= 3n slots, each with
           its index (1, 2 or 4 bytes) and 2/3 of an entry (24 bytes) */
        if (n == 0) {
            return 80 + FOOT_MEMO;
        }
        size_t cap = n <= 5 ? 8 : foot_pow2(3 * n);
        size_t ix = cap <= 128 ? 1 : cap <= 65536 ? 2 : 4;
        return 120 + cap * (16 + ix) + FOOT_MEMO;
    }
    case 'S':
    case 'Z': {
        /* eight slots inline; past four items a table of 16-byte slots,
           grown to 4 (2 past 50,000) times the items */
        if (n < 5) {
            return 216 + FOOT_MEMO;
        }
        return 216 + 16 * foot_pow2(n > 50000 ? 2 * n : 4 * n) + FOOT_MEMO;
    }
    default: /* 'x' */
        return 64 + FOOT_MEMO;
    }
}

/* a str (exact, ready): compact, one to four bytes a character */
static size_t
foot_str(PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n == 0 || (n == 1 && PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND)) {
        return FOOT_MEMO; /* CPython's singletons */
    }
    size_t head = PyUnicode_IS_ASCII(s) ? 48 : 64;
    return head + ((size_t)n + 1) * (size_t)PyUnicode_KIND(s) + FOOT_MEMO;
}

/* What a decode of `len` bytes may cost. */
static inline size_t
wire_mem_max(size_t len)
{
    return len > (SIZE_MAX - WIRE_MEM_SLACK) / WIRE_MEM_PER_BYTE
               ? SIZE_MAX
               : len * WIRE_MEM_PER_BYTE + WIRE_MEM_SLACK;
}

/* ================================================================ encoder */

typedef struct {
    PyObject *key; /* strong reference; NULL: an empty slot */
    /* memo index << 1 | busy (a tuple, set, frozenset or extension value
       being written) */
    uint64_t state;
} EncSlot;

/* A payload of at least WIRE_PIECE_MIN bytes (a str, bytes or bytearray)
 * is not copied into the buffer: it is kept as a piece, which the result is
 * assembled from, so its bytes are copied once (into the result), not twice
 * (into the buffer, then into the result). */
#define WIRE_PIECE_MIN (16 * 1024)

typedef struct {
    size_t pos; /* the offset in the buffer where its bytes belong */
    const char *data;
    size_t n;
    /* a bytes or bytearray: an export of its buffer, which keeps the object
       and its bytes in place (a bytearray cannot be resized meanwhile);
       view.obj is NULL for a str, which `owner` holds */
    Py_buffer view;
    PyObject *owner;
} EncPiece;

typedef struct {
    unsigned char *buf; /* PyMem */
    size_t len, cap;
    EncPiece *pieces; /* PyMem */
    size_t npieces, cappieces;
    size_t piece_bytes; /* the bytes of all pieces */
    EncSlot *slots;     /* open addressing by address, linear probing; PyMem */
    size_t mask;        /* slot count - 1 (a power of two); 0: no table yet */
    size_t used;
    Py_ssize_t next_index;
    PyObject *names; /* dict: extension name -> name number (new ref) */
    PyObject *ext;   /* borrowed; NULL: none */
    int depth, max_depth;
    long countdown;
    size_t mem; /* what the decode will cost (foot_*) */
} Enc;

/* Frees what the encoder holds. */
static void
enc_clear(Enc *e)
{
    if (e->slots != NULL) {
        for (size_t i = 0; i <= e->mask; i++) {
            Py_XDECREF(e->slots[i].key);
        }
        PyMem_Free(e->slots);
        e->slots = NULL;
    }
    PyMem_Free(e->buf);
    e->buf = NULL;
    for (size_t i = 0; i < e->npieces; i++) {
        if (e->pieces[i].view.obj != NULL) {
            PyBuffer_Release(&e->pieces[i].view);
        }
        Py_XDECREF(e->pieces[i].owner);
    }
    PyMem_Free(e->pieces);
    e->pieces = NULL;
    e->npieces = 0;
    Py_CLEAR(e->names);
}

/* Makes room for `n` more bytes; 0, or -1 with MemoryError. */
static int
enc_grow(Enc *e, size_t n)
{
    if (n > (size_t)PY_SSIZE_T_MAX - e->len) {
        PyErr_NoMemory();
        return -1;
    }
    size_t need = e->len + n;
    size_t cap = e->cap < 256 ? 256 : e->cap;
    while (cap < need) {
        cap = cap > (size_t)PY_SSIZE_T_MAX / 2 ? need : cap * 2;
    }
    unsigned char *p = PyMem_Realloc(e->buf, cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    e->buf = p;
    e->cap = cap;
    return 0;
}

static inline int
enc_reserve(Enc *e, size_t n)
{
    if (e->cap - e->len >= n) {
        return 0;
    }
    return enc_grow(e, n);
}

static inline unsigned char *
put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static inline unsigned char *
put_f64(unsigned char *p, double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    b = wire_le64(b);
    memcpy(p, &b, 8);
    return p + 8;
}

/* A tag and a varint; 0 / -1. */
static inline int
enc_head(Enc *e, unsigned char tag, uint64_t n)
{
    if (enc_reserve(e, 11) < 0) {
        return -1;
    }
    unsigned char *p = e->buf + e->len;
    *p++ = tag;
    p = put_varint(p, n);
    e->len = (size_t)(p - e->buf);
    return 0;
}

/* Records the `n` bytes at `data` of `owner` (a str, bytes or bytearray,
 * borrowed) as a piece at the buffer's end; 0 / -1. */
static int
enc_piece(Enc *e, PyObject *owner, const void *data, size_t n)
{
    if (n > (size_t)PY_SSIZE_T_MAX - e->len - e->piece_bytes) {
        PyErr_NoMemory();
        return -1;
    }
    if (e->npieces == e->cappieces) {
        size_t cap = e->cappieces ? e->cappieces * 2 : 8;
        if (cap > (size_t)PY_SSIZE_T_MAX / sizeof(EncPiece)) {
            PyErr_NoMemory();
            return -1;
        }
        EncPiece *pieces = PyMem_Realloc(e->pieces, cap * sizeof(EncPiece));
        if (pieces == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        e->pieces = pieces;
        e->cappieces = cap;
    }
    EncPiece *pc = &e->pieces[e->npieces];
    memset(pc, 0, sizeof(*pc));
    if (PyUnicode_Check(owner)) {
        Py_INCREF(owner);
        pc->owner = owner;
    }
    else {
        if (PyObject_GetBuffer(owner, &pc->view, PyBUF_SIMPLE) < 0) {
            pc->view.obj = NULL;
            return -1;
        }
        /* the bytes exported are the ones counted */
        data = pc->view.buf;
        n = (size_t)pc->view.len;
    }
    pc->pos = e->len;
    pc->data = data;
    pc->n = n;
    e->npieces++;
    e->piece_bytes += n;
    return 0;
}

/* A tag, a length and the `n` bytes at `data`, which belong to `owner` (a
 * str, bytes or bytearray, borrowed; NULL: copy them); 0 / -1. */
static int
enc_sized(Enc *e, unsigned char tag, PyObject *owner, const void *data,
          size_t n)
{
    if (n > (size_t)PY_SSIZE_T_MAX - 11) {
        PyErr_NoMemory();
        return -1;
    }
    if (owner != NULL && n >= WIRE_PIECE_MIN) {
        return enc_head(e, tag, n) < 0 ? -1 : enc_piece(e, owner, data, n);
    }
    if (enc_reserve(e, 11 + n) < 0) {
        return -1;
    }
    unsigned char *p = e->buf + e->len;
    *p++ = tag;
    p = put_varint(p, n);
    if (n > 0) {
        memcpy(p, data, n);
    }
    e->len = (size_t)(p + n - e->buf);
    return 0;
}

static inline size_t
memo_hash(PyObject *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key >> 4;
    h *= 0x9E3779B97F4A7C15ULL;
    return (size_t)(h ^ (h >> 32));
}

/* The slot of `key`, or the empty slot where it would go (table exists). */
static EncSlot *
memo_find(Enc *e, PyObject *key)
{
    size_t i = memo_hash(key) & e->mask;
    while (e->slots[i].key != NULL && e->slots[i].key != key) {
        i = (i + 1) & e->mask;
    }
    return &e->slots[i];
}

/* Doubles the memo table (or makes the first); 0 / -1 with MemoryError. */
static int
memo_grow(Enc *e)
{
    size_t old = e->slots ? e->mask + 1 : 0;
    size_t n = old ? old * 2 : 64;
    if (n > (size_t)PY_SSIZE_T_MAX / sizeof(EncSlot)) {
        PyErr_NoMemory();
        return -1;
    }
    EncSlot *slots = PyMem_Calloc(n, sizeof(EncSlot));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    EncSlot *prev = e->slots;
    e->slots = slots;
    e->mask = n - 1;
    for (size_t i = 0; i < old; i++) {
        if (prev[i].key != NULL) {
            *memo_find(e, prev[i].key) = prev[i];
        }
    }
    PyMem_Free(prev);
    return 0;
}

/* Remembers a memoized value (str, bytes, bytearray, container, extension
 * value; `v` borrowed, the table takes a new reference) or, when seen
 * before, writes a REF to it.  0: new, the caller writes it; 1: written as a
 * REF; -1: error (ValueError for a cycle through a busy value).
 *
 * `solo`: the caller took `v` from a container slot that holds its only
 * reference (refcount 1), so the walk cannot meet it again (a second
 * occurrence, or a cycle, would be a second reference): it takes the next
 * memo index, which keeps the numbering the decoder follows, but stays out
 * of the table.  Most strs, tuples and lists of a large value are solo, and
 * the table's random accesses are the encoder's main cost otherwise. */
static int
enc_memo(Enc *e, PyObject *v, int busy, int solo)
{
    if (solo) {
        e->next_index++;
        return 0;
    }
    if (e->slots == NULL || (e->used + 1) * 3 > (e->mask + 1) * 2) {
        if (memo_grow(e) < 0) {
            return -1;
        }
    }
    EncSlot *s = memo_find(e, v);
    if (s->key != NULL) {
        if (s->state & 1) {
            PyErr_Format(PyExc_ValueError,
                         "a %.200s that contains itself cannot cross the "
                         "process boundary (a cycle through a tuple, set, "
                         "frozenset or extension value)",
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        return enc_head(e, TAG_REF, s->state >> 1) < 0 ? -1 : 1;
    }
    Py_INCREF(v);
    s->key = v;
    s->state = (uint64_t)e->next_index++ << 1 | (busy ? 1 : 0);
    e->used++;
    return 0;
}

/* Marks a busy value (`v` borrowed) complete; nothing for a solo one. */
static void
enc_unbusy(Enc *e, PyObject *v, int solo)
{
    if (!solo) {
        memo_find(e, v)->state &= ~(uint64_t)1;
    }
}

/* One nesting level more; 0, or -1 with ValueError / RecursionError. */
static int
enc_enter(Enc *e)
{
    if (e->depth >= e->max_depth) {
        PyErr_Format(PyExc_ValueError,
                     "the value is nested deeper than max_depth=%d",
                     e->max_depth);
        return -1;
    }
    if (Py_EnterRecursiveCall(" while encoding a value")) {
        return -1;
    }
    e->depth++;
    return 0;
}

static void
enc_leave(Enc *e)
{
    e->depth--;
    Py_LeaveRecursiveCall();
}

/* TypeError naming the type of `v` (borrowed); -1. */
static int
cannot_cross(PyObject *v)
{
    PyErr_Format(PyExc_TypeError,
                 "a value of type %.200s cannot cross the process boundary",
                 Py_TYPE(v)->tp_name);
    return -1;
}

static int enc_value(Enc *e, PyObject *v, int solo);

/* An int (exact) past one digit: the int64 form when it fits, else the
 * bytes form. */
static int
enc_int_long(Enc *e, PyObject *v)
{
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (!overflow) {
        if (x == -1 && PyErr_Occurred()) {
            return -1;
        }
        e->mem = foot_add(e->mem, foot_int64(x));
        uint64_t u = (uint64_t)x << 1;
        if (x < 0) {
            u = ~u; /* zigzag: -1 -> 1, 1 -> 2, -2 -> 3... */
        }
        return enc_head(e, TAG_INT, u);
    }
    size_t bits = compat_long_num_bits(v);
    if (bits == (size_t)-1) {
        return -1;
    }
    size_t n = bits / 8 + 1; /* room for the sign bit */
    if (n > (size_t)PY_SSIZE_T_MAX - 11) {
        PyErr_NoMemory();
        return -1;
    }
    e->mem = foot_add(e->mem, foot_bigint(n));
    if (enc_reserve(e, 11 + n) < 0) {
        return -1;
    }
    unsigned char *p = e->buf + e->len;
    *p++ = TAG_BIGINT;
    p = put_varint(p, n);
    if (compat_long_to_le_bytes(v, p, n) < 0) {
        return -1;
    }
    e->len = (size_t)(p + n - e->buf);
    return 0;
}

/* An int (exact); one digit inline. */
static inline int
enc_int(Enc *e, PyObject *v)
{
    long long x;
    if (!compat_small_int(v, &x)) {
        return enc_int_long(e, v);
    }
    e->mem = foot_add(e->mem, foot_int64(x));
    uint64_t u = (uint64_t)x << 1;
    if (x < 0) {
        u = ~u;
    }
    return enc_head(e, TAG_INT, u);
}

/* A str (exact): UTF-8, lone surrogates as surrogatepass writes them. */
static int
enc_str(Enc *e, PyObject *v, int solo)
{
    int r = enc_memo(e, v, 0, solo);
    if (r != 0) {
        return r < 0 ? -1 : 0;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(v) < 0) {
        return -1;
    }
#endif
    e->mem = foot_add(e->mem, foot_str(v));
    if (PyUnicode_IS_ASCII(v)) {
        return enc_sized(e, TAG_STR, v, PyUnicode_DATA(v),
                         (size_t)PyUnicode_GET_LENGTH(v));
    }
    PyObject *b = PyUnicode_AsEncodedString(v, "utf-8", "surrogatepass");
    if (b == NULL) {
        return -1;
    }
    r = enc_sized(e, TAG_STR, b, PyBytes_AS_STRING(b),
                  (size_t)PyBytes_GET_SIZE(b));
    Py_DECREF(b);
    return r;
}

/* Encodes an item of a container (`v` borrowed from it; `solo`: the
 * container's reference is its only one): the scalars directly (no Python
 * code runs while they are written), anything else under a reference of
 * its own. */
static inline int
enc_item(Enc *e, PyObject *v, int solo)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp == &PyLong_Type) {
        return enc_int(e, v);
    }
    if (tp == &PyUnicode_Type) {
        return enc_str(e, v, solo);
    }
    if (tp == &PyFloat_Type) {
        if (enc_reserve(e, 9) < 0) {
            return -1;
        }
        e->buf[e->len] = TAG_FLOAT;
        put_f64(e->buf + e->len + 1, PyFloat_AS_DOUBLE(v));
        e->len += 9;
        e->mem = foot_add(e->mem, 24);
        return 0;
    }
    Py_INCREF(v);
    int r = enc_value(e, v, solo);
    Py_DECREF(v);
    return r;
}

/* Reads the clock's countdown for the encoder: signals only. */
static inline int
enc_tick(Enc *e)
{
    if (--e->countdown > 0) {
        return 0;
    }
    e->countdown = WIRE_CHECK_EVERY;
    return PyErr_CheckSignals();
}

static int
changed_size(const char *what)
{
    PyErr_Format(PyExc_RuntimeError, "%s changed size during encoding", what);
    return -1;
}

static int
enc_list(Enc *e, PyObject *v, int solo)
{
    int r = enc_memo(e, v, 0, solo);
    if (r != 0) {
        return r < 0 ? -1 : 0;
    }
    if (enc_enter(e) < 0) {
        return -1;
    }
    int rc = -1;
    Py_ssize_t n = PyList_GET_SIZE(v);
    if (enc_head(e, TAG_LIST, (uint64_t)n) < 0) {
        goto done;
    }
    e->mem = foot_add(e->mem, foot_record(TAG_LIST, (size_t)n));
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i >= PyList_GET_SIZE(v)) {
            changed_size("list");
            goto done;
        }
        PyObject *item = PyList_GET_ITEM(v, i);
        if (enc_tick(e) < 0 || enc_item(e, item, Py_REFCNT(item) == 1) < 0) {
            goto done;
        }
    }
    if (PyList_GET_SIZE(v) != n) {
        changed_size("list");
        goto done;
    }
    rc = 0;
done:
    enc_leave(e);
    return rc;
}

static int
enc_tuple(Enc *e, PyObject *v, int solo)
{
    int r = enc_memo(e, v, 1, solo);
    if (r != 0) {
        return r < 0 ? -1 : 0;
    }
    if (enc_enter(e) < 0) {
        return -1;
    }
    int rc = -1;
    Py_ssize_t n = PyTuple_GET_SIZE(v);
    if (enc_head(e, TAG_TUPLE, (uint64_t)n) < 0) {
        goto done;
    }
    e->mem = foot_add(e->mem, foot_record(TAG_TUPLE, (size_t)n));
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(v, i);
        if (enc_tick(e) < 0 || enc_item(e, item, Py_REFCNT(item) == 1) < 0) {
            goto done;
        }
    }
    enc_unbusy(e, v, solo);
    rc = 0;
done:
    enc_leave(e);
    return rc;
}

static int
enc_dict(Enc *e, PyObject *v, int solo)
{
    int r = enc_memo(e, v, 0, solo);
    if (r != 0) {
        return r < 0 ? -1 : 0;
    }
    if (enc_enter(e) < 0) {
        return -1;
    }
    int rc = -1;
    Py_ssize_t n = PyDict_GET_SIZE(v), pos = 0, count = 0;
    PyObject *key, *value;
    if (enc_head(e, TAG_DICT, (uint64_t)n) < 0) {
        goto done;
    }
    e->mem = foot_add(e->mem, foot_record(TAG_DICT, (size_t)n));
    while (PyDict_Next(v, &pos, &key, &value)) {
        if (count++ == n) {
            changed_size("dict");
            goto done;
        }
        /* both held: encoding one may run the ext hook, which may change
           the dict */
        int solo_key = Py_REFCNT(key) == 1, solo_value = Py_REFCNT(value) == 1;
        Py_INCREF(key);
        Py_INCREF(value);
        r = enc_tick(e);
        if (r == 0) {
            r = enc_item(e, key, solo_key);
        }
        if (r == 0) {
            r = enc_item(e, value, solo_value);
        }
        Py_DECREF(key);
        Py_DECREF(value);
        if (r < 0) {
            goto done;
        }
    }
    if (count != n || PyDict_GET_SIZE(v) != n) {
        changed_size("dict");
        goto done;
    }
    rc = 0;
done:
    enc_leave(e);
    return rc;
}

static int
enc_set(Enc *e, PyObject *v, unsigned char tag, int solo)
{
    int r = enc_memo(e, v, 1, solo);
    if (r != 0) {
        return r < 0 ? -1 : 0;
    }
    if (enc_enter(e) < 0) {
        return -1;
    }
    int rc = -1;
    PyObject *it = NULL, *item;
    Py_ssize_t n = PySet_GET_SIZE(v), count = 0;
    if (enc_head(e, tag, (uint64_t)n) < 0) {
        goto done;
    }
    e->mem = foot_add(e->mem, foot_record(tag, (size_t)n));
    it = PyObject_GetIter(v);
    if (it == NULL) {
        goto done;
    }
    while ((item = PyIter_Next(it)) != NULL) {
        r = count++ == n ? changed_size("set") : enc_tick(e);
        if (r == 0) {
            /* the set's reference and the iterator's */
            r = enc_value(e, item, Py_REFCNT(item) == 2);
        }
        Py_DECREF(item);
        if (r < 0) {
            goto done;
        }
    }
    if (PyErr_Occurred()) {
        goto done;
    }
    if (count != n) {
        changed_size("set");
        goto done;
    }
    enc_unbusy(e, v, solo);
    rc = 0;
done:
    Py_XDECREF(it);
    enc_leave(e);
    return rc;
}

/* The name of an extension record: a new name, or the number of one
 * written before.  0 / -1. */
static int
enc_ext_name(Enc *e, PyObject *name)
{
    PyObject *num = PyDict_GetItemWithError(e->names, name); /* borrowed */
    if (num != NULL) {
        Py_ssize_t k = PyLong_AsSsize_t(num);
        if (k < 0) {
            return -1;
        }
        return enc_head(e, TAG_EXT, (uint64_t)k + 1);
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    Py_ssize_t n;
    const char *utf8 = PyUnicode_AsUTF8AndSize(name, &n);
    if (utf8 == NULL) {
        return -1;
    }
    if (n < 1 || n > WIRE_NAME_MAX) {
        PyErr_Format(PyExc_ValueError,
                     "an extension name must be 1 to %d bytes of UTF-8, not "
                     "%zd",
                     WIRE_NAME_MAX, n);
        return -1;
    }
    num = PyLong_FromSsize_t(PyDict_GET_SIZE(e->names));
    if (num == NULL) {
        return -1;
    }
    int r = PyDict_SetItem(e->names, name, num);
    Py_DECREF(num);
    if (r < 0 || enc_reserve(e, 3 + (size_t)n) < 0) {
        return -1;
    }
    unsigned char *p = e->buf + e->len;
    *p++ = TAG_EXT;
    *p++ = 0; /* a new name */
    p = put_varint(p, (uint64_t)n);
    memcpy(p, utf8, (size_t)n);
    e->len = (size_t)(p + n - e->buf);
    return 0;
}

/* Any value of no builtin exact type: through the ext hook. */
static int
enc_ext(Enc *e, PyObject *v, int solo)
{
    if (e->ext == NULL) {
        return cannot_cross(v);
    }
    int r = enc_memo(e, v, 1, solo);
    if (r != 0) {
        return r < 0 ? -1 : 0;
    }
    if (enc_enter(e) < 0) {
        return -1;
    }
    int rc = -1;
    e->mem = foot_add(e->mem, foot_record(TAG_EXT, 0));
    PyObject *res = PyObject_CallOneArg(e->ext, v);
    if (res == NULL) {
        goto done;
    }
    if (res == Py_None) {
        cannot_cross(v);
        goto done;
    }
    if (!PyTuple_CheckExact(res) || PyTuple_GET_SIZE(res) != 2 ||
        !PyUnicode_CheckExact(PyTuple_GET_ITEM(res, 0))) {
        PyErr_Format(PyExc_TypeError,
                     "ext(%.200s) must return None or a (name: str, payload) "
                     "tuple, not %.200s",
                     Py_TYPE(v)->tp_name, Py_TYPE(res)->tp_name);
        goto done;
    }
    PyObject *payload = PyTuple_GET_ITEM(res, 1);
    if (enc_ext_name(e, PyTuple_GET_ITEM(res, 0)) < 0 ||
        enc_value(e, payload, Py_REFCNT(payload) == 1) < 0) {
        goto done;
    }
    enc_unbusy(e, v, solo);
    rc = 0;
done:
    Py_XDECREF(res);
    enc_leave(e);
    return rc;
}

/* Encodes `v` (borrowed; the caller keeps it alive; `solo`: see
 * enc_memo); 0 / -1. */
static int
enc_value(Enc *e, PyObject *v, int solo)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp == &PyLong_Type) {
        return enc_int(e, v);
    }
    if (tp == &PyUnicode_Type) {
        return enc_str(e, v, solo);
    }
    if (v == Py_None || tp == &PyBool_Type) {
        if (enc_reserve(e, 1) < 0) {
            return -1;
        }
        e->buf[e->len++] = v == Py_None   ? TAG_NONE
                           : v == Py_True ? TAG_TRUE
                                          : TAG_FALSE;
        return 0;
    }
    if (tp == &PyFloat_Type) {
        return enc_item(e, v, 0);
    }
    if (tp == &PyList_Type) {
        return enc_list(e, v, solo);
    }
    if (tp == &PyTuple_Type) {
        return enc_tuple(e, v, solo);
    }
    if (tp == &PyDict_Type) {
        return enc_dict(e, v, solo);
    }
    if (tp == &PyBytes_Type || tp == &PyByteArray_Type) {
        int r = enc_memo(e, v, 0, solo);
        if (r != 0) {
            return r < 0 ? -1 : 0;
        }
        e->mem = foot_add(
            e->mem, foot_record(tp == &PyBytes_Type ? TAG_BYTES : TAG_BYTEARRAY,
                                (size_t)Py_SIZE(v)));
        if (tp == &PyBytes_Type) {
            return enc_sized(e, TAG_BYTES, v, PyBytes_AS_STRING(v),
                             (size_t)PyBytes_GET_SIZE(v));
        }
        /* the function: up to 3.11 the macro PyByteArray_AS_STRING reads a
           private symbol */
        return enc_sized(e, TAG_BYTEARRAY, v, PyByteArray_AsString(v),
                         (size_t)PyByteArray_GET_SIZE(v));
    }
    if (tp == &PySet_Type) {
        return enc_set(e, v, TAG_SET, solo);
    }
    if (tp == &PyFrozenSet_Type) {
        return enc_set(e, v, TAG_FROZENSET, solo);
    }
    if (tp == &PyComplex_Type) {
        if (enc_reserve(e, 17) < 0) {
            return -1;
        }
        unsigned char *p = e->buf + e->len;
        *p++ = TAG_COMPLEX;
        e->mem = foot_add(e->mem, 32);
        p = put_f64(p, PyComplex_RealAsDouble(v));
        put_f64(p, PyComplex_ImagAsDouble(v));
        e->len += 17;
        return 0;
    }
    return enc_ext(e, v, solo);
}

/* The encoding: the buffer with the pieces in their places; a new bytes
 * object, or NULL. */
static PyObject *
enc_finish(Enc *e)
{
    size_t total = e->len + e->piece_bytes; /* enc_piece checked the sum */
    PyObject *res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (res == NULL) {
        return NULL;
    }
    char *out = PyBytes_AS_STRING(res);
    size_t from = 0;
    for (size_t i = 0; i < e->npieces; i++) {
        EncPiece *pc = &e->pieces[i];
        memcpy(out, e->buf + from, pc->pos - from);
        out += pc->pos - from;
        memcpy(out, pc->data, pc->n);
        out += pc->n;
        from = pc->pos;
    }
    if (e->len > from) {
        memcpy(out, e->buf + from, e->len - from);
    }
    return res;
}

/* wire_dumps(obj, ext=None, max_depth=200): bytes (new reference) or
 * NULL. */
static PyObject *
wire_dumps(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"obj", "ext", "max_depth", NULL};
    PyObject *obj, *ext = Py_None, *res = NULL;
    int max_depth = WIRE_DEFAULT_DEPTH;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|Oi:wire_dumps", kwlist,
                                     &obj, &ext, &max_depth)) {
        return NULL;
    }
    if (max_depth < 0) {
        PyErr_SetString(PyExc_ValueError, "max_depth must be >= 0");
        return NULL;
    }
    if (ext != Py_None && !PyCallable_Check(ext)) {
        PyErr_SetString(PyExc_TypeError, "ext must be callable or None");
        return NULL;
    }
    Enc e = {0};
    e.ext = ext == Py_None ? NULL : ext;
    e.max_depth = max_depth;
    e.countdown = WIRE_CHECK_EVERY;
    e.names = PyDict_New();
    if (e.names == NULL || enc_value(&e, obj, 0) < 0) {
        goto done;
    }
    size_t total = e.len + e.piece_bytes;
    if (e.mem > wire_mem_max(total)) {
        PyErr_Format(PyExc_ValueError,
                     "the value would take about %zu bytes of memory once "
                     "decoded, more than its %zu bytes of encoding allow "
                     "(%d per byte and 1 MiB): too many small containers",
                     e.mem, total, WIRE_MEM_PER_BYTE);
        goto done;
    }
    res = enc_finish(&e);
done:
    enc_clear(&e);
    return res;
}

/* ================================================================ decoder */

typedef struct {
    PyObject *obj; /* strong reference; NULL: under construction */
    uint64_t weight;
} DecSlot;

typedef struct {
    const unsigned char *start, *p, *end;
    /* bytes that the items not yet started of the open containers need at
       least (one per item, two per dict entry): not available to a count */
    size_t owed;
    DecSlot *memo; /* PyMem */
    size_t nmemo, capmemo;
    PyObject **names; /* strong references; PyMem */
    size_t nnames, capnames;
    PyObject *build; /* borrowed; NULL: none */
    int depth, max_depth;
    int stack_full; /* Py_EnterRecursiveCall refused a level (see dec_enter) */
    int has_deadline;
    double deadline;
    long countdown;
    size_t mem, mem_max; /* what the objects made cost (foot_*); its bound */
} Dec;

/* Frees what the decoder holds. */
static void
dec_clear(Dec *d)
{
    for (size_t i = 0; i < d->nmemo; i++) {
        Py_XDECREF(d->memo[i].obj);
    }
    PyMem_Free(d->memo);
    d->memo = NULL;
    for (size_t i = 0; i < d->nnames; i++) {
        Py_DECREF(d->names[i]);
    }
    PyMem_Free(d->names);
    d->names = NULL;
}

/* ValueError "malformed value: <what> (at byte N)"; NULL. */
static PyObject *
dec_malformed(Dec *d, const char *what)
{
    PyErr_Format(PyExc_ValueError, "malformed value: %s (at byte %zd)", what,
                 (Py_ssize_t)(d->p - d->start));
    return NULL;
}

/* The clock and signals; 0, or -1 with TimeoutError or the signal's
 * exception. */
static int
dec_check_clock(Dec *d)
{
    d->countdown = WIRE_CHECK_EVERY;
    if (PyErr_CheckSignals() < 0) {
        return -1;
    }
    if (d->has_deadline && limits_now() > d->deadline) {
        PyErr_SetString(PyExc_TimeoutError, "decoding passed the deadline");
        return -1;
    }
    return 0;
}

/* Charges `units` to the countdown and reads the clock when it runs out;
 * 0 / -1. */
static inline int
dec_charge(Dec *d, long units)
{
    d->countdown -= units;
    if (d->countdown > 0) {
        return 0;
    }
    return dec_check_clock(d);
}

/* Charges what a new object costs, before it is made; 0, or -1 with
 * ValueError (malformed) past the bound. */
static int
dec_mem(Dec *d, size_t cost)
{
    d->mem = foot_add(d->mem, cost);
    if (d->mem <= d->mem_max) {
        return 0;
    }
    char msg[160];
    PyOS_snprintf(msg, sizeof(msg),
                  "it would take more than %zu bytes of memory (%d per byte "
                  "of its encoding and 1 MiB)",
                  d->mem_max, WIRE_MEM_PER_BYTE);
    dec_malformed(d, msg);
    return -1;
}

/* Bytes not claimed by owed items. */
static inline size_t
dec_avail(Dec *d)
{
    size_t rem = (size_t)(d->end - d->p);
    return rem > d->owed ? rem - d->owed : 0;
}

/* An unsigned LEB128 varint: 0, or -1 with ValueError. */
static int
dec_varint_long(Dec *d, uint64_t *out)
{
    const unsigned char *p = d->p;
    uint64_t v = 0;
    for (int i = 0;; i++) {
        if (p >= d->end) {
            dec_malformed(d, "truncated varint");
            return -1;
        }
        unsigned char b = *p++;
        if (i == 9 && b > 1) {
            dec_malformed(d, "varint of more than 64 bits");
            return -1;
        }
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if (b == 0 && i > 0) {
                dec_malformed(d, "over-long varint");
                return -1;
            }
            break;
        }
    }
    d->p = p;
    *out = v;
    return 0;
}

static inline int
dec_varint(Dec *d, uint64_t *out)
{
    const unsigned char *p = d->p;
    if (d->end - p >= 10) {
        /* all ten bytes present: no bounds check per byte */
        uint64_t v = 0;
        for (int i = 0; i < 10; i++) {
            unsigned char b = p[i];
            v |= (uint64_t)(b & 0x7f) << (7 * i);
            if (!(b & 0x80)) {
                if ((b == 0 && i > 0) || (i == 9 && b > 1)) {
                    break; /* the long path says which error */
                }
                d->p = p + i + 1;
                *out = v;
                return 0;
            }
        }
    }
    return dec_varint_long(d, out);
}

/* A count of items (or bytes) of at least `per` bytes each, out of the
 * bytes not claimed; 0, or -1 with ValueError. */
static int
dec_count(Dec *d, size_t per, const char *what, Py_ssize_t *out)
{
    uint64_t v;
    if (dec_varint(d, &v) < 0) {
        return -1;
    }
    size_t avail = dec_avail(d);
    if (v > avail / per) {
        char msg[200];
        PyOS_snprintf(msg, sizeof(msg),
                      "%s claims %llu, more than the %zu bytes left allow",
                      what, (unsigned long long)v, avail);
        dec_malformed(d, msg);
        return -1;
    }
    *out = (Py_ssize_t)v;
    return 0;
}

/* Adds a memo entry for `obj` (borrowed, stored as a new reference; NULL:
 * under construction); its index in *index when asked.  0 / -1. */
static int
dec_memo_push(Dec *d, PyObject *obj, size_t *index)
{
    if (d->nmemo == d->capmemo) {
        size_t cap = d->capmemo ? d->capmemo * 2 : 16;
        if (cap > (size_t)PY_SSIZE_T_MAX / sizeof(DecSlot)) {
            PyErr_NoMemory();
            return -1;
        }
        DecSlot *m = PyMem_Realloc(d->memo, cap * sizeof(DecSlot));
        if (m == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        d->memo = m;
        d->capmemo = cap;
    }
    Py_XINCREF(obj);
    d->memo[d->nmemo].obj = obj;
    d->memo[d->nmemo].weight = 1;
    if (index != NULL) {
        *index = d->nmemo;
    }
    d->nmemo++;
    return 0;
}

/* Completes a memo entry under construction with `obj` (borrowed). */
static void
dec_memo_set(Dec *d, size_t index, PyObject *obj, uint64_t weight)
{
    Py_INCREF(obj);
    d->memo[index].obj = obj;
    d->memo[index].weight = weight;
}

/* One nesting level more; 0, or -1 with ValueError. */
static int
dec_enter(Dec *d)
{
    if (d->depth >= d->max_depth) {
        char msg[80];
        PyOS_snprintf(msg, sizeof(msg), "nested deeper than max_depth=%d",
                      d->max_depth);
        dec_malformed(d, msg);
        return -1;
    }
    if (Py_EnterRecursiveCall(" while decoding a value")) {
        /* a RecursionError, made into a ValueError by wire_loads once the
           stack is unwound: at the limit, making an exception object can
           itself fail the same check (3.13) */
        d->stack_full = PyErr_ExceptionMatches(PyExc_RecursionError);
        return -1;
    }
    d->depth++;
    return 0;
}

static void
dec_leave(Dec *d)
{
    d->depth--;
    Py_LeaveRecursiveCall();
}

/* Checks that a decoded dict key or set item (`key` borrowed, of weight
 * `w`) can be hashed, and charges its insertion; 0, or -1 with
 * ValueError (malformed), TimeoutError or the hash's error. */
static int
dec_hashable(Dec *d, PyObject *key, uint64_t w, const char *what)
{
    uint64_t cw = w > WIRE_MAX_KEY_WEIGHT ? WIRE_MAX_KEY_WEIGHT : w;
    if (dec_charge(d, WIRE_INSERT_UNITS + (long)(cw / 4)) < 0) {
        return -1;
    }
    PyTypeObject *tp = Py_TYPE(key);
    if (tp == &PyUnicode_Type || tp == &PyLong_Type || tp == &PyFloat_Type ||
        tp == &PyBytes_Type || tp == &PyBool_Type || key == Py_None ||
        tp == &PyComplex_Type) {
        return 0;
    }
    char msg[200];
    if (w > WIRE_MAX_KEY_WEIGHT) {
        PyOS_snprintf(msg, sizeof(msg),
                      "a %s too costly to hash (%llu items with references "
                      "expanded)",
                      what, (unsigned long long)w);
        dec_malformed(d, msg);
        return -1;
    }
    if (PyObject_Hash(key) == -1) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
            return -1;
        }
        PyErr_Clear();
        PyOS_snprintf(msg, sizeof(msg), "unhashable %s of type %.100s", what,
                      tp->tp_name);
        dec_malformed(d, msg);
        return -1;
    }
    return 0;
}

static PyObject *dec_value(Dec *d, uint64_t *weight);

/* Fills the `n` slots of a new list or tuple with None (new references):
 * until each item is in, a build hook may see the container (a REF to a
 * list in an extension payload; a tuple through the gc), and a NULL slot
 * would crash it.  Up to 3.11 the n references to None are taken at once
 * (n Py_INCREFs of one object are a chain of dependent stores); from 3.12
 * None is immortal and Py_INCREF does not write. */
static void
fill_none(PyObject *seq, Py_ssize_t n)
{
    int list = PyList_CheckExact(seq);
#if PY_VERSION_HEX < 0x030C0000
    Py_SET_REFCNT(Py_None, Py_REFCNT(Py_None) + n);
#endif
    for (Py_ssize_t i = 0; i < n; i++) {
#if PY_VERSION_HEX >= 0x030C0000
        Py_INCREF(Py_None);
#endif
        if (list) {
            PyList_SET_ITEM(seq, i, Py_None);
        }
        else {
            PyTuple_SET_ITEM(seq, i, Py_None);
        }
    }
}

static PyObject *
dec_list(Dec *d)
{
    Py_ssize_t n;
    if (dec_count(d, 1, "a list", &n) < 0 ||
        dec_mem(d, foot_record(TAG_LIST, (size_t)n)) < 0 || dec_enter(d) < 0) {
        return NULL;
    }
    PyObject *list = PyList_New(n), *res = NULL;
    if (list == NULL) {
        goto done;
    }
    fill_none(list, n);
    if (dec_memo_push(d, list, NULL) < 0) {
        goto done;
    }
    d->owed += (size_t)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t w;
        d->owed--;
        PyObject *item = dec_value(d, &w);
        if (item == NULL) {
            goto done;
        }
        /* PyList_SetItem, inline: a build hook may have shrunk the list */
        if (i >= PyList_GET_SIZE(list)) {
            Py_DECREF(item);
            PyErr_SetString(PyExc_RuntimeError,
                            "a list changed size while it was decoded");
            goto done;
        }
        PyObject *old = PyList_GET_ITEM(list, i);
        PyList_SET_ITEM(list, i, item);
        Py_DECREF(old);
    }
    res = Py_NewRef(list);
done:
    Py_XDECREF(list);
    dec_leave(d);
    return res;
}

static PyObject *
dec_tuple(Dec *d, uint64_t *weight)
{
    Py_ssize_t n;
    size_t index;
    if (dec_count(d, 1, "a tuple", &n) < 0 ||
        dec_mem(d, foot_record(TAG_TUPLE, (size_t)n)) < 0 ||
        dec_enter(d) < 0) {
        return NULL;
    }
    PyObject *t = NULL, *res = NULL;
    if (dec_memo_push(d, NULL, &index) < 0) {
        goto done;
    }
    t = PyTuple_New(n);
    if (t == NULL) {
        goto done;
    }
    fill_none(t, n);
    d->owed += (size_t)n;
    uint64_t total = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t w;
        d->owed--;
        PyObject *item = dec_value(d, &w);
        /* PyTuple_SetItem refuses a tuple someone else holds */
        if (item == NULL || PyTuple_SetItem(t, i, item) < 0) {
            goto done;
        }
        total = weight_add(total, w);
    }
    dec_memo_set(d, index, t, total);
    *weight = total;
    res = Py_NewRef(t);
done:
    Py_XDECREF(t);
    dec_leave(d);
    return res;
}

static PyObject *
dec_dict(Dec *d)
{
    Py_ssize_t n;
    if (dec_count(d, 2, "a dict", &n) < 0 ||
        dec_mem(d, foot_record(TAG_DICT, (size_t)n)) < 0 || dec_enter(d) < 0) {
        return NULL;
    }
    PyObject *dict = PyDict_New(), *res = NULL;
    if (dict == NULL || dec_memo_push(d, dict, NULL) < 0) {
        goto done;
    }
    d->owed += 2 * (size_t)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t wk, wv;
        d->owed--;
        PyObject *key = dec_value(d, &wk);
        if (key == NULL) {
            goto done;
        }
        if (dec_hashable(d, key, wk, "dict key") < 0) {
            Py_DECREF(key);
            goto done;
        }
        d->owed--;
        PyObject *value = dec_value(d, &wv);
        int r = value == NULL ? -1 : PyDict_SetItem(dict, key, value);
        Py_DECREF(key);
        Py_XDECREF(value);
        if (r < 0) {
            goto done;
        }
    }
    res = Py_NewRef(dict);
done:
    Py_XDECREF(dict);
    dec_leave(d);
    return res;
}

static PyObject *
dec_set(Dec *d, int frozen, uint64_t *weight)
{
    Py_ssize_t n;
    size_t index;
    if (dec_count(d, 1, frozen ? "a frozenset" : "a set", &n) < 0 ||
        dec_mem(d, foot_record(frozen ? TAG_FROZENSET : TAG_SET, (size_t)n)) <
            0 ||
        dec_enter(d) < 0) {
        return NULL;
    }
    PyObject *s = NULL, *res = NULL;
    if (dec_memo_push(d, NULL, &index) < 0) {
        goto done;
    }
    s = frozen ? PyFrozenSet_New(NULL) : PySet_New(NULL);
    if (s == NULL) {
        goto done;
    }
    d->owed += (size_t)n;
    uint64_t total = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t w;
        d->owed--;
        PyObject *item = dec_value(d, &w);
        if (item == NULL) {
            goto done;
        }
        /* PySet_Add fills a frozenset only while no one else holds it */
        int r =
            dec_hashable(d, item, w, frozen ? "frozenset item" : "set item");
        if (r == 0) {
            r = PySet_Add(s, item);
        }
        Py_DECREF(item);
        if (r < 0) {
            goto done;
        }
        total = weight_add(total, w);
    }
    dec_memo_set(d, index, s, total);
    *weight = frozen ? total : 1;
    res = Py_NewRef(s);
done:
    Py_XDECREF(s);
    dec_leave(d);
    return res;
}

static PyObject *
dec_ref(Dec *d, uint64_t *weight)
{
    uint64_t i;
    if (dec_varint(d, &i) < 0) {
        return NULL;
    }
    if (i >= d->nmemo) {
        char msg[120];
        PyOS_snprintf(msg, sizeof(msg),
                      "reference to value %llu of the %zu seen so far",
                      (unsigned long long)i, d->nmemo);
        return dec_malformed(d, msg);
    }
    if (d->memo[i].obj == NULL) {
        return dec_malformed(d, "reference to a tuple, set, frozenset or "
                                "extension value under construction (a "
                                "cycle through an immutable value)");
    }
    *weight = d->memo[i].weight;
    return Py_NewRef(d->memo[i].obj);
}

/* The name of an extension record: borrowed from the names table, or NULL
 * with an exception. */
static PyObject *
dec_ext_name(Dec *d)
{
    uint64_t k;
    if (dec_varint(d, &k) < 0) {
        return NULL;
    }
    if (k > 0) {
        if (k - 1 >= d->nnames) {
            return dec_malformed(d, "unknown extension name number");
        }
        return d->names[k - 1];
    }
    Py_ssize_t n;
    if (dec_count(d, 1, "an extension name", &n) < 0) {
        return NULL;
    }
    if (n < 1 || n > WIRE_NAME_MAX) {
        return dec_malformed(d, "extension name of 0 or more than 255 bytes");
    }
    if (d->nnames == d->capnames) {
        size_t cap = d->capnames ? d->capnames * 2 : 8;
        if (cap > (size_t)PY_SSIZE_T_MAX / sizeof(PyObject *)) {
            return PyErr_NoMemory();
        }
        PyObject **names = PyMem_Realloc(d->names, cap * sizeof(PyObject *));
        if (names == NULL) {
            return PyErr_NoMemory();
        }
        d->names = names;
        d->capnames = cap;
    }
    PyObject *name = PyUnicode_DecodeUTF8((const char *)d->p, n, NULL);
    if (name == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            return dec_malformed(d, "extension name is not UTF-8");
        }
        return NULL;
    }
    d->p += n;
    d->names[d->nnames++] = name;
    return name;
}

static PyObject *
dec_ext(Dec *d, uint64_t *weight)
{
    size_t index;
    PyObject *name = dec_ext_name(d); /* borrowed */
    if (name == NULL) {
        return NULL;
    }
    if (d->build == NULL) {
        PyErr_Format(PyExc_ValueError,
                     "malformed value: an extension value (%R) and no build "
                     "hook",
                     name);
        return NULL;
    }
    if (dec_mem(d, foot_record(TAG_EXT, 0)) < 0 || dec_enter(d) < 0) {
        return NULL;
    }
    PyObject *payload = NULL, *res = NULL;
    uint64_t w = 1;
    if (dec_memo_push(d, NULL, &index) < 0) {
        goto done;
    }
    payload = dec_value(d, &w);
    if (payload == NULL) {
        goto done;
    }
    res = PyObject_CallFunctionObjArgs(d->build, name, payload, NULL);
    if (res == NULL) {
        goto done;
    }
    if (d->has_deadline && limits_now() > d->deadline) {
        PyErr_SetString(PyExc_TimeoutError, "decoding passed the deadline");
        Py_CLEAR(res);
        goto done;
    }
    w = weight_add(w, 1);
    dec_memo_set(d, index, res, w);
    *weight = w;
done:
    Py_XDECREF(payload);
    dec_leave(d);
    return res;
}

/* A float64 at d->p (8 bytes present). */
static inline double
dec_f64(Dec *d)
{
    uint64_t b;
    double x;
    memcpy(&b, d->p, 8);
    b = wire_le64(b);
    memcpy(&x, &b, 8);
    d->p += 8;
    return x;
}

/* A str, bytes or bytearray record after its tag: new reference. */
static PyObject *
dec_sized(Dec *d, unsigned char tag, uint64_t *weight)
{
    Py_ssize_t n;
    PyObject *v;
    if (dec_count(d, 1, "a str or bytes", &n) < 0 ||
        dec_charge(d, (long)(n >> 8)) < 0) {
        return NULL;
    }
    const char *p = (const char *)d->p;
    if (tag == TAG_STR) {
        /* a str's cost is known once it is made: at most 4 bytes a byte */
        if (dec_mem(d, 64 + 4 * ((size_t)n + 1) + FOOT_MEMO) < 0) {
            return NULL;
        }
        d->mem -= 64 + 4 * ((size_t)n + 1) + FOOT_MEMO;
        v = PyUnicode_DecodeUTF8(p, n, "surrogatepass");
        if (v == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            return dec_malformed(d, "str is not UTF-8");
        }
        if (v != NULL && dec_mem(d, foot_str(v)) < 0) {
            Py_CLEAR(v);
        }
    }
    else if (dec_mem(d, foot_record(tag, (size_t)n)) < 0) {
        return NULL;
    }
    else if (tag == TAG_BYTES) {
        v = PyBytes_FromStringAndSize(p, n);
    }
    else {
        v = PyByteArray_FromStringAndSize(p, n);
    }
    if (v == NULL) {
        return NULL;
    }
    d->p += n;
    if (dec_memo_push(d, v, NULL) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    *weight = weight_add(1, (uint64_t)n / 16);
    d->memo[d->nmemo - 1].weight = *weight;
    return v;
}

/* Decodes one value: new reference, or NULL with an exception; *weight is
 * its item count with references expanded (saturating), for the hash-cost
 * bound of dict keys and set items. */
static PyObject *
dec_value(Dec *d, uint64_t *weight)
{
    if (--d->countdown <= 0 && dec_check_clock(d) < 0) {
        return NULL;
    }
    if (d->p >= d->end) {
        return dec_malformed(d, "truncated");
    }
    unsigned char tag = *d->p++;
    *weight = 1;
    switch (tag) {
    case TAG_INT: {
        uint64_t u;
        if (dec_varint(d, &u) < 0) {
            return NULL;
        }
        uint64_t x = (u >> 1) ^ (0 - (u & 1));
        if (dec_mem(d, foot_int64((long long)x)) < 0) {
            return NULL;
        }
#if LONG_MAX == LLONG_MAX
        /* PyLong_FromLong makes ints of one or two digits inline (3.11+),
           PyLong_FromLongLong through the generic allocation */
        return PyLong_FromLong((long)x);
#else
        return PyLong_FromLongLong((long long)x);
#endif
    }
    case TAG_STR:
    case TAG_BYTES:
    case TAG_BYTEARRAY:
        return dec_sized(d, tag, weight);
    case TAG_NONE:
        return Py_NewRef(Py_None);
    case TAG_TRUE:
        return Py_NewRef(Py_True);
    case TAG_FALSE:
        return Py_NewRef(Py_False);
    case TAG_FLOAT:
        if (d->end - d->p < 8) {
            return dec_malformed(d, "truncated float");
        }
        if (dec_mem(d, 24) < 0) {
            return NULL;
        }
        return PyFloat_FromDouble(dec_f64(d));
    case TAG_COMPLEX: {
        if (d->end - d->p < 16) {
            return dec_malformed(d, "truncated complex");
        }
        if (dec_mem(d, 32) < 0) {
            return NULL;
        }
        double re = dec_f64(d);
        double im = dec_f64(d);
        return PyComplex_FromDoubles(re, im);
    }
    case TAG_BIGINT: {
        Py_ssize_t n;
        if (dec_count(d, 1, "an int", &n) < 0 ||
            dec_charge(d, (long)(n >> 6)) < 0) {
            return NULL;
        }
        if (n == 0) {
            return dec_malformed(d, "int of no bytes");
        }
        if (dec_mem(d, foot_bigint((size_t)n)) < 0) {
            return NULL;
        }
        PyObject *v = compat_long_from_le_bytes(d->p, (size_t)n);
        if (v != NULL) {
            d->p += n;
            *weight = weight_add(1, (uint64_t)n / 16);
        }
        return v;
    }
    case TAG_LIST:
        return dec_list(d);
    case TAG_TUPLE:
        return dec_tuple(d, weight);
    case TAG_DICT:
        return dec_dict(d);
    case TAG_SET:
        return dec_set(d, 0, weight);
    case TAG_FROZENSET:
        return dec_set(d, 1, weight);
    case TAG_REF:
        return dec_ref(d, weight);
    case TAG_EXT:
        return dec_ext(d, weight);
    default: {
        char msg[40];
        d->p--;
        PyOS_snprintf(msg, sizeof(msg), "unknown tag 0x%02x", tag);
        return dec_malformed(d, msg);
    }
    }
}

/* wire_loads(data, build=None, max_depth=200, deadline=None): the value
 * (new reference) or NULL. */
static PyObject *
wire_loads(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"data", "build", "max_depth", "deadline", NULL};
    PyObject *data, *build = Py_None, *deadline = Py_None, *res = NULL;
    int max_depth = WIRE_DEFAULT_DEPTH;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OiO:wire_loads", kwlist,
                                     &data, &build, &max_depth, &deadline)) {
        return NULL;
    }
    if (max_depth < 0) {
        PyErr_SetString(PyExc_ValueError, "max_depth must be >= 0");
        return NULL;
    }
    if (build != Py_None && !PyCallable_Check(build)) {
        PyErr_SetString(PyExc_TypeError, "build must be callable or None");
        return NULL;
    }
    Dec d = {0};
    d.build = build == Py_None ? NULL : build;
    d.max_depth = max_depth;
    d.countdown = WIRE_CHECK_EVERY;
    if (deadline != Py_None) {
        d.deadline = PyFloat_AsDouble(deadline);
        if (d.deadline == -1.0 && PyErr_Occurred()) {
            return NULL;
        }
        if (isnan(d.deadline)) {
            PyErr_SetString(PyExc_ValueError, "deadline must not be NaN");
            return NULL;
        }
        d.has_deadline = 1;
    }
    /* the buffer stays exported while decoding: a bytearray cannot be
       resized under the decoder (a build hook could try) */
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    d.start = d.p = (const unsigned char *)view.buf;
    d.end = d.start + view.len;
    d.mem_max = wire_mem_max((size_t)view.len);
    if (d.has_deadline && limits_now() > d.deadline) {
        PyErr_SetString(PyExc_TimeoutError, "decoding passed the deadline");
        goto done;
    }
    uint64_t w;
    res = dec_value(&d, &w);
    if (res != NULL && d.p != d.end) {
        Py_CLEAR(res);
        dec_malformed(&d, "trailing bytes after the value");
    }
    if (res == NULL && d.stack_full &&
        PyErr_ExceptionMatches(PyExc_RecursionError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "malformed value: nested deeper "
                                          "than the C stack allows");
    }
done:
    dec_clear(&d);
    PyBuffer_Release(&view);
    return res;
}

static PyMethodDef wire_methods[] = {
    {"wire_dumps", (PyCFunction)(void (*)(void))wire_dumps,
     METH_VARARGS | METH_KEYWORDS,
     "wire_dumps(obj, ext=None, max_depth=200) -> bytes: the data-only "
     "encoding of obj (csrc/module/wire.c describes the format)."},
    {"wire_loads", (PyCFunction)(void (*)(void))wire_loads,
     METH_VARARGS | METH_KEYWORDS,
     "wire_loads(data, build=None, max_depth=200, deadline=None) -> object: "
     "the value of an untrusted encoding."},
    {NULL, NULL, 0, NULL},
};

/* Adds the functions above to module `m`; 0 or -1 with an exception. */
int
wire_add_functions(PyObject *m)
{
    return PyModule_AddFunctions(m, wire_methods);
}
