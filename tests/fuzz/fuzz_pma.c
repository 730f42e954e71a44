// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_pma: performance management MADs (pib_pma.c) against a port whose
 * counters start anywhere. Input: 11 counters (8 bytes each, big-endian),
 * then 256-byte MADs. Every request gets a GetResp of the same attribute;
 * narrow counters saturate, never wrap.
 */
#include "fuzz.h"

/* PortCountersExtended: each 64-bit counter as the port has it. */
static void check_counters_ext(const struct ib_pma_mad *out,
			       const struct pib_counters *c)
{
	const struct ib_pma_portcounters_ext *pc = (const void *)out->data;

	FUZZ_CHECK(be64_to_cpu(pc->port_rcv_packets) ==
		   (u64)atomic64_read(&c->rcv_packets));
	FUZZ_CHECK(be64_to_cpu(pc->port_unicast_xmit_packets) ==
		   (u64)atomic64_read(&c->ucast_xmit_packets));
	FUZZ_CHECK(be64_to_cpu(pc->port_multicast_rcv_packets) ==
		   (u64)atomic64_read(&c->mcast_rcv_packets));
}

static void check_counters(const struct ib_pma_mad *out,
			   const struct pib_counters *c)
{
	const struct ib_pma_portcounters *pc = (const void *)out->data;

	if (out->mad_hdr.status)
		return;
	if (out->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS_EXT)
		check_counters_ext(out, c);
	if (out->mad_hdr.attr_id != IB_PMA_PORT_COUNTERS)
		return;
	FUZZ_CHECK(be16_to_cpu(pc->port_rcv_errors) ==
		   min_t(u64, atomic64_read(&c->rcv_errors), U16_MAX));
	FUZZ_CHECK(be32_to_cpu(pc->port_xmit_data) ==
		   min_t(u64, atomic64_read(&c->xmit_words), U32_MAX));
	FUZZ_CHECK(pc->link_downed_counter ==
		   min_t(u64, atomic64_read(&c->link_downed), U8_MAX));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct pib_counters *c;
	struct pib_dev *dev;
	unsigned int n;

	fuzz_world_init(1, false);
	dev = fuzz_world.dev[0];
	c = &dev->port.counters;
	atomic64_set(&c->xmit_packets, fuzz_u64(&in));
	atomic64_set(&c->xmit_words, fuzz_u64(&in));
	atomic64_set(&c->rcv_packets, fuzz_u64(&in));
	atomic64_set(&c->rcv_words, fuzz_u64(&in));
	atomic64_set(&c->xmit_discards, fuzz_u64(&in));
	atomic64_set(&c->rcv_errors, fuzz_u64(&in));
	atomic64_set(&c->link_downed, fuzz_u64(&in));
	atomic64_set(&c->ucast_xmit_packets, fuzz_u64(&in));
	atomic64_set(&c->ucast_rcv_packets, fuzz_u64(&in));
	atomic64_set(&c->mcast_xmit_packets, fuzz_u64(&in));
	atomic64_set(&c->mcast_rcv_packets, fuzz_u64(&in));
	for (n = 0; in.n && n < 64; n++) {
		struct ib_mad *mad = malloc(sizeof(*mad));
		struct ib_mad *out = malloc(sizeof(*out));
		int ret;

		fuzz_bytes(&in, mad, sizeof(*mad));
		mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
		memset(out, 0xa5, sizeof(*out));
		ret = pib_pma(dev, mad, out);
		FUZZ_CHECK(ret & IB_MAD_RESULT_SUCCESS);
		if (ret & IB_MAD_RESULT_REPLY) {
			FUZZ_CHECK(!(mad->mad_hdr.method & IB_MGMT_METHOD_RESP));
			FUZZ_CHECK(out->mad_hdr.method == IB_MGMT_METHOD_GET_RESP);
			FUZZ_CHECK(out->mad_hdr.attr_id == mad->mad_hdr.attr_id);
			check_counters((const struct ib_pma_mad *)out, c);
		}
		free(mad);
		free(out);
	}
	fuzz_world_fini();
	return 0;
}
