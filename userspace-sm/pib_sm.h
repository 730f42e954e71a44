/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pib-sm: the program around the pure logic of sm_fabric.h. One struct
 * sm_ctx is the SM: its management port (libibmad), the subnet as the
 * last sweep found it, and the LIDs it remembers.
 */
#ifndef PIB_SM_H
#define PIB_SM_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/umad.h>

#include "sm_fabric.h"
#include "sm_sa.h"

struct ibmad_port;

/* The MLIDs the SA gives its groups. */
#define SM_MLID_FIRST	SM_SA_MLID_BASE
#define SM_MLID_LAST	(SM_SA_MLID_BASE + SM_SA_MAX_GROUPS - 1)
/* Heavy sweeps for traps: a second each, three at once (struct sm_ctx). */
#define SM_SWEEP_PACE_MS	1000
#define SM_SWEEP_BURST_MS	(2 * SM_SWEEP_PACE_MS)
/* A sweep some of whose SMPs failed is made again this soon, at that pace. */
#define SM_SWEEP_RETRY_MS	200

/* An SMP's wait: four round trips and this, within -t. */
#define SM_SMP_SLACK_MS	50

/*
 * The smoothed round trip @rtt (ms, 0: none yet) with one more @sample;
 * an answer that came after the kernel resent its SMP makes a long
 * sample, which only makes the waits longer.
 */
static inline unsigned int sm_rtt_update(unsigned int rtt, unsigned int sample)
{
	unsigned int avg = (7 * rtt + sample + 4) / 8;

	if (!rtt)
		avg = sample;
	return avg ? avg : 1;	/* (0 is "none yet") */
}

/*
 * How long an SMP waits for its answer (then the kernel sends it again),
 * with round trips of @rtt (0: unknown) and -t @max: a lost SMP on a
 * fast fabric costs a sweep a few of its round trips, not -t.
 */
static inline unsigned int sm_smp_timeout(unsigned int rtt, unsigned int max)
{
	unsigned int t = 4 * rtt + SM_SMP_SLACK_MS;

	return rtt && t < max ? t : max;
}

/* The sweeps' pace @due once a heavy sweep begins at @now. */
static inline uint64_t sm_sweep_paced(uint64_t due, uint64_t now)
{
	return (due > now ? due : now) + SM_SWEEP_PACE_MS;
}

/* The soonest a sweep for a trap may begin, at pace @due. */
static inline uint64_t sm_sweep_soonest(uint64_t due)
{
	return due > SM_SWEEP_BURST_MS ? due - SM_SWEEP_BURST_MS : 0;
}

/*
 * When the sweep after one that ended at @now is due: @interval_ms later,
 * or, if SMPs of that one failed (@failed: a device still coming, an SMP
 * lost), SM_SWEEP_RETRY_MS later, as the sweeps' pace @due allows.
 */
static inline uint64_t sm_sweep_next(uint64_t due, uint64_t now,
				     unsigned int interval_ms, int failed)
{
	uint64_t soon = sm_sweep_soonest(due), later = now + interval_ms;

	if (!failed)
		return later;
	if (soon < now + SM_SWEEP_RETRY_MS)
		soon = now + SM_SWEEP_RETRY_MS;
	return soon < later ? soon : later;
}

/* IBA 14.2.5.6 PortInfo.PortState. */
enum sm_port_state {
	SM_PORT_NOP = 0,	/* in a Set: no change */
	SM_PORT_DOWN = 1,
	SM_PORT_INIT = 2,
	SM_PORT_ARMED = 3,
	SM_PORT_ACTIVE = 4,
};

/* IBA 14.2.5.13 SMInfo.SMState: where pib-sm stands among the SMs. */
enum sm_role {
	SM_ROLE_NONE = -1,	/* (in tables: no state) */
	SM_ROLE_NOT_ACTIVE = 0,
	SM_ROLE_DISCOVERING = 1,
	SM_ROLE_STANDBY = 2,
	SM_ROLE_MASTER = 3,
};

/* Log levels of -q, default, -v. */
enum sm_log_level {
	SM_LOG_ERR,
	SM_LOG_INFO,
	SM_LOG_DEBUG,
};

/**
 * struct sm_ctx - the SM
 * @mad: its management port (SMI classes, LID-routed and directed)
 * @dev: the RDMA device it runs on (NULL: the first)
 * @port: that device's port
 * @timeout_ms: how long an SMP waits for its answer, at most (-t)
 * @smp_rtt_ms: SMPs' smoothed round trip (0: none answered yet), which
 *	shortens their wait (sm_smp_timeout())
 * @log_level: enum sm_log_level
 * @fab: the subnet as the last sweep found it
 * @lids: the LIDs it gave out, by port GUID
 * @lid_file: where @lids are kept across restarts (NULL: nowhere)
 * @root: @fab's index of the SM's own node
 * @smps: SMPs sent in the last sweep
 * @smp_errors: SMPs of the last sweep that got no good answer
 * @smp_tid: the TransactionID of the next SMP (its lower 32 bits)
 * @heavy_due: the next sweep must be a heavy one (the last one did not
 *	get everything done)
 * @sm_lid: the LID of the SM's own port, once the sweep gave it one
 * @sa: the SA's records and groups (sm_sa.c)
 * @sa_port: the umad port the SA answers on (-1: none)
 * @sa_agent: its agent for the SA class
 * @sa_buf: the umad buffer requests are received in
 * @sa_buf_len: its size
 * @sa_requests: requests the SA received
 * @role: enum sm_role
 * @priority: SMInfo.Priority (-P)
 * @sm_key: SMInfo.SM_Key (-k): SMs trust each other's SMInfo only when
 *	their keys match (opensm's default is 1, as is pib-sm's)
 * @port_guid: the GUID of the SM's port
 * @act_count: SMInfo.ActCount: sweeps as master
 * @issm: the issm device held open (the port's IsSM), or -1
 * @smi_port: the umad port of the SMInfo agents, or -1
 * @smi_agent: the agents of the LID-routed and directed-route SMI classes
 * @master_guid: the port GUID of the master, while STANDBY
 * @master_misses: polls of the master in a row that it did not answer
 * @prio_traps: Trap 144s sent to a master that pib-sm outranks, asking it
 *	to hand the subnet over
 * @handover_guid: the SM pib-sm last handed the subnet over to
 * @handover_fails: handovers in a row that SM did not take
 * @wake: a trap came: sweep before serving on (as soon as @sweep_due
 *	allows)
 * @sweep_due: heavy sweeps' pace (monotonic ms): each adds a second to
 *	it, and one for a trap may begin once it is less than
 *	SM_SWEEP_BURST_MS ahead of now; so a few changes in a row are swept
 *	at once, and a storm of traps costs a sweep a second
 * @rereg_due: pib-sm became master: the next configuration asks every end
 *	port's clients to register again (PortInfo.ClientReregister), with
 *	this SM's SA
 * @part_file: the partition file (-x; NULL: none)
 * @parts: the partitions, from it or the default (sm_part.h)
 */
struct sm_ctx {
	struct ibmad_port *mad;
	const char *dev;
	int port;
	unsigned int timeout_ms;
	unsigned int smp_rtt_ms;
	int log_level;
	struct sm_fabric fab;
	struct sm_lidmap lids;
	const char *lid_file;
	int root;
	unsigned int smps;
	unsigned int smp_errors;
	uint32_t smp_tid;
	int heavy_due;
	uint16_t sm_lid;
	struct sm_sa sa;
	int sa_port;
	int sa_agent;
	uint8_t *sa_buf;
	size_t sa_buf_len;
	unsigned long sa_requests;
	enum sm_role role;
	unsigned int priority;
	uint64_t sm_key;
	uint64_t port_guid;
	uint32_t act_count;
	int issm;
	int smi_port;
	int smi_agent[2];
	uint64_t master_guid;
	unsigned int master_misses;
	unsigned int prio_traps;
	uint64_t handover_guid;
	unsigned int handover_fails;
	int wake;
	uint64_t sweep_due;
	int rereg_due;
	const char *part_file;
	struct sm_parts parts;
};

/**
 * struct sm_group - a multicast group as the MFTs need it
 * @mlid: its MLID
 * @members: its member ports in the SM's subnet model
 * @n: how many
 */
struct sm_group {
	uint16_t mlid;
	struct sm_mcast_member *members;
	unsigned int n;
};

/**
 * struct sm_smp_req - one directed-route SMP of a batch (sm_smp.c)
 * @path: the route: @path[1 .. @hops] the ports out of each switch
 * @hops: its length
 * @set: 0 Get, 1 Set
 * @attr: the attribute
 * @mod: its modifier
 * @data: what to set; the answer's data
 * @status: 0 answered, -EIO no good answer, -EINPROGRESS not yet
 * @sent_ms: when it was sent (sm_now_ms())
 * @node: the caller's: the node it is about
 * @port: the caller's: the port it is about
 */
struct sm_smp_req {
	uint8_t path[SM_MAX_HOPS + 1];
	uint8_t hops;
	int set;
	unsigned int attr;
	unsigned int mod;
	uint8_t data[64];
	int status;
	uint64_t sent_ms;
	int node;
	unsigned int port;
};

/**
 * struct sm_batch - the SMPs of one step of a sweep
 * @r: the requests
 * @n: how many
 * @cap: room in @r
 */
struct sm_batch {
	struct sm_smp_req *r;
	unsigned int n;
	unsigned int cap;
};

/* What a sweep did. */
struct sm_sweep_stats {
	int switches;
	int cas;
	int lids_set;
	int armed;
	int activated;
};

void sm_log(const struct sm_ctx *c, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Milliseconds of the monotonic clock. */
uint64_t sm_now_ms(void);

/* sm_sweep.c: discovery and configuration by directed-route SMPs */
int sm_discover(struct sm_ctx *c);
int sm_configure(struct sm_ctx *c, struct sm_sweep_stats *st);
int sm_light_sweep(struct sm_ctx *c);

/* sm_smp.c: directed-route SMPs, in batches */
void sm_smp_req_init(struct sm_smp_req *r, const uint8_t *path,
		     unsigned int hops, unsigned int p, int set,
		     unsigned int attr, unsigned int mod);
unsigned int sm_smp_batch(struct sm_ctx *c, struct sm_smp_req *r,
			  unsigned int n);
struct sm_smp_req *sm_batch_add(struct sm_ctx *c, struct sm_batch *b, int i,
				unsigned int p, unsigned int go, int set,
				unsigned int attr, unsigned int mod);
unsigned int sm_batch_run(struct sm_ctx *c, struct sm_batch *b);
int sm_smp(struct sm_ctx *c, const struct sm_node *n, int set,
	   unsigned int attr, unsigned int mod, uint8_t *buf);

/* sm_mft.c: multicast forwarding tables */
int sm_set_mfts(struct sm_ctx *c, const struct sm_group *g, unsigned int ng);

/* sm_sminfo.c: SMInfo, master and standby */
int sm_sminfo_open(struct sm_ctx *c);
void sm_sminfo_close(struct sm_ctx *c);
void sm_sminfo_poll(struct sm_ctx *c);
/* sm_trap.c */
void sm_trap_send_prio(struct sm_ctx *c, int i);
void sm_trap_repress(struct sm_ctx *c, uint8_t *buf, int len);
int sm_sminfo_fd(const struct sm_ctx *c);
void sm_set_role(struct sm_ctx *c, enum sm_role role, const char *why);
int sm_elect(struct sm_ctx *c);
int sm_poll_master(struct sm_ctx *c);

/* sm_agent.c: the SA's agent on QP1 */
int sm_agent_open(struct sm_ctx *c);
void sm_agent_close(struct sm_ctx *c);
int sm_agent_poll(struct sm_ctx *c, int timeout_ms);
int sm_agent_send(struct sm_ctx *c, const uint8_t *mad, size_t len,
		  const ib_mad_addr_t *to, int pkey_index, int timeout_ms,
		  int retries);

#endif /* PIB_SM_H */
