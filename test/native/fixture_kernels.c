/*
 * A small external kernel library, as a backend team would write one:
 * built by the tests (and benchmarks/runtime.py) with the system C compiler
 * against the installed tosa_custom_kernel.h, loaded with
 * tosa_custom.runtime.load_kernel_library.
 *
 *   acme::scale_shift  y = x * scale + shift, per element (any rank, strided x);
 *                      attributes from implementation_attrs JSON: scale (float),
 *                      shift (int), mode (string: "plain" or "relu"), axes (int list).
 *   acme::checked_sqrt y = sqrt(x); fails with TCK_INVALID_ARGUMENT on a negative
 *                      element, naming its index (the error path).
 *   acme::noop         writes nothing (measures the call's own cost).
 *   torch_mlir::torch.aten.gelu [f32]  y = 1000 + x, identifiably not GELU:
 *                      shows that a user library wins over the built-in kernels.
 */
#include <math.h>
#include <stdlib.h>

#include "tosa_custom_kernel.h"

typedef struct scale_state {
    double scale;
    int64_t shift;
    int relu;
} scale_state;

static int32_t scale_prepare(tck_call *call) {
    const tck_attr *scale = tck_attr_get(call, "scale"), *shift = tck_attr_get(call, "shift");
    const tck_attr *mode = tck_attr_get(call, "mode"), *axes = tck_attr_get(call, "axes");
    if (!scale || scale->kind != TCK_ATTR_FLOAT || !shift || shift->kind != TCK_ATTR_INT || !mode ||
        mode->kind != TCK_ATTR_STRING || !axes || axes->kind != TCK_ATTR_INT_LIST)
        return tck_fail(call, TCK_INVALID_ARGUMENT, "scale_shift needs scale (float), shift (int), mode (string) "
                        "and axes (int list)");
    if (strcmp(mode->s, "plain") != 0 && strcmp(mode->s, "relu") != 0)
        return tck_fail(call, TCK_INVALID_ARGUMENT, "scale_shift: unknown mode '%s'", mode->s);
    if (axes->count != 2 || axes->ints[0] != 0 || axes->ints[1] != -1)
        return tck_fail(call, TCK_INVALID_ARGUMENT, "scale_shift: axes must be [0, -1]");
    if (call->num_inputs != 1 || call->num_outputs != 1 || call->inputs[0].element_type != TCK_F32)
        return TCK_DECLINE;
    scale_state *s = (scale_state *)malloc(sizeof *s);
    s->scale = scale->f;
    s->shift = shift->i;
    s->relu = strcmp(mode->s, "relu") == 0;
    call->state = s;
    return TCK_OK;
}

static void scale_release(tck_call *call) {
    free(call->state);
    call->state = NULL;
}

/* Visit every element of a strided input, in row-major order. */
static int32_t scale_run(const tck_call *call, tck_memref *const *inputs, tck_memref *const *outputs) {
    const scale_state *s = (const scale_state *)call->state;
    int32_t rank = call->inputs[0].rank;
    const int64_t *sizes = tck_sizes(inputs[0]), *strides = tck_strides(inputs[0], rank);
    const float *x = tck_data_f32(inputs[0]);
    float *y = tck_data_f32(outputs[0]);
    int64_t n = tck_numel(&call->inputs[0]);
    for (int64_t flat = 0; flat < n; ++flat) {
        int64_t rest = flat, offset = 0;
        for (int32_t d = rank - 1; d >= 0; --d) {
            offset += (rest % sizes[d]) * strides[d];
            rest /= sizes[d];
        }
        float v = (float)(x[offset] * s->scale + (double)s->shift);
        y[flat] = s->relu && v < 0.0f ? 0.0f : v;
    }
    return TCK_OK;
}

static int32_t sqrt_run(const tck_call *call, tck_memref *const *inputs, tck_memref *const *outputs) {
    int64_t n = tck_numel(&call->inputs[0]);
    const float *x = tck_data_f32(inputs[0]);
    float *y = tck_data_f32(outputs[0]);
    for (int64_t i = 0; i < n; ++i) { /* the fixture's modules pass contiguous inputs */
        if (x[i] < 0.0f)
            return tck_fail(call, TCK_INVALID_ARGUMENT, "checked_sqrt: element %lld is negative (%g)", (long long)i,
                            (double)x[i]);
        y[i] = sqrtf(x[i]);
    }
    return TCK_OK;
}

static int32_t noop_run(const tck_call *call, tck_memref *const *inputs, tck_memref *const *outputs) {
    (void)call, (void)inputs, (void)outputs;
    return TCK_OK;
}

static int32_t fake_gelu_run(const tck_call *call, tck_memref *const *inputs, tck_memref *const *outputs) {
    int32_t rank = call->inputs[0].rank;
    int64_t n = tck_numel(&call->inputs[0]);
    const int64_t *sizes = tck_sizes(inputs[0]), *strides = tck_strides(inputs[0], rank);
    const float *x = tck_data_f32(inputs[0]);
    float *y = tck_data_f32(outputs[0]);
    for (int64_t flat = 0; flat < n; ++flat) {
        int64_t rest = flat, offset = 0;
        for (int32_t d = rank - 1; d >= 0; --d) {
            offset += (rest % sizes[d]) * strides[d];
            rest /= sizes[d];
        }
        y[flat] = 1000.0f + x[offset];
    }
    return TCK_OK;
}

static const tck_kernel fixture_kernels[] = {
    {"acme", "scale_shift", TCK_F32, scale_prepare, scale_run, scale_release, "scale_shift f32"},
    {"acme", "checked_sqrt", TCK_F32, NULL, sqrt_run, NULL, "checked_sqrt f32"},
    {"acme", "noop", TCK_F32, NULL, noop_run, NULL, "noop"},
    {"torch_mlir", "torch.aten.gelu", TCK_F32, NULL, fake_gelu_run, NULL, "1000 + x, not gelu"},
};

TCK_DEFINE_LIBRARY(fixture_kernels)
