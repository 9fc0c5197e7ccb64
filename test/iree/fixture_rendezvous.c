/*
 * A kernel that fails only once another call of it is under way, for the
 * test that two failing calls (two threads, two programs) each report their
 * own failure:
 *
 *   acme::rendezvous_fail [f32]  waits until a second call has arrived (calls
 *       pair up in arrival order), then fails with TCK_INVALID_ARGUMENT naming
 *       its first input element; alone after 10 s, it fails saying so.
 *
 * Both failures are thus pending at the same time, whatever the scheduling.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdatomic.h>
#include <time.h>

#include "tosa_custom_kernel.h"

static atomic_int arrived;

static int32_t rendezvous_run(const tck_call *call, tck_memref *const *inputs, tck_memref *const *outputs) {
    (void)outputs;
    int me = atomic_fetch_add(&arrived, 1);
    int target = (me / 2 + 1) * 2; /* this call's pair is complete when `arrived` reaches it */
    struct timespec pause = {0, 1000000};
    for (int waited = 0; atomic_load(&arrived) < target; ++waited) {
        if (waited == 10000) return tck_fail(call, TCK_ERROR, "rendezvous_fail: no other call arrived");
        nanosleep(&pause, NULL);
    }
    return tck_fail(call, TCK_INVALID_ARGUMENT, "rendezvous_fail: first element %g", (double)tck_data_f32(inputs[0])[0]);
}

static const tck_kernel rendezvous_kernels[] = {
    {"acme", "rendezvous_fail", TCK_F32, NULL, rendezvous_run, NULL, "rendezvous_fail f32"},
};

TCK_DEFINE_LIBRARY(rendezvous_kernels)
