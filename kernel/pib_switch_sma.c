// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The virtual switch's subnet management agent: NodeInfo, NodeDescription,
 * PortInfo for every port (port 0 holds the switch's LID), SwitchInfo, the
 * Linear and MulticastForwardingTable, port 0's PKeyTable, and pib's own
 * LinkedPorts. The SM drives
 * the ports' logical states. Port 0's M_Key guards the whole switch, as an
 * HCA port's guards its SMA.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "pib.h"
#include "pib_trace.h"

/* SwitchInfo offsets (IBA 14.2.5.4). */
#define PIB_SI_LFT_CAP		0
#define PIB_SI_MFT_CAP		4
#define PIB_SI_LFT_TOP		6
#define PIB_SI_DEFAULT_PORT	8
#define PIB_SI_FLAGS		11	/* LifeTimeValue, PortStateChange */
#define PIB_SI_PORT_STATE_CHANGE 0x04
#define PIB_SI_MFT_TOP		18
#define PIB_LFT_BLOCK		64	/* LIDs per LinearForwardingTable block */
#define PIB_MFT_BLOCK		32	/* MLIDs per MulticastForwardingTable block */
#define PIB_MFT_BLOCK_MASK	0x1ff
#define PIB_MFT_POSITION_SHIFT	28

/**
 * struct pib_sw_sma_attr - how the switch SMA handles one attribute
 * @id: attribute ID
 * @get: fills the reply's data; returns a MAD status
 * @set: applies a Set from the SMP's data (NULL: read-only); returns a
 *	 MAD status, and the reply is a Get
 */
struct pib_sw_sma_attr {
	__be16 id;
	u16 (*get)(struct pib_switch *sw, unsigned int in_port, struct ib_smp *smp);
	u16 (*set)(struct pib_switch *sw, struct ib_smp *smp);
};

static u16 pib_sw_get_node_info(struct pib_switch *sw, unsigned int in_port,
				struct ib_smp *smp)
{
	struct ib_node_info *ni = (struct ib_node_info *)smp->data;

	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = PIB_SMP_CLASS_VERSION;
	ni->node_type = RDMA_NODE_IB_SWITCH;
	ni->num_ports = PIB_SW_NUM_PORTS;
	ni->sys_guid = cpu_to_be64(sw->guid);
	ni->node_guid = cpu_to_be64(sw->guid);
	ni->port_guid = cpu_to_be64(sw->guid);
	ni->partition_cap = cpu_to_be16(PIB_PKEY_TABLE_LEN);
	ni->local_port_num = in_port;
	pib_node_info_vendor(ni);
	return 0;
}

static u16 pib_sw_get_node_desc(struct pib_switch *sw, unsigned int in_port,
				struct ib_smp *smp)
{
	BUILD_BUG_ON(sizeof(sw->node_desc) > IB_SMP_DATA_SIZE);
	memcpy(smp->data, sw->node_desc, sizeof(sw->node_desc));
	return 0;
}

/*
 * pib's LinkedPorts (<rdma/pib-abi.h>): the ports whose state is not DOWN,
 * which are all that an SM needs to read the PortInfo of.
 */
static u16 pib_sw_get_linked_ports(struct pib_switch *sw, unsigned int in_port,
				   struct ib_smp *smp)
{
	unsigned long flags;
	unsigned int p;

	BUILD_BUG_ON(PIB_SW_NUM_PORTS >= 8 * PIB_SMP_LINKED_PORTS_LEN);
	if (smp->attr_mod)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memset(smp->data, 0, PIB_SMP_LINKED_PORTS_LEN);
	spin_lock_irqsave(&sw->lock, flags);
	for (p = 0; p <= PIB_SW_NUM_PORTS; p++)
		if (!p || sw->ports[p].state != IB_PORT_DOWN)
			pib_smp_port_link(smp->data, p);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

/* Link rate and MTU of a port: a device's own, else the netdev's. */
static void pib_sw_port_link(struct pib_switch *sw, unsigned int port,
			     struct ib_port_info *pi)
{
	const struct pib_ib_rate *rate = pib_ib_rate_for_mbps(0);
	struct pib_dev *dev = NULL;

	rcu_read_lock();
	if (port && pib_switch_port_up(sw, port, &dev) && dev) {
		pi->link_width_active = READ_ONCE(dev->port.width);
		pib_pi_set_link_speed_active(pi,
					     min_t(u8, READ_ONCE(dev->port.speed),
						   IB_SPEED_QDR));
		pib_pi_set_mtu_cap(pi, READ_ONCE(dev->port.max_mtu));
	}
	rcu_read_unlock();
	if (!dev) {
		pi->link_width_active = rate->width;
		pib_pi_set_link_speed_active(pi, rate->speed);
		pib_pi_set_mtu_cap(pi,
				   pib_ib_mtu_for_netdev(READ_ONCE(sw->ndev->mtu)));
	}
}

/* Port 0's own fields: the switch's LID, SM and M_Key. Under sw->lock. */
static void pib_sw_port0_info(struct pib_switch *sw, struct ib_port_info *pi)
{
	pi->gid_prefix = cpu_to_be64(sw->subnet_prefix);
	pi->lid = cpu_to_be16(sw->lid);
	pib_pi_set_lmc(pi, sw->lmc);
	pi->sm_lid = cpu_to_be16(sw->sm_lid);
	pib_pi_set_sm_sl(pi, sw->sm_sl);
	pib_pi_set_subnet_timeout(pi, sw->subnet_timeout);
	pi->mkey = cpu_to_be64(sw->mkey);
	pib_pi_set_mkey_protect(pi, sw->mkey_protect);
	pi->mkey_lease_period = cpu_to_be16(sw->mkey_lease);
	pi->mkey_violations = cpu_to_be16(sw->mkey_violations);
}

static u16 pib_sw_get_port_info(struct pib_switch *sw, unsigned int in_port,
				struct ib_smp *smp)
{
	unsigned int port = be32_to_cpu(smp->attr_mod);
	struct ib_port_info *pi;
	union pib_port_info u;
	unsigned long flags;
	u8 state, speed;

	if (port > PIB_SW_NUM_PORTS)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	memset(&u, 0, sizeof(u));
	pi = &u.pi;
	pi->local_port_num = in_port;
	pib_pi_set_link_down_default(pi, PIB_PHYS_POLLING);
	pib_pi_set_vl_cap(pi, 1);
	pib_pi_set_operational_vls(pi, 1);
	pib_pi_set_resp_time_value(pi, PIB_SMA_RESP_TIME);
	pib_sw_port_link(sw, port, pi);
	spin_lock_irqsave(&sw->lock, flags);
	state = sw->ports[port].state;
	pib_pi_set_port_state(pi, state);
	pib_pi_set_neighbor_mtu(pi, sw->ports[port].mtu ?: pib_pi_mtu_cap(pi));
	if (!port)
		pib_sw_port0_info(sw, pi);
	spin_unlock_irqrestore(&sw->lock, flags);
	pib_pi_set_phys_state(pi, state == IB_PORT_DOWN ? PIB_PHYS_POLLING :
							  PIB_PHYS_LINK_UP);
	pi->link_width_supported = pi->link_width_active;
	pi->link_width_enabled = pi->link_width_active;
	speed = pib_pi_link_speed_active(pi);
	pib_pi_set_link_speed_supported(pi, speed);
	pib_pi_set_link_speed_enabled(pi, speed);
	memcpy(smp->data, u.raw, sizeof(u.raw));
	return 0;
}

static u16 pib_sw_set_port_info(struct pib_switch *sw, struct ib_smp *smp)
{
	unsigned int port = be32_to_cpu(smp->attr_mod);
	const struct ib_port_info *pi;
	struct pib_sw_port *p;
	union pib_port_info u;
	unsigned long flags;
	u16 status = IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	u8 state;

	if (port > PIB_SW_NUM_PORTS)
		return status;
	memcpy(u.raw, smp->data, sizeof(u.raw));
	pi = &u.pi;
	state = pib_pi_port_state(pi);
	spin_lock_irqsave(&sw->lock, flags);
	p = &sw->ports[port];
	if (!pib_port_state_change_ok(p->state, state) ||
	    pib_pi_operational_vls(pi) > 1 ||
	    pib_pi_neighbor_mtu(pi) > IB_MTU_4096 ||
	    (!port && (be16_to_cpu(pi->lid) >= PIB_LID_MCAST ||
		       be16_to_cpu(pi->sm_lid) >= PIB_LID_MCAST)))
		goto out;
	if (!port) {
		sw->lid = be16_to_cpu(pi->lid);
		sw->lmc = pib_pi_lmc(pi);
		sw->sm_lid = be16_to_cpu(pi->sm_lid);
		sw->sm_sl = pib_pi_sm_sl(pi);
		sw->subnet_prefix = be64_to_cpu(pi->gid_prefix);
		sw->subnet_timeout = pib_pi_subnet_timeout(pi);
		sw->mkey = be64_to_cpu(pi->mkey);
		sw->mkey_protect = pib_pi_mkey_protect(pi);
		sw->mkey_lease = be16_to_cpu(pi->mkey_lease_period);
	}
	if (pib_pi_neighbor_mtu(pi))
		p->mtu = pib_pi_neighbor_mtu(pi);
	/* DOWN takes the link down; it retrains to INIT if it can. */
	if (state == IB_PORT_DOWN)
		p->state = p->up || !port ? IB_PORT_INIT : IB_PORT_DOWN;
	else if (state != IB_PORT_NOP)
		p->state = state;
	status = 0;
out:
	spin_unlock_irqrestore(&sw->lock, flags);
	return status;
}

static u16 pib_sw_get_switch_info(struct pib_switch *sw, unsigned int in_port,
				  struct ib_smp *smp)
{
	unsigned long flags;

	put_unaligned_be16(PIB_SW_LFT_CAP, smp->data + PIB_SI_LFT_CAP);
	put_unaligned_be16(PIB_SW_MFT_CAP, smp->data + PIB_SI_MFT_CAP);
	spin_lock_irqsave(&sw->lock, flags);
	put_unaligned_be16(sw->lft_top, smp->data + PIB_SI_LFT_TOP);
	put_unaligned_be16(sw->mft_top, smp->data + PIB_SI_MFT_TOP);
	smp->data[PIB_SI_DEFAULT_PORT] = sw->default_port;
	smp->data[PIB_SI_FLAGS] = sw->life_time << 3 |
		(sw->port_state_change ? PIB_SI_PORT_STATE_CHANGE : 0);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

static u16 pib_sw_set_switch_info(struct pib_switch *sw, struct ib_smp *smp)
{
	u16 top = get_unaligned_be16(smp->data + PIB_SI_LFT_TOP);
	u16 mtop = get_unaligned_be16(smp->data + PIB_SI_MFT_TOP);
	unsigned long flags;

	/* An MFT top below 0xc000 leaves no multicast entry valid. */
	if (top >= PIB_SW_LFT_CAP || mtop >= PIB_LID_MCAST + PIB_SW_MFT_CAP)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&sw->lock, flags);
	sw->lft_top = top;
	sw->mft_top = mtop;
	sw->default_port = smp->data[PIB_SI_DEFAULT_PORT];
	sw->life_time = smp->data[PIB_SI_FLAGS] >> 3;
	/* Writing PortStateChange 1 clears it. */
	if (smp->data[PIB_SI_FLAGS] & PIB_SI_PORT_STATE_CHANGE)
		sw->port_state_change = false;
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

/*
 * PKeyTable: only port 0 has one (PartitionEnforcementCap is 0, so the
 * external ports enforce nothing); the modifier is port << 16 | block.
 */
static u16 pib_sw_get_pkeys(struct pib_switch *sw, unsigned int in_port,
			    struct ib_smp *smp)
{
	__be16 *p = (__be16 *)smp->data;
	unsigned long flags;
	int i;

	if (be32_to_cpu(smp->attr_mod))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < PIB_PKEY_TABLE_LEN; i++)
		p[i] = cpu_to_be16(sw->pkeys[i]);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

static u16 pib_sw_set_pkeys(struct pib_switch *sw, struct ib_smp *smp)
{
	__be16 *p = (__be16 *)smp->data;
	unsigned long flags;
	int i;

	if (be32_to_cpu(smp->attr_mod))
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < PIB_PKEY_TABLE_LEN; i++)
		sw->pkeys[i] = be16_to_cpu(p[i]);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

/* LinearForwardingTable block number, or -1 beyond LinearFDBCap. */
static int pib_sw_lft_block(struct ib_smp *smp)
{
	u32 block = be32_to_cpu(smp->attr_mod);

	return block < PIB_SW_LFT_CAP / PIB_LFT_BLOCK ? block : -1;
}

static u16 pib_sw_get_lft(struct pib_switch *sw, unsigned int in_port,
			  struct ib_smp *smp)
{
	int block = pib_sw_lft_block(smp);
	unsigned long flags;

	if (block < 0)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&sw->lock, flags);
	memcpy(smp->data, sw->lft + block * PIB_LFT_BLOCK, PIB_LFT_BLOCK);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

static u16 pib_sw_set_lft(struct pib_switch *sw, struct ib_smp *smp)
{
	int block = pib_sw_lft_block(smp);
	unsigned long flags;

	if (block < 0)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&sw->lock, flags);
	memcpy(sw->lft + block * PIB_LFT_BLOCK, smp->data, PIB_LFT_BLOCK);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

/*
 * MulticastForwardingTable: the modifier holds the block of 32 MLIDs and
 * the position of the 16 ports whose PortMasks the data carries. Returns
 * the first MLID's index, or -1 if the modifier is out of range.
 */
static int pib_sw_mft_block(struct ib_smp *smp, unsigned int *position)
{
	u32 mod = be32_to_cpu(smp->attr_mod);
	u32 block = mod & PIB_MFT_BLOCK_MASK;

	*position = mod >> PIB_MFT_POSITION_SHIFT;
	if ((mod & ~(PIB_MFT_BLOCK_MASK | 0xfu << PIB_MFT_POSITION_SHIFT)) ||
	    block >= PIB_SW_MFT_CAP / PIB_MFT_BLOCK ||
	    *position >= PIB_MFT_POSITIONS)
		return -1;
	return block * PIB_MFT_BLOCK;
}

static u16 pib_sw_get_mft(struct pib_switch *sw, unsigned int in_port,
			  struct ib_smp *smp)
{
	__be16 *mask = (__be16 *)smp->data;
	unsigned int position;
	int first = pib_sw_mft_block(smp, &position), i;
	unsigned long flags;

	if (first < 0)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < PIB_MFT_BLOCK; i++)
		mask[i] = cpu_to_be16(sw->mft[first + i][position]);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

static u16 pib_sw_set_mft(struct pib_switch *sw, struct ib_smp *smp)
{
	__be16 *mask = (__be16 *)smp->data;
	unsigned int position;
	int first = pib_sw_mft_block(smp, &position), i;
	unsigned long flags;

	if (first < 0)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < PIB_MFT_BLOCK; i++)
		sw->mft[first + i][position] = be16_to_cpu(mask[i]);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

static const struct pib_sw_sma_attr pib_sw_sma_attrs[] = {
	{ IB_SMP_ATTR_NODE_DESC, pib_sw_get_node_desc, NULL },
	{ IB_SMP_ATTR_NODE_INFO, pib_sw_get_node_info, NULL },
	{ IB_SMP_ATTR_SWITCH_INFO, pib_sw_get_switch_info, pib_sw_set_switch_info },
	{ IB_SMP_ATTR_PORT_INFO, pib_sw_get_port_info, pib_sw_set_port_info },
	{ IB_SMP_ATTR_PKEY_TABLE, pib_sw_get_pkeys, pib_sw_set_pkeys },
	{ IB_SMP_ATTR_LINEAR_FORWARD_TABLE, pib_sw_get_lft, pib_sw_set_lft },
	{ IB_SMP_ATTR_MCAST_FORWARD_TABLE, pib_sw_get_mft, pib_sw_set_mft },
	{ cpu_to_be16(PIB_SMP_ATTR_LINKED_PORTS), pib_sw_get_linked_ports, NULL },
};

/*
 * The M_Key check (pib_mkey_check()) against port 0's M_Key, which guards
 * the whole switch; a dropped SMP is counted in its M_KeyViolations.
 */
static enum pib_mkey_verdict pib_switch_check_mkey(struct pib_switch *sw,
						   const struct ib_smp *smp)
{
	enum pib_mkey_verdict v;
	unsigned long flags;

	spin_lock_irqsave(&sw->lock, flags);
	v = pib_mkey_check(sw->mkey, sw->mkey_protect, be64_to_cpu(smp->mkey),
			   smp->method);
	if (v == PIB_MKEY_DROP && sw->mkey_violations != U16_MAX)
		sw->mkey_violations++;
	spin_unlock_irqrestore(&sw->lock, flags);
	return v;
}

/* Answer a Get or Set in place; returns the reply's MAD status. */
static u16 pib_switch_sma_answer(struct pib_switch *sw, unsigned int in_port,
				 struct ib_smp *smp, bool hide_mkey)
{
	const struct pib_sw_sma_attr *a = NULL;
	u16 status = 0, get_status;
	int i;

	for (i = 0; i < ARRAY_SIZE(pib_sw_sma_attrs); i++)
		if (pib_sw_sma_attrs[i].id == smp->attr_id)
			a = &pib_sw_sma_attrs[i];
	if (!a || (smp->method == IB_MGMT_METHOD_SET && !a->set))
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	if (smp->method == IB_MGMT_METHOD_SET)
		status = a->set(sw, smp);
	/* The reply shows what stands, whether or not a Set was refused. */
	memset(smp->data, 0, IB_SMP_DATA_SIZE);
	get_status = a->get(sw, in_port, smp);
	if (hide_mkey && smp->attr_id == IB_SMP_ATTR_PORT_INFO)
		memset(smp->data, 0, sizeof(u64));
	return status ?: get_status;
}

/* The answer to an SMP for the switch SMA: pib_switch_sma_request(). */
static int pib_switch_sma_reply(struct pib_switch *sw, unsigned int in_port,
				struct ib_smp *smp)
{
	enum pib_mkey_verdict v;

	switch (smp->method) {
	case IB_MGMT_METHOD_TRAP_REPRESS:
		if (pib_switch_check_mkey(sw, smp) == PIB_MKEY_OK)
			pib_switch_trap_repressed(sw, smp);
		return -1;
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
		break;
	default:
		if (smp->method & IB_MGMT_METHOD_RESP ||
		    smp->method == IB_MGMT_METHOD_TRAP)
			return -1;
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
	}
	if (smp->base_version != IB_MGMT_BASE_VERSION ||
	    smp->class_version != PIB_SMP_CLASS_VERSION)
		return IB_MGMT_MAD_STATUS_BAD_VERSION;
	v = pib_switch_check_mkey(sw, smp);
	if (v == PIB_MKEY_DROP)
		return -1;
	return pib_switch_sma_answer(sw, in_port, smp, v == PIB_MKEY_HIDE);
}

/**
 * pib_switch_sma_request() - the switch SMA takes an SMP addressed to it
 * @sw: the switch
 * @in_port: the port the SMP came in on
 * @smp: the SMP; a reply is built in place
 *
 * Return: the MAD status of the reply to send, or -1 if nothing is sent
 * back (responses, traps, trap represses and SMPs with a wrong M_Key are
 * not answered).
 */
int pib_switch_sma_request(struct pib_switch *sw, unsigned int in_port,
			   struct ib_smp *smp)
{
	struct ib_mad_hdr hdr;
	int status;

	if (!trace_pib_mad_enabled())
		return pib_switch_sma_reply(sw, in_port, smp);
	memcpy(&hdr, smp, sizeof(hdr));
	status = pib_switch_sma_reply(sw, in_port, smp);
	trace_pib_mad(netdev_name(sw->ndev), in_port, &hdr, status);
	return status;
}
