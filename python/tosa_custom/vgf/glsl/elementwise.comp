// Elementwise activations of the built-in shaders: gelu (erf and tanh forms)
// and silu. X_T and Y_T are the buffers' storage types (float or float16_t);
// the arithmetic is float32, rounded once when stored. COUNT elements; each
// thread takes every STRIDE-th one from its global index, so any count runs
// on a capped dispatch.
// Set by the generator: MODE, COUNT, STRIDE, X_BINDING, Y_BINDING, X_T, Y_T.
#define LOCAL 64
#define MODE_GELU_ERF 0
#define MODE_GELU_TANH 1
#define MODE_SILU 2
layout(local_size_x = LOCAL) in;
layout(std430, set = 0, binding = X_BINDING) readonly buffer XBuffer { X_T x[]; };
layout(std430, set = 0, binding = Y_BINDING) writeonly buffer YBuffer { Y_T y[]; };

// erf in float32: x * P(x^2) for |x| <= 1, else 1 - exp(Q(|x| - 2.5)) (Q fits
// log(erfc) on [1, 4]), 1 past 4. Least-squares fits on Chebyshev nodes;
// measured within 1.5e-7 of erf in float32 arithmetic (GLSL has no erf).
float erf32(float v) {
    float a = abs(v);
    if (a <= 1.0) {
        float s = v * v;
        float p = 7.933493907330558e-05;
        p = fma(p, s, -0.0008034846396185458);
        p = fma(p, s, 0.005191218573600054);
        p = fma(p, s, -0.02685539983212948);
        p = fma(p, s, 0.11283625662326813);
        p = fma(p, s, -0.3761262893676758);
        p = fma(p, s, 1.128379225730896);
        return v * p;
    }
    if (a >= 4.0) {
        return sign(v);
    }
    float u = a - 2.5;
    float q = -4.802493069888669e-09;
    q = fma(q, u, 1.7774643978896165e-08);
    q = fma(q, u, -8.631706904793646e-09);
    q = fma(q, u, -1.7580919120518956e-07);
    q = fma(q, u, 1.762904503266327e-06);
    q = fma(q, u, -1.2728676665574312e-05);
    q = fma(q, u, 7.70355763961561e-05);
    q = fma(q, u, -0.0004209505277685821);
    q = fma(q, u, 0.0021654751617461443);
    q = fma(q, u, -0.010858067311346531);
    q = fma(q, u, -0.9438937306404114);
    q = fma(q, u, -5.352680683135986);
    q = fma(q, u, -7.806815147399902);
    return sign(v) * (1.0 - exp(q));
}

float activate(float v) {
#if MODE == MODE_GELU_ERF
    return 0.5 * v * (1.0 + erf32(v * 0.7071067811865476));
#elif MODE == MODE_GELU_TANH
    // 0.5 * (1 + tanh(k)) is 1 / (1 + exp(-2k)): no tanh, whose GLSL form
    // may overflow to inf / inf for large arguments.
    float k = 0.7978845608028654 * (v + 0.044715 * v * v * v);
    return v / (1.0 + exp(-2.0 * k));
#else
    return v / (1.0 + exp(-v));
#endif
}

void main() {
    for (uint i = gl_GlobalInvocationID.x; i < COUNT; i += STRIDE) {
        y[i] = Y_T(activate(float(x[i])));
    }
}
