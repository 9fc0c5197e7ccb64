/*
 * tosa_custom_kernel.h - the C ABI for native tosa.custom kernels.
 *
 * A kernel library is a shared object exporting three C functions:
 *
 *   uint32_t tosa_custom_kernel_abi_version(void);
 *       returns TCK_ABI_VERSION as this header defines it; the runtime refuses
 *       a library built against a version it does not implement (it loads
 *       versions TCK_ABI_VERSION_MIN to its own TCK_ABI_VERSION).
 *   const tck_kernel *tosa_custom_kernel_lookup(const char *domain_name,
 *                                               const char *operator_name,
 *                                               int32_t element_type);
 *       the kernel for one op and element type (TCK_F32, ...), or NULL.
 *   const tck_kernel *tosa_custom_kernel_at(size_t index);
 *       the library's kernels one by one, NULL past the last (for listings).
 *
 * TCK_DEFINE_LIBRARY(table) defines all three from a static array of
 * tck_kernel entries. The runtime calls `prepare` once per op when a program
 * is loaded (validate the attributes and types, plan, declare how the op may
 * be split), `run` once per execution of the op or of a slice of it (from
 * compiled code, no Python in between, possibly from several threads at
 * once), and `release` when the program is freed. See CONTRACT.md,
 * "Native kernels (C ABI)", for the full contract.
 *
 * Version 2 (this header) over version 1: a dim of tck_tensor_type.shape may
 * be TCK_DYNAMIC (known only at run time), so `run` takes each call's sizes
 * from the memref descriptors; `prepare` may declare parallel dims
 * (tck_call.split), along which the runtime may run disjoint slices of the op
 * concurrently; `run` is re-entrant (no mutable state shared between calls).
 * Libraries built against version 1 still load: their kernels run whole, on
 * one thread, with static shapes.
 *
 * The header is C99 and C++ compatible.
 */
#ifndef TOSA_CUSTOM_KERNEL_H
#define TOSA_CUSTOM_KERNEL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change of a struct layout or of a function's meaning. */
#define TCK_ABI_VERSION 2u
/* The oldest library version runtimes of this version still load. */
#define TCK_ABI_VERSION_MIN 1u

/* A dim of tck_tensor_type.shape known only at run time (version 2). */
#define TCK_DYNAMIC (-1)
/* At most this many parallel dims per op (an IREE workgroup grid has three). */
#define TCK_MAX_PARALLEL 3

#if defined(_WIN32)
#define TCK_EXPORT __declspec(dllexport)
#else
#define TCK_EXPORT __attribute__((visibility("default")))
#endif

/* ---- Status codes: what `prepare` and `run` return. ---------------------- */
#define TCK_OK 0
#define TCK_ERROR 1            /* any failure; the message says what */
#define TCK_INVALID_ARGUMENT 2 /* an attribute, shape or value the op forbids */
#define TCK_UNSUPPORTED 3      /* valid, but this kernel cannot compute it */
#define TCK_DECLINE 4          /* prepare only: not an error; use the next kernel
                                  (another library, or the Python kernels) */

/* ---- Element types (lookup key, and tck_tensor_type.element_type). ------- */
#define TCK_F32 1
#define TCK_F64 2
#define TCK_F16 3
#define TCK_BF16 4
#define TCK_I64 5
#define TCK_I32 6
#define TCK_I16 7
#define TCK_I8 8
#define TCK_U8 9
#define TCK_BOOL 10 /* i1, one byte per element */

/* ---- A memref descriptor, MLIR's C-interface layout, any rank. ----------- */
/* `sizes_and_strides` holds rank sizes, then rank strides (in elements).
 * Element i0..in-1 is at aligned[offset + sum(ik * strides[k])]. Inputs may
 * be strided views of any stride (transposes, slices); outputs are always
 * dense row-major (strides are those of a contiguous array). */
typedef struct tck_memref {
    void *allocated;
    void *aligned;
    int64_t offset;
    int64_t sizes_and_strides[];
} tck_memref;

static inline const int64_t *tck_sizes(const tck_memref *m) { return m->sizes_and_strides; }
static inline const int64_t *tck_strides(const tck_memref *m, int32_t rank) {
    return m->sizes_and_strides + rank;
}
/* The first element, for a memref of `float`. */
static inline float *tck_data_f32(const tck_memref *m) { return (float *)m->aligned + m->offset; }

/* ---- Static type of one operand or result (known at load). --------------- */
typedef struct tck_tensor_type {
    int32_t element_type; /* TCK_F32, ... */
    int32_t rank;
    const int64_t *shape; /* rank sizes, TCK_DYNAMIC where known only at run time. `run` reads the
                             sizes of each call from the memref (a slice along a parallel dim, or a
                             dynamic dim, differs from `shape`). */
} tck_tensor_type;

/* ---- Decoded attributes. ------------------------------------------------- */
/* For domain "torch_mlir" (the contract of CONTRACT.md) one attribute per ATen
 * schema argument, by schema name, in schema order; a tensor argument is
 * TCK_ATTR_OPERAND (its input index), a number the const encoding carried in a
 * tosa.const is given as a number (its operand is still an input). For any
 * other domain, if implementation_attrs is a JSON object, one attribute per
 * top-level key (sorted); else none. The raw text is always in
 * tck_call.implementation_attrs. */
#define TCK_ATTR_NONE 0          /* None / null */
#define TCK_ATTR_BOOL 1          /* i: 0 or 1 */
#define TCK_ATTR_INT 2           /* i */
#define TCK_ATTR_FLOAT 3         /* f (inf and nan included) */
#define TCK_ATTR_STRING 4        /* s, count = its length in bytes */
#define TCK_ATTR_INT_LIST 5      /* ints[count] */
#define TCK_ATTR_FLOAT_LIST 6    /* floats[count] */
#define TCK_ATTR_BOOL_LIST 7     /* ints[count], each 0 or 1 */
#define TCK_ATTR_OPERAND 8       /* i: input index (a tensor, or a scalar known only at run time, 0-d) */
#define TCK_ATTR_OPERAND_LIST 9  /* ints[count]: input indices, -1 for None */
#define TCK_ATTR_COMPLEX 10      /* floats[2]: real, imaginary */
#define TCK_ATTR_DTYPE 11        /* s: "float32", "int64", ... */
#define TCK_ATTR_LAYOUT 12       /* s: "strided", ... */
#define TCK_ATTR_DEVICE 13       /* s: "cpu", ... */
#define TCK_ATTR_MEMORY_FORMAT 14 /* s: "contiguous_format", ... */
#define TCK_ATTR_OTHER 15        /* s: JSON text of a value none of the above fits */

typedef struct tck_attr {
    const char *name;
    int32_t kind;           /* TCK_ATTR_* */
    int32_t count;          /* list length; string length; 2 for complex; 1 for a scalar; 0 for none */
    int64_t i;              /* BOOL, INT, OPERAND */
    double f;               /* FLOAT */
    const char *s;          /* STRING, DTYPE, LAYOUT, DEVICE, MEMORY_FORMAT, OTHER (NUL-terminated UTF-8) */
    const int64_t *ints;    /* INT_LIST, BOOL_LIST, OPERAND_LIST */
    const double *floats;   /* FLOAT_LIST, COMPLEX */
} tck_attr;

/* ---- How an op may be split (version 2). ---------------------------------- */
/* `prepare` declares parallel dims p = 0 .. num_parallel-1 (outermost first):
 * running the op on the slices [o_p, o_p + n_p) of every parallel dim, each
 * slice once, computes the whole op. For each operand k (inputs, then
 * outputs) and parallel dim p, dims[k * TCK_MAX_PARALLEL + p] is the dim of
 * operand k that is sliced along p, or -1 when operand k is passed whole
 * (a layer_norm weight). Every output is sliced along every parallel dim. The
 * runtime owns `dims` (all -1 when prepare starts); num_parallel 0 (the
 * default): the op runs whole, in one piece. */
typedef struct tck_split {
    int32_t num_parallel;
    int32_t num_operands; /* num_inputs + num_outputs, set by the runtime */
    int32_t *dims;        /* num_operands * TCK_MAX_PARALLEL entries */
} tck_split;

/* ---- One op: everything decided at load time. ---------------------------- */
/* All pointers stay valid until `release`; the runtime owns them. */
typedef struct tck_call {
    uint32_t abi_version;   /* the version this call is laid out for: the library's (1 or 2) */
    uint32_t struct_size;   /* sizeof(tck_call) in the runtime */
    const char *domain_name;
    const char *operator_name;
    const char *implementation_attrs; /* the raw string of the tosa.custom */
    const char *location;             /* the op's source location, for messages */
    int32_t num_inputs;
    int32_t num_outputs;
    const tck_tensor_type *inputs;    /* num_inputs static types */
    const tck_tensor_type *outputs;   /* num_outputs static types */
    int32_t num_attrs;
    const tck_attr *attrs;
    void *state;            /* the kernel's own: set in prepare, read in run, freed in release */
    char *error;            /* message buffer for a failure (tck_fail writes it); in `run`, one per
                               invocation, so concurrent slices do not share it */
    size_t error_capacity;
    tck_split split;        /* version 2: set by prepare (see tck_split) */
} tck_call;

/* prepare: check and plan once (may set call->state). Returns TCK_OK,
 * TCK_DECLINE (let another kernel take the op), or an error status with a
 * message: the program then fails to load, naming the op.
 * run: compute outputs from inputs (or one slice of them, see tck_split),
 * sizes from the memrefs. Re-entrant: it may run on several threads at once,
 * so it writes only its outputs and its own stack or heap (call->state is
 * read-only in run). Never abort or exit; return an error status with a
 * message instead: the runtime zeroes the outputs, skips the remaining
 * native kernels of that program call, and raises KernelError naming the op,
 * its location and the message once the compiled code returns. Must not
 * keep the memref pointers after returning (buffers are reused).
 * release: free call->state. May be NULL when prepare allocates nothing. */
typedef int32_t (*tck_prepare_fn)(tck_call *call);
typedef int32_t (*tck_run_fn)(const tck_call *call, tck_memref *const *inputs, tck_memref *const *outputs);
typedef void (*tck_release_fn)(tck_call *call);

typedef struct tck_kernel {
    const char *domain_name;   /* "torch_mlir" for ops under CONTRACT.md */
    const char *operator_name; /* "torch.aten.layer_norm", or your own */
    int32_t element_type;      /* the element type of input 0 (of result 0 if no input) */
    tck_prepare_fn prepare;    /* may be NULL */
    tck_run_fn run;            /* required */
    tck_release_fn release;    /* may be NULL */
    const char *description;   /* free text for listings, may be NULL */
} tck_kernel;

/* ---- Helpers. ------------------------------------------------------------ */

/* Write a printf-style message into the call's error buffer; returns status. */
static inline int32_t tck_fail(const tck_call *call, int32_t status, const char *format, ...) {
    if (call->error && call->error_capacity) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(call->error, call->error_capacity, format, ap);
        va_end(ap);
    }
    return status;
}

/* The attribute called `name`, or NULL. */
static inline const tck_attr *tck_attr_get(const tck_call *call, const char *name) {
    for (int32_t i = 0; i < call->num_attrs; ++i)
        if (strcmp(call->attrs[i].name, name) == 0) return &call->attrs[i];
    return NULL;
}

/* Elements of a static type (negative if a dim is TCK_DYNAMIC: use tck_memref_numel in run). */
static inline int64_t tck_numel(const tck_tensor_type *t) {
    int64_t n = 1;
    for (int32_t i = 0; i < t->rank; ++i) n *= t->shape[i];
    return n;
}

/* Elements of one call's memref of rank `rank`. */
static inline int64_t tck_memref_numel(const tck_memref *m, int32_t rank) {
    int64_t n = 1;
    for (int32_t i = 0; i < rank; ++i) n *= m->sizes_and_strides[i];
    return n;
}

/* Version 2: operand k (inputs, then outputs) is sliced along parallel dim p by its dim `dim`. */
static inline void tck_split_dim(tck_call *call, int32_t operand, int32_t p, int32_t dim) {
    if (call->abi_version >= 2 && call->split.dims && p < TCK_MAX_PARALLEL && operand < call->split.num_operands) {
        call->split.dims[operand * TCK_MAX_PARALLEL + p] = dim;
        if (p >= call->split.num_parallel) call->split.num_parallel = p + 1;
    }
}

/* Version 2: the first k dims (at most TCK_MAX_PARALLEL) are parallel, sliced
 * in every operand of the rank of output 0; other operands are passed whole. */
static inline void tck_split_leading(tck_call *call, int32_t k) {
    if (call->num_outputs < 1) return;
    int32_t rank = call->outputs[0].rank;
    if (k > rank) k = rank;
    if (k > TCK_MAX_PARALLEL) k = TCK_MAX_PARALLEL;
    for (int32_t o = 0; o < call->num_inputs + call->num_outputs; ++o) {
        const tck_tensor_type *t = o < call->num_inputs ? &call->inputs[o] : &call->outputs[o - call->num_inputs];
        if (t->rank != rank) continue;
        for (int32_t p = 0; p < k; ++p) tck_split_dim(call, o, p, p);
    }
}

/* ---- Quantization of a kept op (CONTRACT.md §18), from implementation_attrs. */
/* In a quantized model, a kept op's operands and results are integers and its
 * implementation_attrs carries "quantization": {"operands": {"<k>": Q, ...},
 * "results": {"<k>": Q, ...}}; the op means quantize(op(dequantize(operands))).
 * tck_quantization_of reads one Q (the text is parsed at each call: call it in
 * prepare, keep what it gives in the plan). The value an integer q stands for
 * is (q - zero_point) * scale. No change of the ABI: it reads the string every
 * version passes. */
typedef struct tck_quantization {
    double scale;         /* per tensor; per channel, the first of the scales */
    int64_t zero_point;
    int64_t quant_min, quant_max;
    int32_t axis;         /* -1 per tensor; per channel, the dim the scales lie along */
    int32_t num_scales;   /* 1 per tensor; per channel, how many */
} tck_quantization;

#define TCK_QUANT_MALFORMED (-1) /* the key is there but not as CONTRACT.md §18.2 writes it */
#define TCK_QUANT_NONE 0         /* not listed: the operand or result is what the ATen call takes or gives */
#define TCK_QUANT_PER_TENSOR 1
#define TCK_QUANT_PER_CHANNEL 2

static inline const char *tck_json_space(const char *p) {
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') ++p;
    return p;
}

/* Past the JSON value at p (NULL if it is cut short). */
static inline const char *tck_json_skip(const char *p) {
    int32_t depth = 0;
    do {
        p = tck_json_space(p);
        if (*p == '"') {
            for (++p; *p && *p != '"'; ++p)
                if (*p == '\\' && p[1]) ++p;
            if (!*p) return NULL;
            ++p;
        } else if (*p == '{' || *p == '[') {
            ++depth, ++p;
        } else if (*p == '}' || *p == ']') {
            --depth, ++p;
        } else if (*p == ',' || *p == ':') {
            ++p;
        } else if (*p) {
            while (*p && !strchr(",:]} \n\t\r", *p)) ++p;
        } else {
            return NULL;
        }
    } while (depth > 0);
    return depth == 0 ? p : NULL;
}

/* The value of `key` in the JSON object at p, or NULL. */
static inline const char *tck_json_member(const char *p, const char *key) {
    p = p ? tck_json_space(p) : NULL;
    if (!p || *p != '{') return NULL;
    size_t n = strlen(key);
    for (p = tck_json_space(p + 1); *p == '"'; p = tck_json_space(p + 1)) {
        const char *name = p + 1, *end = tck_json_skip(p);
        if (!end) return NULL;
        p = tck_json_space(end);
        if (*p != ':') return NULL;
        p = tck_json_space(p + 1);
        if ((size_t)(end - 1 - name) == n && strncmp(name, key, n) == 0) return p;
        p = tck_json_skip(p);
        if (!p || *(p = tck_json_space(p)) != ',') return NULL;
    }
    return NULL;
}

static inline int tck_json_integer(const char *p, int64_t *out) {
    char *end;
    if (!p) return 0;
    *out = (int64_t)strtoll(p, &end, 10);
    return end != p && !strchr(".eE", *end);
}

/* The quantization of operand (`result` 0) or result (`result` 1) `index`:
 * TCK_QUANT_PER_TENSOR or _PER_CHANNEL with *q filled, TCK_QUANT_NONE, or
 * TCK_QUANT_MALFORMED. */
static inline int32_t tck_quantization_of(const tck_call *call, int32_t result, int32_t index, tck_quantization *q) {
    char key[16];
    snprintf(key, sizeof key, "%d", (int)index);
    const char *side = tck_json_member(tck_json_member(call->implementation_attrs, "quantization"),
                                       result ? "results" : "operands");
    const char *o = tck_json_member(side, key);
    if (!o) return TCK_QUANT_NONE;
    const char *scale = tck_json_member(o, "scale"), *axis = tck_json_member(o, "axis");
    int64_t a = -1;
    if (!scale || !tck_json_integer(tck_json_member(o, "zero_point"), &q->zero_point) ||
        !tck_json_integer(tck_json_member(o, "quant_min"), &q->quant_min) ||
        !tck_json_integer(tck_json_member(o, "quant_max"), &q->quant_max) || (axis && !tck_json_integer(axis, &a)))
        return TCK_QUANT_MALFORMED;
    q->axis = (int32_t)a;
    q->num_scales = 1;
    int list = *scale == '[';
    if (list) { /* per channel: count the scales, read the first */
        const char *p = tck_json_space(scale + 1);
        for (q->num_scales = 0; *p != ']'; ++q->num_scales) {
            if (!(p = tck_json_skip(p))) return TCK_QUANT_MALFORMED;
            p = tck_json_space(p);
            if (*p == ',') p = tck_json_space(p + 1);
            else if (*p != ']') return TCK_QUANT_MALFORMED;
        }
        scale = tck_json_space(scale + 1);
    }
    char *end;
    q->scale = strtod(scale, &end);
    if (end == scale || !(q->scale > 0.0) || list != (axis != NULL)) return TCK_QUANT_MALFORMED;
    return axis ? TCK_QUANT_PER_CHANNEL : TCK_QUANT_PER_TENSOR;
}

/* Define the three exported functions from a static array of kernels:
 *   static const tck_kernel my_kernels[] = {{"myteam", "fused_gelu", TCK_F32, NULL, run, NULL, "..."}};
 *   TCK_DEFINE_LIBRARY(my_kernels)
 */
#define TCK_DEFINE_LIBRARY(table)                                                                  \
    TCK_EXPORT uint32_t tosa_custom_kernel_abi_version(void) { return TCK_ABI_VERSION; }           \
    TCK_EXPORT const tck_kernel *tosa_custom_kernel_at(size_t index) {                             \
        return index < sizeof(table) / sizeof((table)[0]) ? &(table)[index] : NULL;                \
    }                                                                                              \
    TCK_EXPORT const tck_kernel *tosa_custom_kernel_lookup(const char *domain_name,                \
                                                           const char *operator_name,              \
                                                           int32_t element_type) {                 \
        for (size_t i = 0; i < sizeof(table) / sizeof((table)[0]); ++i)                           \
            if ((table)[i].element_type == element_type &&                                        \
                strcmp((table)[i].domain_name, domain_name) == 0 &&                               \
                strcmp((table)[i].operator_name, operator_name) == 0)                             \
                return &(table)[i];                                                                \
        return NULL;                                                                               \
    }

#ifdef __cplusplus
}
#endif

#endif /* TOSA_CUSTOM_KERNEL_H */
