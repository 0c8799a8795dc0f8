/*
 * cuzk bench fil-synth --circuit porep-2k|porep-8m|porep-512m|porep-32g|porep-64g
 *                      [--threads T] [--samples N] [--json]
 *
 * Synthesis of one partition of Filecoin's PoRep C2 circuit
 * (cuzk/fil_porep_circuit.h), as the engine runs it: witness generation on
 * one thread, then the three sparse mat-vecs a, b, c = A·z, B·z, C·z over
 * the recorded circuit (PCE) on T threads.
 *
 * 2KiB, 8MiB, 512MiB: the partition of a sector sealed here from random
 * data (a real C1 output); the witness is checked to satisfy the PCE.
 * 32GiB, 64GiB: no sector of that size can be sealed on a development
 * machine, so the vanilla proofs are random values of the right shapes
 * (every count, path length and index range of the registered proof): the
 * witness generator does exactly the same work (it never branches on
 * whether a constraint holds) but the witness does not satisfy the circuit,
 * and the PCE (about 9 GB) and a, b, c (4 GiB each at 2^27) are not built
 * on a 24 GiB machine; only witness generation is timed there.
 *
 * Prints ms (median of N samples), constraints per second of witness
 * generation (per core: it is one thread) and of SpMV, the partition's
 * bytes (a, b, c at the padded domain, the assignment) and peak RSS.
 */
#include "bench_util.h"
#include "opts.h"
#include "commands.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_porep_circuit.h"
#include "cuzk/fil_seal.h"
#include "cuzk/r1cs_hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long vm_hwm_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) v = strtol(line + 6, NULL, 10);
    fclose(f);
    return v;
}

/* ---- a C1 output of random values in the registered proof's shapes ------------ */
static uint64_t rs = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void) {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
static void rnd_dom(cz_fil_domain *d) {
    for (int i = 0; i < 32; i += 8) {
        uint64_t x = rnd();
        memcpy(d->b + i, &x, 8);
    }
    d->b[31] &= 0x3f; /* below r */
}
static cz_fil_domain *rnd_doms(size_t n) {
    cz_fil_domain *d = malloc((n ? n : 1) * sizeof *d);
    for (size_t i = 0; d && i < n; i++) rnd_dom(&d[i]);
    return d;
}
static void rnd_path(cz_fil_path *p, size_t len, unsigned arity) {
    p->len = len;
    p->elems = calloc(len ? len : 1, sizeof *p->elems);
    for (size_t i = 0; i < len; i++) {
        p->elems[i].nhashes = arity - 1;
        p->elems[i].hashes = rnd_doms(arity - 1);
        p->elems[i].index = (unsigned)(rnd() % arity);
    }
}
static void rnd_proof(cz_fil_merkle_proof *m, const cz_fil_seal_proof *p, bool tree_d) {
    uint64_t nodes = p->sector_size / 32;
    rnd_dom(&m->root);
    rnd_dom(&m->leaf);
    if (tree_d) {
        size_t h = 0;
        while ((1ull << h) < nodes) h++;
        m->kind = CZ_FIL_PROOF_SINGLE;
        rnd_path(&m->base, h, 2);
        return;
    }
    uint64_t base = nodes / (p->tree_sub_arity ? p->tree_sub_arity : 1) / (p->tree_top_arity ? p->tree_top_arity : 1);
    size_t h = 0;
    for (uint64_t n = base; n > 1; n /= 8) h++;
    rnd_path(&m->base, h, 8);
    m->kind = CZ_FIL_PROOF_SINGLE;
    if (p->tree_sub_arity) {
        rnd_path(&m->sub, 1, p->tree_sub_arity);
        m->kind = CZ_FIL_PROOF_SUB;
    }
    if (p->tree_top_arity) {
        rnd_path(&m->top, 1, p->tree_top_arity);
        m->kind = CZ_FIL_PROOF_TOP;
    }
}
static void rnd_column(cz_fil_column_proof *c, const cz_fil_seal_proof *p) {
    c->column.index = rnd() % (p->sector_size / 32);
    c->column.nrows = p->layers;
    c->column.rows = rnd_doms(p->layers);
    rnd_proof(&c->inclusion, p, false);
}
static void rnd_label(cz_fil_label_proof *l, unsigned layer, uint64_t node) {
    l->layer_index = layer;
    l->node = node;
    l->nparents = 37;
    l->parents = rnd_doms(37);
}
/* Only partition 0 is filled (what the benchmark synthesizes). */
static void fake_c1(cz_fil_c1 *c1, const cz_fil_seal_proof *p) {
    memset(c1, 0, sizeof *c1);
    c1->registered_proof = p;
    rnd_dom(&c1->comm_r);
    rnd_dom(&c1->comm_d);
    rnd_dom(&c1->replica_id);
    c1->npartitions = 1;
    c1->partitions = calloc(1, sizeof *c1->partitions);
    cz_fil_partition_proofs *pp = &c1->partitions[0];
    pp->nchallenges = p->challenges_per_partition;
    pp->proofs = calloc(pp->nchallenges, sizeof *pp->proofs);
    for (size_t j = 0; j < pp->nchallenges; j++) {
        cz_fil_vanilla_proof *v = &pp->proofs[j];
        uint64_t c = 1 + rnd() % (p->sector_size / 32 - 1);
        rnd_proof(&v->comm_d_proofs, p, true);
        rnd_proof(&v->comm_r_last_proof, p, false);
        rnd_column(&v->c_x, p);
        for (unsigned i = 0; i < CZ_FIL_DRG_PARENTS; i++) rnd_column(&v->drg_parents[i], p);
        for (unsigned i = 0; i < CZ_FIL_EXP_PARENTS; i++) rnd_column(&v->exp_parents[i], p);
        v->nlabeling = p->layers;
        v->labeling_proofs = calloc(p->layers, sizeof *v->labeling_proofs);
        for (unsigned l = 0; l < p->layers; l++) rnd_label(&v->labeling_proofs[l], l + 1, c);
        rnd_label(&v->encoding_proof, p->layers, c);
    }
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const cz_opt fil_synth_opts[] = {
    CZ_STR("--circuit", "ID", "porep-2k (default) | porep-8m | porep-512m | porep-32g | porep-64g"),
    CZ_NUM("--threads", "T", 0, 1024, "threads (0 = one per CPU, the default)"),
    CZ_NUM("--samples", "N", 1, 50, "samples (default 3)"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd fil_synth_cmd = {
    .name = "cuzk bench fil-synth",
    .synopsis = "--circuit porep-2k|porep-8m|porep-512m|porep-32g|porep-64g [--threads T] [--samples N] [--json]",
    .opts = fil_synth_opts,
};

int cz_bench_fil_synth(int argc, char **argv) {
    cz_args oa;
    int prc = cz_opts_parse(&oa, &fil_synth_cmd, argc, argv);
    if (prc >= 0) return prc;
    const char *id = cz_opt_str(&oa, "--circuit", "porep-2k");
    long threads = cz_opt_num(&oa, "--threads", 0);
    long samples = cz_opt_num(&oa, "--samples", 3);
    bool json = cz_opt_flag(&oa, "--json");
    const cz_fil_seal_proof *p = NULL;
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++)
        if (cz_fil_seal_proofs[i].api == CZ_FIL_API_1_1 && !strcmp(cz_fil_seal_proofs[i].circuit_id, id))
            p = &cz_fil_seal_proofs[i];
    if (!p)
        return cz_usage_error(&fil_synth_cmd, "--circuit: expected porep-2k, porep-8m, porep-512m, porep-32g or "
                                              "porep-64g, got '%s'", id);
    if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "synth") != CZ_OK) return 1;
    bool real = p->sector_size <= (512ull << 20);
    cz_fil_c1 c1;
    cz_errbuf err = { { 0 } };
    double t0 = cz_now_ns();
    if (real) {
        cz_fil_seal_params sp;
        memset(&sp, 0, sizeof sp);
        sp.proof = p;
        sp.sector_id = 1;
        size_t n = (size_t)cz_fil_unpadded_size(p->sector_size);
        uint8_t *data = malloc(n);
        if (!data) return 1;
        for (size_t i = 0; i < n; i++) data[i] = (uint8_t)rnd();
        cz_fil_seal_result res;
        cz_status st = cz_fil_seal(&sp, data, n, pool, &res, &c1, &err);
        free(data);
        if (st != CZ_OK) {
            fprintf(stderr, "cuzk bench fil-synth: seal: %s\n", err.msg);
            return 1;
        }
    } else {
        fake_c1(&c1, p);
    }
    double prep_ms = (cz_now_ns() - t0) / 1e6;
    cz_fil_porep_circuit ctx = { p, &c1, 0 }, blank = { p, NULL, 0 };
    cz_pce *pce = NULL;
    double rec_ms = 0;
    uint64_t n_constraints;
    if (real) {
        t0 = cz_now_ns();
        if (cz_pce_record(&pce, cz_fil_porep_synth, &blank, NULL) != CZ_OK) return 1;
        rec_ms = (cz_now_ns() - t0) / 1e6;
        n_constraints = pce->n_constraints;
    } else {
        cz_r1cs_fingerprint f;
        if (cz_r1cs_count_stream(cz_fil_porep_synth, &blank, &f) != CZ_OK) return 1;
        n_constraints = f.constraints + f.inputs;
    }
    size_t m = 1;
    while (m < n_constraints) m <<= 1;
    double *wt = calloc((size_t)samples, sizeof *wt), *st_ = calloc((size_t)samples, sizeof *st_);
    cz_fr *a = NULL, *b = NULL, *c = NULL;
    if (real) {
        a = malloc(m * sizeof *a);
        b = malloc(m * sizeof *b);
        c = malloc(m * sizeof *c);
        if (!a || !b || !c) return 1;
    }
    cz_witness w;
    memset(&w, 0, sizeof w);
    for (long s = 0; s < samples; s++) {
        cz_witness_free(&w);
        t0 = cz_now_ns();
        if (cz_witness_generate(&w, cz_fil_porep_synth, &ctx, pce) != CZ_OK) {
            fprintf(stderr, "cuzk bench fil-synth: witness generation failed\n");
            return 1;
        }
        wt[s] = (cz_now_ns() - t0) / 1e6;
        if (real) {
            t0 = cz_now_ns();
            if (cz_pce_eval(pce, &w, pool, a, b, c, m) != CZ_OK) return 1;
            st_[s] = (cz_now_ns() - t0) / 1e6;
        }
    }
    if (real) {
        uint64_t row;
        if (cz_pce_is_satisfied(pce, &w, &row) != CZ_OK) {
            fprintf(stderr, "cuzk bench fil-synth: the witness does not satisfy row %llu\n", (unsigned long long)row);
            return 1;
        }
    }
    qsort(wt, (size_t)samples, sizeof *wt, cmp_d);
    qsort(st_, (size_t)samples, sizeof *st_, cmp_d);
    double wms = wt[samples / 2], sms = st_[samples / 2];
    double abc = 3.0 * 32.0 * (double)m, assign = 32.0 * (double)(w.n_inputs + w.n_aux);
    char extra[320];
    snprintf(extra, sizeof extra,
             "\"circuit\":\"%s\",\"constraints\":%llu,\"domain\":%zu,\"threads\":%ld,\"c1\":\"%s\"", id,
             (unsigned long long)n_constraints, m, threads, real ? "sealed" : "random values (shape only)");
    cz_bench_report *rep = cz_bench_report_new("fil-synth", json);
    cz_bench_report_add(rep, real ? "seal_and_c1" : "fake_c1", prep_ms, "ms", extra);
    if (real) cz_bench_report_add(rep, "record_pce", rec_ms, "ms", NULL);
    cz_bench_report_add(rep, "witness", wms, "ms", NULL);
    cz_bench_report_add(rep, "witness_rate", (double)n_constraints / (wms / 1e3), "constraints/s/core", NULL);
    if (real) {
        cz_bench_report_add(rep, "spmv", sms, "ms", NULL);
        cz_bench_report_add(rep, "synthesis", wms + sms, "ms", NULL);
        cz_bench_report_add(rep, "pce_bytes", (double)cz_pce_bytes(pce), "bytes", NULL);
    }
    cz_bench_report_add(rep, "abc_bytes", abc, "bytes", NULL);
    cz_bench_report_add(rep, "assignment_bytes", assign, "bytes", NULL);
    cz_bench_report_add(rep, "peak_rss", (double)vm_hwm_kib() * 1024.0, "bytes", NULL);
    cz_witness_free(&w);
    free(a);
    free(b);
    free(c);
    free(wt);
    free(st_);
    cz_pce_free(pce);
    cz_fil_c1_free(&c1);
    cz_pool_destroy(pool);
    return cz_bench_report_finish(rep);
}
