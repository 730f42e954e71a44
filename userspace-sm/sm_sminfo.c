// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SMInfo and the election of the master SM (IBA 14.2.5.13, 14.4.1).
 * pib-sm says it is an SM (the port's IsSM capability, through the issm
 * device), answers other SMs' SMInfo Get and Set on its port (an agent of
 * both SMI classes for that attribute, which the HCA's SMA leaves to the
 * SM), and reads the SMInfo of every other SM port its sweep finds. An SM
 * that is MASTER and outranks pib-sm (a higher priority, or the same and a
 * lower GUID) keeps the subnet: pib-sm is then STANDBY, configures
 * nothing, and polls the master's SMInfo each light sweep; when the master
 * does not answer SM_MASTER_MISSES times in a row, or says it is no longer
 * MASTER, or hands the subnet over (Set, HANDOVER), pib-sm is MASTER, and
 * acknowledges the handover (Set, ACKNOWLEDGE).
 *
 * As in opensm, an SM that finds a master stands by, whatever the
 * priorities: one that outranks the master tells it so (Trap 144), and the
 * master, on its next sweep, hands the subnet over to the STANDBY SM that
 * outranks it most, then stands by itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "pib_sm.h"

/* Polls of the master's SMInfo that may go unanswered in a row. */
#define SM_MASTER_MISSES	3
/* Handovers to an SM that does not take the subnet, and Trap 144s to a
 * master that does not hand it over, before pib-sm stops asking. */
#define SM_HANDOVER_TRIES	3
/* IBA 14.2.5.6 PortInfo.CapabilityMask bit 1: IsSM. */
#define SM_CAP_IS_SM		(1u << 1)
/* IBA 14.2.5.13 SMInfo Set's AttributeModifier. */
enum sm_sminfo_ctl {
	SM_CTL_HANDOVER = 1,
	SM_CTL_ACKNOWLEDGE = 2,
	SM_CTL_DISABLE = 3,
	SM_CTL_STANDBY = 4,
	SM_CTL_DISCOVER = 5,
};
/* IBA 14.2.2.1: a directed-route SMP's Direction bit, in its Status. */
#define SM_DR_DIRECTION		0x8000

static const char *const sm_state_name[] = {
	[SM_ROLE_NOT_ACTIVE] = "NOT ACTIVE",
	[SM_ROLE_DISCOVERING] = "DISCOVERING",
	[SM_ROLE_STANDBY] = "STANDBY",
	[SM_ROLE_MASTER] = "MASTER",
};

/* Does an SM of @prio_a and @guid_a outrank one of @prio_b and @guid_b? */
static int sm_outranks(unsigned int prio_a, uint64_t guid_a,
		       unsigned int prio_b, uint64_t guid_b)
{
	return prio_a > prio_b || (prio_a == prio_b && guid_a < guid_b);
}

/* pib-sm's own SMInfo, in @data. */
static void sm_sminfo_fill(const struct sm_ctx *c, uint8_t *data)
{
	memset(data, 0, IB_SMP_DATA_SIZE);
	mad_set_field64(data, 0, IB_SMINFO_GUID_F, c->port_guid);
	mad_set_field64(data, 0, IB_SMINFO_KEY_F, c->sm_key);
	mad_set_field(data, 0, IB_SMINFO_ACT_F, c->act_count);
	mad_set_field(data, 0, IB_SMINFO_PRIO_F, c->priority);
	mad_set_field(data, 0, IB_SMINFO_STATE_F, c->role);
}

/**
 * sm_set_role() - pib-sm's state becomes @role, logged
 * @c: the SM
 * @role: enum sm_role
 * @why: what made it so
 */
void sm_set_role(struct sm_ctx *c, enum sm_role role, const char *why)
{
	if (c->role == role)
		return;
	sm_log(c, SM_LOG_INFO, "SM state %s -> %s: %s\n", sm_state_name[c->role],
	       sm_state_name[role], why);
	c->role = role;
	if (role == SM_ROLE_MASTER)
		c->heavy_due = c->rereg_due = 1;
}

/**
 * sm_sminfo_open() - pib-sm is an SM on its port: IsSM, and the agents
 *	that answer SMInfo
 * @c: the SM (after mad_rpc_open_port())
 *
 * Return: 0, or -1 (said why).
 */
int sm_sminfo_open(struct sm_ctx *c)
{
	long mask[16 / sizeof(long)] = { 0 }, lr_mask[16 / sizeof(long)] = { 0 };
	char path[256];
	umad_port_t port;

	mask[0] = 1L << IB_MAD_METHOD_GET | 1L << IB_MAD_METHOD_SET;
	/* (traps come LID-routed, to the SM's LID: sm_trap.c) */
	lr_mask[0] = mask[0] | 1L << IB_MAD_METHOD_TRAP;
	if (umad_get_port(c->dev, c->port, &port) < 0) {
		sm_log(c, SM_LOG_ERR, "SMInfo: no such port\n");
		return -1;
	}
	c->port_guid = be64toh(port.port_guid);
	umad_release_port(&port);
	if (umad_get_issm_path((char *)c->dev, c->port, path, sizeof(path)) < 0 ||
	    (c->issm = open(path, O_RDWR)) < 0) {
		sm_log(c, SM_LOG_ERR, "SMInfo: cannot say the port has an SM (issm): %s\n",
		       strerror(errno));
		return -1;
	}
	c->smi_port = umad_open_port((char *)c->dev, c->port);
	if (c->smi_port >= 0) {
		c->smi_agent[0] = umad_register(c->smi_port, IB_SMI_CLASS, 1, 0,
						lr_mask);
		c->smi_agent[1] = umad_register(c->smi_port, IB_SMI_DIRECT_CLASS, 1, 0,
						mask);
	}
	if (c->smi_port < 0 || c->smi_agent[0] < 0 || c->smi_agent[1] < 0) {
		sm_log(c, SM_LOG_ERR, "SMInfo: cannot register for the SM's MADs (is another SM on this port?)\n");
		return -1;
	}
	return 0;
}

/**
 * sm_sminfo_close() - no longer an SM on the port
 * @c: the SM
 */
void sm_sminfo_close(struct sm_ctx *c)
{
	if (c->smi_port >= 0)
		umad_close_port(c->smi_port);
	if (c->issm >= 0)
		close(c->issm);
	c->smi_port = c->issm = -1;
}

/* What an SMInfo Set from another SM asks (IBA 14.4.1.2), by modifier. */
static const struct {
	enum sm_role role;	/* SM_ROLE_NONE: nothing */
	enum sm_role from;	/* only from this state (SM_ROLE_NONE: any) */
	const char *why;
} sm_controls[] = {
	[SM_CTL_HANDOVER] = { SM_ROLE_MASTER, SM_ROLE_STANDBY,
			      "the master handed the subnet over" },
	[SM_CTL_ACKNOWLEDGE] = { SM_ROLE_NONE, SM_ROLE_NONE, NULL },
	[SM_CTL_DISABLE] = { SM_ROLE_NOT_ACTIVE, SM_ROLE_NONE,
			     "another SM disabled it" },
	[SM_CTL_STANDBY] = { SM_ROLE_STANDBY, SM_ROLE_NONE,
			     "another SM asked it to stand by" },
	[SM_CTL_DISCOVER] = { SM_ROLE_DISCOVERING, SM_ROLE_NONE,
			      "another SM asked it to discover" },
};

/*
 * Act on an SMInfo Set from another SM with modifier @mod and the sender's
 * SMInfo @data. Return: the GUID of the SM whose HANDOVER pib-sm took, to
 * acknowledge, or 0.
 */
static uint64_t sm_sminfo_control(struct sm_ctx *c, unsigned int mod,
				  const uint8_t *data)
{
	uint64_t from = mad_get_field64((void *)data, 0, IB_SMINFO_GUID_F);

	/* (any host may send one: a line only for the handover made) */
	if (mod == SM_CTL_ACKNOWLEDGE)
		sm_log(c, from == c->handover_guid ? SM_LOG_INFO : SM_LOG_DEBUG,
		       "SMInfo: 0x%016" PRIx64 " acknowledged the handover\n", from);
	if (mod >= sizeof(sm_controls) / sizeof(sm_controls[0]) ||
	    !sm_controls[mod].why)
		return 0;
	/* (a master handed the subnet: sweep it again, as opensm does) */
	if (mod == SM_CTL_HANDOVER && c->role == SM_ROLE_MASTER) {
		c->heavy_due = 1;
		return from;
	}
	if (sm_controls[mod].from != SM_ROLE_NONE &&
	    sm_controls[mod].from != c->role)
		return 0;
	sm_set_role(c, sm_controls[mod].role, sm_controls[mod].why);
	if (c->role == SM_ROLE_DISCOVERING)
		c->heavy_due = 1;
	return mod == SM_CTL_HANDOVER ? from : 0;
}

/* The node of the SM port @guid (a CA's entry port), or SM_NONE. */
static int sm_find_sm(const struct sm_ctx *c, uint64_t guid)
{
	int i;

	for (i = 0; i < c->fab.num_nodes; i++)
		if (c->fab.node[i].port[c->fab.node[i].entry].guid == guid &&
		    !sm_node_is_switch(&c->fab.node[i]))
			return i;
	return SM_NONE;
}

/*
 * SMInfo Set @ctl to the SM of node @i, with pib-sm's SMInfo saying
 * @state. Return: 0 if the SM took it.
 */
static int sm_sminfo_set(struct sm_ctx *c, int i, unsigned int ctl,
			 enum sm_role state)
{
	uint8_t data[IB_SMP_DATA_SIZE];

	sm_sminfo_fill(c, data);
	mad_set_field(data, 0, IB_SMINFO_STATE_F, state);
	return sm_smp(c, &c->fab.node[i], 1, IB_ATTR_SMINFO, ctl, data);
}

/*
 * Acknowledge the HANDOVER of the SM @guid. The SMInfo sent says STANDBY,
 * the state the handover found pib-sm in: opensm refuses an ACKNOWLEDGE
 * from an SM that says otherwise.
 */
static void sm_acknowledge(struct sm_ctx *c, uint64_t guid)
{
	int i = sm_find_sm(c, guid);

	if (i == SM_NONE || sm_sminfo_set(c, i, SM_CTL_ACKNOWLEDGE, SM_ROLE_STANDBY))
		sm_log(c, SM_LOG_INFO, "SMInfo: cannot acknowledge the handover from 0x%016" PRIx64 "\n",
		       guid);
	else
		sm_log(c, SM_LOG_INFO, "SMInfo: acknowledged the handover from 0x%016" PRIx64 "\n",
		       guid);
}

/* Answer the SMInfo Get or Set in @buf (@len bytes of MAD, @agent's). */
static void sm_sminfo_answer(struct sm_ctx *c, uint8_t *buf, int len)
{
	uint8_t *mad = umad_get_mad(buf);
	unsigned int method = mad_get_field(mad, 0, IB_MAD_METHOD_F);
	unsigned int mclass = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F);
	int agent = c->smi_agent[mclass == IB_SMI_DIRECT_CLASS];
	uint16_t status = 0;
	uint64_t ack = 0;

	if (len < IB_MAD_SIZE || mad_get_field(mad, 0, IB_MAD_RESPONSE_F) ||
	    (method != IB_MAD_METHOD_GET && method != IB_MAD_METHOD_SET))
		return;
	if (mad_get_field(mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_SMINFO)
		status = 3 << 2;	/* method/attribute not supported */
	else if (method == IB_MAD_METHOD_SET)
		ack = sm_sminfo_control(c, mad_get_field(mad, 0, IB_MAD_ATTRMOD_F),
					mad + IB_SMP_DATA_OFFS);
	sm_sminfo_fill(c, mad + IB_SMP_DATA_OFFS);
	/* (libibmad's Method field is 7 bits: the R bit is a field of its own) */
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	if (mclass == IB_SMI_DIRECT_CLASS)
		status |= SM_DR_DIRECTION;
	mad[4] = status >> 8;
	mad[5] = status & 0xff;
	if (umad_send(c->smi_port, agent, buf, IB_MAD_SIZE, 0, 0) < 0)
		sm_log(c, SM_LOG_DEBUG, "SMInfo: no answer sent\n");
	if (ack)
		sm_acknowledge(c, ack);
}

/**
 * sm_sminfo_poll() - answer the SMInfo MADs that wait on the SM's agents
 * @c: the SM
 */
void sm_sminfo_poll(struct sm_ctx *c)
{
	size_t size = umad_size() + IB_MAD_SIZE;
	uint8_t *buf = malloc(size);
	int k, len;

	for (k = 0; buf && c->smi_port >= 0 && k < 16; k++) {
		len = IB_MAD_SIZE;
		memset(buf, 0, size);
		if (umad_recv(c->smi_port, buf, &len, 0) < 0)
			break;
		if (umad_status(buf))
			continue;
		if (mad_get_field(umad_get_mad(buf), 0, IB_MAD_METHOD_F) ==
		    IB_MAD_METHOD_TRAP)
			sm_trap_repress(c, buf, len);
		else
			sm_sminfo_answer(c, buf, len);
	}
	free(buf);
}

/**
 * sm_sminfo_fd() - the descriptor to poll for SMInfo MADs
 * @c: the SM
 *
 * Return: it, or -1.
 */
int sm_sminfo_fd(const struct sm_ctx *c)
{
	return c->smi_port >= 0 ? umad_get_fd(c->smi_port) : -1;
}

/* Is port @p of node @i another SM's (a CA port that says IsSM)? */
static int sm_other_sm(const struct sm_ctx *c, int i, unsigned int p)
{
	const struct sm_node *n = &c->fab.node[i];

	return !sm_node_is_switch(n) && p == n->entry && n->port[p].state &&
	       n->port[p].guid != c->port_guid &&
	       (mad_get_field((void *)n->port[p].port_info, 0,
			      IB_PORT_CAPMASK_F) & SM_CAP_IS_SM);
}

/* What sm_elect() found: the SMs that count, by node (or SM_NONE). */
struct sm_election {
	int master;		/* the MASTER that outranks the others */
	int standby;		/* the STANDBY that outranks pib-sm most */
	unsigned int prio[2];
	uint64_t guid[2];
};

/* Count the SMInfo @data of the SM at node @i in @e. */
static void sm_elect_one(struct sm_ctx *c, struct sm_election *e, int i,
			 const uint8_t *data)
{
	unsigned int state = mad_get_field((void *)data, 0, IB_SMINFO_STATE_F);
	unsigned int prio = mad_get_field((void *)data, 0, IB_SMINFO_PRIO_F);
	uint64_t guid = mad_get_field64((void *)data, 0, IB_SMINFO_GUID_F);
	int k = state == SM_ROLE_STANDBY;
	int *best = k ? &e->standby : &e->master;

	if (state != SM_ROLE_MASTER && state != SM_ROLE_STANDBY)
		return;
	if (c->sm_key && mad_get_field64((void *)data, 0, IB_SMINFO_KEY_F) != c->sm_key) {
		sm_log(c, SM_LOG_INFO,
		       "SMInfo: the SM 0x%016" PRIx64 " has another SM_Key: not trusted\n",
		       guid);
		return;
	}
	if ((k && !sm_outranks(prio, guid, c->priority, c->port_guid)) ||
	    (*best != SM_NONE && !sm_outranks(prio, guid, e->prio[k], e->guid[k])))
		return;
	*best = i;
	e->prio[k] = prio;
	e->guid[k] = guid;
}

/* Stand by the SM @guid, polling it; @why logged. */
static void sm_stand_by(struct sm_ctx *c, uint64_t guid, const char *why)
{
	if (guid != c->master_guid)
		c->prio_traps = 0;
	c->master_guid = guid;
	c->master_misses = 0;
	sm_set_role(c, SM_ROLE_STANDBY, why);
}

/*
 * A master pib-sm hands the subnet over to the STANDBY SM of node @i
 * (@guid), which outranks it, unless that SM did not take it
 * SM_HANDOVER_TRIES times in a row. Return: 1 if it took the HANDOVER.
 */
static int sm_hand_over(struct sm_ctx *c, int i, uint64_t guid)
{
	if (guid == c->handover_guid && c->handover_fails >= SM_HANDOVER_TRIES)
		return 0;
	c->handover_guid = guid;
	if (sm_sminfo_set(c, i, SM_CTL_HANDOVER, SM_ROLE_MASTER)) {
		c->handover_fails++;
		sm_log(c, SM_LOG_INFO, "SMInfo: 0x%016" PRIx64 " outranks it and stands by, but refused the subnet\n",
		       guid);
		return 0;
	}
	sm_log(c, SM_LOG_INFO, "SMInfo: handed the subnet over to 0x%016" PRIx64 "\n",
	       guid);
	sm_stand_by(c, guid, "it handed the subnet over");
	return 1;
}

/**
 * sm_elect() - after a sweep, read the other SMs' SMInfo and decide
 *	whether pib-sm is MASTER or STANDBY
 * @c: the SM
 *
 * A master that outranks pib-sm, or any master while pib-sm is not one
 * yet, keeps the subnet: pib-sm stands by (and asks a master it outranks
 * for the subnet). A master pib-sm hands the subnet over to a STANDBY SM
 * that outranks it.
 *
 * Return: 1 if pib-sm is MASTER (it may configure the subnet), else 0.
 */
int sm_elect(struct sm_ctx *c)
{
	struct sm_election e = { SM_NONE, SM_NONE, { 0 }, { 0 } };
	struct sm_batch b = { 0 };
	unsigned int k, errors;
	int i;

	if (c->role == SM_ROLE_NOT_ACTIVE)
		return 0;
	for (i = 0; i < c->fab.num_nodes; i++)
		if (sm_other_sm(c, i, c->fab.node[i].entry) &&
		    !sm_batch_add(c, &b, i, c->fab.node[i].entry, 0, 0,
				  IB_ATTR_SMINFO, 0))
			break;
	/* (an SM that does not answer is no error of the sweep's) */
	errors = c->smp_errors;
	sm_batch_run(c, &b);
	c->smp_errors = errors;
	for (k = 0; k < b.n; k++)
		if (!b.r[k].status)
			sm_elect_one(c, &e, b.r[k].node, b.r[k].data);
	free(b.r);
	if (e.master != SM_NONE &&
	    (c->role != SM_ROLE_MASTER ||
	     sm_outranks(e.prio[0], e.guid[0], c->priority, c->port_guid))) {
		sm_stand_by(c, e.guid[0], "another SM is master");
		if (sm_outranks(c->priority, c->port_guid, e.prio[0], e.guid[0]))
			sm_trap_send_prio(c, e.master);
		return 0;
	}
	if (e.standby != SM_NONE) {
		if (c->role != SM_ROLE_MASTER) {
			sm_stand_by(c, e.guid[1], "a standby SM outranks it");
			return 0;
		}
		if (sm_hand_over(c, e.standby, e.guid[1]))
			return 0;
	}
	if (c->role != SM_ROLE_MASTER)
		sm_set_role(c, SM_ROLE_MASTER, "no SM outranks it");
	c->act_count++;
	return 1;
}

/**
 * sm_poll_master() - a STANDBY's poll of the master (IBA 14.4.1.1)
 * @c: the SM, STANDBY
 *
 * Return: 1 if the master is gone (pib-sm is now MASTER), else 0.
 */
int sm_poll_master(struct sm_ctx *c)
{
	struct sm_smp_req r;
	int i;

	i = sm_find_sm(c, c->master_guid);
	if (i != SM_NONE) {
		sm_smp_req_init(&r, c->fab.node[i].path, c->fab.node[i].hops, 0, 0,
				IB_ATTR_SMINFO, 0);
		if (!sm_smp_batch(c, &r, 1) &&
		    mad_get_field(r.data, 0, IB_SMINFO_STATE_F) == SM_ROLE_MASTER) {
			c->master_misses = 0;
			if (c->master_guid == c->handover_guid)
				c->handover_fails = 0;
			/* (again: a trap may be lost, as opensm knows) */
			if (sm_outranks(c->priority, c->port_guid,
					mad_get_field(r.data, 0, IB_SMINFO_PRIO_F),
					c->master_guid) &&
			    c->prio_traps++ < SM_HANDOVER_TRIES)
				sm_trap_send_prio(c, i);
			return 0;
		}
	}
	if (++c->master_misses < SM_MASTER_MISSES)
		return 0;
	sm_set_role(c, SM_ROLE_MASTER, "the master SM is gone");
	return 1;
}
