// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traps to the SM (IBA 14.3.6, 13.4.9): a Notice that a node sends to the
 * SM's LID, again and again until the SM represses it with a TrapRepress
 * of the same TransactionID. pib-sm represses every trap it receives and,
 * as master, sweeps at once: Trap 128 (a switch port's link state
 * changed) says that a host came or went, without waiting for the next
 * light sweep; the others (144: a capability changed, e.g. another SM
 * came up; 145: a system image GUID changed) are also news of the subnet.
 *
 * pib-sm also sends one trap: a STANDBY that outranks the master tells it
 * so with a Trap 144, as opensm does, and the master hands the subnet over
 * (IBA 14.4.1).
 */
#include <arpa/inet.h>
#include <stdlib.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "pib_sm.h"

/* IBA 14.2.5.1: the Notice attribute of SMPs. */
#define SM_ATTR_NOTICE		0x0002
/* IBA 13.4.8.2: a generic Notice of Type informational, from a CA. */
#define SM_NOTICE_TYPE_INFO	4
#define SM_NOTICE_PRODUCER_CA	1
/* IBA 14.2.5.1 Trap 144 (local changes), and the offset in the Notice of
 * its CapabilityMask change flags (libibmad has no field for them), of
 * which the low byte's "SM priority changed". */
#define SM_TRAP_LOCAL_CHANGES	144
#define SM_TRAP144_FLAGS	20
#define SM_TRAP144_PRIO_CHANGE	0x08

/* The LID of node @i's entry port, as its PortInfo last said. */
static uint16_t sm_entry_lid(const struct sm_ctx *c, int i)
{
	const struct sm_node *n = &c->fab.node[i];

	return (uint16_t)mad_get_field((void *)n->port[n->entry].port_info, 0,
				       IB_PORT_LID_F);
}

/**
 * sm_trap_send_prio() - tell the master SM that pib-sm outranks it
 * @c: the SM, STANDBY
 * @i: the master's node in the subnet model
 *
 * Sends a SubnTrap(Notice) 144 with the "SM priority changed" flag to the
 * master's LID, from pib-sm's port. The master sweeps, reads pib-sm's
 * SMInfo, and hands the subnet over. The TrapRepress that answers goes to
 * the SMInfo agent, which drops it.
 */
void sm_trap_send_prio(struct sm_ctx *c, int i)
{
	uint16_t lid = sm_entry_lid(c, c->root), dlid = sm_entry_lid(c, i);
	const struct sm_node *me = &c->fab.node[c->root];
	uint8_t *buf, *mad, *ntc;

	buf = calloc(1, umad_size() + IB_MAD_SIZE);
	if (!buf || !lid || !dlid) {
		free(buf);
		return;
	}
	mad = umad_get_mad(buf);
	mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SMI_CLASS);
	mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, ++c->smp_tid);
	mad_set_field(mad, 0, IB_MAD_ATTRID_F, SM_ATTR_NOTICE);
	ntc = mad + IB_SMP_DATA_OFFS;
	mad_set_field(ntc, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(ntc, 0, IB_NOTICE_TYPE_F, SM_NOTICE_TYPE_INFO);
	mad_set_field(ntc, 0, IB_NOTICE_PRODUCER_F, SM_NOTICE_PRODUCER_CA);
	mad_set_field(ntc, 0, IB_NOTICE_TRAP_NUMBER_F, SM_TRAP_LOCAL_CHANGES);
	mad_set_field(ntc, 0, IB_NOTICE_ISSUER_LID_F, lid);
	mad_set_field(ntc, 0, IB_NOTICE_DATA_144_LID_F, lid);
	mad_set_field(ntc, 0, IB_NOTICE_DATA_144_CAPMASK_F,
		      mad_get_field((void *)me->port[me->entry].port_info, 0,
				    IB_PORT_CAPMASK_F));
	ntc[SM_TRAP144_FLAGS + 1] = SM_TRAP144_PRIO_CHANGE;
	umad_set_addr(buf, dlid, 0, 0, 0);
	if (umad_send(c->smi_port, c->smi_agent[0], buf, IB_MAD_SIZE, 0, 0) < 0)
		sm_log(c, SM_LOG_DEBUG, "trap: no Trap 144 sent to LID %u\n", dlid);
	else
		sm_log(c, SM_LOG_DEBUG, "trap: Trap 144 (SM priority) sent to LID %u\n",
		       dlid);
	free(buf);
}

/**
 * sm_trap_repress() - repress the trap in @buf and note the news
 * @c: the SM
 * @buf: a umad buffer holding a SubnTrap (LID-routed, method Trap)
 * @len: the length of its MAD
 *
 * Answers with a TrapRepress to the sender (the same TID, attribute and
 * modifier, the Notice as received); a master sweeps before serving again.
 */
void sm_trap_repress(struct sm_ctx *c, uint8_t *buf, int len)
{
	uint8_t *mad = umad_get_mad(buf);
	unsigned int attr, trap = 0, issuer = 0;

	if (len < IB_MAD_SIZE)
		return;
	attr = mad_get_field(mad, 0, IB_MAD_ATTRID_F);
	if (attr == SM_ATTR_NOTICE) {
		trap = mad_get_field(mad + IB_SMP_DATA_OFFS, 0, IB_NOTICE_TRAP_NUMBER_F);
		issuer = mad_get_field(mad + IB_SMP_DATA_OFFS, 0, IB_NOTICE_ISSUER_LID_F);
	}
	/* (one line per sweep that traps ask for: any host can send them) */
	sm_log(c, c->wake ? SM_LOG_DEBUG : SM_LOG_INFO,
	       "trap %u from LID %u (SLID %u): repressed%s\n", trap, issuer,
	       ntohs(umad_get_mad_addr(buf)->lid),
	       c->role == SM_ROLE_MASTER ? ", sweeping" : "");
	/* (a TrapRepress is a response: the kernel keeps the sender's TID) */
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP_REPRESS);
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 0);
	mad[4] = 0;
	mad[5] = 0;
	if (umad_send(c->smi_port, c->smi_agent[0], buf, IB_MAD_SIZE, 0, 0) < 0)
		sm_log(c, SM_LOG_DEBUG, "trap: no TrapRepress sent\n");
	if (c->role == SM_ROLE_MASTER)
		c->heavy_due = c->wake = 1;
}
