/* cli/progress.c - the progress line (cli/progress.h). */
#include <stdio.h>
#include <unistd.h>

#include "cli/progress.h"
#include "util/hostperf.h"

void progress_init(struct progress *p, enum progress_when when, const char *label)
{
	*p = (struct progress){.when = when, .label = label};
	if (when == PROGRESS_AUTO && !isatty(STDERR_FILENO))
		p->when = PROGRESS_NEVER;
	p->t0 = p->kstart = cs_wall_seconds();
}

static void human(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.2f G", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2f M", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1f k", v / 1e3);
	else
		snprintf(buf, len, "%.0f ", v);
}

void progress_update(void *arg, const struct cs_progress *s)
{
	struct progress *p = arg;
	double t = cs_wall_seconds();
	char cyc[32], est[64] = "", eta[48] = "";

	if (p->when == PROGRESS_NEVER)
		return;
	if (s->kernels != p->kernels) {
		p->kernels = s->kernels;
		p->kstart = t;
	}
	if (p->when == PROGRESS_AUTO && t - p->t0 < PROGRESS_AFTER_S)
		return;
	if (p->drawn && t - p->last < PROGRESS_EVERY_S)
		return;
	p->last = t;
	human(cyc, sizeof(cyc), (double)s->cycles);
	if (s->kernel_est > 0)
		snprintf(est, sizeof(est), ", last kernel %.0f +- %.1f%%", s->kernel_est,
			 100.0 * s->kernel_half / s->kernel_est);
	if (s->ctas && s->ctas_done) {
		double left = (t - p->kstart) * (double)(s->ctas - s->ctas_done) / s->ctas_done;

		snprintf(eta, sizeof(eta), ", kernel ETA %.0f s", left);
	}
	/* \r and erase to the end of the line: the next draw replaces this one */
	fprintf(stderr, "\r\033[K%s%s%s: kernel %u %s %u/%u CTAs, %scycles, %u units%s%s, %.0f s",
		p->label ? p->label : "", p->label ? " " : "", s->mode, s->kernels, s->kernel,
		s->ctas_done, s->ctas, cyc, s->units, est, eta, t - p->t0);
	fflush(stderr);
	p->drawn = true;
}

void progress_done(struct progress *p)
{
	if (!p->drawn)
		return;
	if (p->when == PROGRESS_ALWAYS && !isatty(STDERR_FILENO))
		fputc('\n', stderr);
	else
		fputs("\r\033[K", stderr);
	fflush(stderr);
	p->drawn = false;
}
