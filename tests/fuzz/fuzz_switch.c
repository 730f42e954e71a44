// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_switch: packets through the virtual switch (pib_switch.c):
 * directed-route SMPs forwarded by their path or answered by the switch's
 * SMA, LID-routed packets by the LFT, multicast by the MFT, and Trap 128
 * when links change. The switch has two devices (LIDs 1, 2, on ports 1,
 * 2) and three peers (LIDs 10-12 on ports 65-67), routed and ACTIVE as an
 * SM leaves them.
 *
 * Input: records whose first byte picks one of:
 *   0  a datagram from a peer: peer, flags (bit 0: the harness fixes the
 *      length and seals the packet; bits 1-7: its IP TTL), length (u16),
 *      bytes; it enters only if it parses, as pib_net.c lets it in
 *   1  a peer's link flaps: peer
 *   2  a device's SM sends an SMP from QP0: device, DLID (u16), 256 bytes
 *   3  a device's link flaps: device
 * Everything the switch sends to a peer must parse with valid CRCs and
 * leave with less than the hop budget it came with, and the switch's
 * state stays within its bounds.
 */
#include "fuzz.h"

static void fs_setup(struct pib_switch *sw)
{
	unsigned int i;

	for (i = 0; i < FUZZ_MAX_DEVS; i++) {
		fuzz_port_up(fuzz_world.dev[i], FUZZ_DEV_LID(i), IB_MTU_1024);
		sw->lft[FUZZ_DEV_LID(i)] = i + 1;
		sw->ports[i + 1].state = IB_PORT_ACTIVE;
	}
	for (i = 0; i < FUZZ_PEERS; i++) {
		sw->lft[10 + i] = PIB_SW_FIRST_PEER_PORT + i;
		sw->ports[PIB_SW_FIRST_PEER_PORT + i].state = IB_PORT_ACTIVE;
	}
	sw->lid = FUZZ_SW_LID;
	sw->sm_lid = FUZZ_DEV_LID(0);
	sw->lft_top = 100;
	sw->ports[0].state = IB_PORT_ACTIVE;
	/* MLID 0xc001: both devices and two peers. */
	sw->mft[1][0] = BIT(1) | BIT(2);
	sw->mft[1][PIB_SW_FIRST_PEER_PORT / PIB_MFT_PORTS_PER_MASK] =
		BIT(PIB_SW_FIRST_PEER_PORT % PIB_MFT_PORTS_PER_MASK) |
		BIT((PIB_SW_FIRST_PEER_PORT + 1) % PIB_MFT_PORTS_PER_MASK);
}

/* A datagram from a peer, as pib_udp_rcv() hands it to the switch. */
static void fs_from_peer(struct pib_switch *sw, struct fuzz_in *in)
{
	unsigned int port = PIB_SW_FIRST_PEER_PORT + fuzz_u8(in) % FUZZ_PEERS;
	u8 flags = fuzz_u8(in), ttl = flags >> 1;
	u32 len = fuzz_u16(in) % (PIB_MAX_PKT_LEN + 1);
	u8 *buf = malloc(len ? len : 1);
	struct pib_pkt pkt;
	bool raw;
	u32 body;

	fuzz_bytes(in, buf, len);
	raw = len >= PIB_LRH_LEN && (buf[1] & 3) == PIB_LNH_RAW;
	body = len - PIB_VCRC_LEN - (raw ? 0 : PIB_ICRC_LEN);
	/* Sealing needs room for the headers the LRH announces. */
	if (flags & 1 && len >= PIB_LRH_LEN + PIB_ICRC_LEN + PIB_VCRC_LEN &&
	    (raw || body >= pib_hdr_len(buf[1] & 3)))
		len = pib_pkt_seal(buf, body & ~3u);
	/*
	 * pib_udp_rcv() runs in the UDP receive softirq, and hands the
	 * switch the datagram's IP TTL less one as its hop budget.
	 */
	fuzz_world.ttl_max = ttl ? ttl - 1 : 0;
	local_bh_disable();
	if (!pib_pkt_parse(buf, len, &pkt) && pkt.lrh.lnh != PIB_LNH_RAW)
		pib_switch_input(sw, port, buf, len, &pkt, fuzz_world.ttl_max);
	local_bh_enable();
	fuzz_world.ttl_max = PIB_TTL_HERE;
	free(buf);
}

/* An SMP that the SM on a device sends from QP0, through the switch. */
static void fs_from_sm(struct pib_switch *sw, struct fuzz_in *in)
{
	unsigned int i = fuzz_u8(in) % FUZZ_MAX_DEVS;
	struct pib_lrh lrh = {
		.vl = PIB_VL15, .lnh = PIB_LNH_IBA_LOCAL,
		.dlid = fuzz_u16(in), .slid = FUZZ_DEV_LID(i),
	};
	struct pib_bth bth = {
		.opcode = IB_OPCODE_UD_SEND_ONLY, .pkey = PIB_DEFAULT_PKEY,
	};
	u32 off = PIB_LRH_LEN + PIB_BTH_LEN + PIB_DETH_LEN;
	struct sk_buff *skb = alloc_skb(off + PIB_SMP_LEN + PIB_ICRC_LEN +
					PIB_VCRC_LEN, GFP_ATOMIC);
	struct sk_buff_head q;

	skb_put(skb, off + PIB_SMP_LEN + PIB_ICRC_LEN + PIB_VCRC_LEN);
	memset(skb->data, 0, skb->len);
	pib_lrh_pack(skb->data, &lrh);
	pib_bth_pack(skb->data + PIB_LRH_LEN, &bth);
	fuzz_bytes(in, skb->data + off, PIB_SMP_LEN);
	pib_pkt_seal(skb->data, off + PIB_SMP_LEN);
	__skb_queue_head_init(&q);
	__skb_queue_tail(&q, skb);
	pib_switch_send(sw, i + 1, &q);
}

static void fs_dev_flap(struct pib_switch *sw, struct fuzz_in *in)
{
	struct pib_dev *dev = fuzz_world.dev[fuzz_u8(in) % FUZZ_MAX_DEVS];

	dev->port.disabled = !dev->port.disabled;
	pib_port_link_update(dev, true);
	pib_switch_track_links(sw);
}

static void fs_peer_flap(struct pib_switch *sw, struct fuzz_in *in)
{
	unsigned int i = fuzz_u8(in) % FUZZ_PEERS;

	fuzz_peer_set_up(sw, i, !fuzz_peer_up(sw, i));
	pib_switch_track_links(sw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct pib_switch *sw;
	unsigned int n;

	fuzz_world_init(FUZZ_MAX_DEVS, true);
	sw = fuzz_world.sw;
	fs_setup(sw);
	for (n = 0; in.n && n < 64; n++) {
		switch (fuzz_u8(&in) % 4) {
		case 0:
			fs_from_peer(sw, &in);
			break;
		case 1:
			fs_peer_flap(sw, &in);
			break;
		case 2:
			fs_from_sm(sw, &in);
			break;
		default:
			fs_dev_flap(sw, &in);
		}
		kshim_run_work();
		fuzz_check_switch(sw);
	}
	fuzz_world_fini();
	return 0;
}
