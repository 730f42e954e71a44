// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The HCA's performance management agent: ClassPortInfo, PortCounters and
 * PortCountersExtended from the port's counters, for perfquery and for the
 * RDMA core's sysfs counters.
 */
#include <rdma/ib_pma.h>

#include "pib.h"

#define PIB_PMA_CLASS_VERSION	1
/* ClassPortInfo.RespTimeValue: 4.096 us * 2^18, about 1 s. */
#define PIB_PMA_RESP_TIME	18

/* PortCounters fields are narrow and stick at their maximum. */
static u64 pib_sat(atomic64_t *c, u64 max)
{
	return min_t(u64, atomic64_read(c), max);
}

/* PortSelect: our one port, or 0xFF for all ports. */
static bool pib_pma_port_ok(u8 port_select)
{
	return port_select == PIB_PORT_NUM || port_select == 0xff;
}

/**
 * struct pib_pma_clear - a counter that a Set's CounterSelect bit clears
 * @sel: the CounterSelect bit (big-endian, as in the MAD)
 * @off: the counter's offset in struct pib_counters
 */
struct pib_pma_clear {
	__be16 sel;
	size_t off;
};

#define PIB_PMA_CLEAR(bit, field) \
	{ bit, offsetof(struct pib_counters, field) }

/* PortCounters' CounterSelect (IBA 16.1.3.5, Table 247). */
static const struct pib_pma_clear pib_pma_clear_pc[] = {
	PIB_PMA_CLEAR(IB_PMA_SEL_LINK_DOWNED, link_downed),
	PIB_PMA_CLEAR(IB_PMA_SEL_PORT_RCV_ERRORS, rcv_errors),
	PIB_PMA_CLEAR(IB_PMA_SEL_PORT_XMIT_DISCARDS, xmit_discards),
	PIB_PMA_CLEAR(IB_PMA_SEL_PORT_XMIT_DATA, xmit_words),
	PIB_PMA_CLEAR(IB_PMA_SEL_PORT_RCV_DATA, rcv_words),
	PIB_PMA_CLEAR(IB_PMA_SEL_PORT_XMIT_PACKETS, xmit_packets),
	PIB_PMA_CLEAR(IB_PMA_SEL_PORT_RCV_PACKETS, rcv_packets),
};

/* PortCountersExtended's CounterSelect (IBA 16.1.4.11, Table 270). */
static const struct pib_pma_clear pib_pma_clear_pcx[] = {
	PIB_PMA_CLEAR(IB_PMA_SELX_PORT_XMIT_DATA, xmit_words),
	PIB_PMA_CLEAR(IB_PMA_SELX_PORT_RCV_DATA, rcv_words),
	PIB_PMA_CLEAR(IB_PMA_SELX_PORT_XMIT_PACKETS, xmit_packets),
	PIB_PMA_CLEAR(IB_PMA_SELX_PORT_RCV_PACKETS, rcv_packets),
	PIB_PMA_CLEAR(IB_PMA_SELX_PORT_UNI_XMIT_PACKETS, ucast_xmit_packets),
	PIB_PMA_CLEAR(IB_PMA_SELX_PORT_UNI_RCV_PACKETS, ucast_rcv_packets),
	PIB_PMA_CLEAR(IB_PMA_SELX_PORT_MULTI_XMIT_PACKETS, mcast_xmit_packets),
	PIB_PMA_CLEAR(IB_PMA_SELX_PORT_MULTI_RCV_PACKETS, mcast_rcv_packets),
};

/* A Set clears the counters its CounterSelect names. */
static void pib_pma_clear(struct pib_counters *c, __be16 sel,
			  const struct pib_pma_clear *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (sel & t[i].sel)
			atomic64_set((atomic64_t *)((u8 *)c + t[i].off), 0);
}

static int pib_pma_counters(struct pib_dev *dev, struct ib_pma_mad *pmad)
{
	struct ib_pma_portcounters *pc = (void *)pmad->data;
	struct pib_counters *c = &dev->port.counters;
	__be16 sel = pc->counter_select;
	u8 port_select = pc->port_select;

	if (!pib_pma_port_ok(port_select))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (pmad->mad_hdr.method == IB_MGMT_METHOD_SET)
		pib_pma_clear(c, sel, pib_pma_clear_pc,
			      ARRAY_SIZE(pib_pma_clear_pc));
	memset(pmad->data, 0, sizeof(pmad->data));
	pc->port_select = port_select;
	pc->counter_select = sel;
	pc->link_downed_counter = pib_sat(&c->link_downed, U8_MAX);
	pc->port_rcv_errors = cpu_to_be16(pib_sat(&c->rcv_errors, U16_MAX));
	pc->port_xmit_discards = cpu_to_be16(pib_sat(&c->xmit_discards, U16_MAX));
	pc->port_xmit_data = cpu_to_be32(pib_sat(&c->xmit_words, U32_MAX));
	pc->port_rcv_data = cpu_to_be32(pib_sat(&c->rcv_words, U32_MAX));
	pc->port_xmit_packets = cpu_to_be32(pib_sat(&c->xmit_packets, U32_MAX));
	pc->port_rcv_packets = cpu_to_be32(pib_sat(&c->rcv_packets, U32_MAX));
	return 0;
}

static int pib_pma_counters_ext(struct pib_dev *dev, struct ib_pma_mad *pmad)
{
	struct ib_pma_portcounters_ext *pc = (void *)pmad->data;
	struct pib_counters *c = &dev->port.counters;
	__be16 sel = pc->counter_select;
	u8 port_select = pc->port_select;

	if (!pib_pma_port_ok(port_select))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (pmad->mad_hdr.method == IB_MGMT_METHOD_SET)
		pib_pma_clear(c, sel, pib_pma_clear_pcx,
			      ARRAY_SIZE(pib_pma_clear_pcx));
	memset(pmad->data, 0, sizeof(pmad->data));
	pc->port_select = port_select;
	pc->counter_select = sel;
	pc->port_xmit_data = cpu_to_be64(atomic64_read(&c->xmit_words));
	pc->port_rcv_data = cpu_to_be64(atomic64_read(&c->rcv_words));
	pc->port_xmit_packets = cpu_to_be64(atomic64_read(&c->xmit_packets));
	pc->port_rcv_packets = cpu_to_be64(atomic64_read(&c->rcv_packets));
	pc->port_unicast_xmit_packets =
		cpu_to_be64(atomic64_read(&c->ucast_xmit_packets));
	pc->port_unicast_rcv_packets =
		cpu_to_be64(atomic64_read(&c->ucast_rcv_packets));
	pc->port_multicast_xmit_packets =
		cpu_to_be64(atomic64_read(&c->mcast_xmit_packets));
	pc->port_multicast_rcv_packets =
		cpu_to_be64(atomic64_read(&c->mcast_rcv_packets));
	return 0;
}

static int pib_pma_class_port_info(struct pib_dev *dev, struct ib_pma_mad *pmad)
{
	struct ib_class_port_info *cpi = (void *)pmad->data;

	if (pmad->mad_hdr.method != IB_MGMT_METHOD_GET)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	memset(pmad->data, 0, sizeof(pmad->data));
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = PIB_PMA_CLASS_VERSION;
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
	ib_set_cpi_resp_time(cpi, PIB_PMA_RESP_TIME);
	return 0;
}

/**
 * pib_pma() - answer a performance management MAD for the port
 * @dev: the device
 * @in: the MAD
 * @out: the reply
 *
 * Return: IB_MAD_RESULT_* flags.
 */
int pib_pma(struct pib_dev *dev, const struct ib_mad *in, struct ib_mad *out)
{
	struct ib_pma_mad *pmad = (struct ib_pma_mad *)out;
	int status;

	if (in->mad_hdr.method & IB_MGMT_METHOD_RESP)
		return IB_MAD_RESULT_SUCCESS;	/* a reply: for the requester */
	*out = *in;
	if (in->mad_hdr.class_version != PIB_PMA_CLASS_VERSION)
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	else if (in->mad_hdr.method != IB_MGMT_METHOD_GET &&
		 in->mad_hdr.method != IB_MGMT_METHOD_SET)
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
	else if (in->mad_hdr.attr_id == IB_PMA_CLASS_PORT_INFO)
		status = pib_pma_class_port_info(dev, pmad);
	else if (in->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS)
		status = pib_pma_counters(dev, pmad);
	else if (in->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS_EXT)
		status = pib_pma_counters_ext(dev, pmad);
	else
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	pmad->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	pmad->mad_hdr.status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
