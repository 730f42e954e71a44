// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib-sm: a small subnet manager for any InfiniBand subnet (pib's or a
 * real one). It sweeps the subnet by directed-route SMPs, gives every end
 * port a LID (stable by port GUID, kept in a file in opensm's guid2lid
 * format), programs min-hop LFTs and the MFTs of the SA's multicast
 * groups, and brings every port to Active; it answers as the SA (sm_sa.h)
 * between sweeps. Every few seconds a light sweep (one SMP per switch)
 * asks whether a port changed state, and a heavy sweep follows if one
 * did, so that hosts and devices that come and go are taken in or
 * dropped.
 *
 *   pib-sm [-d DEVICE] [-p PORT] [-P PRIORITY] [-k SMKEY] [-s SECONDS] [-g LIDFILE] [-x PARTFILE] [-t MS] [-1] [-v|-q]
 *
 * With other SMs on the subnet (opensm, another pib-sm), one is master by
 * SMInfo (sm_sminfo.c); pib-sm stands by while one outranks it.
 *
 * Traps to the SM are repressed and bring a sweep (sm_trap.c).
 *
 * Partitions come from a file in opensm's format (-x, sm_part.h): each end
 * port gets its P_Key table, each partition marked ipoib its broadcast
 * group, and the SA answers paths and joins within partitions.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>

#include "pib_sm.h"

/* IBA 4.1.1: the default GID prefix. */
#define SM_SUBNET_PREFIX	0xfe80000000000000ull

static volatile sig_atomic_t sm_stop;

static void sm_on_signal(int sig)
{
	(void)sig;
	sm_stop = 1;
}

void sm_log(const struct sm_ctx *c, int level, const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	if (level > c->log_level)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "pib-sm [%ld.%03ld] ", (long)ts.tv_sec,
		ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void sm_usage(void)
{
	fprintf(stderr,
		"usage: pib-sm [-d DEVICE] [-p PORT] [-P PRIORITY] [-k SMKEY] [-s SECONDS] [-g LIDFILE] [-x PARTFILE] [-t MS] [-1] [-v|-q]\n"
		"  -d DEVICE   the RDMA device to run on (default: the first)\n"
		"  -p PORT     its port (default: its first active or initializing one)\n"
		"  -P PRIORITY its SMInfo priority, 0 to 15 (default 0): the master SM is\n"
		"              the one of the highest priority (then the lowest GUID)\n"
		"  -k SMKEY    its SMInfo SM_Key (default 1, as opensm's): it trusts the\n"
		"              SMInfo of SMs with the same key only (0: of any SM)\n"
		"  -s SECONDS  between light sweeps, which read one SMP per switch (default 2)\n"
		"  -g LIDFILE  port GUIDs and their LIDs, kept across runs (opensm's guid2lid format)\n"
		"  -x PARTFILE partitions, in opensm's partitions.conf format (default: every\n"
		"              port a full member of the default partition)\n"
		"  -t MS       how long an SMP waits for its answer, at most (default 500;\n"
		"              less once answers come sooner: 4 round trips and 50 ms)\n"
		"  -1          sweep once and exit (0 if every port is Active)\n"
		"  -v, -q      more, less in the log (stderr)\n");
	exit(2);
}

/* A number from @arg within @lo..@hi, or the usage. */
static long sm_number(const char *arg, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (errno || end == arg || *end || v < lo || v > hi) {
		fprintf(stderr, "pib-sm: '%s': want a number from %ld to %ld\n",
			arg, lo, hi);
		sm_usage();
	}
	return v;
}

/* A 64-bit number (an SM_Key) from @arg, or the usage. */
static uint64_t sm_u64(const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || *arg == '-') {
		fprintf(stderr, "pib-sm: '%s': want a 64-bit number\n", arg);
		sm_usage();
	}
	return v;
}

/* Read the LID file, if there is one. Return: 0, or -1 (said why). */
static int sm_load_lids(struct sm_ctx *c)
{
	unsigned int line = 0;
	FILE *in;
	int r;

	if (!c->lid_file)
		return 0;
	in = fopen(c->lid_file, "r");
	if (!in)
		return errno == ENOENT ? 0 : -1;
	r = sm_lidmap_read(&c->lids, in, &line);
	fclose(in);
	if (r) {
		sm_log(c, SM_LOG_ERR, "%s, line %u: want 'GUID LID [LID]'\n",
		       c->lid_file, line);
		return -1;
	}
	sm_log(c, SM_LOG_INFO, "%u LIDs from %s\n", c->lids.len, c->lid_file);
	return 0;
}

/* The partitions of -x, or none. Return: 0, or -1 (said why). */
static int sm_load_parts(struct sm_ctx *c)
{
	unsigned int line = 0;
	const char *why = NULL;
	FILE *in;
	int r;

	sm_parts_init(&c->parts);
	c->sa.parts = &c->parts;
	if (!c->part_file)
		return 0;
	in = fopen(c->part_file, "r");
	if (!in) {
		sm_log(c, SM_LOG_ERR, "%s: %s\n", c->part_file, strerror(errno));
		return -1;
	}
	r = sm_parts_read(&c->parts, in, &line, &why);
	fclose(in);
	if (r) {
		sm_log(c, SM_LOG_ERR, "%s, line %u: %s\n", c->part_file, line, why);
		return -1;
	}
	sm_log(c, SM_LOG_INFO, "%u partitions from %s\n", c->parts.n, c->part_file);
	return 0;
}

/* Write the LID file anew (a new file renamed over the old one). */
static void sm_save_lids(struct sm_ctx *c)
{
	char tmp[4096];
	FILE *out;
	int r;

	if (!c->lid_file)
		return;
	snprintf(tmp, sizeof(tmp), "%s.new", c->lid_file);
	out = fopen(tmp, "w");
	if (!out) {
		sm_log(c, SM_LOG_ERR, "%s: %s\n", tmp, strerror(errno));
		return;
	}
	r = sm_lidmap_write(&c->lids, out);
	if (fclose(out) || r || rename(tmp, c->lid_file))
		sm_log(c, SM_LOG_ERR, "%s: cannot write it\n", c->lid_file);
}

/* Are all the ports the sweep found with a link Active? */
static int sm_all_active(const struct sm_ctx *c)
{
	const struct sm_node *n;
	unsigned int p;
	int i;

	for (i = 0; i < c->fab.num_nodes; i++) {
		n = &c->fab.node[i];
		for (p = 1; p <= n->num_ports; p++)
			if (n->port[p].peer != SM_NONE &&
			    n->port[p].state != SM_PORT_ACTIVE)
				return 0;
	}
	return 1;
}

/* Milliseconds of the monotonic clock. */
uint64_t sm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Free what sm_groups() made. */
static void sm_groups_free(struct sm_group *g, unsigned int ng)
{
	unsigned int k;

	for (k = 0; k < ng && g; k++)
		free(g[k].members);
	free(g);
}

/*
 * Every MLID the SA gave out (groups that are gone included: their MFT
 * entries are cleared), with its member ports in the subnet model.
 * Return: the groups, *@ng of them, or NULL (out of memory).
 */
static struct sm_group *sm_groups(struct sm_ctx *c, unsigned int *ng)
{
	uint16_t top = sm_sa_mlid_top(&c->sa);
	struct sm_mcast_member *m;
	struct sm_group *g;
	unsigned int k, n;

	*ng = top >= SM_MLID_FIRST ? top - SM_MLID_FIRST + 1u : 0;
	g = calloc(*ng + 1, sizeof(*g));
	m = calloc(SM_SA_MAX_MEMBERS, sizeof(*m));
	for (k = 0; k < *ng && g && m; k++) {
		g[k].mlid = SM_MLID_FIRST + k;
		n = sm_sa_mlid_members(&c->sa, &c->fab, g[k].mlid, m,
				       SM_SA_MAX_MEMBERS);
		g[k].members = calloc(n + 1, sizeof(*m));
		if (!g[k].members)
			break;
		memcpy(g[k].members, m, n * sizeof(*m));
		g[k].n = n;
	}
	free(m);
	if (g && k == *ng)
		return g;
	sm_groups_free(g, *ng);
	return NULL;
}

/* The switches' MFTs for the SA's groups as they are now. */
static void sm_mcast_update(struct sm_ctx *c)
{
	struct sm_group *g;
	unsigned int ng;
	int r;

	g = sm_groups(c, &ng);
	r = g ? sm_set_mfts(c, g, ng) : -ENOMEM;
	if (r)
		sm_log(c, SM_LOG_ERR, "multicast forwarding: %s\n", strerror(-r));
	sm_groups_free(g, ng);
}

/* Send the SA's Reports (traps 64, 65) to their subscribers. */
static void sm_send_reports(struct sm_ctx *c, const struct sm_sa_report *rep,
			    unsigned int n)
{
	ib_mad_addr_t to;
	unsigned int k;

	for (k = 0; k < n && c->sa_port >= 0; k++) {
		memset(&to, 0, sizeof(to));
		to.lid = htons(rep[k].dlid);
		to.qpn = htonl(rep[k].dqpn);
		/* A Report waits for its ReportResp (IBA 13.4.8.2). */
		sm_agent_send(c, rep[k].mad, rep[k].len, &to, 0,
			      (int)c->timeout_ms, 2);
	}
}

/*
 * Log the end ports that left the SA since its last update (@was, @nwas
 * of them), and those that came, once there was a last update.
 */
static void sm_log_ports(struct sm_ctx *c, const struct sm_sa_port *was,
			 unsigned int nwas)
{
	const struct sm_sa *sa = &c->sa;
	unsigned int i;

	for (i = 0; i < nwas; i++)
		if (!sm_sa_port_in(sa->port, sa->nports, was[i].guid))
			sm_log(c, SM_LOG_INFO, "port 0x%016" PRIx64 " (LID %u) left the subnet\n",
			       was[i].guid, was[i].lid);
	for (i = 0; i < sa->nports; i++)
		if (sa->port[i].missed)
			sm_log(c, SM_LOG_INFO, "port 0x%016" PRIx64 " (LID %u) not reached (SMPs failed): kept for now\n",
			       sa->port[i].guid, sa->port[i].lid);
	for (i = 0; nwas && i < sa->nports; i++)
		if (!sm_sa_port_in(was, nwas, sa->port[i].guid))
			sm_log(c, SM_LOG_INFO, "port 0x%016" PRIx64 " (LID %u) came into the subnet\n",
			       sa->port[i].guid, sa->port[i].lid);
}

/* What the SA learns from a sweep: its ports, the IPoIB group, Reports. */
static void sm_sa_after_sweep(struct sm_ctx *c)
{
	struct sm_sa_report *rep = NULL;
	struct sm_sa_port *was = NULL;
	unsigned int n = 0, nwas = c->sa.nports;

	sm_sa_tick(&c->sa, sm_now_ms() / 1000);
	c->sa.sm_guid = c->port_guid;
	if (sm_sa_ipoib_bcast(&c->sa, &c->fab))
		sm_log(c, SM_LOG_ERR, "SA: cannot make the IPoIB broadcast group\n");
	if (nwas) {
		was = malloc(nwas * sizeof(*was));
		if (was)
			memcpy(was, c->sa.port, nwas * sizeof(*was));
	}
	c->sa.keep_missed = c->smp_errors != 0;
	if (sm_sa_ports_update(&c->sa, &c->fab, c->sm_lid, &rep, &n))
		sm_log(c, SM_LOG_ERR, "SA: out of memory for its ports\n");
	else if (was || !nwas)
		sm_log_ports(c, was, nwas);
	free(was);
	sm_send_reports(c, rep, n);
	free(rep);
	sm_sa_mcast_dirty(&c->sa);
	sm_mcast_update(c);
}

/* One sweep: discover, configure, log what changed. Return: 0 or -errno. */
static int sm_sweep(struct sm_ctx *c)
{
	struct sm_sweep_stats st;
	uint64_t now = sm_now_ms();
	int r;

	c->heavy_due = 1;
	c->sweep_due = sm_sweep_paced(c->sweep_due, now);
	r = sm_discover(c);
	if (r) {
		sm_log(c, SM_LOG_ERR, "sweep: the SM's own port does not answer: %s\n",
		       strerror(-r));
		return r;
	}
	/* Only the master configures the subnet. */
	if (!sm_elect(c)) {
		c->heavy_due = 0;
		return 0;
	}
	r = sm_configure(c, &st);
	if (r) {
		sm_log(c, SM_LOG_ERR, "sweep: %s\n", strerror(-r));
		return r;
	}
	sm_sa_after_sweep(c);
	/* What did not go through is tried again by the next heavy sweep. */
	c->heavy_due = c->smp_errors || !sm_all_active(c);
	if (st.lids_set || st.armed || st.activated)
		sm_save_lids(c);
	sm_log(c, st.lids_set || st.armed || st.activated ? SM_LOG_INFO :
	       SM_LOG_DEBUG,
	       "sweep: %d switches, %d CAs, top LID %u; %d LIDs set, %d ports armed, %d activated; %u SMPs, %u failed\n",
	       st.switches, st.cas, c->fab.top_lid, st.lids_set, st.armed,
	       st.activated, c->smps, c->smp_errors);
	return 0;
}

/*
 * When serving must end: at @until, or once a trap asked for a sweep, as
 * soon as the sweeps' pace allows: at once for the first few in a row (a
 * host that goes and comes back), and a sweep a second in a storm of
 * traps, which any host can send.
 */
static uint64_t sm_serve_end(const struct sm_ctx *c, uint64_t until)
{
	uint64_t soon = sm_sweep_soonest(c->sweep_due);

	return c->wake && soon < until ? soon : until;
}

/*
 * Answer the SA's clients and other SMs' SMInfo until @until (monotonic
 * ms) or a signal.
 */
static void sm_serve(struct sm_ctx *c, uint64_t until)
{
	struct pollfd p[2] = {
		{ .fd = umad_get_fd(c->sa_port), .events = POLLIN },
		{ .fd = sm_sminfo_fd(c), .events = POLLIN },
	};
	uint64_t now, end;
	int r;

	c->wake = 0;
	while (!sm_stop && (now = sm_now_ms()) < (end = sm_serve_end(c, until))) {
		if (poll(p, 2, (int)(end - now)) < 0)
			continue;	/* a signal */
		if (p[1].revents)
			sm_sminfo_poll(c);
		if (p[0].revents) {
			r = sm_agent_poll(c, 0);
			if (r < 0 && r != -EINTR)
				sleep(1);	/* said why; no busy loop */
		}
		if (c->role == SM_ROLE_MASTER && sm_sa_mcast_dirty(&c->sa))
			sm_mcast_update(c);
	}
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct sm_ctx c = { .timeout_ms = 500, .log_level = SM_LOG_INFO,
			    .sm_key = 1 };
	unsigned int interval = 2;
	int opt, once = 0, r = 0;

	while ((opt = getopt(argc, argv, "d:p:P:k:s:g:x:t:1vqh")) != -1) {
		switch (opt) {
		case 'd': c.dev = optarg; break;
		case 'p': c.port = sm_number(optarg, 1, SM_MAX_PORTS); break;
		case 's': interval = sm_number(optarg, 1, 3600); break;
		case 'P': c.priority = sm_number(optarg, 0, 15); break;
		case 'k': c.sm_key = sm_u64(optarg); break;
		case 'g': c.lid_file = optarg; break;
		case 'x': c.part_file = optarg; break;
		case 't': c.timeout_ms = sm_number(optarg, 10, 60000); break;
		case '1': once = 1; break;
		case 'v': c.log_level = SM_LOG_DEBUG; break;
		case 'q': c.log_level = SM_LOG_ERR; break;
		default: sm_usage();
		}
	}
	if (optind != argc)
		sm_usage();
	sm_fabric_init(&c.fab);
	sm_lidmap_init(&c.lids);
	c.sa_port = c.sa_agent = c.issm = c.smi_port = -1;
	c.role = SM_ROLE_DISCOVERING;
	if (sm_sa_init(&c.sa, SM_SUBNET_PREFIX) || sm_load_lids(&c) ||
	    sm_load_parts(&c))
		return 1;
	c.mad = mad_rpc_open_port((char *)c.dev, c.port, classes, 2);
	if (!c.mad) {
		fprintf(stderr, "pib-sm: cannot open the management port of %s port %d (is ib_umad loaded?)\n",
			c.dev ? c.dev : "the first device", c.port);
		return 1;
	}
	mad_rpc_set_timeout(c.mad, c.timeout_ms);
	/* The SA serves between sweeps; a single sweep needs none. */
	if (sm_sminfo_open(&c) || (!once && sm_agent_open(&c))) {
		sm_sminfo_close(&c);
		mad_rpc_close_port(c.mad);
		return 1;
	}
	signal(SIGINT, sm_on_signal);
	signal(SIGTERM, sm_on_signal);
	sm_log(&c, SM_LOG_INFO, "on %s port %d, sweeping every %u s\n",
	       c.dev ? c.dev : "the first device", c.port, interval);
	do {
		/* A light sweep first: a heavy one only for a change. A
		 * standby only asks the master whether it is still there. */
		if (c.role == SM_ROLE_STANDBY && !c.heavy_due) {
			if (sm_poll_master(&c))
				r = sm_sweep(&c);
		} else if (c.role != SM_ROLE_NOT_ACTIVE &&
			   (c.heavy_due || sm_light_sweep(&c))) {
			r = sm_sweep(&c);
		}
		if (once)
			break;
		sm_serve(&c, sm_sweep_next(c.sweep_due, sm_now_ms(),
					   interval * 1000,
					   c.role == SM_ROLE_MASTER &&
					   c.heavy_due && c.smp_errors));
	} while (!sm_stop);
	if (once && !r && c.role != SM_ROLE_MASTER) {
		sm_log(&c, SM_LOG_ERR, "another SM is master: nothing configured\n");
		r = -EBUSY;
	}
	if (once && !r)
		r = sm_all_active(&c) ? 0 : -EAGAIN;
	sm_log(&c, SM_LOG_INFO, "stopping; the SA answered %lu requests\n",
	       c.sa_requests);
	sm_agent_close(&c);
	sm_sminfo_close(&c);
	mad_rpc_close_port(c.mad);
	sm_sa_free(&c.sa);
	sm_fabric_free(&c.fab);
	sm_lidmap_free(&c.lids);
	sm_parts_free(&c.parts);
	return r ? 1 : 0;
}
