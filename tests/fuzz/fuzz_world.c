// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_world.c: a netdev's pib objects for the harnesses, built the way
 * pib_dev.c and pib_net.c build them, and stand-ins for the few functions
 * of those files (and of pib_verbs.c) that the compiled files call. Those
 * files need the network stack and the RDMA core's registration, which
 * the host does not have; everything else is pib's own code.
 */
#include "fuzz.h"

struct fuzz_world fuzz_world;

/* Every packet that leaves a device or the switch is whole, CRCs included. */
void fuzz_check_pkt(const u8 *pkt, unsigned int len)
{
	struct pib_pkt p;
	enum pib_pkt_err err = pib_pkt_parse(pkt, len, &p);

	if (err) {
		fprintf(stderr, "pib sent a malformed packet (%s), %u bytes\n",
			pib_pkt_err_names[err], len);
		abort();
	}
	fuzz_world.tx_packets++;
}

/* pib_dev.c: IB events go to the core; check their type. */
void pib_dispatch_events(struct pib_dev *dev, u32 events)
{
	FUZZ_CHECK(!(events & ~(BIT(IB_EVENT_GID_CHANGE + 1) - 1)));
}

/* pib_dev.c: the port's logical state, and the events a change raises. */
void pib_port_set_state(struct pib_dev *dev, enum ib_port_state state,
			u32 *events)
{
	struct pib_port *port = &dev->port;

	lockdep_assert_held(&port->lock);
	FUZZ_CHECK(state >= IB_PORT_DOWN && state <= IB_PORT_ACTIVE);
	if (state == port->state)
		return;
	if (state == IB_PORT_ACTIVE)
		*events |= BIT(IB_EVENT_PORT_ACTIVE);
	if (state == IB_PORT_DOWN) {
		*events |= BIT(IB_EVENT_PORT_ERR);
		atomic64_inc(&port->counters.link_downed);
	}
	port->state = state;
}

/* pib_dev.c: the netdev is up with carrier; only the SM may disable it. */
void pib_port_link_update(struct pib_dev *dev, bool notify)
{
	struct pib_port *port = &dev->port;
	unsigned long flags;
	u32 events = 0;

	spin_lock_irqsave(&port->lock, flags);
	if (!port->disabled && port->state == IB_PORT_DOWN)
		pib_port_set_state(dev, IB_PORT_INIT, &events);
	else if (port->disabled)
		pib_port_set_state(dev, IB_PORT_DOWN, &events);
	port->phys_state = port->disabled ? IB_PORT_PHYS_STATE_DISABLED :
			   IB_PORT_PHYS_STATE_LINK_UP;
	spin_unlock_irqrestore(&port->lock, flags);
	if (notify)
		pib_dispatch_events(dev, events);
}

/*
 * pib_dev.c: hand the port's packets to the switch, ACKs first, one
 * context at a time (a device answering from inside another's transmit
 * leaves its packets to its transmit work). Without a switch they are
 * checked and dropped.
 */
static void fuzz_dev_tx(struct pib_dev *dev)
{
	struct sk_buff_head q;
	struct sk_buff *skb;

	if (test_and_set_bit(PIB_TX_BUSY, &dev->tx_flags)) {
		schedule_work(&dev->tx_work);
		return;
	}
	__skb_queue_head_init(&q);
	local_bh_disable();
	while ((skb = __skb_dequeue(&dev->ackq)) ||
	       (skb = __skb_dequeue(&dev->txq))) {
		fuzz_check_pkt(skb->data, skb->len);
		if (fuzz_world.tx_hook)
			fuzz_world.tx_hook(dev, skb->data, skb->len);
		if (dev->sw)
			__skb_queue_tail(&q, skb);
		else
			kfree_skb(skb);
	}
	if (dev->sw)
		pib_switch_send(dev->sw, pib_sw_hca_port(dev), &q);
	local_bh_enable();
	clear_bit(PIB_TX_BUSY, &dev->tx_flags);
}

void pib_dev_tx_kick(struct pib_dev *dev)
{
	if (irqs_disabled())
		schedule_work(&dev->tx_work);
	else
		fuzz_dev_tx(dev);
}

/* pib_debugfs.c: no object is listed here. */
void pib_owner_set(struct pib_owner *o, bool user, const char *kern_name)
{
	(void)o;
	(void)user;
	(void)kern_name;
}

void pib_obj_add(struct pib_dev *dev, enum pib_obj type,
		 struct pib_obj_entry *e, bool user, const char *kern_name)
{
	(void)dev;
	(void)type;
	(void)e;
	(void)user;
	(void)kern_name;
}

void pib_obj_del(struct pib_dev *dev, struct pib_obj_entry *e)
{
	(void)dev;
	(void)e;
}

/*
 * pib_inject.c (debugfs): no fault is ever injected here; the fuzzers and
 * sim_rc make their own.
 */
int pib_inject_verb_fail(struct pib_dev *dev, enum pib_inject_verb verb)
{
	return 0;
}

void pib_inject_tx(struct pib_qp *qp, struct sk_buff_head *q)
{
}

bool pib_inject_nak(struct pib_qp *qp, u8 opcode, u8 *syn)
{
	return false;
}

bool pib_inject_sl_lost(struct pib_dev *dev, const u8 *pkt)
{
	return false;
}

/* pib_strict.c (debugfs, the log): strict mode is never on here. */
void pib_strict_report(struct pib_qp *qp, enum pib_strict_check check,
		       const char *fmt, ...)
{
}

void pib_strict_cq_feed(struct pib_qp *qp, bool add)
{
}

int pib_strict_create_qp(struct pib_dev *dev,
			 const struct ib_qp_init_attr *init)
{
	return 0;
}

void pib_strict_wqe(struct pib_qp *qp, const struct pib_send_wqe *wqe)
{
}

bool pib_strict_holds_sq(struct pib_qp *qp)
{
	return false;
}

void pib_strict_recv_len(struct pib_qp *qp, u64 room, bool ud, u32 len)
{
}

void pib_strict_mr_busy(struct pib_dev *dev, struct pib_mr *mr)
{
}

void pib_strict_rkey(struct pib_qp *qp, u32 rkey)
{
}

bool pib_strict_rd_atomic(struct pib_qp *qp, bool dup)
{
	return false;
}

/* No ODP here (pib_odp.c needs the MM): no MR gets an ODP umem. */
int pib_odp_reg(struct pib_dev *dev, struct pib_mr *mr, u64 start,
		u64 length, int access)
{
	return -EOPNOTSUPP;
}

void pib_odp_release(struct pib_mr *mr)
{
}

int pib_odp_copy(struct pib_odp *odp, u64 off, void *buf, u32 len,
		 bool to_mr)
{
	abort();
}

int pib_odp_check(struct pib_odp *odp, u64 off, u32 len)
{
	abort();
}

static void fuzz_dev_tx_work(struct work_struct *work)
{
	fuzz_dev_tx(container_of(work, struct pib_dev, tx_work));
}

/*
 * pib_net.c: datagrams to a peer. They must be whole, go to the address of
 * the live peer whose slot (and cached route) they name, and a packet that
 * came from the LAN goes back with less than its hop budget (SMPs, on
 * VL15, are bounded by their path or are the switch's own replies).
 */
void pib_switch_xmit(struct pib_switch *sw, const struct pib_ip *daddr,
		     int slot, const u8 *pkt, unsigned int len, u8 ttl,
		     gfp_t gfp)
{
	struct pib_ip peer;

	FUZZ_CHECK(pib_ip_family(daddr) == PIB_IP4 && pib_ip_v4(daddr) && ttl);
	FUZZ_CHECK(slot >= 0 && pib_peers_dest(&sw->peers, slot, &peer) &&
		   pib_ip_eq(&peer, daddr));
	fuzz_check_pkt(pkt, len);
	FUZZ_CHECK(pkt[0] >> 4 == PIB_VL15 || ttl <= fuzz_world.ttl_max);
}

/*
 * A batch (a GSO skb) leaves as GSO cuts it: one datagram each gso_size
 * bytes, the last maybe shorter, each a whole packet; its packets hang on
 * its frag_list, one a segment, and gave their headroom up.
 */
void pib_switch_xmit_skb(struct pib_switch *sw, const struct pib_ip *daddr,
			 int slot, struct sk_buff *skb, u8 ttl)
{
	unsigned int seg = skb_shinfo(skb)->gso_size, n = 0, len = 0;
	struct sk_buff *frag;

	if (!skb_is_gso(skb)) {
		FUZZ_CHECK(!skb->data_len && !skb_shinfo(skb)->frag_list);
		pib_switch_xmit(sw, daddr, slot, skb->data, skb->len, ttl,
				GFP_ATOMIC);
		kfree_skb(skb);
		return;
	}
	FUZZ_CHECK(skb->len == skb->data_len);
	for (frag = skb_shinfo(skb)->frag_list; frag; frag = frag->next, n++) {
		FUZZ_CHECK(frag->nohdr && !frag->data_len &&
			   (frag->len == seg || (!frag->next && frag->len < seg)));
		pib_switch_xmit(sw, daddr, slot, frag->data, frag->len, ttl,
				GFP_ATOMIC);
		len += frag->len;
	}
	FUZZ_CHECK(n > 1 && n == skb_shinfo(skb)->gso_segs && len == skb->len);
	kfree_skb(skb);
}

/* pib_net.c: a device is on the switch (there are no hellos here). */
void pib_switch_speak(struct pib_switch *sw)
{
	sw->speaking = true;
}

/* pib_verbs.c: an AH's attributes as a WQE's address vector. */
void pib_av_from_ah(const struct rdma_ah_attr *ah, struct pib_av *av)
{
	memset(av, 0, sizeof(*av));
	av->dlid = rdma_ah_get_dlid(ah);
	av->sl = rdma_ah_get_sl(ah);
	av->src_path_bits = rdma_ah_get_path_bits(ah);
	av->port_num = PIB_PORT_NUM;
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return;
	av->is_global = 1;
	memcpy(av->dgid, ah->grh.dgid.raw, sizeof(av->dgid));
	av->flow_label = ah->grh.flow_label;
	av->sgid_index = ah->grh.sgid_index;
	av->hop_limit = ah->grh.hop_limit;
	av->traffic_class = ah->grh.traffic_class;
}

/* A device as pib_dev_alloc() makes it, its port DOWN. */
static struct pib_dev *fuzz_dev_new(unsigned int index)
{
	struct pib_dev *dev = calloc(1, sizeof(*dev));
	struct pib_port *port = &dev->port;

	snprintf(dev->ibdev.name, sizeof(dev->ibdev.name), "pibfuzz%u", index);
	snprintf(dev->ibdev.node_desc, sizeof(dev->ibdev.node_desc),
		 "fuzzhost pibfuzz%u", index);
	dev->ibdev.num_comp_vectors = 1;
	INIT_LIST_HEAD(&dev->list);
	dev->ndev = &fuzz_world.ndev;
	dev->index = index;
	dev->guid = cpu_to_be64(pib_guid_from_mac(dev->ndev->dev_addr, index));
	spin_lock_init(&port->lock);
	port->state = IB_PORT_DOWN;
	port->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	port->subnet_prefix = PIB_GID_PREFIX;
	port->pkeys[0] = PIB_DEFAULT_PKEY;
	port->cap_flags = PIB_PORT_CAPS;
	port->width = PIB_IB_WIDTH_4X;
	port->speed = IB_SPEED_QDR;
	port->max_mtu = IB_MTU_1024;
	port->active_mtu = IB_MTU_1024;
	xa_init_flags(&dev->mrs, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->xrc_srqs, XA_FLAGS_ALLOC);
	dev->next_srqn = 1;
	dev->next_qpn = PIB_NUM_SPECIAL_QPS;
	spin_lock_init(&dev->mcast_lock);
	INIT_LIST_HEAD(&dev->mcast);
	spin_lock_init(&dev->atomic_lock);
	skb_queue_head_init(&dev->txq);
	skb_queue_head_init(&dev->ackq);
	INIT_WORK(&dev->tx_work, fuzz_dev_tx_work);
	return dev;
}

/**
 * fuzz_port_up() - the port as an SM leaves it: link up, ACTIVE, a LID
 * @dev: the device
 * @lid: its LID
 * @mtu: its netdev's largest IB MTU, and the active one
 */
void fuzz_port_up(struct pib_dev *dev, u16 lid, enum ib_mtu mtu)
{
	struct pib_port *port = &dev->port;

	port->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	port->state = IB_PORT_ACTIVE;
	port->lid = lid;
	port->sm_lid = FUZZ_SW_LID;
	port->max_mtu = mtu;
	port->active_mtu = mtu;
}

/* The switch's state is within the IBA's ranges and its tables' bounds. */
void fuzz_check_switch(struct pib_switch *sw)
{
	unsigned int p;

	FUZZ_CHECK(!kshim_locks_held && !kshim_atomic);
	FUZZ_CHECK(sw->lft_top < PIB_SW_LFT_CAP);
	FUZZ_CHECK(sw->mft_top < PIB_LID_MCAST + PIB_SW_MFT_CAP);
	FUZZ_CHECK(sw->lid < PIB_LID_MCAST && sw->sm_lid < PIB_LID_MCAST);
	FUZZ_CHECK(sw->lmc <= 7 && sw->sm_sl <= 15 && sw->subnet_timeout <= 31);
	FUZZ_CHECK(sw->life_time <= 31);
	for (p = 0; p <= PIB_SW_NUM_PORTS; p++) {
		FUZZ_CHECK(sw->ports[p].state >= IB_PORT_DOWN &&
			   sw->ports[p].state <= IB_PORT_ACTIVE);
		FUZZ_CHECK(sw->ports[p].mtu <= IB_MTU_4096);
		FUZZ_CHECK(sw->ports[p].up || sw->ports[p].state == IB_PORT_DOWN);
	}
}

/**
 * fuzz_peer_set_up() - a peer's hellos come, or stop coming
 * @sw: the switch
 * @i: the peer's slot (its port is PIB_SW_FIRST_PEER_PORT + @i)
 * @up: the peer's link is up
 *
 * The caller has the switch track its links.
 */
void fuzz_peer_set_up(struct pib_switch *sw, unsigned int i, bool up)
{
	struct pib_ip addr = pib_ip4(cpu_to_be32(0x0a000002 + i));
	struct pib_hello h = { .version = PIB_HELLO_VERSION, .incarnation = 1,
			       .switch_guid = 0x0200000000000100ULL + i };
	int slot;

	if (up) {
		FUZZ_CHECK(pib_peers_heard(&sw->peers, &h, &addr, jiffies,
					   &slot) <= PIB_HELLO_LINK_UP &&
			   slot == i);
	} else {
		sw->peers.peer[i].up = 0;
		sw->peers.peer[i].bound = 0;
	}
}

bool fuzz_peer_up(struct pib_switch *sw, unsigned int i)
{
	return sw->peers.peer[i].up;
}

/* A switch as pib_switch_get() makes it, with peers heard on the LAN. */
static struct pib_switch *fuzz_switch_new(void)
{
	struct pib_switch *sw = calloc(1, sizeof(*sw));
	unsigned int i;

	sw->ndev = &fuzz_world.ndev;
	sw->guid = pib_guid_from_mac(sw->ndev->dev_addr, PIB_SWITCH_GUID_INDEX);
	snprintf(sw->node_desc, sizeof(sw->node_desc), "pib switch fuzzhost %s",
		 netdev_name(sw->ndev));
	spin_lock_init(&sw->lock);
	sw->subnet_prefix = PIB_GID_PREFIX;
	sw->pkeys[0] = PIB_DEFAULT_PKEY;
	for (i = 1; i <= PIB_SW_NUM_PORTS; i++)
		sw->ports[i].state = IB_PORT_DOWN;
	sw->ports[0].state = IB_PORT_INIT;
	sw->ports[0].up = true;
	sw->lft = malloc(PIB_SW_LFT_CAP);
	memset(sw->lft, PIB_LFT_NO_PORT, PIB_SW_LFT_CAP);
	sw->mft = calloc(PIB_SW_MFT_CAP, sizeof(*sw->mft));
	sw->mft_top = PIB_LID_MCAST + PIB_SW_MFT_CAP - 1;
	INIT_DELAYED_WORK(&sw->trap_work, pib_switch_trap_work);
	pib_peers_init(&sw->peers, jiffies);
	for (i = 0; i < FUZZ_PEERS; i++)
		fuzz_peer_set_up(sw, i, true);
	return sw;
}

/**
 * fuzz_world_init() - a netdev with @ndevs pib devices and maybe a switch
 * @ndevs: devices, at most FUZZ_MAX_DEVS
 * @with_switch: the devices are attached to the netdev's switch
 *
 * The same on every call: a fuzz input replays alike.
 */
void fuzz_world_init(unsigned int ndevs, bool with_switch)
{
	static const u8 mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	unsigned int i;

	kshim_reset();
	memset(&fuzz_world, 0, sizeof(fuzz_world));
	fuzz_world.ttl_max = PIB_TTL_HERE;
	strcpy(fuzz_world.ndev.name, "eth0");
	fuzz_world.ndev.mtu = 1500;
	fuzz_world.ndev.gso_max_size = 65536;	/* (GSO_MAX_SIZE) */
	fuzz_world.ndev.gso_max_segs = 65535;	/* (GSO_MAX_SEGS) */
	memcpy(fuzz_world.ndev.dev_addr, mac, sizeof(mac));
	if (with_switch)
		fuzz_world.sw = fuzz_switch_new();
	for (i = 0; i < ndevs; i++) {
		fuzz_world.dev[i] = fuzz_dev_new(i);
		fuzz_world.dev[i]->sw = fuzz_world.sw;
	}
	fuzz_world.ndevs = ndevs;
	for (i = 0; i < ndevs && with_switch; i++) {
		pib_port_link_update(fuzz_world.dev[i], false);
		pib_switch_attach(fuzz_world.sw, fuzz_world.dev[i]);
	}
	if (with_switch)
		pib_switch_track_links(fuzz_world.sw);	/* the peers' links */
	kshim_run_work();
}

/* Take it all down, as pib_dev_remove and pib_switch_put do. */
void fuzz_world_fini(void)
{
	struct pib_switch *sw = fuzz_world.sw;
	unsigned int i;

	kshim_run_work();
	for (i = 0; i < fuzz_world.ndevs; i++) {
		struct pib_dev *dev = fuzz_world.dev[i];

		if (sw)
			pib_switch_detach(sw, dev);
		kshim_run_work();
		cancel_work_sync(&dev->tx_work);
		__skb_queue_purge(&dev->ackq);
		__skb_queue_purge(&dev->txq);
		FUZZ_CHECK(xa_empty(&dev->qps) && xa_empty(&dev->mrs) &&
			   xa_empty(&dev->xrc_srqs));
		free(dev);
	}
	if (sw) {
		cancel_delayed_work_sync(&sw->trap_work);
		free(sw->lft);
		free(sw->mft);
		free(sw);
	}
	kshim_check_idle();
}
