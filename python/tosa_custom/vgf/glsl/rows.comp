// Row operations of the built-in shaders: layer_norm, rms_norm, softmax and
// log_softmax. Each buffer is float32 or float16 (its storage type, X_T, W_T,
// B_T, Y_T); the arithmetic is float32, as PyTorch's CPU kernels compute half
// tensors, rounded once when stored. One workgroup per row: ROWS rows of LEN
// elements, element j of row r at (r / INNER) * LEN * INNER + j * INNER + r % INNER
// (INNER > 1: a softmax over a dim that is not the last). The LOCAL threads
// of a workgroup stride over the row, so a row may be longer than the
// workgroup, and reduce their partial sums through shared memory. Rows past
// the first 65535 workgroups continue in y (GROUPS_X per y). Statistics are
// two-pass (mean, then squared deviations), as PyTorch computes them.
// Set by the generator: MODE, ROWS, LEN, INNER, GROUPS_X, EPS, HAS_WEIGHT,
// HAS_BIAS, the bindings X_BINDING, W_BINDING, B_BINDING, Y_BINDING and the
// storage types X_T, W_T, B_T, Y_T (with the 16-bit storage extensions where
// one is float16_t).
#define LOCAL 64
#define MODE_LAYER_NORM 0
#define MODE_RMS_NORM 1
#define MODE_SOFTMAX 2
#define MODE_LOG_SOFTMAX 3
layout(local_size_x = LOCAL) in;
layout(std430, set = 0, binding = X_BINDING) readonly buffer XBuffer { X_T x[]; };
#if HAS_WEIGHT
layout(std430, set = 0, binding = W_BINDING) readonly buffer WBuffer { W_T w[]; };
#endif
#if HAS_BIAS
layout(std430, set = 0, binding = B_BINDING) readonly buffer BBuffer { B_T b[]; };
#endif
layout(std430, set = 0, binding = Y_BINDING) writeonly buffer YBuffer { Y_T y[]; };

shared float partial[LOCAL];

// The workgroup's values of `v` combined: a sum, or a max when `take_max`.
float reduce(float v, bool take_max) {
    uint t = gl_LocalInvocationID.x;
    partial[t] = v;
    barrier();
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        if (t < s) {
            partial[t] = take_max ? max(partial[t], partial[t + s]) : partial[t] + partial[t + s];
        }
        barrier();
    }
    float result = partial[0];
    barrier();  // partial[] is reused by the next reduction
    return result;
}

void main() {
    uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * GROUPS_X;
    if (row >= ROWS) {
        return;  // the whole workgroup: no barrier is left half-reached
    }
    uint t = gl_LocalInvocationID.x;
    uint base = (row / INNER) * LEN * INNER + row % INNER;
#if MODE == MODE_LAYER_NORM || MODE == MODE_RMS_NORM
    float acc = 0.0;
#if MODE == MODE_LAYER_NORM
    for (uint j = t; j < LEN; j += LOCAL) {
        acc += float(x[base + j * INNER]);
    }
    float mean = reduce(acc, false) / float(LEN);
    acc = 0.0;
    for (uint j = t; j < LEN; j += LOCAL) {
        float d = float(x[base + j * INNER]) - mean;
        acc += d * d;
    }
#else
    float mean = 0.0;
    for (uint j = t; j < LEN; j += LOCAL) {
        float v = float(x[base + j * INNER]);
        acc += v * v;
    }
#endif
    float scale = 1.0 / sqrt(reduce(acc, false) / float(LEN) + EPS);
    for (uint j = t; j < LEN; j += LOCAL) {
        float v = (float(x[base + j * INNER]) - mean) * scale;
#if HAS_WEIGHT
        v *= float(w[j]);
#endif
#if HAS_BIAS
        v += float(b[j]);
#endif
        y[base + j * INNER] = Y_T(v);
    }
#else
    float top = uintBitsToFloat(0xff800000u);  // -inf
    for (uint j = t; j < LEN; j += LOCAL) {
        top = max(top, float(x[base + j * INNER]));
    }
    top = reduce(top, true);
    float acc = 0.0;
    for (uint j = t; j < LEN; j += LOCAL) {
        acc += exp(float(x[base + j * INNER]) - top);
    }
    float total = reduce(acc, false);
#if MODE == MODE_SOFTMAX
    for (uint j = t; j < LEN; j += LOCAL) {
        y[base + j * INNER] = Y_T(exp(float(x[base + j * INNER]) - top) / total);
    }
#else
    float shift = top + log(total);
    for (uint j = t; j < LEN; j += LOCAL) {
        y[base + j * INNER] = Y_T(float(x[base + j * INNER]) - shift);
    }
#endif
#endif
}
