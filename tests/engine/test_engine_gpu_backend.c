/*
 * The production back-end's device choice (backend.gpus) and what of the
 * GPU path can be checked without a GPU: option parsing and its errors,
 * the one log line, the CPU path through the engine (proofs valid, the
 * prove_start/prove_finish wrappers), and in CUDA builds the resident-set
 * identity (pointer + generation: a new set at a freed set's address is
 * not taken for it) on a host-only context. Built twice: against the real
 * CUDA layer (no device here: the CPU path), and as test_engine_gpu_double
 * against the host double of the CUDA runtime (tests/cuda/double), where
 * one "GPU" opens and the engine's jobs run the back-end's GPU path —
 * contexts, region hooks on the engine's device lock, resident parameters,
 * uploads outside the region, the proofs checked by the engine. The real
 * device runs it in tools/device-check-cuzkd.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "testutil.h"
#include "cuzk/prover.h"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/cuda.h"
#include "cuda/ctx_internal.h"
#endif

static char g_dir[512];

/* The log stream stays open while the back-end lives (it logs loads to
 * it): close with done(). *log is valid after fflush. */
typedef struct {
    FILE *f;
    char *buf;
    size_t n;
} logbuf;

static cz_status make(cz_engine_backend *be, const char *gpus, logbuf *lb, cz_errbuf *err)
{
    lb->buf = NULL;
    lb->f = open_memstream(&lb->buf, &lb->n);
    cz_prover_config pc = {.param_dir = g_dir, .threads = 2, .auto_setup = true, .gpus = gpus, .log = lb->f};
    cz_status st = cz_prover_backend_create(be, &pc, err);
    fflush(lb->f);
    return st;
}

static void done(logbuf *lb)
{
    fclose(lb->f);
    free(lb->buf);
}

static size_t lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_gpus_option_errors(void **state)
{
    (void)state;
    const char *bad[] = {"x", "0,0", "1;2", "-1", "64", "0,", "gpu0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cz_engine_backend be;
        cz_errbuf err = {{0}};
        logbuf log;
        assert_int_equal(make(&be, bad[i], &log, &err), CZ_ERR_INVALID_ARG);
        char want[64];
        snprintf(want, sizeof want, "backend.gpus = '%s'", bad[i]);
        assert_non_null(strstr(err.msg, want));
        done(&log);
    }
    /* a list of GPUs where none can be opened names the cause */
    cz_engine_backend be;
    cz_errbuf err = {{0}};
    logbuf log;
    cz_status st = make(&be, "0", &log, &err);
#ifdef CUZK_HAVE_CUDA
    if (cz_cuda_device_count() == 0) {
        assert_int_equal(st, CZ_ERR_NOT_FOUND);
        assert_non_null(strstr(err.msg, "CUDA device 0 requested, 0 present"));
    } else {
        assert_int_equal(st, CZ_OK);
        cz_prover_backend_destroy(&be);
    }
#else
    assert_int_equal(st, CZ_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "CUDA not built"));
#endif
    done(&log);
}

static void test_cpu_modes(void **state)
{
    (void)state;
    const char *modes[] = {"none", "auto", NULL};
    for (size_t i = 0; i < 3; i++) {
        cz_engine_backend be;
        cz_errbuf err = {{0}};
        logbuf log;
        assert_int_equal(make(&be, modes[i], &log, &err), CZ_OK);
        assert_int_equal(lines(log.buf), 1); /* ONE line says where proofs are made */
        const char *sum = cz_prover_backend_device_summary(&be);
        assert_non_null(strstr(log.buf, sum));
        unsigned n = cz_prover_backend_gpus(&be);
        if (i == 0) {
            assert_int_equal(n, 0);
            assert_string_equal(sum, "backend.gpus = none: proving on the CPU");
        } else if (n == 0) {
#ifdef CUZK_HAVE_CUDA
            assert_string_equal(sum, "no CUDA device: proving on the CPU");
#else
            assert_string_equal(sum, "CUDA not built: proving on the CPU");
#endif
        }
        assert_int_equal(be.backend_locks_device, n > 0);
        assert_int_equal(cz_prover_backend_gpu_memory(&be, n), 0);
        char name[64];
        be.device_name(be.ctx, n, name, sizeof name);
        assert_non_null(strstr(name, "CPU"));
        cz_engine_estimate es;
        char msg[256];
        assert_int_equal(be.estimate(be.ctx, "mulchain-64", &es, msg, sizeof msg), CZ_OK);
        if (i == 0) {
            /* the name check a store node makes at submission: the
             * registry's parse only, whatever this process serves */
            assert_int_equal(be.check_circuit(be.ctx, "porep-32g", msg, sizeof msg), CZ_OK);
            assert_int_equal(be.check_circuit(be.ctx, "mulchain-262142", msg, sizeof msg), CZ_OK);
            assert_int_equal(be.check_circuit(be.ctx, "nope", msg, sizeof msg), CZ_ERR_NOT_FOUND);
            assert_non_null(strstr(msg, "unknown circuit 'nope'"));
            assert_int_equal(be.check_circuit(be.ctx, "porep-16g", msg, sizeof msg), CZ_ERR_NOT_FOUND);
            assert_non_null(strstr(msg, "porep-16g"));
            assert_int_equal(be.check_circuit(be.ctx, "mulchain-064", msg, sizeof msg), CZ_ERR_INVALID_ARG);
            assert_non_null(strstr(msg, "not canonical"));
        }
        if (!n) {
            assert_int_equal(es.device_params_bytes, 0); /* no device accounting on the CPU */
            assert_int_equal(es.device_partition_bytes, 0);
        } else {
            assert_true(es.device_params_bytes > 0 && es.device_partition_bytes > 0);
        }
        cz_prover_backend_destroy(&be);
        done(&log);
    }
}

/* Whatever the device choice, jobs through the engine give valid proofs
 * (the engine's self-verification checks them). */
static void test_engine_jobs(void **state)
{
    (void)state;
    cz_engine_backend be;
    cz_errbuf err = {{0}};
    logbuf log;
    assert_int_equal(make(&be, "auto", &log, &err), CZ_OK);
    cz_engine_config c;
    cz_engine_config_default(&c);
    c.memory_budget = 2ull << 30;
    c.backend = be;
    unsigned n = cz_prover_backend_gpus(&be);
#ifdef CZ_TEST_CUDA_DOUBLE
    assert_int_equal(n, 1); /* the double's one device: this is the GPU path */
    assert_non_null(strstr(cz_prover_backend_device_summary(&be), "cuzk host double"));
#endif
    c.devices = n ? n : 1;
    for (unsigned i = 0; i < n; i++)
        c.device_memory[i] = cz_prover_backend_gpu_memory(&be, i);
    cz_engine *e = NULL;
    char msg[256];
    assert_int_equal(cz_engine_create(&e, &c, msg, sizeof msg), CZ_OK);
    cz_job_request rq = {.circuit_id = "mulchain-64", .payload = "", .payload_len = 0, .num_partitions = 3};
    cz_job_id id;
    assert_int_equal(cz_engine_submit(e, &rq, &id, NULL, msg, sizeof msg), CZ_OK);
    cz_job_result r;
    assert_int_equal(cz_engine_await(e, id, 60000, &r), CZ_OK);
    if (r.state != CZ_JOB_DONE)
        fprintf(stderr, "job: %s\n", r.error);
    assert_int_equal(r.state, CZ_JOB_DONE);
    assert_int_equal(r.proof_len, 3 * 192);
    cz_job_result_free(&r);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    assert_non_null(strstr(st.device[0].name, n ? "GPU" : "CPU"));
    assert_int_equal(st.device[0].partitions, 3);
    cz_engine_destroy(e);
    cz_prover_backend_destroy(&be);
    done(&log);
}

#ifdef CUZK_HAVE_CUDA
/* The resident-set identity on a context that never touches a device. */
static void test_resident_identity(void **state)
{
    (void)state;
    uint64_t g1 = cz_cuda_params_generation(), g2 = cz_cuda_params_generation();
    assert_true(g1 != 0 && g2 != 0 && g1 != g2);
    cz_cuda_ctx *ctx = calloc(1, sizeof *ctx);
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->mem_lock, NULL);
    ctx->device = 0;
    static cz_groth16_params p; /* one address, two "loads" */
    ctx->params = &p;
    ctx->params_gen = g1;
    assert_true(cz_cuda_params_resident(ctx, &p, g1));
    assert_false(cz_cuda_params_resident(ctx, &p, g2)); /* same address, new set: not resident */
    assert_false(cz_cuda_params_resident(ctx, NULL, 0));
    cz_cuda_params_release_set(ctx, &p, g2); /* not the resident one: kept */
    assert_true(cz_cuda_params_resident(ctx, &p, g1));
    if (cz_cuda_device_count() == 0) {
        /* no device: releasing forgets the set without any device call
         * succeeding (the pointer is about to be freed) */
        cz_cuda_params_release_set(ctx, &p, g1);
        assert_false(cz_cuda_params_resident(ctx, &p, g1));
        assert_null(ctx->params);
    }
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->mem_lock);
    free(ctx);
}
#endif

static int setup(void **state)
{
    (void)state;
    return cz_test_dir_make(g_dir, sizeof g_dir, "cz-gpu-backend") == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cz_test_dir_remove(g_dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpus_option_errors),
        cmocka_unit_test(test_cpu_modes),
        cmocka_unit_test(test_engine_jobs),
#ifdef CUZK_HAVE_CUDA
        cmocka_unit_test(test_resident_identity),
#endif
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
