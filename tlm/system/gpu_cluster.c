/* tlm/system/gpu_cluster.c - SMs and the CTA scheduler (see gpu_cluster.h). */
#include "tlm/system/gpu_cluster.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"

struct gpu_cluster {
	struct gpu_cluster_env env;
	const struct gpu_core_cfg *core;
	unsigned n;
	struct gpu_sm **sm;
	/* the running kernel */
	const struct gpu_kernel *kern;
	unsigned next_cta, ctas_done, rr, ends_pending;
	struct gpu_cta *live; /* resident CTAs (a failed run leaves some) */
	void (*end_cb)(void *arg);
	void *end_arg;
};

static void cta_unlink(struct gpu_cluster *c, struct gpu_cta *cta)
{
	if (cta->prev)
		cta->prev->next = cta->next;
	else
		c->live = cta->next;
	if (cta->next)
		cta->next->prev = cta->prev;
	free(cta->smem);
	free(cta);
}

static int cta_start(struct gpu_cluster *c, unsigned smi)
{
	const struct gpu_kernel *k = c->kern;
	struct gpu_cta *cta = calloc(1, sizeof(*cta));

	if (!cta || (k->smem_bytes && !(cta->smem = calloc(1, k->smem_bytes)))) {
		free(cta);
		return -CS_ENOMEM;
	}
	cta->kernel = k;
	cta->id = c->next_cta++;
	cta->next = c->live;
	cta->prev = NULL;
	if (c->live)
		c->live->prev = cta;
	c->live = cta;
	return gpu_sm_launch(c->sm[smi], cta);
}

void gpu_cluster_fill(struct gpu_cluster *c)
{
	unsigned refused = 0;

	if (c->kern->cta_sm) {
		while (c->next_cta < c->kern->ctas) {
			unsigned smi = c->kern->cta_sm[c->next_cta] % c->n;

			if (!gpu_sm_can_take(c->sm[smi], c->kern))
				return;
			if (cta_start(c, smi)) {
				c->env.fail(c->env.owner, -CS_ENOMEM,
					    "cannot start a CTA: out of memory");
				return;
			}
		}
		return;
	}
	while (refused < c->n && c->next_cta < c->kern->ctas) {
		unsigned smi = c->rr;

		c->rr = (c->rr + 1) % c->n;
		if (!gpu_sm_can_take(c->sm[smi], c->kern)) {
			refused++;
			continue;
		}
		refused = 0;
		if (cta_start(c, smi)) {
			c->env.fail(c->env.owner, -CS_ENOMEM, "cannot start a CTA: out of memory");
			return;
		}
	}
}

static void cta_done(void *obj, unsigned smi, struct gpu_cta *cta)
{
	struct gpu_cluster *c = obj;

	cta_unlink(c, cta);
	c->ctas_done++;
	if (c->env.cta_done)
		c->env.cta_done(c->env.owner);
	if (c->next_cta < c->kern->ctas) {
		c->rr = smi;
		gpu_cluster_fill(c);
		return;
	}
	if (c->ctas_done == c->kern->ctas)
		c->env.ctas_done(c->env.owner);
}

static void sm_fail(void *obj, int code, const char *msg)
{
	struct gpu_cluster *c = obj;

	c->env.fail(c->env.owner, code, msg);
}

static void sm_observe_read(void *obj, unsigned sm, unsigned slot, uint64_t addr, unsigned bytes,
			    uint64_t v)
{
	struct gpu_cluster *c = obj;

	c->env.observe_read(c->env.owner, sm, slot, addr, bytes, v);
}

static void sm_record(void *obj, uint64_t gwid, const struct sm_op_view *v)
{
	struct gpu_cluster *c = obj;

	c->env.record(c->env.owner, gwid, v);
}

static void sm_touch(void *obj, uint64_t line_addr)
{
	struct gpu_cluster *c = obj;

	c->env.touch(c->env.owner, line_addr);
}

int gpu_cluster_create(const struct gpu_ctx *ctx, const struct gpu_core_cfg *core,
		       const struct gpu_protocol *proto, const struct gpu_cluster_env *env,
		       sim_time_t quantum_ps, struct cs_stat_group *stats, struct gpu_cluster **out,
		       struct cs_err *err)
{
	struct gpu_cluster *c = calloc(1, sizeof(*c));
	struct gpu_sm_env sm_env;
	char name[32];
	int rc;

	*out = NULL;
	if (!c || !(c->sm = calloc(ctx->sms, sizeof(*c->sm)))) {
		free(c);
		return cs_err_set(err, -CS_ENOMEM, "out of memory");
	}
	c->env = *env;
	c->core = core;
	c->n = ctx->sms;
	sm_env = (struct gpu_sm_env){
	    .gpu = c,
	    .cta_done = cta_done,
	    .fail = sm_fail,
	    .observe_read = env->observe_read ? sm_observe_read : NULL,
	    .record = env->record ? sm_record : NULL,
	    .touch = env->touch ? sm_touch : NULL,
	    .seed = env->seed,
	};
	for (unsigned i = 0; i < c->n; i++) {
		snprintf(name, sizeof(name), "sm%u", i);
		rc = gpu_sm_create(ctx, core, proto, i, &sm_env, cs_stat_group(stats, name),
				   &c->sm[i], err);
		if (rc) {
			gpu_cluster_destroy(c);
			return rc;
		}
		gpu_sm_set_quantum(c->sm[i], quantum_ps);
	}
	*out = c;
	return 0;
}

void gpu_cluster_destroy(struct gpu_cluster *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->n; i++)
		gpu_sm_destroy(c->sm[i]);
	while (c->live)
		cta_unlink(c, c->live);
	free(c->sm);
	free(c);
}

unsigned gpu_cluster_sms(const struct gpu_cluster *c)
{
	return c->n;
}

struct gpu_sm *gpu_cluster_sm(struct gpu_cluster *c, unsigned i)
{
	return c->sm[i];
}

int gpu_kernel_shape(const struct gpu_kernel *in, struct gpu_kernel *out, char *msg, size_t n)
{
	const char *name = in->name ? in->name : "kernel";
	uint64_t threads = (uint64_t)in->warps_per_cta * gpu_kernel_lanes(in);

	*out = *in;
	out->local_base = 0;
	if (in->grid_x || in->grid_y) {
		uint64_t ctas = (uint64_t)in->grid_x * in->grid_y;

		if (!in->grid_x || !in->grid_y || ctas > UINT32_MAX ||
		    (in->ctas && in->ctas != ctas)) {
			snprintf(msg, n,
				 "kernel '%s': a 2-D grid of %u x %u CTAs (ctas %u: 0 or their "
				 "product, below 2^32)",
				 name, in->grid_x, in->grid_y, in->ctas);
			return -CS_EINVAL;
		}
		out->ctas = (unsigned)ctas;
	} else {
		out->grid_x = in->ctas;
		out->grid_y = 1;
	}
	if (!out->ctas || !in->fn || !in->warps_per_cta) {
		snprintf(msg, n,
			 "kernel '%s': a grid needs at least one CTA, one warp and a function",
			 name);
		return -CS_EINVAL;
	}
	if (in->block_x && threads % in->block_x) {
		snprintf(msg, n,
			 "kernel '%s': block_x %u does not divide the CTA's %" PRIu64 " threads",
			 name, in->block_x, threads);
		return -CS_EINVAL;
	}
	out->block_x = in->block_x ? in->block_x : (unsigned)threads;
	if (in->local_bytes % 4) {
		snprintf(msg, n, "kernel '%s': local_bytes %u is not a multiple of 4", name,
			 in->local_bytes);
		return -CS_EINVAL;
	}
	return 0;
}

int gpu_cluster_check_fit(struct gpu_cluster *c, const struct gpu_kernel *k)
{
	char msg[400];
	unsigned lanes = gpu_kernel_lanes(k);

	if ((lanes != 32 && lanes != 64) || lanes > c->core->lanes) {
		snprintf(
		    msg, sizeof(msg),
		    "kernel '%s' has %u-lane wavefronts: the machine runs 32%s (core.lanes %" PRIu64
		    ")",
		    k->name, lanes, c->core->lanes == 64 ? " or 64" : "", c->core->lanes);
		c->env.fail(c->env.owner, -CS_ECONFIG, msg);
		return -CS_ECONFIG;
	}
	if (gpu_sm_max_ctas(c->core, k))
		return 0;
	snprintf(msg, sizeof(msg),
		 "kernel '%s' does not fit on an SM: %u warps per CTA, %u registers per "
		 "thread, %u B of scratchpad (core.warps %" PRIu64 ", core.regs %" PRIu64
		 ", core.smem_kib %" PRIu64 ")",
		 k->name, k->warps_per_cta, k->regs_per_thread, k->smem_bytes, c->core->warps,
		 c->core->regs, c->core->smem_kib);
	c->env.fail(c->env.owner, -CS_ECONFIG, msg);
	return -CS_ECONFIG;
}

void gpu_cluster_begin(struct gpu_cluster *c, const struct gpu_kernel *k)
{
	c->kern = k;
	c->next_cta = 0;
	c->ctas_done = 0;
	c->rr = 0;
	for (unsigned i = 0; i < c->n; i++)
		gpu_sm_kernel_begin(c->sm[i]);
}

static void kernel_end_one(void *arg)
{
	struct gpu_cluster *c = arg;

	if (!--c->ends_pending)
		c->end_cb(c->end_arg);
}

void gpu_cluster_kernel_end(struct gpu_cluster *c, void (*cb)(void *arg), void *arg)
{
	c->end_cb = cb;
	c->end_arg = arg;
	c->ends_pending = c->n;
	for (unsigned i = 0; i < c->n; i++)
		gpu_sm_kernel_end(c->sm[i], kernel_end_one, c);
}

const struct gpu_kernel *gpu_cluster_kernel(const struct gpu_cluster *c)
{
	return c->kern;
}

unsigned gpu_cluster_ctas_done(const struct gpu_cluster *c)
{
	return c->ctas_done;
}

bool gpu_cluster_all_started(const struct gpu_cluster *c)
{
	return c->kern && c->next_cta >= c->kern->ctas;
}

sim_time_t gpu_cluster_lt_exit_time(const struct gpu_cluster *c)
{
	sim_time_t end = 0;

	for (unsigned i = 0; i < c->n; i++)
		if (gpu_sm_lt_exit_time(c->sm[i]) > end)
			end = gpu_sm_lt_exit_time(c->sm[i]);
	return end;
}

int gpu_cluster_busy_sm(const struct gpu_cluster *c)
{
	for (unsigned i = 0; i < c->n; i++)
		if (!gpu_sm_idle(c->sm[i]))
			return (int)i;
	return -1;
}

/* ---- the sampling layer's view of an SM ---------------------------------------------------- */

static void sm_set_face(void *obj, unsigned face)
{
	gpu_sm_set_mode(obj, face == SAMP_FACE_LT   ? GPU_SM_LT
			     : face == SAMP_FACE_FF ? GPU_SM_FF
						    : GPU_SM_AT);
}

static void sm_hold(void *obj, bool hold)
{
	gpu_sm_hold(obj, hold);
}

static bool sm_busy(const void *obj)
{
	return gpu_sm_busy(obj);
}

static bool sm_lt_settled(const void *obj)
{
	return gpu_sm_lt_settled(obj);
}

static uint64_t sm_work(const void *obj)
{
	return gpu_sm_work(obj);
}

static unsigned sm_occupancy(const void *obj)
{
	return gpu_sm_resident_warps(obj);
}

const struct samp_initiator_ops gpu_sm_initiator = {
    .set_face = sm_set_face,
    .hold = sm_hold,
    .busy = sm_busy,
    .lt_settled = sm_lt_settled,
    .work = sm_work,
    .occupancy = sm_occupancy,
};

int gpu_cluster_sample(struct gpu_cluster *c, struct sampler *s)
{
	for (unsigned i = 0; i < c->n; i++)
		if (sampler_add_initiator(s, &gpu_sm_initiator, c->sm[i]))
			return -CS_ENOMEM;
	return 0;
}
