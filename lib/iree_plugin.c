/*
 * An IREE system executable plugin that runs tosa.custom ops by their native
 * kernels (tosa_custom_kernel.h, ABI versions 1 and 2) inside IREE dispatches.
 *
 * tosa_custom.iree rewrites each such op into a flow.dispatch.workgroups
 * whose body calls `iree_codegen.ukernel.generic "tosa_custom_site_<id>"` on
 * a slice of the op (its parallel dims, CONTRACT.md 11.6). This plugin
 * resolves that import to one entry point whose context is the prepared site
 * <id>: the kernel's tck_call, prepared once from a sites file, so nothing
 * about the op (attributes, types) travels through IREE but the site's id.
 *
 * Sites come from a sites file that tosa_custom.iree writes (format below):
 * loaded by tck_iree_load_sites() (the Python program does it through
 * ctypes, in-process) or at plugin load from $TOSA_CUSTOM_IREE_SITES (so that
 * iree-run-module runs a saved program without Python). An op that has only
 * a Python kernel is registered in-process by tck_iree_add_site() with a
 * callback of the same ABI; no sites file can name one.
 *
 * The plugin interface is IREE's runtime/src/iree/hal/local/executable_plugin.h,
 * version 0.1, which the PyPI wheels do not ship: the few declarations used
 * are written out below from its documented layout (checked with IREE 3.13).
 * Import calls: int fn(void *params, void *context, void *reserved); params
 * is the ukernel's packed arguments: per memref (inputs, then outputs) its
 * base pointer, element offset and one stride per dim, then the scalars
 * (here the size of every dim of every operand, as index).
 *
 * The last scalar is the invocation's id: the program passes a fresh one
 * per call (an i64 argument the dispatch pass adds to the entry function),
 * a saved program 0. A failing kernel returns non-zero to IREE (the dispatch
 * fails); its message, with the op's name and location, is kept per
 * invocation (the first failure of each wins) until the caller takes it with
 * tck_iree_take_error(id): two calls failing at once, in two threads or two
 * programs, each get their own. Invocation 0's failure is the process's
 * (tck_iree_last_error) and is written to stderr, for iree-run-module.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tosa_custom_kernel.h"

/* ---- IREE's plugin interface (version 0.1), the parts used. ------------- */
typedef struct plugin_header {
    uint32_t version;
    const char *name;
    const char *description;
    uint32_t features;
    int32_t sanitizer;
    uint64_t reserved[8];
} plugin_header;
typedef struct plugin_string_view {
    const char *data;
    size_t size;
} plugin_string_view;
typedef struct plugin_environment {
    void *allocator_self, *allocator_ctl;
} plugin_environment;
typedef struct plugin_resolve_params {
    size_t count;
    const char *const *symbol_names;
    void **out_fn_ptrs;
    void **out_fn_contexts;
} plugin_resolve_params;
typedef void *plugin_status; /* NULL: ok; else a status code cast to a pointer */
typedef struct plugin_v0 {
    const plugin_header *header;
    plugin_status (*load)(const plugin_environment *, size_t, const void *, void **);
    void (*unload)(void *);
    plugin_status (*resolve)(void *, const plugin_resolve_params *, uint32_t *);
} plugin_v0;
#define PLUGIN_VERSION_0_1 1u
#define STATUS_INVALID_ARGUMENT ((plugin_status)(uintptr_t)3)
#define STATUS_NOT_FOUND ((plugin_status)(uintptr_t)5)
#define RESOLUTION_MISSING_OPTIONAL 1u

/* ---- Sites. --------------------------------------------------------------- */
#define MAX_OPERANDS 64
#define MAX_WORDS 4096 /* descriptor words of one call (3 + 2 x rank per operand) */
#define ERROR_CAPACITY 1024
#define CHUNK 1024
#define CHUNKS 1024 /* site ids below CHUNK x CHUNKS */

typedef struct site {
    tck_call call;
    const tck_kernel *kernel;
    int32_t ranks[MAX_OPERANDS];
    int32_t words;      /* descriptor words of all operands */
    uint64_t id;
    int32_t python;     /* a Python kernel's site (tck_iree_add_site): its memory is the caller's */
    char *strings;      /* one block: names, shapes, attribute values */
    void *keep[4];      /* other blocks owned by the site */
    char error[ERROR_CAPACITY];
} site;

static _Atomic(site *) *chunks[CHUNKS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;
static int32_t last_status; /* invocation 0: first failure since tck_iree_clear_error */
static uint64_t last_site;
static char last_error[2 * ERROR_CAPACITY];

/* The failures of invocations with an id, newest first, until taken. A
 * caller that never takes its failure (it died) leaves one behind: the list
 * keeps the newest MAX_FAILURES. */
#define MAX_FAILURES 1024
typedef struct failure {
    struct failure *next;
    uint64_t invocation, site;
    int32_t status;
    char message[2 * ERROR_CAPACITY];
} failure;
static failure *failures;
static int32_t failure_count;

static site *site_at(uint64_t id) {
    if (id >= (uint64_t)CHUNK * CHUNKS) return NULL;
    _Atomic(site *) *chunk = chunks[id / CHUNK];
    return chunk ? atomic_load_explicit(&chunk[id % CHUNK], memory_order_acquire) : NULL;
}

static int put_site(uint64_t id, site *s) {
    if (id >= (uint64_t)CHUNK * CHUNKS) return 0;
    pthread_mutex_lock(&table_lock);
    if (!chunks[id / CHUNK]) chunks[id / CHUNK] = calloc(CHUNK, sizeof(_Atomic(site *)));
    int ok = chunks[id / CHUNK] != NULL && !atomic_load(&chunks[id / CHUNK][id % CHUNK]);
    if (ok) atomic_store_explicit(&chunks[id / CHUNK][id % CHUNK], s, memory_order_release);
    pthread_mutex_unlock(&table_lock);
    return ok;
}

static const char *status_name(int32_t status) {
    switch (status) {
    case TCK_INVALID_ARGUMENT: return "invalid argument";
    case TCK_UNSUPPORTED: return "unsupported";
    case TCK_DECLINE: return "declined";
    default: return "error";
    }
}

static void describe(char *out, size_t capacity, const site *s, int32_t status, const char *message) {
    snprintf(out, capacity, "kernel for %s at %s failed: %s (%s): %s (status %d): %s", s->call.operator_name,
             s->call.location, s->python ? "python" : "native", s->kernel->description ? s->kernel->description : "",
             status_name(status),
             (int)status, message[0] ? message : "(no message)");
}

/* Keep the first failure of `invocation` (caller holds error_lock). */
static void record_invocation(uint64_t invocation, const site *s, int32_t status, const char *message) {
    for (failure *f = failures; f; f = f->next)
        if (f->invocation == invocation) return;
    failure *f = malloc(sizeof *f);
    if (!f) return;
    f->invocation = invocation, f->site = s->id, f->status = status ? status : TCK_ERROR;
    describe(f->message, sizeof f->message, s, status, message);
    f->next = failures;
    failures = f;
    if (++failure_count > MAX_FAILURES) { /* drop the oldest */
        failure **last = &failures;
        while ((*last)->next) last = &(*last)->next;
        free(*last);
        *last = NULL;
        --failure_count;
    }
}

static void record_failure(const site *s, uint64_t invocation, int32_t status, const char *message) {
    pthread_mutex_lock(&error_lock);
    if (invocation) {
        record_invocation(invocation, s, status, message);
    } else if (last_status == TCK_OK) {
        last_status = status ? status : TCK_ERROR;
        last_site = s->id;
        describe(last_error, sizeof last_error, s, status, message);
        fprintf(stderr, "tosa_custom: %s\n", last_error);
    }
    pthread_mutex_unlock(&error_lock);
}

/* The import every site resolves to; `context` is the site. */
static int run_site(void *params, void *context, void *reserved) {
    (void)reserved;
    const site *s = (const site *)context;
    const int32_t n = s->call.num_inputs + s->call.num_outputs;
    const int64_t *packed = (const int64_t *)params;
    int64_t words[MAX_WORDS];
    tck_memref *descriptors[MAX_OPERANDS];
    const int64_t *sizes = packed;
    for (int32_t k = 0; k < n; ++k) sizes += 2 + s->ranks[k]; /* the scalars follow the memrefs */
    int64_t *w = words;
    for (int32_t k = 0; k < n; ++k) {
        int32_t r = s->ranks[k];
        descriptors[k] = (tck_memref *)w;
        w[0] = w[1] = packed[0];
        w[2] = packed[1];
        for (int32_t d = 0; d < r; ++d) {
            w[3 + d] = *sizes++;
            w[3 + r + d] = packed[2 + d];
        }
        packed += 2 + r;
        w += 3 + 2 * r;
    }
    const uint64_t invocation = (uint64_t)*sizes; /* the scalar after every operand's sizes */
    tck_call call = s->call; /* an error buffer of this invocation's own */
    char error[ERROR_CAPACITY];
    error[0] = '\0';
    call.error = error;
    call.error_capacity = sizeof error;
    int32_t status = s->kernel->run(&call, descriptors, descriptors + s->call.num_inputs);
    if (status == TCK_OK) return 0;
    record_failure(s, invocation, status, error);
    return 1;
}

/* ---- The sites file. -------------------------------------------------------
 * Text, whitespace-separated tokens; a string is `<length>:<bytes>`, a float
 * is C99 hex (%a, exact). After the header `tosa_custom_iree_sites 1`, per site:
 *   site <id> <library> <domain> <operator> <implementation_attrs> <location> <nin> <nout>
 *   per operand: <element type> <rank> <dim>...          (dims may be -1)
 *   <nattrs>, per attribute: <name> <kind> <i> <f> <s> <nints> <int>... <nfloats> <float>...
 * A relative library path is relative to the file's directory. */

typedef struct reader {
    const char *p, *end;
    char *error;
    size_t capacity;
} reader;

static int fail(reader *r, const char *format, ...) {
    if (r->error && r->capacity) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(r->error, r->capacity, format, ap);
        va_end(ap);
    }
    return 0;
}

static void skip_space(reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')) ++r->p;
}

static int read_int(reader *r, int64_t *out) {
    skip_space(r);
    char *next;
    errno = 0;
    long long v = strtoll(r->p, &next, 10);
    if (next == r->p || errno) return fail(r, "sites file: expected an integer");
    r->p = next;
    *out = v;
    return 1;
}

static int read_float(reader *r, double *out) {
    skip_space(r);
    char *next;
    *out = strtod(r->p, &next);
    if (next == r->p) return fail(r, "sites file: expected a number");
    r->p = next;
    return 1;
}

/* A string `<n>:<bytes>`, copied NUL-terminated into *arena. */
static int read_string(reader *r, char **arena, const char **out) {
    int64_t n;
    if (!read_int(r, &n) || r->p >= r->end || *r->p != ':' || n < 0 || r->p + 1 + n > r->end)
        return fail(r, "sites file: expected a string");
    memcpy(*arena, r->p + 1, (size_t)n);
    (*arena)[n] = '\0';
    *out = *arena;
    *arena += n + 1;
    r->p += 1 + n;
    return 1;
}

static int expect(reader *r, const char *word) {
    skip_space(r);
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || strncmp(r->p, word, n) != 0) return fail(r, "sites file: expected '%s'", word);
    r->p += n;
    return 1;
}

typedef const tck_kernel *(*lookup_fn)(const char *, const char *, int32_t);
typedef uint32_t (*version_fn)(void);

/* The kernel for (domain, operator, type) in the library at `path`. */
static const tck_kernel *find_kernel(reader *r, const char *path, const char *domain, const char *op, int32_t type,
                                     uint32_t *version) {
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return fail(r, "cannot load kernel library %s: %s", path, dlerror()), NULL;
    version_fn abi = (version_fn)dlsym(lib, "tosa_custom_kernel_abi_version");
    lookup_fn lookup = (lookup_fn)dlsym(lib, "tosa_custom_kernel_lookup");
    if (!abi || !lookup) return fail(r, "%s is not a tosa.custom kernel library", path), NULL;
    *version = abi();
    if (*version < TCK_ABI_VERSION_MIN || *version > TCK_ABI_VERSION)
        return fail(r, "%s was built for kernel ABI version %u; this plugin implements %u to %u", path, *version,
                    TCK_ABI_VERSION_MIN, TCK_ABI_VERSION), NULL;
    const tck_kernel *k = lookup(domain, op, type);
    if (!k) fail(r, "%s has no kernel for %s::%s", path, domain, op);
    return k;
}

static int read_types(reader *r, site *s, tck_tensor_type *types, int64_t *dims, int32_t n) {
    for (int32_t k = 0; k < n; ++k) {
        int64_t element, rank;
        if (!read_int(r, &element) || !read_int(r, &rank)) return 0;
        if (rank < 0 || rank > 16) return fail(r, "sites file: rank %lld", (long long)rank);
        types[k].element_type = (int32_t)element;
        types[k].rank = (int32_t)rank;
        types[k].shape = dims;
        for (int64_t d = 0; d < rank; ++d)
            if (!read_int(r, dims++)) return 0;
        s->ranks[k] = (int32_t)rank;
        s->words += 3 + 2 * (int32_t)rank;
    }
    return s->words <= MAX_WORDS || fail(r, "sites file: an op with more than %d descriptor words", MAX_WORDS);
}

static int read_attrs(reader *r, site *s, char **arena) {
    int64_t n;
    if (!read_int(r, &n) || n < 0 || n > 4096) return fail(r, "sites file: bad attribute count");
    tck_attr *attrs = calloc((size_t)(n ? n : 1), sizeof(tck_attr));
    s->keep[1] = attrs;
    if (!attrs) return fail(r, "out of memory");
    for (int64_t a = 0; a < n; ++a) {
        tck_attr *at = &attrs[a];
        int64_t kind, count, nints, nfloats;
        if (!read_string(r, arena, &at->name) || !read_int(r, &kind) || !read_int(r, &count) ||
            !read_int(r, &at->i) || !read_float(r, &at->f) || !read_string(r, arena, &at->s) || !read_int(r, &nints))
            return 0;
        at->kind = (int32_t)kind;
        at->count = (int32_t)count;
        int64_t *ints = (int64_t *)(void *)(((uintptr_t)*arena + 7) & ~(uintptr_t)7);
        for (int64_t j = 0; j < nints; ++j)
            if (!read_int(r, &ints[j])) return 0;
        *arena = (char *)(ints + nints);
        at->ints = nints ? ints : NULL;
        if (!read_int(r, &nfloats)) return 0;
        double *floats = (double *)(void *)(((uintptr_t)*arena + 7) & ~(uintptr_t)7);
        for (int64_t j = 0; j < nfloats; ++j)
            if (!read_float(r, &floats[j])) return 0;
        *arena = (char *)(floats + nfloats);
        at->floats = nfloats ? floats : NULL;
        if (at->kind != TCK_ATTR_STRING && at->kind < TCK_ATTR_DTYPE) at->s = NULL; /* no string for this kind */
    }
    s->call.num_attrs = (int32_t)n;
    s->call.attrs = attrs;
    return 1;
}

static void free_site(site *s) {
    if (!s) return;
    for (int i = 0; i < 4; ++i) free(s->keep[i]);
    free(s->strings);
    free(s);
}

/* One `site ...` record: parsed, its kernel found and prepared, registered. */
static int read_site(reader *r, const char *dir) {
    int64_t id, nin, nout;
    site *s = calloc(1, sizeof(site));
    size_t arena_size = (size_t)(r->end - r->p) * 2 + 4096; /* every string and list of the record fits */
    char *arena = s ? malloc(arena_size) : NULL;
    if (!s || !arena) return free(s), fail(r, "out of memory");
    s->strings = arena;
    const char *library, *domain, *op, *attrs, *location;
    if (!read_int(r, &id) || !read_string(r, &arena, &library) || !read_string(r, &arena, &domain) ||
        !read_string(r, &arena, &op) || !read_string(r, &arena, &attrs) || !read_string(r, &arena, &location) ||
        !read_int(r, &nin) || !read_int(r, &nout))
        return free_site(s), 0;
    if (nin < 0 || nout < 1 || nin + nout > MAX_OPERANDS) return free_site(s), fail(r, "sites file: operand count");
    tck_tensor_type *types = calloc((size_t)(nin + nout), sizeof(tck_tensor_type));
    int64_t *dims = calloc((size_t)(nin + nout) * 16 + 1, sizeof(int64_t));
    int32_t *split = calloc((size_t)(nin + nout) * TCK_MAX_PARALLEL, sizeof(int32_t));
    s->keep[0] = types, s->keep[2] = dims, s->keep[3] = split;
    if (!types || !dims || !split) return free_site(s), fail(r, "out of memory");
    if (!read_types(r, s, types, dims, (int32_t)(nin + nout)) || !read_attrs(r, s, &arena)) return free_site(s), 0;
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", library[0] == '/' || !dir[0] ? "" : dir, library[0] == '/' || !dir[0] ? "" : "/",
             library);
    uint32_t version = 0;
    int32_t type = nin ? types[0].element_type : types[nin].element_type;
    s->kernel = find_kernel(r, path, domain, op, type, &version);
    if (!s->kernel) return free_site(s), 0;
    tck_call *c = &s->call;
    c->abi_version = version;
    c->struct_size = sizeof(tck_call);
    c->domain_name = domain, c->operator_name = op, c->implementation_attrs = attrs, c->location = location;
    c->num_inputs = (int32_t)nin, c->num_outputs = (int32_t)nout;
    c->inputs = types, c->outputs = types + nin;
    c->error = s->error, c->error_capacity = sizeof s->error;
    for (int64_t j = 0; j < (nin + nout) * TCK_MAX_PARALLEL; ++j) split[j] = -1;
    c->split.num_operands = (int32_t)(nin + nout), c->split.dims = split;
    int32_t status = s->kernel->prepare ? s->kernel->prepare(c) : TCK_OK;
    if (status != TCK_OK) {
        fail(r, "%s at %s: the kernel's prepare returned %s (status %d): %s", op, location, status_name(status),
             (int)status, s->error);
        return free_site(s), 0;
    }
    s->id = (uint64_t)id;
    if (!put_site((uint64_t)id, s)) {
        if (s->kernel->release) s->kernel->release(c);
        return free_site(s), fail(r, "site %lld is already loaded (or out of range)", (long long)id);
    }
    return 1;
}

/* Load every site of the sites file at `path`. Returns the number loaded, or
 * -1 with a message in `error` (sites before the bad one stay loaded). */
TCK_EXPORT int32_t tck_iree_load_sites(const char *path, char *error, size_t capacity) {
    reader r = {0, 0, error, capacity};
    FILE *f = fopen(path, "rb");
    if (!f) return fail(&r, "cannot open sites file %s: %s", path, strerror(errno)), -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    size_t got = text ? fread(text, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!text || got != (size_t)n) return free(text), fail(&r, "cannot read sites file %s", path), -1;
    text[n] = '\0';
    r.p = text, r.end = text + n;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0'; else dir[0] = '\0';
    int32_t count = 0;
    int64_t format = 0;
    int ok = expect(&r, "tosa_custom_iree_sites") && read_int(&r, &format);
    if (ok && format != 1) ok = fail(&r, "sites file %s has format %lld; this plugin reads format 1", path, (long long)format);
    for (skip_space(&r); ok && r.p < r.end; skip_space(&r), ++count)
        ok = expect(&r, "site") && read_site(&r, dir);
    free(text);
    return ok ? count : -1;
}

/* Register site `id` as `call` run by `kernel`, both prepared and owned by
 * the caller, who keeps them alive until tck_iree_release_site(id): how an
 * in-process program gives an op its Python kernel (a ctypes callback with
 * tck_run_fn's signature, which takes the GIL itself on whichever thread
 * IREE calls it). The call is run whole (no split), as any other site's.
 * Returns 1, or 0 with a message in `error`. */
TCK_EXPORT int32_t tck_iree_add_site(uint64_t id, const tck_call *call, const tck_kernel *kernel, char *error,
                                     size_t capacity) {
    reader r = {0, 0, error, capacity};
    const int32_t n = call->num_inputs + call->num_outputs;
    if (call->num_inputs < 0 || call->num_outputs < 1 || n > MAX_OPERANDS || !kernel || !kernel->run)
        return fail(&r, "site %llu: operand count or kernel", (unsigned long long)id);
    site *s = calloc(1, sizeof(site));
    if (!s) return fail(&r, "out of memory");
    s->call = *call;
    s->kernel = kernel;
    s->python = 1;
    s->id = id;
    for (int32_t k = 0; k < n; ++k) {
        const tck_tensor_type *t = k < call->num_inputs ? &call->inputs[k] : &call->outputs[k - call->num_inputs];
        s->ranks[k] = t->rank;
        s->words += 3 + 2 * t->rank;
    }
    s->call.error = s->error, s->call.error_capacity = sizeof s->error;
    if (s->words > MAX_WORDS || !put_site(id, s)) {
        free(s);
        return fail(&r, "site %llu is already loaded, out of range or too large", (unsigned long long)id);
    }
    return 1;
}

/* Release (and forget) site `id`; a program calls it when it is freed. */
TCK_EXPORT void tck_iree_release_site(uint64_t id) {
    site *s = site_at(id);
    if (!s) return;
    pthread_mutex_lock(&table_lock);
    atomic_store(&chunks[id / CHUNK][id % CHUNK], NULL);
    pthread_mutex_unlock(&table_lock);
    if (s->kernel->release) s->kernel->release(&s->call);
    free_site(s);
}

/* The first failure since the last clear: its status (0: none), message and site. */
TCK_EXPORT int32_t tck_iree_last_error(char *buffer, size_t capacity, uint64_t *site_id) {
    pthread_mutex_lock(&error_lock);
    int32_t status = last_status;
    *site_id = last_site;
    if (capacity) snprintf(buffer, capacity, "%s", status ? last_error : "");
    pthread_mutex_unlock(&error_lock);
    return status;
}

/* Take (and forget) the failure of `invocation`: its status (0: none), message and site. */
TCK_EXPORT int32_t tck_iree_take_error(uint64_t invocation, char *buffer, size_t capacity, uint64_t *site_id) {
    pthread_mutex_lock(&error_lock);
    int32_t status = TCK_OK;
    if (capacity) buffer[0] = '\0';
    for (failure **f = &failures; *f; f = &(*f)->next) {
        if ((*f)->invocation != invocation) continue;
        failure *found = *f;
        status = found->status;
        *site_id = found->site;
        if (capacity) snprintf(buffer, capacity, "%s", found->message);
        *f = found->next;
        free(found);
        --failure_count;
        break;
    }
    pthread_mutex_unlock(&error_lock);
    return status;
}

TCK_EXPORT void tck_iree_clear_error(void) {
    pthread_mutex_lock(&error_lock);
    last_status = TCK_OK;
    last_error[0] = '\0';
    pthread_mutex_unlock(&error_lock);
}

TCK_EXPORT uint32_t tck_iree_abi_version(void) { return TCK_ABI_VERSION; }

/* ---- The plugin. ------------------------------------------------------------ */
#define SYMBOL_PREFIX "tosa_custom_site_"

static plugin_status plugin_load(const plugin_environment *env, size_t count, const void *params, void **self) {
    (void)env, (void)count, (void)params;
    *self = NULL;
    const char *path = getenv("TOSA_CUSTOM_IREE_SITES");
    if (!path || !path[0]) return NULL;
    char error[ERROR_CAPACITY];
    if (tck_iree_load_sites(path, error, sizeof error) < 0) {
        fprintf(stderr, "tosa_custom: TOSA_CUSTOM_IREE_SITES=%s: %s\n", path, error);
        return STATUS_INVALID_ARGUMENT;
    }
    return NULL;
}

static void plugin_unload(void *self) { (void)self; }

static plugin_status plugin_resolve(void *self, const plugin_resolve_params *params, uint32_t *resolution) {
    (void)self;
    *resolution = 0;
    int missing = 0;
    for (size_t i = 0; i < params->count; ++i) {
        if (params->out_fn_ptrs[i]) continue;
        const char *name = params->symbol_names[i];
        int optional = name[0] == '?';
        name += optional;
        site *s = NULL;
        size_t n = strlen(SYMBOL_PREFIX);
        if (strncmp(name, SYMBOL_PREFIX, n) == 0) {
            char *end;
            unsigned long long id = strtoull(name + n, &end, 10);
            if (*end == '\0' && end != name + n) s = site_at(id);
            if (!s && !optional)
                fprintf(stderr, "tosa_custom: %s is not loaded: load its sites file (TOSA_CUSTOM_IREE_SITES=<sites "
                        "file> for iree-run-module)\n", name);
        }
        if (s) {
            params->out_fn_ptrs[i] = (void *)run_site;
            params->out_fn_contexts[i] = s;
        } else if (optional) {
            *resolution |= RESOLUTION_MISSING_OPTIONAL;
        } else {
            missing = 1;
        }
    }
    return missing ? STATUS_NOT_FOUND : NULL;
}

TCK_EXPORT const plugin_header **iree_hal_executable_plugin_query(uint32_t max_version, void *reserved) {
    (void)reserved;
    static const plugin_header header = {PLUGIN_VERSION_0_1, "tosa_custom",
                                         "tosa.custom native kernels (tosa_custom_kernel.h)", 0, 0, {0}};
    static const plugin_v0 plugin = {&header, plugin_load, plugin_unload, plugin_resolve};
    return max_version >= PLUGIN_VERSION_0_1 ? (const plugin_header **)&plugin : NULL;
}
