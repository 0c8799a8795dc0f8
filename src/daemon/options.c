/*
 * cuzkd's program logic (cz_daemon_main): command-line options over the
 * config file over the defaults, the back-end choice, and the run.
 * Precedence: defaults < --config file < the other options, in order.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuzk/daemon.h"
#ifdef CZ_HAVE_PROVER
#include "cuzk/prover.h"
#endif

/* engine.device_memory[] from [engine] device_memory: an explicit size
 * (or 0) for every device; auto = gpu_mem[i] for the GPUs (NULL: none),
 * 0 (no accounting) for any other device. */
static void apply_device_memory(cz_daemon_config *cfg, const uint64_t *gpu_mem, unsigned n_gpu)
{
    for (unsigned i = 0; i < cfg->engine.devices && i < CZ_ENGINE_MAX_DEVICES; i++)
        cfg->engine.device_memory[i] = cfg->device_memory != CZ_DAEMON_DEVICE_MEMORY_AUTO ? cfg->device_memory
                                       : gpu_mem && i < n_gpu                             ? gpu_mem[i]
                                                                                          : 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzkd [options]\n"
            "  --config FILE          INI configuration (docs/cuzkd.ini.example)\n"
            "  --listen ADDR          HTTP: unix:/path | /path | HOST:PORT | [V6]:PORT | off (default\n"
            "                         unix:$XDG_RUNTIME_DIR/cuzkd.sock, root: unix:/run/cuzkd/cuzkd.sock)\n"
            "  --grpc-listen ADDR     gRPC (Curio's cuzk.v1.ProvingEngine), same forms; default off\n"
            "  --token-file FILE      bearer token (required for non-loopback TCP)\n"
            "  --param-dir DIR        parameter directory\n"
            "  --backend groth16|test back-end (test = test double, for tests only)\n"
            "  --log-level LEVEL      error | warn | info | debug\n"
            "  --set SECTION.KEY=VAL  any configuration key (repeatable)\n"
            "  --print-config         print the resolved configuration and exit\n"
            "  --help, --version\n"
            "Signals: SIGTERM/SIGINT stop accepting, cancel queued jobs, then finish running ones\n"
            "(engine.drain_on_shutdown, engine.drain_timeout_ms) and exit 0; a second SIGTERM/SIGINT\n"
            "cancels them at once; SIGHUP is ignored.\n");
}

int cz_daemon_main(int argc, char **argv)
{
    /* Block the stop signals before any thread exists (the back-end's and
     * the engine's threads inherit the mask; cz_daemon_run sigwaits). */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    cz_daemon_config *cfg = malloc(sizeof *cfg);
    if (!cfg)
        return 1;
    cz_daemon_config_default(cfg);
    cz_errbuf err = {{0}};
    bool print_only = false;
    /* pass 1: the config file */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            free(cfg);
            return 0;
        }
        if (!strcmp(argv[i], "--version")) {
            printf("cuzkd %s\n", CUZK_VERSION);
            free(cfg);
            return 0;
        }
        if (!strcmp(argv[i], "--config")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzkd: --config needs a file\n");
                free(cfg);
                return 2;
            }
            if (cz_daemon_config_load(cfg, argv[++i], &err) != CZ_OK) {
                fprintf(stderr, "cuzkd: %s\n", err.msg);
                free(cfg);
                return 2;
            }
        }
    }
    /* pass 2: overrides, in order */
    static const struct {
        const char *flag, *section, *key;
    } flags[] = {
        {"--listen", "daemon", "listen"},       {"--token-file", "daemon", "token_file"},
        {"--grpc-listen", "grpc", "listen"},
        {"--param-dir", "backend", "param_dir"}, {"--backend", "backend", "type"},
        {"--log-level", "daemon", "log_level"},
    };
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config")) {
            i++;
            continue;
        }
        if (!strcmp(argv[i], "--print-config")) {
            print_only = true;
            continue;
        }
        bool done = false;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0] && !done; k++) {
            if (strcmp(argv[i], flags[k].flag))
                continue;
            done = true;
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzkd: %s needs a value\n", argv[i]);
                free(cfg);
                return 2;
            }
            if (cz_daemon_config_set(cfg, flags[k].section, flags[k].key, argv[++i], &err) != CZ_OK) {
                fprintf(stderr, "cuzkd: %s\n", err.msg);
                free(cfg);
                return 2;
            }
        }
        if (done)
            continue;
        if (!strcmp(argv[i], "--set")) {
            if (i + 1 >= argc || cz_daemon_config_set_arg(cfg, argv[i + 1], &err) != CZ_OK) {
                fprintf(stderr, "cuzkd: %s\n", i + 1 >= argc ? "--set needs section.key=value" : err.msg);
                free(cfg);
                return 2;
            }
            i++;
            continue;
        }
        fprintf(stderr, "cuzkd: unknown option '%s'\n", argv[i]);
        usage(stderr);
        free(cfg);
        return 2;
    }
    cz_daemon_config_print(cfg, print_only ? stdout : stderr);
    if (print_only) {
        free(cfg);
        return 0;
    }

    cz_engine_backend backend;
    int rc;
    if (!strcmp(cfg->backend, "test")) {
        fprintf(stderr, "cuzkd: WARNING: backend = test (a test double: its proofs are not proofs)\n");
        if (cz_daemon_test_backend_create(&backend, cfg) != CZ_OK) {
            free(cfg);
            return 1;
        }
        apply_device_memory(cfg, NULL, 0);
        rc = cz_daemon_run(cfg, &backend);
        cz_daemon_test_backend_destroy(&backend);
    } else {
#ifdef CZ_HAVE_PROVER
        cz_prover_config pc;
        memset(&pc, 0, sizeof pc);
        /* A relative directory is resolved against the working directory,
         * which under a service manager is usually "/": say where it is. */
        char absdir[CZ_DAEMON_PATH_MAX + 4200];
        pc.param_dir = cfg->param_dir;
        if (cfg->param_dir[0] != '/') {
            char cwd[4096];
            if (getcwd(cwd, sizeof cwd)) {
                snprintf(absdir, sizeof absdir, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", cfg->param_dir);
                pc.param_dir = absdir;
                fprintf(stderr, "cuzkd: WARNING: backend.param_dir '%s' is relative: using %s (set an absolute path)\n",
                        cfg->param_dir, absdir);
            }
        }
        pc.threads = cfg->threads;
        pc.auto_setup = cfg->auto_setup;
        pc.params_validate_full = cfg->params_validate_full;
        pc.circuits = cfg->circuits;
        pc.max_constraints = cfg->max_constraints;
        pc.gpus = cfg->gpus;
        pc.msm_tables_bytes = cfg->msm_tables_bytes;
        pc.msm_tables_no_file = !cfg->msm_tables_file;
        pc.log = stderr;
        if (cz_prover_backend_create(&backend, &pc, &err) != CZ_OK) {
            fprintf(stderr, "cuzkd: cannot start the groth16 back-end: %s\n", err.msg);
            free(cfg);
            return 1;
        }
        /* One engine device per GPU unless engine.devices was set (more
         * devices than GPUs: the rest prove on the CPU, cuzk/prover.h). */
        unsigned n_gpu = cz_prover_backend_gpus(&backend);
        if (n_gpu && !cfg->engine_devices_set)
            cfg->engine.devices = n_gpu;
        uint64_t gpu_mem[CZ_PROVER_MAX_GPUS];
        for (unsigned i = 0; i < n_gpu && i < CZ_PROVER_MAX_GPUS; i++)
            gpu_mem[i] = cz_prover_backend_gpu_memory(&backend, i);
        apply_device_memory(cfg, gpu_mem, n_gpu);
        if (n_gpu)
            fprintf(stderr, "cuzkd: engine.devices = %u (%u GPU(s)%s), workers_per_device = %u, "
                    "device_quarantine_after = %u\n",
                    cfg->engine.devices, n_gpu, cfg->engine_devices_set ? ", engine.devices as configured" : "",
                    cfg->engine.workers_per_device, cfg->engine.device_quarantine_after);
        rc = cz_daemon_run(cfg, &backend);
        cz_prover_backend_destroy(&backend);
#else
        fprintf(stderr, "cuzkd: this build has no groth16 back-end (cuzk/prover.h); use backend = test\n");
        rc = 1;
#endif
    }
    free(cfg);
    return rc;
}
