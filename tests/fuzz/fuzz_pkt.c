// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_pkt: any datagram through pib's packet parser (pib_hdr.h:
 * pib_pkt_parse, pib_pkt_locate, pib_hello_parse). The input is the
 * datagram. A packet either is refused with a reason, or its parts lie
 * inside it, add up to its length, and survive being sealed again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "pib_hdr.h"

/* The parts of a located packet tile it exactly. */
static void check_layout(const __u8 *buf, unsigned int len,
			 const struct pib_pkt *p)
{
	unsigned int i, sum = 0;
	unsigned int tail = p->lrh.lnh == PIB_LNH_RAW ? PIB_VCRC_LEN :
			    PIB_ICRC_LEN + PIB_VCRC_LEN;
	unsigned int pad = p->lrh.lnh == PIB_LNH_RAW ? 0 : p->bth.pad;

	FUZZ_CHECK(p->len == len);
	FUZZ_CHECK(p->hdr_len <= p->payload_off);
	FUZZ_CHECK(p->payload_off + p->payload_len + pad + tail == len);
	FUZZ_CHECK(!(p->ext & ~(PIB_EXT_PAYLOAD * 2 - 1)));
	FUZZ_CHECK(p->lrh.lnh != PIB_LNH_RAW || !p->ext);
	FUZZ_CHECK(p->payload_off == p->hdr_len + pib_ext_len(p->ext));
	FUZZ_CHECK(p->ext & PIB_EXT_PAYLOAD || !p->payload_len ||
		   p->lrh.lnh == PIB_LNH_RAW);
	/* Every byte the receiver may read is inside the datagram (ASan). */
	for (i = 0; i < p->payload_len; i++)
		sum += buf[p->payload_off + i];
	for (i = 0; i < p->payload_off; i++)
		sum += buf[i];
	(void)sum;
}

/* Sealing a located packet again makes it one that parses the same. */
static void check_reseal(const __u8 *buf, unsigned int len,
			 const struct pib_pkt *p)
{
	unsigned int body = len - PIB_VCRC_LEN -
			    (p->lrh.lnh == PIB_LNH_RAW ? 0 : PIB_ICRC_LEN);
	__u8 *copy = malloc(len);
	struct pib_pkt q;

	memcpy(copy, buf, len);
	FUZZ_CHECK(pib_pkt_seal(copy, body) == len);
	FUZZ_CHECK(pib_pkt_parse(copy, len, &q) == PIB_PKT_OK);
	FUZZ_CHECK(q.payload_off == p->payload_off &&
		   q.payload_len == p->payload_len && q.ext == p->ext);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pib_pkt parsed, located;
	enum pib_pkt_err pe, le;
	struct pib_pkt_brief brief;
	struct pib_hello h;
	__u8 *buf;

	if (size > 2 * PIB_MAX_PKT_LEN)
		return 0;
	/* A buffer of exactly the datagram's size: ASan sees any overread. */
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	pe = pib_pkt_parse(buf, size, &parsed);
	le = pib_pkt_locate(buf, size, &located);
	FUZZ_CHECK(pe < PIB_PKT_NUM_ERRS && le < PIB_PKT_NUM_ERRS);
	FUZZ_CHECK(pib_pkt_err_names[pe] && pib_pkt_err_names[le]);
	/*
	 * The CRCs are the only difference between the two: the VCRC is
	 * checked before all but the length, the ICRC after the headers'
	 * structure (rules about what the headers say may come after it).
	 */
	FUZZ_CHECK(pe == le || pe == PIB_PKT_BAD_VCRC || pe == PIB_PKT_BAD_ICRC);
	FUZZ_CHECK(pe != PIB_PKT_BAD_VCRC || le != PIB_PKT_BAD_LEN);
	FUZZ_CHECK(pe != PIB_PKT_BAD_ICRC || le == PIB_PKT_OK ||
		   le > PIB_PKT_BAD_ICRC);
	/* What a dropped packet's trace and log line show: any bytes. */
	pib_pkt_brief(buf, size, &brief);
	if (le == PIB_PKT_OK) {
		/* ... and of a good one, what the parser found. */
		FUZZ_CHECK(brief.slid == located.lrh.slid &&
			   brief.dlid == located.lrh.dlid &&
			   brief.lnh == located.lrh.lnh);
		FUZZ_CHECK(located.lrh.lnh == PIB_LNH_RAW ||
			   (brief.opcode == located.bth.opcode &&
			    brief.dqpn == located.bth.dest_qp &&
			    brief.psn == located.bth.psn));
		check_layout(buf, size, &located);
		check_reseal(buf, size, &located);
		if (located.lrh.lnh == PIB_LNH_RAW &&
		    !pib_hello_parse(buf + located.payload_off,
				     located.payload_len, &h))
			FUZZ_CHECK(h.version == PIB_HELLO_VERSION);
	}
	free(buf);
	return 0;
}
