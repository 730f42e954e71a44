// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traps to the SM (IBA 14.3.6, 13.4.9): a Notice that a node sends to the
 * SM's LID, again and again until the SM represses it with a TrapRepress
 * of the same TransactionID. pib-sm represses every trap it receives and,
 * as master, sweeps at once: Trap 128 (a switch port's link state
 * changed) says that a host came or went, without waiting for the next
 * light sweep; the others (144: a capability changed, e.g. another SM
 * came up; 145: a system image GUID changed) are also news of the subnet.
 */
#include <arpa/inet.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "pib_sm.h"

/* IBA 14.2.5.1: the Notice attribute of SMPs. */
#define SM_ATTR_NOTICE		0x0002

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
