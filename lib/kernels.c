/*
 * The built-in native kernels (f32): layer_norm, rms_norm, softmax,
 * log_softmax, gelu (erf and tanh) and silu, for ops under the tosa.custom
 * contract (domain "torch_mlir"); and, in kernels_int8.c (included below),
 * int8 layer_norm, softmax, gelu and silu for the kept ops of quantized
 * models. They use the public ABI exactly as a
 * backend team's library would (tosa_custom_kernel.h); the runtime prefers
 * them to the Python reference kernels.
 *
 * Accuracy: sums, means and variances accumulate in double; exp / erf / tanh
 * use f32 polynomials that vectorize (the same approximations as the
 * compiled code's polymath.py: exp ~1.5 ulp, erf ~4e-7), in forms that do not
 * cancel (1 + erf(z) as erfc(-z) for z < 0; 1 + tanh(u) as 2 / (1 + exp(-2u))).
 *
 * Layout: inputs and outputs may be strided views (an output is a slice of a
 * row-major buffer when the op runs split). A kernel works on "rows" (the
 * normalized dims, the softmax dim, or the last dim of an elementwise op);
 * a row that is not contiguous is gathered into scratch memory of the call
 * (stack, or heap for long rows) first, and a result row that is not
 * contiguous is scattered.
 *
 * ABI version 2: sizes come from each call's memrefs (a dim may be dynamic
 * at prepare), run is re-entrant, and each kernel declares its parallel
 * dims: the leading dims before the normalized ones (layer_norm, rms_norm),
 * before the softmax dim, or every dim (up to three) of gelu and silu.
 * Hot loops are compiled twice (AVX2 + FMA and baseline x86-64, picked at load
 * by the CPU) where the compiler supports it.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "tosa_custom_kernel.h"

#define MAX_RANK 16
#define DOMAIN "torch_mlir"

/* x86-64-v3 is AVX2 + FMA (GCC 12+ dispatches on it); "arch=haswell" would
   test for that exact CPU model, not its features. */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#elif __has_attribute(target_clones)
#define HOT __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef HOT
#define HOT
#endif
/* The gelu rows also get an AVX-512 clone (x86-64-v4: 16 lanes, where the
   CPU has it; IREE's own code uses them too): measured on a 2 x 128 x 1024
   row block, erf 399 -> 240 us, tanh 217 -> 149 us. Same math, same FMA
   contraction as the AVX2 clone, so the same results to rounding.
   -DGELU_HOT= builds one width only, the -march given (a test builds each). */
#if !defined(GELU_HOT) && defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define GELU_HOT __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#elif __has_attribute(target_clones)
#define GELU_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef GELU_HOT
#define GELU_HOT HOT
#endif
/* Inlined into each clone (GCC would not inline across the target change). */
#define INLINE static inline __attribute__((always_inline))

/* ------------------------------------------------------------------------ */
/* f32 math that vectorizes.                                                */
/* ------------------------------------------------------------------------ */

INLINE float pow2i(int32_t n) { /* 2**n for n in [-126, 127] */
    uint32_t bits = (uint32_t)(n + 127) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* exp(xc) for xc in [-104, 88.8], not NaN: exp_f32's core, shared with
   erfc's exponent (which needs no more than that). */
INLINE float exp_clamped_f32(float xc) {
    /* exp(x) = 2**n exp(r), n = round(x / ln 2), r = x - n ln 2 in two parts;
       exp(r) by a degree-7 polynomial; 2**n in two halves for subnormals. */
    float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f; /* round to nearest */
    float r = xc - n * 0.693359375f;
    r = r + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = (p * r) * r + r + 1.0f;
    int32_t ni = (int32_t)n;
    int32_t n2 = ni >> 1;
    return y * pow2i(ni - n2) * pow2i(n2);
}

INLINE float exp_f32(float x) {
    /* below -104 the clamped result rounds to 0, above 88.8 it overflows to inf */
    float xc = x < -104.0f ? -104.0f : (x > 88.8f ? 88.8f : x);
    xc = x == x ? xc : 0.0f;
    float y = exp_clamped_f32(xc);
    return x == x ? y : x;
}

/* 1 + erf(z), relative error ~3e-7 everywhere: erfc(|z|) (relative error
   1.2e-7 for every |z|) is taken from 2 for z >= 0, itself for z < 0 (no
   cancellation in the left tail). */
INLINE float one_plus_erf_f32(float z) {
    float a = fabsf(z);
    float a2 = a * a;
    /* erfc(a) = t exp(q(t) - a^2), t = 1 / (1 + a / 2). */
    float t = 1.0f / (1.0f + 0.5f * a);
    float q = 0.17087277f;
    q = q * t - 0.82215223f;
    q = q * t + 1.48851587f;
    q = q * t - 1.13520398f;
    q = q * t + 0.27886807f;
    q = q * t - 0.18628806f;
    q = q * t + 0.09678418f;
    q = q * t + 0.37409196f;
    q = q * t + 1.00002368f;
    q = q * t - 1.26551223f;
    /* q - a^2 < 1 (q is bounded for t in [0, 1]), so only the lower clamp; a NaN z makes t
       NaN, hence the result, whatever the exponent (0 here: a defined
       float-to-int conversion). exp_f32's checks, dropped: 10% of the row. */
    float u = q - a2;
    u = u < -104.0f ? -104.0f : u;
    float erfc = t * exp_clamped_f32(u == u ? u : 0.0f);
    return z < 0.0f ? erfc : 2.0f - erfc;
}

/* ------------------------------------------------------------------------ */
/* Row kernels: contiguous x (n) -> contiguous y (n).                        */
/* ------------------------------------------------------------------------ */

typedef struct row_params {
    double eps;
    const float *weight; /* n elements or NULL */
    const float *bias;
} row_params;

typedef void (*row_fn)(const float *x, float *y, int64_t n, const row_params *p);

HOT static void layer_norm_row(const float *x, float *y, int64_t n, const row_params *p) {
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += (double)x[i];
    double mean = sum / (double)n;
    double sq = 0.0;
#pragma omp simd reduction(+ : sq)
    for (int64_t i = 0; i < n; ++i) {
        double d = (double)x[i] - mean;
        sq += d * d;
    }
    double rstd = 1.0 / sqrt(sq / (double)n + p->eps);
    const float *w = p->weight, *b = p->bias;
    if (w && b) {
        for (int64_t i = 0; i < n; ++i) y[i] = (float)(((double)x[i] - mean) * rstd * (double)w[i] + (double)b[i]);
    } else if (w) {
        for (int64_t i = 0; i < n; ++i) y[i] = (float)(((double)x[i] - mean) * rstd * (double)w[i]);
    } else if (b) {
        for (int64_t i = 0; i < n; ++i) y[i] = (float)(((double)x[i] - mean) * rstd + (double)b[i]);
    } else {
        for (int64_t i = 0; i < n; ++i) y[i] = (float)(((double)x[i] - mean) * rstd);
    }
}

HOT static void rms_norm_row(const float *x, float *y, int64_t n, const row_params *p) {
    double sq = 0.0;
#pragma omp simd reduction(+ : sq)
    for (int64_t i = 0; i < n; ++i) sq += (double)x[i] * (double)x[i];
    double r = 1.0 / sqrt(sq / (double)n + p->eps);
    const float *w = p->weight;
    if (w) {
        for (int64_t i = 0; i < n; ++i) y[i] = (float)((double)x[i] * r * (double)w[i]);
    } else {
        for (int64_t i = 0; i < n; ++i) y[i] = (float)((double)x[i] * r);
    }
}

/* max(x); a NaN anywhere makes the sums below NaN, hence a NaN row, as in PyTorch. */
INLINE float row_max(const float *x, int64_t n) {
    float m = -INFINITY;
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
    return m;
}

HOT static void softmax_row(const float *x, float *y, int64_t n, const row_params *p) {
    (void)p;
    float m = row_max(x, n);
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) {
        float e = exp_f32(x[i] - m);
        y[i] = e;
        sum += (double)e;
    }
    float inv = (float)(1.0 / sum);
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
}

HOT static void log_softmax_row(const float *x, float *y, int64_t n, const row_params *p) {
    (void)p;
    float m = row_max(x, n);
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += (double)exp_f32(x[i] - m);
    float lse = (float)log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - lse;
}

GELU_HOT static void gelu_erf_row(const float *x, float *y, int64_t n, const row_params *p) {
    (void)p;
    for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * one_plus_erf_f32(x[i] * 0.70710678118654752f);
}

GELU_HOT static void gelu_tanh_row(const float *x, float *y, int64_t n, const row_params *p) {
    (void)p;
    /* 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3) */
    for (int64_t i = 0; i < n; ++i) {
        float v = x[i];
        float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
        y[i] = v / (1.0f + exp_f32(-2.0f * u));
    }
}

HOT static void silu_row(const float *x, float *y, int64_t n, const row_params *p) {
    (void)p;
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + exp_f32(-x[i]));
}

/* ------------------------------------------------------------------------ */
/* Rows of strided memrefs.                                                  */
/* ------------------------------------------------------------------------ */

/* Whether dims [a, b) of (sizes, strides) are one strided run; its stride. */
static int collapse(const int64_t *sizes, const int64_t *strides, int32_t a, int32_t b, int64_t *stride) {
    int64_t s = 1, span = 1;
    int have = 0;
    for (int32_t i = b - 1; i >= a; --i) {
        if (sizes[i] == 1) continue;
        if (!have) {
            s = strides[i];
            span = sizes[i];
            have = 1;
        } else {
            if (strides[i] != s * span) return 0;
            span *= sizes[i];
        }
    }
    *stride = s;
    return 1;
}

/* Copy the k-dim block at x (sizes, strides) into dense dst. */
static void gather(const float *x, const int64_t *sizes, const int64_t *strides, int32_t k, float *dst) {
    if (k == 0) {
        *dst = *x;
        return;
    }
    if (k == 1) {
        for (int64_t i = 0; i < sizes[0]; ++i) dst[i] = x[i * strides[0]];
        return;
    }
    int64_t inner = 1;
    for (int32_t j = 1; j < k; ++j) inner *= sizes[j];
    for (int64_t i = 0; i < sizes[0]; ++i) gather(x + i * strides[0], sizes + 1, strides + 1, k - 1, dst + i * inner);
}

/* Scatter dense src into the k-dim block at y (sizes, strides). */
static void scatter(const float *src, float *y, const int64_t *sizes, const int64_t *strides, int32_t k) {
    if (k == 0) {
        *y = *src;
        return;
    }
    if (k == 1) {
        for (int64_t i = 0; i < sizes[0]; ++i) y[i * strides[0]] = src[i];
        return;
    }
    int64_t inner = 1;
    for (int32_t j = 1; j < k; ++j) inner *= sizes[j];
    for (int64_t i = 0; i < sizes[0]; ++i) scatter(src + i * inner, y + i * strides[0], sizes + 1, strides + 1, k - 1);
}

/* The rank-k memref m as dense floats: itself if it is, else gathered into scratch. */
static const float *dense(const tck_memref *m, int32_t k, float *scratch) {
    const int64_t *sizes = tck_sizes(m), *strides = tck_strides(m, k);
    int64_t s;
    if (collapse(sizes, strides, 0, k, &s) && s == 1) return tck_data_f32(m);
    gather(tck_data_f32(m), sizes, strides, k, scratch);
    return scratch;
}

/* Whether dims [a, b) of the rank-`rank` memref m are one contiguous run. */
static int contiguous(const tck_memref *m, int32_t rank, int32_t a, int32_t b) {
    int64_t s;
    return collapse(tck_sizes(m), tck_strides(m, rank), a, b, &s) && s == 1;
}

/* fn over every row of `in` along dims [a, b) (all other dims index the rows),
   writing the same positions of `out` (both strided; the sizes are in's).
   scratch: 2 x row length, used only for rows that are not contiguous. */
static void map_rows(const tck_memref *in, const tck_memref *out, int32_t rank, int32_t a, int32_t b,
                     float *scratch, row_fn fn, const row_params *p) {
    const int64_t *sizes = tck_sizes(in), *xs = tck_strides(in, rank), *ys = tck_strides(out, rank);
    const float *x = tck_data_f32(in);
    float *y = tck_data_f32(out);
    int64_t n = 1;
    for (int32_t k = a; k < b; ++k) n *= sizes[k];
    int64_t total = 1;
    for (int32_t k = 0; k < rank; ++k) total *= sizes[k];
    if (total == 0) return;
    int64_t sx = 1, sy = 1;
    int xrun = collapse(sizes, xs, a, b, &sx);
    int yrun = collapse(sizes, ys, a, b, &sy);
    float *xbuf = scratch, *ybuf = scratch + n;
    int32_t outer[MAX_RANK], no = 0;
    int64_t idx[MAX_RANK];
    for (int32_t k = 0; k < rank; ++k)
        if (k < a || k >= b) {
            outer[no] = k;
            idx[no++] = 0;
        }
    int64_t xo = 0, yo = 0;
    for (;;) {
        const float *xr = x + xo;
        if (!(xrun && sx == 1)) {
            if (xrun)
                for (int64_t i = 0; i < n; ++i) xbuf[i] = xr[i * sx];
            else
                gather(xr, sizes + a, xs + a, b - a, xbuf);
            xr = xbuf;
        }
        int ydirect = yrun && sy == 1;
        float *yr = ydirect ? y + yo : ybuf;
        fn(xr, yr, n, p);
        if (!ydirect) {
            if (yrun)
                for (int64_t i = 0; i < n; ++i) y[yo + i * sy] = ybuf[i];
            else
                scatter(ybuf, y + yo, sizes + a, ys + a, b - a);
        }
        int32_t k = no - 1;
        for (; k >= 0; --k) {
            int32_t d = outer[k];
            if (++idx[k] < sizes[d]) {
                xo += xs[d];
                yo += ys[d];
                break;
            }
            xo -= (sizes[d] - 1) * xs[d];
            yo -= (sizes[d] - 1) * ys[d];
            idx[k] = 0;
        }
        if (k < 0) break;
    }
}

/* ------------------------------------------------------------------------ */
/* Plans: what prepare decides, what run reads.                               */
/* ------------------------------------------------------------------------ */

typedef struct plan {
    row_fn fn;
    int32_t input;        /* input index of the tensor */
    int32_t weight, bias; /* input indices, -1 if None */
    int32_t rank;         /* of the input */
    int32_t a, b;         /* row dims */
    int32_t param_rank;   /* rank of weight / bias */
    int32_t elementwise;  /* rows: the whole tensor if contiguous, else its last dim */
    int32_t check_rows;   /* normalized dims dynamic at prepare: check them in each call */
    int64_t norm[MAX_RANK]; /* normalized_shape, when check_rows */
    double eps;
} plan;

static void release_plan(tck_call *call) {
    free(call->state);
    call->state = NULL;
}

/* Scratch of a call this small lives on the stack; larger rows are allocated per call. */
#define STACK_FLOATS 4096

/* Re-entrant (ABI version 2): the plan is read-only, the sizes are the call's
   own (a slice along a parallel dim, or a dynamic dim), and scratch memory
   (rows that are not contiguous, strided parameters) belongs to this call. */
/* What prepare could not check when dims were dynamic (TCK_DYNAMIC), for this
   call: the output has the input's sizes, and the normalized dims of the input
   and of weight and bias are normalized_shape. */
static int32_t check_sizes(const tck_call *call, const plan *pl, tck_memref *const *inputs, const tck_memref *out) {
    const int64_t *x = tck_sizes(inputs[pl->input]), *y = tck_sizes(out);
    for (int32_t k = 0; k < pl->rank; ++k)
        if (x[k] != y[k])
            return tck_fail(call, TCK_INVALID_ARGUMENT, "%s: dim %d of the result is %lld, of the input %lld",
                            call->operator_name, (int)k, (long long)y[k], (long long)x[k]);
    if (!pl->check_rows) return TCK_OK;
    int32_t params[3] = {pl->input, pl->weight, pl->bias};
    for (int j = 0; j < 3; ++j) {
        if (params[j] < 0) continue;
        const int64_t *sizes = tck_sizes(inputs[params[j]]) + (j == 0 ? pl->a : 0);
        for (int32_t k = 0; k < pl->param_rank; ++k)
            if (sizes[k] != pl->norm[k])
                return tck_fail(call, TCK_INVALID_ARGUMENT, "%s: normalized_shape[%d] is %lld, but the %s has %lld there",
                                call->operator_name, (int)k, (long long)pl->norm[k],
                                j == 0 ? "input" : (j == 1 ? "weight" : "bias"), (long long)sizes[k]);
    }
    return TCK_OK;
}

static int32_t run_plan(const tck_call *call, tck_memref *const *inputs, tck_memref *const *outputs) {
    const plan *pl = (const plan *)call->state;
    const tck_memref *in = inputs[pl->input], *out = outputs[0];
    int32_t checked = check_sizes(call, pl, inputs, out);
    if (checked != TCK_OK) return checked;
    int32_t a = pl->a, b = pl->b;
    if (pl->elementwise && pl->rank > 0 &&
        !(contiguous(in, pl->rank, 0, pl->rank) && contiguous(out, pl->rank, 0, pl->rank)))
        a = pl->rank - 1; /* elementwise: one row if both are contiguous, else rows of the last dim */
    int64_t row = 1;
    for (int32_t k = a; k < b; ++k) row *= tck_sizes(in)[k];
    size_t need = (size_t)(4 * (row > 0 ? row : 1));
    int direct = a == 0 && b == pl->rank && pl->elementwise; /* both contiguous: no scratch */
    float stack[STACK_FLOATS];
    float *scratch = direct || need <= STACK_FLOATS ? stack : (float *)malloc(sizeof(float) * need);
    if (!scratch)
        return tck_fail(call, TCK_ERROR, "%s: out of memory for %lld floats of scratch", call->operator_name,
                        (long long)need);
    row_params rp = {pl->eps, NULL, NULL};
    if (pl->weight >= 0) rp.weight = dense(inputs[pl->weight], pl->param_rank, scratch + 2 * row);
    if (pl->bias >= 0) rp.bias = dense(inputs[pl->bias], pl->param_rank, scratch + 3 * row);
    map_rows(in, out, pl->rank, a, b, scratch, pl->fn, &rp);
    if (scratch != stack) free(scratch);
    return TCK_OK;
}

/* The f32 tensor operand called `name`: its input index, -1 if None (when
   allowed); -2 after setting a message (bad), -3 to decline. */
static int32_t tensor_operand(tck_call *call, const char *name, int optional) {
    const tck_attr *at = tck_attr_get(call, name);
    if (!at) return -3;
    if (at->kind == TCK_ATTR_NONE && optional) return -1;
    if (at->kind != TCK_ATTR_OPERAND || at->i < 0 || at->i >= call->num_inputs) return -3;
    if (call->inputs[at->i].element_type != TCK_F32 || call->inputs[at->i].rank > MAX_RANK) return -3;
    return (int32_t)at->i;
}

/* Equal sizes, or one of them known only at run time. */
static int same_dim(int64_t x, int64_t y) { return x == y || x == TCK_DYNAMIC || y == TCK_DYNAMIC; }

static int same_shape(const tck_tensor_type *x, const tck_tensor_type *y) {
    if (x->rank != y->rank) return 0;
    for (int32_t i = 0; i < x->rank; ++i)
        if (!same_dim(x->shape[i], y->shape[i])) return 0;
    return 1;
}

/* A plan for fn on input `input` with rows [a, b); the dims before `parallel`
   are declared parallel (ABI version 2): slices along them are independent. */
static int32_t make_plan(tck_call *call, row_fn fn, int32_t input, int32_t a, int32_t b, int32_t weight,
                         int32_t bias, double eps, int32_t elementwise, int32_t parallel) {
    if (call->num_outputs != 1 || call->outputs[0].element_type != TCK_F32) return TCK_DECLINE;
    const tck_tensor_type *x = &call->inputs[input];
    if (!same_shape(x, &call->outputs[0]))
        return tck_fail(call, TCK_INVALID_ARGUMENT, "%s: result shape differs from the input's", call->operator_name);
    plan *p = (plan *)calloc(1, sizeof(plan));
    if (!p) return tck_fail(call, TCK_ERROR, "out of memory");
    p->fn = fn;
    p->input = input;
    p->weight = weight;
    p->bias = bias;
    p->rank = x->rank;
    p->a = a;
    p->b = b;
    p->param_rank = b - a;
    p->eps = eps;
    p->elementwise = elementwise;
    call->state = p;
    tck_split_leading(call, parallel);
    return TCK_OK;
}

/* normalized_shape must be the trailing dims of x; the params must have it. */
static int32_t check_normalized(tck_call *call, const tck_attr *shape, int32_t input, int32_t weight, int32_t bias) {
    const tck_tensor_type *x = &call->inputs[input];
    int32_t k = shape->count;
    int ok = k <= x->rank;
    for (int32_t i = 0; ok && i < k; ++i) ok = same_dim(shape->ints[i], x->shape[x->rank - k + i]);
    if (!ok) return tck_fail(call, TCK_INVALID_ARGUMENT, "%s: normalized_shape does not match the input's last %d dims",
                             call->operator_name, (int)k);
    int32_t params[2] = {weight, bias};
    for (int j = 0; j < 2; ++j) {
        if (params[j] < 0) continue;
        const tck_tensor_type *w = &call->inputs[params[j]];
        int same = w->rank == k;
        for (int32_t i = 0; same && i < k; ++i) same = same_dim(w->shape[i], shape->ints[i]);
        if (!same) return tck_fail(call, TCK_INVALID_ARGUMENT, "%s: %s shape differs from normalized_shape",
                                   call->operator_name, j ? "bias" : "weight");
    }
    return TCK_OK;
}

/* normalized_shape, checked in each call if a dim it covers (of the input,
   weight or bias) was TCK_DYNAMIC at prepare. */
static int32_t remember_normalized(tck_call *call, const tck_attr *shape) {
    plan *p = (plan *)call->state;
    const tck_tensor_type *x = &call->inputs[p->input];
    for (int32_t i = 0; i < shape->count; ++i) {
        p->norm[i] = shape->ints[i];
        if (x->shape[x->rank - shape->count + i] == TCK_DYNAMIC) p->check_rows = 1;
    }
    int32_t params[2] = {p->weight, p->bias};
    for (int j = 0; j < 2; ++j)
        for (int32_t i = 0; params[j] >= 0 && i < call->inputs[params[j]].rank; ++i)
            if (call->inputs[params[j]].shape[i] == TCK_DYNAMIC) p->check_rows = 1;
    return TCK_OK;
}

static int32_t prepare_layer_norm(tck_call *call) {
    int32_t x = tensor_operand(call, "input", 0), w = tensor_operand(call, "weight", 1);
    int32_t b = tensor_operand(call, "bias", 1);
    const tck_attr *shape = tck_attr_get(call, "normalized_shape"), *eps = tck_attr_get(call, "eps");
    if (x < 0 || w < -1 || b < -1 || !shape || shape->kind != TCK_ATTR_INT_LIST || !eps || eps->kind != TCK_ATTR_FLOAT)
        return TCK_DECLINE;
    int32_t st = check_normalized(call, shape, x, w, b);
    if (st != TCK_OK) return st;
    int32_t rank = call->inputs[x].rank;
    st = make_plan(call, layer_norm_row, x, rank - shape->count, rank, w, b, eps->f, 0, rank - shape->count);
    return st == TCK_OK ? remember_normalized(call, shape) : st;
}

static int32_t prepare_rms_norm(tck_call *call) {
    int32_t x = tensor_operand(call, "input", 0), w = tensor_operand(call, "weight", 1);
    const tck_attr *shape = tck_attr_get(call, "normalized_shape"), *eps = tck_attr_get(call, "eps");
    if (x < 0 || w < -1 || !shape || shape->kind != TCK_ATTR_INT_LIST || !eps) return TCK_DECLINE;
    double e;
    if (eps->kind == TCK_ATTR_NONE)
        e = FLT_EPSILON; /* eager PyTorch's default for float32 */
    else if (eps->kind == TCK_ATTR_FLOAT)
        e = eps->f;
    else
        return TCK_DECLINE;
    int32_t st = check_normalized(call, shape, x, w, -1);
    if (st != TCK_OK) return st;
    int32_t rank = call->inputs[x].rank;
    st = make_plan(call, rms_norm_row, x, rank - shape->count, rank, w, -1, e, 0, rank - shape->count);
    return st == TCK_OK ? remember_normalized(call, shape) : st;
}

/* softmax.int / log_softmax.int (dtype None or float32), _softmax / _log_softmax (half_to_float false). */
static int32_t prepare_softmax_like(tck_call *call, row_fn fn) {
    int32_t x = tensor_operand(call, "self", 0);
    const tck_attr *dim = tck_attr_get(call, "dim");
    if (x < 0 || !dim || dim->kind != TCK_ATTR_INT) return TCK_DECLINE;
    const tck_attr *dtype = tck_attr_get(call, "dtype"), *half = tck_attr_get(call, "half_to_float");
    if (dtype && !(dtype->kind == TCK_ATTR_NONE || (dtype->kind == TCK_ATTR_DTYPE && strcmp(dtype->s, "float32") == 0)))
        return TCK_DECLINE;
    if (half && !(half->kind == TCK_ATTR_BOOL && half->i == 0)) return TCK_DECLINE;
    int32_t rank = call->inputs[x].rank;
    int64_t d = dim->i;
    int32_t extent = rank > 0 ? rank : 1;
    if (d < -extent || d >= extent)
        return tck_fail(call, TCK_INVALID_ARGUMENT, "%s: dim %lld is out of range for a rank-%d input",
                        call->operator_name, (long long)d, (int)rank);
    if (d < 0) d += extent;
    if (rank == 0) return make_plan(call, fn, x, 0, 0, -1, -1, 0.0, 0, 0);
    return make_plan(call, fn, x, (int32_t)d, (int32_t)d + 1, -1, -1, 0.0, 0, (int32_t)d); /* dims before d */
}

static int32_t prepare_softmax(tck_call *call) { return prepare_softmax_like(call, softmax_row); }
static int32_t prepare_log_softmax(tck_call *call) { return prepare_softmax_like(call, log_softmax_row); }

static int32_t prepare_gelu(tck_call *call) {
    int32_t x = tensor_operand(call, "self", 0);
    const tck_attr *approximate = tck_attr_get(call, "approximate");
    if (x < 0 || !approximate || approximate->kind != TCK_ATTR_STRING) return TCK_DECLINE;
    row_fn fn;
    if (strcmp(approximate->s, "none") == 0)
        fn = gelu_erf_row;
    else if (strcmp(approximate->s, "tanh") == 0)
        fn = gelu_tanh_row;
    else
        return tck_fail(call, TCK_INVALID_ARGUMENT, "gelu: approximate must be 'none' or 'tanh', got '%s'",
                        approximate->s);
    return make_plan(call, fn, x, 0, call->inputs[x].rank, -1, -1, 0.0, 1, call->inputs[x].rank);
}

static int32_t prepare_silu(tck_call *call) {
    int32_t x = tensor_operand(call, "self", 0);
    if (x < 0) return TCK_DECLINE;
    return make_plan(call, silu_row, x, 0, call->inputs[x].rank, -1, -1, 0.0, 1, call->inputs[x].rank);
}

/* int8: kept ops of quantized models (CONTRACT.md §18). */
#include "kernels_int8.c"

static const tck_kernel builtin_kernels[] = {
    {DOMAIN, "torch.aten.layer_norm", TCK_F32, prepare_layer_norm, run_plan, release_plan, "layer_norm f32"},
    {DOMAIN, "torch.aten.rms_norm", TCK_F32, prepare_rms_norm, run_plan, release_plan, "rms_norm f32"},
    {DOMAIN, "torch.aten.softmax.int", TCK_F32, prepare_softmax, run_plan, release_plan, "softmax f32"},
    {DOMAIN, "torch.aten._softmax", TCK_F32, prepare_softmax, run_plan, release_plan, "softmax f32"},
    {DOMAIN, "torch.aten.log_softmax.int", TCK_F32, prepare_log_softmax, run_plan, release_plan, "log_softmax f32"},
    {DOMAIN, "torch.aten._log_softmax", TCK_F32, prepare_log_softmax, run_plan, release_plan, "log_softmax f32"},
    {DOMAIN, "torch.aten.gelu", TCK_F32, prepare_gelu, run_plan, release_plan, "gelu f32 (erf and tanh)"},
    {DOMAIN, "torch.aten.silu", TCK_F32, prepare_silu, run_plan, release_plan, "silu f32"},
    {DOMAIN, "torch.aten.layer_norm", TCK_I8, prepare_layer_norm_i8, run_qplan, release_plan, "layer_norm int8 (quantized)"},
    {DOMAIN, "torch.aten.softmax.int", TCK_I8, prepare_softmax_i8, run_qplan, release_plan, "softmax int8 (quantized)"},
    {DOMAIN, "torch.aten._softmax", TCK_I8, prepare_softmax_i8, run_qplan, release_plan, "softmax int8 (quantized)"},
    {DOMAIN, "torch.aten.log_softmax.int", TCK_I8, prepare_log_softmax_i8, run_qplan, release_plan,
     "log_softmax int8 (quantized)"},
    {DOMAIN, "torch.aten._log_softmax", TCK_I8, prepare_log_softmax_i8, run_qplan, release_plan,
     "log_softmax int8 (quantized)"},
    {DOMAIN, "torch.aten.rms_norm", TCK_I8, prepare_rms_norm_i8, run_qplan, release_plan, "rms_norm int8 (quantized)"},
    {DOMAIN, "torch.aten.gelu", TCK_I8, prepare_gelu_i8, run_qplan, release_plan, "gelu int8 (quantized, by table)"},
    {DOMAIN, "torch.aten.silu", TCK_I8, prepare_silu_i8, run_qplan, release_plan, "silu int8 (quantized, by table)"},
};

TCK_DEFINE_LIBRARY(builtin_kernels)
