/*
 * The built-in native kernels of kept ops in quantized models (CONTRACT.md
 * §18): layer_norm, rms_norm, softmax, log_softmax, gelu and silu on int8
 * operands and results whose scale, zero point and range implementation_attrs
 * carries. Each computes
 * the contract's meaning, quantize(op(dequantize(x))), in PT2E's arithmetic:
 * dequantize is (q - zero_point) * float32(scale) in float32; quantize is
 * round_half_even(y * float32(1 / scale)) + zero_point, clamped to
 * [quant_min, quant_max].
 *
 * gelu and silu are elementwise on 256 possible inputs: a table computed at
 * prepare (each input dequantized, the op in double, rounded to float32,
 * quantized), so run only indexes it. The others dequantize each row into
 * float32 scratch, run the f32 row kernels of kernels.c (sums in double) and
 * quantize the row. Either way the float32 value quantized may
 * differ from eager PyTorch's by its last bits, which changes the integer
 * only where that value lies within those bits of a half-way point: then
 * by 1 (CONTRACT.md §18.6 gives the guarantee).
 *
 * Included by kernels.c (one translation unit: it reuses the f32 rows, the
 * plans and their checks); not compiled alone.
 */

/* How one int8 tensor reads (dequantize) or is written (quantize). */
typedef struct qside {
    float scale;   /* dequantize: float32(scale) */
    float inverse; /* quantize: float32(1 / scale), the reciprocal in double, as PT2E's kernel */
    float zero_point, low, high;
} qside;

typedef struct qplan {
    plan base; /* first: check_sizes, remember_normalized and release_plan read it */
    qside in, out;
    int8_t table[256]; /* gelu, silu: the result for input q at table[q + 128] */
    /* layer_norm, rms_norm: a weight quantized to int8 (per tensor, or per channel along its one dim),
       dequantized at each call as PT2E's dequantize does: (q - zero_point) * float32(scale[c]). */
    int32_t weight_scales; /* 0: a float32 weight or none; 1: per tensor; else one scale per channel */
    float weight_zero;
    float weight_scale[]; /* weight_scales of them */
} qplan;

static inline float dequantize_i8(int8_t q, const qside *s) { return ((float)q - s->zero_point) * s->scale; }

static inline int8_t quantize_i8(float y, const qside *s) {
    float v = rintf(y * s->inverse) + s->zero_point; /* rint: half to even, the default rounding mode */
    v = v < s->low ? s->low : (v > s->high ? s->high : v);
    return v == v ? (int8_t)v : (int8_t)0;
}

/* Operand (result 0) or result (1) `index`, per tensor, in int8's range: its qside; else 0 (decline). */
static int read_qside(const tck_call *call, int32_t result, int32_t index, qside *s) {
    tck_quantization q;
    if (tck_quantization_of(call, result, index, &q) != TCK_QUANT_PER_TENSOR) return 0;
    if (q.quant_min < -128 || q.quant_max > 127 || q.quant_min > q.zero_point || q.zero_point > q.quant_max) return 0;
    s->scale = (float)q.scale;
    s->inverse = (float)(1.0 / q.scale);
    s->zero_point = (float)q.zero_point;
    s->low = (float)q.quant_min;
    s->high = (float)q.quant_max;
    return 1;
}

/* The int8 twin of make_plan: input `input` and result 0 int8, quantized per tensor. */
static int32_t make_qplan(tck_call *call, row_fn fn, int32_t input, int32_t a, int32_t b, int32_t weight,
                          int32_t bias, double eps, int32_t elementwise, int32_t parallel) {
    qside in, out;
    if (call->num_outputs != 1 || call->outputs[0].element_type != TCK_I8 || !read_qside(call, 0, input, &in) ||
        !read_qside(call, 1, 0, &out))
        return TCK_DECLINE;
    if (!same_shape(&call->inputs[input], &call->outputs[0]))
        return tck_fail(call, TCK_INVALID_ARGUMENT, "%s: result shape differs from the input's", call->operator_name);
    qplan *p = (qplan *)calloc(1, sizeof(qplan));
    if (!p) return tck_fail(call, TCK_ERROR, "out of memory");
    plan *b0 = &p->base;
    b0->fn = fn, b0->input = input, b0->weight = weight, b0->bias = bias, b0->rank = call->inputs[input].rank;
    b0->a = a, b0->b = b, b0->param_rank = b - a, b0->eps = eps, b0->elementwise = elementwise;
    p->in = in, p->out = out;
    call->state = p;
    tck_split_leading(call, parallel);
    return TCK_OK;
}

/* ---- Rows of int8 memrefs. ------------------------------------------------ */

typedef void (*qrow_fn)(const int8_t *x, int8_t *y, int64_t n, const qplan *p, const row_params *rp, float *work);

static void gather_i8(const int8_t *x, const int64_t *sizes, const int64_t *strides, int32_t k, int8_t *dst) {
    if (k == 0) {
        *dst = *x;
        return;
    }
    int64_t inner = 1;
    for (int32_t j = 1; j < k; ++j) inner *= sizes[j];
    for (int64_t i = 0; i < sizes[0]; ++i) gather_i8(x + i * strides[0], sizes + 1, strides + 1, k - 1, dst + i * inner);
}

static void scatter_i8(const int8_t *src, int8_t *y, const int64_t *sizes, const int64_t *strides, int32_t k) {
    if (k == 0) {
        *y = *src;
        return;
    }
    int64_t inner = 1;
    for (int32_t j = 1; j < k; ++j) inner *= sizes[j];
    for (int64_t i = 0; i < sizes[0]; ++i) scatter_i8(src + i * inner, y + i * strides[0], sizes + 1, strides + 1, k - 1);
}

static inline int8_t *data_i8(const tck_memref *m) { return (int8_t *)m->aligned + m->offset; }

/* fn over every row of `in` along dims [a, b), as map_rows; scratch: 2 x n
   bytes for rows that are not contiguous, work: what fn needs (2 x n floats). */
static void map_rows_i8(const tck_memref *in, const tck_memref *out, int32_t rank, int32_t a, int32_t b,
                        int8_t *scratch, qrow_fn fn, const qplan *p, const row_params *rp, float *work) {
    const int64_t *sizes = tck_sizes(in), *xs = tck_strides(in, rank), *ys = tck_strides(out, rank);
    int64_t n = 1, total = 1;
    for (int32_t k = a; k < b; ++k) n *= sizes[k];
    for (int32_t k = 0; k < rank; ++k) total *= sizes[k];
    if (total == 0) return;
    int xdirect = contiguous(in, rank, a, b), ydirect = contiguous(out, rank, a, b);
    const int8_t *x = data_i8(in);
    int8_t *y = data_i8(out), *xbuf = scratch, *ybuf = scratch + n;
    int32_t outer[MAX_RANK], no = 0;
    int64_t idx[MAX_RANK], xo = 0, yo = 0;
    for (int32_t k = 0; k < rank; ++k)
        if (k < a || k >= b) outer[no] = k, idx[no++] = 0;
    for (;;) {
        const int8_t *xr = x + xo;
        if (!xdirect) gather_i8(xr, sizes + a, xs + a, b - a, xbuf), xr = xbuf;
        fn(xr, ydirect ? y + yo : ybuf, n, p, rp, work);
        if (!ydirect) scatter_i8(ybuf, y + yo, sizes + a, ys + a, b - a);
        int32_t k = no - 1;
        for (; k >= 0; --k) {
            int32_t d = outer[k];
            if (++idx[k] < sizes[d]) {
                xo += xs[d], yo += ys[d];
                break;
            }
            xo -= (sizes[d] - 1) * xs[d], yo -= (sizes[d] - 1) * ys[d];
            idx[k] = 0;
        }
        if (k < 0) break;
    }
}

/* HOT (kernels.c): the AVX2 clone rounds with roundss (SSE4.1) inline, the baseline calls rintf. */
HOT static void table_row(const int8_t *x, int8_t *y, int64_t n, const qplan *p, const row_params *rp, float *work) {
    (void)rp, (void)work;
    for (int64_t i = 0; i < n; ++i) y[i] = p->table[x[i] + 128];
}

/* Dequantize the row, the f32 row kernel, quantize. */
HOT static void float_row(const int8_t *x, int8_t *y, int64_t n, const qplan *p, const row_params *rp, float *work) {
    float *xf = work, *yf = work + n;
    for (int64_t i = 0; i < n; ++i) xf[i] = dequantize_i8(x[i], &p->in);
    p->base.fn(xf, yf, n, rp);
    for (int64_t i = 0; i < n; ++i) y[i] = quantize_i8(yf[i], &p->out);
}

/* The int8 weight as float32, in dst (its elements gathered through `bytes` first: 2 x row of them,
   free until the rows are mapped). */
static const float *dequantized_weight(const tck_memref *m, const qplan *p, int8_t *bytes, float *dst) {
    int32_t k = p->base.param_rank;
    const int64_t *sizes = tck_sizes(m);
    int64_t n = 1;
    for (int32_t j = 0; j < k; ++j) n *= sizes[j];
    gather_i8(data_i8(m), sizes, tck_strides(m, k), k, bytes);
    for (int64_t i = 0; i < n; ++i) /* per channel: a weight of one dim, a scale per element */
        dst[i] = ((float)bytes[i] - p->weight_zero) * p->weight_scale[p->weight_scales == 1 ? 0 : i];
    return dst;
}

static int32_t run_qplan(const tck_call *call, tck_memref *const *inputs, tck_memref *const *outputs) {
    const qplan *p = (const qplan *)call->state;
    const plan *pl = &p->base;
    const tck_memref *in = inputs[pl->input], *out = outputs[0];
    int32_t checked = check_sizes(call, pl, inputs, out);
    if (checked != TCK_OK) return checked;
    int32_t a = pl->a, b = pl->b;
    int table = pl->fn == NULL;
    if (table && pl->rank > 0 && !(contiguous(in, pl->rank, 0, pl->rank) && contiguous(out, pl->rank, 0, pl->rank)))
        a = pl->rank - 1; /* one row if both are contiguous, else rows of the last dim */
    int64_t row = 1;
    for (int32_t k = a; k < b; ++k) row *= tck_sizes(in)[k];
    row = row > 0 ? row : 1;
    /* floats: the row in and out, weight, bias; then 2 rows of int8 (as floats, rounded up) */
    size_t need = (size_t)(table ? 0 : 4 * row) + (size_t)(2 * row + 3) / 4;
    float stack[STACK_FLOATS];
    float *work = need <= STACK_FLOATS ? stack : (float *)malloc(sizeof(float) * need);
    if (!work)
        return tck_fail(call, TCK_ERROR, "%s: out of memory for %lld floats of scratch", call->operator_name,
                        (long long)need);
    int8_t *bytes = (int8_t *)(work + (table ? 0 : 4 * row));
    row_params rp = {pl->eps, NULL, NULL};
    if (pl->weight >= 0)
        rp.weight = p->weight_scales ? dequantized_weight(inputs[pl->weight], p, bytes, work + 2 * row)
                                     : dense(inputs[pl->weight], pl->param_rank, work + 2 * row);
    if (pl->bias >= 0) rp.bias = dense(inputs[pl->bias], pl->param_rank, work + 3 * row);
    map_rows_i8(in, out, pl->rank, a, b, bytes, table ? table_row : float_row, p, &rp, work);
    if (work != stack) free(work);
    return TCK_OK;
}

/* ---- prepare. --------------------------------------------------------------- */

/* The int8 tensor operand `name` (its input index), or a negative value as tensor_operand. */
static int32_t int8_operand(tck_call *call, const char *name) {
    const tck_attr *at = tck_attr_get(call, name);
    if (!at || at->kind != TCK_ATTR_OPERAND || at->i < 0 || at->i >= call->num_inputs) return -3;
    const tck_tensor_type *t = &call->inputs[at->i];
    return t->element_type == TCK_I8 && t->rank <= MAX_RANK ? (int32_t)at->i : -3;
}

/* An int8 weight operand's scales (`count` of them: 1 per tensor) into `scales`, and its zero point; else 0. */
static int read_weight_scales(const tck_call *call, int32_t index, int32_t count, float *scales, float *zero) {
    tck_quantization q;
    int32_t kind = tck_quantization_of(call, 0, index, &q);
    if (kind == TCK_QUANT_PER_TENSOR) {
        scales[0] = (float)q.scale;
    } else if (kind == TCK_QUANT_PER_CHANNEL && q.axis == 0 && q.num_scales == count) {
        char key[16];
        snprintf(key, sizeof key, "%d", (int)index);
        const char *list = tck_json_member(tck_json_member(tck_json_member(call->implementation_attrs,
                                                                           "quantization"), "operands"), key);
        const char *p = tck_json_space(tck_json_member(list, "scale") + 1); /* past '[': checked by the reader */
        for (int32_t i = 0; i < count; ++i) {
            char *end;
            scales[i] = (float)strtod(p, &end); /* float32(scale), as PT2E's dequantize takes it */
            p = tck_json_space(end);
            p = tck_json_space(*p == ',' ? p + 1 : p);
        }
    } else {
        return 0;
    }
    *zero = (float)q.zero_point;
    return q.quant_min >= -128 && q.quant_max <= 127;
}

/* The weight operand (-1 if None) of layer_norm / rms_norm: float32, or int8 quantized per tensor or
   per channel along a weight of one dim, whose parameters are kept in the plan (call->state, grown). */
static int32_t norm_weight(tck_call *call, int32_t *index) {
    const tck_attr *at = tck_attr_get(call, "weight");
    *index = tensor_operand(call, "weight", 1);
    if (*index != -3 || !at || at->kind != TCK_ATTR_OPERAND || at->i < 0 || at->i >= call->num_inputs ||
        call->inputs[at->i].element_type != TCK_I8)
        return 0;
    *index = (int32_t)at->i;
    const tck_tensor_type *w = &call->inputs[*index];
    tck_quantization q;
    int32_t kind = tck_quantization_of(call, 0, *index, &q);
    if (kind == TCK_QUANT_PER_TENSOR) return 1;
    if (kind == TCK_QUANT_PER_CHANNEL && w->rank == 1 && q.axis == 0 && q.num_scales == w->shape[0])
        return q.num_scales;
    *index = -3; /* unquantized int8, or per channel along another dim or of another count: declined */
    return 0;
}

/* After make_qplan: the plan grown to hold the int8 weight's `count` scales, read. */
static int32_t keep_weight_scales(tck_call *call, int32_t index, int32_t count) {
    if (count == 0) return TCK_OK;
    qplan *p = (qplan *)realloc(call->state, sizeof(qplan) + sizeof(float) * (size_t)count);
    if (!p) return tck_fail(call, TCK_ERROR, "out of memory");
    call->state = p;
    p->weight_scales = count;
    if (!read_weight_scales(call, index, count, p->weight_scale, &p->weight_zero)) {
        release_plan(call);
        return TCK_DECLINE;
    }
    return TCK_OK;
}

static int32_t prepare_layer_norm_i8(tck_call *call) {
    int32_t x = int8_operand(call, "input"), w, b = tensor_operand(call, "bias", 1);
    int32_t scales = norm_weight(call, &w);
    const tck_attr *shape = tck_attr_get(call, "normalized_shape"), *eps = tck_attr_get(call, "eps");
    if (x < 0 || w < -1 || b < -1 || !shape || shape->kind != TCK_ATTR_INT_LIST || !eps || eps->kind != TCK_ATTR_FLOAT)
        return TCK_DECLINE; /* a quantized bias: the generic kernel dequantizes it */
    int32_t st = check_normalized(call, shape, x, w, b);
    if (st != TCK_OK) return st;
    int32_t rank = call->inputs[x].rank;
    st = make_qplan(call, layer_norm_row, x, rank - shape->count, rank, w, b, eps->f, 0, rank - shape->count);
    if (st == TCK_OK) st = keep_weight_scales(call, w, scales);
    return st == TCK_OK ? remember_normalized(call, shape) : st;
}

/* rms_norm as layer_norm (its weight float32, int8 or none); eps None is float32's. */
static int32_t prepare_rms_norm_i8(tck_call *call) {
    int32_t x = int8_operand(call, "input"), w;
    int32_t scales = norm_weight(call, &w);
    const tck_attr *shape = tck_attr_get(call, "normalized_shape"), *eps = tck_attr_get(call, "eps");
    if (x < 0 || w < -1 || !shape || shape->kind != TCK_ATTR_INT_LIST || !eps ||
        !(eps->kind == TCK_ATTR_NONE || eps->kind == TCK_ATTR_FLOAT))
        return TCK_DECLINE;
    int32_t st = check_normalized(call, shape, x, w, -1);
    if (st != TCK_OK) return st;
    int32_t rank = call->inputs[x].rank;
    double e = eps->kind == TCK_ATTR_NONE ? FLT_EPSILON : eps->f; /* eager's default for the float32 it computes in */
    st = make_qplan(call, rms_norm_row, x, rank - shape->count, rank, w, -1, e, 0, rank - shape->count);
    if (st == TCK_OK) st = keep_weight_scales(call, w, scales);
    return st == TCK_OK ? remember_normalized(call, shape) : st;
}

/* softmax / log_softmax (the .int forms without a dtype cast, the _ forms without half_to_float). */
static int32_t prepare_softmax_like_i8(tck_call *call, row_fn fn) {
    int32_t x = int8_operand(call, "self");
    const tck_attr *dim = tck_attr_get(call, "dim"), *dtype = tck_attr_get(call, "dtype");
    const tck_attr *half = tck_attr_get(call, "half_to_float");
    if (x < 0 || !dim || dim->kind != TCK_ATTR_INT || (dtype && dtype->kind != TCK_ATTR_NONE) ||
        (half && !(half->kind == TCK_ATTR_BOOL && half->i == 0)))
        return TCK_DECLINE;
    int32_t rank = call->inputs[x].rank, extent = rank > 0 ? rank : 1;
    int64_t d = dim->i;
    if (d < -extent || d >= extent)
        return tck_fail(call, TCK_INVALID_ARGUMENT, "%s: dim %lld is out of range for a rank-%d input",
                        call->operator_name, (long long)d, (int)rank);
    d = d < 0 ? d + extent : d;
    if (rank == 0) return make_qplan(call, fn, x, 0, 0, -1, -1, 0.0, 0, 0);
    return make_qplan(call, fn, x, (int32_t)d, (int32_t)d + 1, -1, -1, 0.0, 0, (int32_t)d);
}

static int32_t prepare_softmax_i8(tck_call *call) { return prepare_softmax_like_i8(call, softmax_row); }
static int32_t prepare_log_softmax_i8(tck_call *call) { return prepare_softmax_like_i8(call, log_softmax_row); }

/* gelu (erf or tanh form) and silu in double, for the table. */
static double gelu_erf_f64(double x) { return 0.5 * x * erfc(-x * 0.70710678118654752440); }
static double gelu_tanh_f64(double x) {
    return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
static double silu_f64(double x) { return x / (1.0 + exp(-x)); }

static int32_t prepare_table(tck_call *call, double (*f)(double)) {
    int32_t x = int8_operand(call, "self");
    if (x < 0) return TCK_DECLINE;
    int32_t rank = call->inputs[x].rank;
    int32_t st = make_qplan(call, NULL, x, 0, rank, -1, -1, 0.0, 1, rank);
    if (st != TCK_OK) return st;
    qplan *p = (qplan *)call->state;
    for (int q = -128; q < 128; ++q) p->table[q + 128] = quantize_i8((float)f((double)dequantize_i8((int8_t)q, &p->in)), &p->out);
    return TCK_OK;
}

static int32_t prepare_gelu_i8(tck_call *call) {
    const tck_attr *approximate = tck_attr_get(call, "approximate");
    if (!approximate || approximate->kind != TCK_ATTR_STRING) return TCK_DECLINE;
    if (strcmp(approximate->s, "none") == 0) return prepare_table(call, gelu_erf_f64);
    if (strcmp(approximate->s, "tanh") == 0) return prepare_table(call, gelu_tanh_f64);
    return tck_fail(call, TCK_INVALID_ARGUMENT, "gelu: approximate must be 'none' or 'tanh', got '%s'",
                    approximate->s);
}

static int32_t prepare_silu_i8(tck_call *call) { return prepare_table(call, silu_f64); }
