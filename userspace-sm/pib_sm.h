/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pib-sm: the program around the pure logic of sm_fabric.h. One struct
 * sm_ctx is the SM: its management port (libibmad), the subnet as the
 * last sweep found it, and the LIDs it remembers.
 */
#ifndef PIB_SM_H
#define PIB_SM_H

#include <stdint.h>

#include "sm_fabric.h"

struct ibmad_port;

/* IBA 14.2.5.6 PortInfo.PortState. */
enum sm_port_state {
	SM_PORT_NOP = 0,	/* in a Set: no change */
	SM_PORT_DOWN = 1,
	SM_PORT_INIT = 2,
	SM_PORT_ARMED = 3,
	SM_PORT_ACTIVE = 4,
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
 * @timeout_ms: how long an SMP waits for its answer
 * @log_level: enum sm_log_level
 * @fab: the subnet as the last sweep found it
 * @lids: the LIDs it gave out, by port GUID
 * @lid_file: where @lids are kept across restarts (NULL: nowhere)
 * @root: @fab's index of the SM's own node
 * @smps: SMPs sent in the last sweep
 * @smp_errors: SMPs of the last sweep that got no good answer
 */
struct sm_ctx {
	struct ibmad_port *mad;
	const char *dev;
	int port;
	unsigned int timeout_ms;
	int log_level;
	struct sm_fabric fab;
	struct sm_lidmap lids;
	const char *lid_file;
	int root;
	unsigned int smps;
	unsigned int smp_errors;
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

/* sm_sweep.c: discovery and configuration by directed-route SMPs */
int sm_discover(struct sm_ctx *c);
int sm_configure(struct sm_ctx *c, struct sm_sweep_stats *st);

#endif /* PIB_SM_H */
