/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RC requester's round-trip time: a smoothed estimate and its
 * variation (RFC 6298's), and from them the probe time, how long a QP
 * with packets outstanding waits for an ACK before it sends them again
 * early (pib_comp.c).
 *
 * The ACK timeout a QP's owner sets is a fabric-wide bound, and pib
 * lengthens it to at least 200 ms (emulated and loaded hosts answer
 * late). A lost last packet of a burst, a lost ACK of a full window or a
 * lost sequence NAK would each stall the QP for that long. The probe goes
 * back after a few round trips instead, once per stall and without
 * spending a retry: the responder takes what it already has as
 * duplicates (IBA 9.7.5.1), and the timeout and retry count keep their
 * meaning.
 *
 * One PSN is timed at a time, from the packet that asked for an ACK to
 * the ACK that covers it; a go-back cancels the timing (Karn: an ACK
 * after a resend does not say which copy it answers).
 *
 * Pure code on the fixed-width types of <linux/types.h> and pib_hdr.h's
 * PSN arithmetic (24 bits), shared with the host-side unit tests.
 */
#ifndef PIB_RTT_H
#define PIB_RTT_H

#include <linux/types.h>

#include "pib_hdr.h"

/* The shortest probe time: a few timer ticks (HZ=250). */
#define PIB_RTT_PROBE_MIN_US	5000
/* Longer samples count as this (a QP idle in between, a stalled host). */
#define PIB_RTT_SAMPLE_MAX_US	10000000

/**
 * struct pib_rtt - a QP's round-trip estimate
 * @start_ns: when the timed packet left
 * @psn: the timed packet's PSN
 * @srtt_us: smoothed round trip in microseconds, 0 before the first sample
 * @rttvar_us: its mean deviation
 * @timing: a packet is being timed
 */
struct pib_rtt {
	__u64 start_ns;
	__u32 psn;
	__u32 srtt_us;
	__u32 rttvar_us;
	__u8 timing;
};

/**
 * pib_rtt_sent() - a packet that asks for an ACK left
 * @r: the estimate
 * @psn: its PSN
 * @now_ns: the time now
 *
 * It is timed unless another one is.
 */
static inline void pib_rtt_sent(struct pib_rtt *r, __u32 psn, __u64 now_ns)
{
	if (r->timing)
		return;
	r->timing = 1;
	r->psn = psn & PIB_PSN_MASK;
	r->start_ns = now_ns;
}

/* The requester went back: what it times may be answered twice. */
static inline void pib_rtt_cancel(struct pib_rtt *r)
{
	r->timing = 0;
}

/* Fold a sample of @us microseconds (at least 1) into the estimate. */
static inline void pib_rtt_sample(struct pib_rtt *r, __u32 us)
{
	__u32 err;

	if (!r->srtt_us) {
		r->srtt_us = us;
		r->rttvar_us = us / 2;
		return;
	}
	err = us > r->srtt_us ? us - r->srtt_us : r->srtt_us - us;
	r->rttvar_us = r->rttvar_us - r->rttvar_us / 4 + err / 4;
	r->srtt_us = r->srtt_us - r->srtt_us / 8 + us / 8;
	if (!r->srtt_us)
		r->srtt_us = 1;
}

/**
 * pib_rtt_acked() - the responder acknowledged every PSN up to @acked_psn
 * @r: the estimate
 * @acked_psn: the newest PSN acknowledged
 * @now_ns: the time now
 */
static inline void pib_rtt_acked(struct pib_rtt *r, __u32 acked_psn,
				 __u64 now_ns)
{
	__u64 us;

	if (!r->timing || pib_psn_diff(acked_psn, r->psn) < 0)
		return;
	r->timing = 0;
	us = now_ns > r->start_ns ? (now_ns - r->start_ns) / 1000 : 0;
	if (us > PIB_RTT_SAMPLE_MAX_US)
		us = PIB_RTT_SAMPLE_MAX_US;
	pib_rtt_sample(r, us ? (__u32)us : 1);
}

/**
 * pib_rtt_probe_us() - how long to wait for an ACK before probing
 * @r: the estimate
 *
 * Return: two round trips and four deviations, at least
 * PIB_RTT_PROBE_MIN_US; 0 before the first sample (no probe).
 */
static inline __u32 pib_rtt_probe_us(const struct pib_rtt *r)
{
	__u64 p;

	if (!r->srtt_us)
		return 0;
	p = 2ULL * r->srtt_us + 4ULL * r->rttvar_us;
	return p < PIB_RTT_PROBE_MIN_US ? PIB_RTT_PROBE_MIN_US : (__u32)p;
}

#endif /* PIB_RTT_H */
