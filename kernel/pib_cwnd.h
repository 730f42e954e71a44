/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RC requester's congestion window: how many packets (PSNs sent and
 * not acknowledged) a QP keeps in flight.
 *
 * A real IB link loses nothing: its credits hold a sender back. pib's LAN
 * drops what overflows a buffer on the way, and a burst of several QPs'
 * windows at once does (docs/performance.md: 4 QPs of 64 packets lost
 * 2% of their frames on the test rig, each loss a go-back-N resend, a
 * retransmit probe or an ACK timeout). So each QP halves its window on a
 * loss (a sequence NAK, a probe, an ACK timeout) once per round trip,
 * and grows it by a packet per window of packets acknowledged, up to
 * PIB_CWND_MAX (the fixed window pib had before): a QP alone on a clean
 * LAN keeps the whole window.
 *
 * Pure code on the fixed-width types of <linux/types.h> and pib_hdr.h's
 * PSN arithmetic (24 bits), shared with the host-side unit tests.
 */
#ifndef PIB_CWND_H
#define PIB_CWND_H

#include <linux/types.h>

#include "pib_hdr.h"

#define PIB_CWND_MAX		64
#define PIB_CWND_MIN		8

/**
 * struct pib_cwnd - a QP's congestion window
 * @cwnd: packets it may have in flight, PIB_CWND_MIN..PIB_CWND_MAX
 * @acked: packets acknowledged toward the next increase
 * @recover: in recovery: the PSN after the newest sent at the last loss;
 *	losses before it is acknowledged are the same loss
 * @recovering: @recover holds
 * @losses: times the window was halved
 */
struct pib_cwnd {
	__u32 cwnd;
	__u32 acked;
	__u32 recover;
	__u8 recovering;
	__u32 losses;
};

/* A new QP's window: the whole of it. */
static inline void pib_cwnd_init(struct pib_cwnd *w)
{
	__builtin_memset(w, 0, sizeof(*w));
	w->cwnd = PIB_CWND_MAX;
}

/**
 * pib_cwnd_acked() - @n more packets were acknowledged, up to @acked_psn
 * @w: the window
 * @n: how many (at most 2^23)
 * @acked_psn: the newest PSN acknowledged now
 */
static inline void pib_cwnd_acked(struct pib_cwnd *w, __u32 n,
				  __u32 acked_psn)
{
	if (w->recovering &&
	    pib_psn_diff(acked_psn + 1, w->recover) >= 0)
		w->recovering = 0;
	if (w->cwnd >= PIB_CWND_MAX) {
		w->acked = 0;
		return;
	}
	w->acked += n < PIB_CWND_MAX * PIB_CWND_MAX ? n :
		    PIB_CWND_MAX * PIB_CWND_MAX;
	while (w->acked >= w->cwnd && w->cwnd < PIB_CWND_MAX) {
		w->acked -= w->cwnd;
		w->cwnd++;
	}
}

/**
 * pib_cwnd_lost() - a packet was lost (a sequence NAK, an ACK timeout)
 * @w: the window
 * @sent_psn: the PSN after the newest one sent so far
 *
 * Halves the window, unless this is a loss of the round trip that an
 * earlier halving already answered.
 */
static inline void pib_cwnd_lost(struct pib_cwnd *w, __u32 sent_psn)
{
	if (w->recovering)
		return;
	w->cwnd = w->cwnd / 2 > PIB_CWND_MIN ? w->cwnd / 2 : PIB_CWND_MIN;
	w->acked = 0;
	w->recover = sent_psn & PIB_PSN_MASK;
	w->recovering = 1;
	w->losses++;
}

#endif /* PIB_CWND_H */
