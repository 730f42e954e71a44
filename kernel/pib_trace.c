// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pib's tracepoints: their one definition (pib_trace.h), and what they
 * read from a packet.
 */
#include "pib.h"

#define CREATE_TRACE_POINTS
#include "pib_trace.h"

/**
 * pib_trace_pkt_hdrs() - the LRH and BTH fields a packet event shows
 * @buf: the packet, which may be malformed (a dropped one)
 * @len: its length; nothing beyond it is read
 * @t: the fields, zero where @len ends first
 */
void pib_trace_pkt_hdrs(const u8 *buf, u32 len, struct pib_trace_pkt *t)
{
	struct pib_lrh lrh;
	struct pib_bth bth;
	u32 off;

	memset(t, 0, sizeof(*t));
	if (len < PIB_LRH_LEN)
		return;
	pib_lrh_unpack(buf, &lrh);
	t->slid = lrh.slid;
	t->dlid = lrh.dlid;
	t->vl = lrh.vl;
	t->lnh = lrh.lnh;
	if (lrh.lnh < PIB_LNH_IBA_LOCAL)
		return;
	off = PIB_LRH_LEN + (lrh.lnh == PIB_LNH_IBA_GLOBAL ? PIB_GRH_LEN : 0);
	if (len < off + PIB_BTH_LEN)
		return;
	pib_bth_unpack(buf + off, &bth);
	t->opcode = bth.opcode;
	t->dqpn = bth.dest_qp;
	t->psn = bth.psn;
}
