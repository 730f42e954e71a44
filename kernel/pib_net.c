// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Net glue: one virtual switch per netdev that carries pib devices; the
 * switches of a network namespace share its UDP sockets on pib's port,
 * one for IPv4 and one for IPv6, and each takes the datagrams that came
 * in on its netdev. Received datagrams are checked as IB packets; hellos
 * from other hosts make them peers of the switch (a peer that falls
 * silent loses its link), and IB packets from a peer enter the switch
 * through that peer's port (pib_switch.c). Hellos go to the LAN's IPv4
 * broadcast address and to IPv6's link-local all-nodes group, so that
 * hosts find each other on IPv4, dual-stack and IPv6-only LANs alike;
 * each peer's packets go over the family its link came up with
 * (pib_peer.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "pib.h"
#include "pib_trace.h"

static DEFINE_MUTEX(pib_switches_lock);
static LIST_HEAD(pib_switches);

/**
 * struct pib_udp - pib's UDP sockets in one network namespace, which the
 *	switches of its netdevs share
 * @list: in pib_udps (pib_switches_lock)
 * @net: the namespace
 * @users: the switches that use them (pib_switches_lock)
 * @sk: the IPv4 socket, and the IPv6 one (NULL without IPv6)
 * @switches: the switches, by the ifindex of their netdev (RCU readers)
 *
 * The sockets are bound to no netdev: GRO finds no socket bound to one on
 * some kernels (6.1's looks them up before the skb has its input device),
 * and a switch's datagrams are the ones that came in on its netdev
 * (pib_udp_rcv()).
 */
struct pib_udp {
	struct list_head list;
	struct net *net;
	unsigned int users;
	struct sock *sk[PIB_IP_FAMILIES];
	struct xarray switches;
};

static LIST_HEAD(pib_udps);

static struct dentry *pib_debugfs;

/* The peer table's clock: milliseconds that do not wrap. */
static u64 pib_now_ms(void)
{
	return jiffies64_to_msecs(get_jiffies_64());
}

/* Is @addr one of @ndev's IPv4 addresses (any of them, for 0)? */
static bool pib_ndev_has_ip4(struct net_device *ndev, __be32 addr)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	bool found = false;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (!addr || ifa->ifa_local == addr) {
				found = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * PIB_IP_BIT() of the families the switch can send over: IPv4 while its
 * netdev has an IPv4 address (else the stack would send from another
 * netdev's, which the peers do not know), IPv6 while it has its socket
 * (a link-local address is always there, and hellos come from one).
 */
static unsigned int pib_switch_families(struct pib_switch *sw)
{
	return (pib_ndev_has_ip4(sw->ndev, 0) ? PIB_IP_BIT(PIB_IP4) : 0) |
	       (sw->udp->sk[PIB_IP6] ? PIB_IP_BIT(PIB_IP6) : 0);
}

/* The switch's hello, or its bye, in @pkt (PIB_HELLO_PKT_LEN bytes). */
static void pib_switch_hello_build(const struct pib_switch *sw, bool bye,
				   u8 *pkt)
{
	struct pib_hello h = {
		.version = PIB_HELLO_VERSION,
		.num_ports = PIB_SW_NUM_PORTS,
		.bye = bye,
		.incarnation = sw->incarnation,
		.switch_guid = sw->guid,
	};

	pib_hello_build(pkt, &h);
}

/* Send the hello @pkt to @daddr. */
static void pib_switch_hello_to(struct pib_switch *sw,
				const struct pib_ip *daddr, const u8 *pkt,
				gfp_t gfp)
{
	pib_switch_xmit(sw, daddr, PIB_SLOT_NONE, pkt, PIB_HELLO_PKT_LEN,
			PIB_TTL_HERE, gfp);
	atomic64_inc(&sw->hellos_tx);
}

/*
 * @addr said hello as @h: the peer table decides what that is worth
 * (pib_peer.h). A link that came up is tracked, and the new peer hears
 * this switch's hello at once, not at the next interval: until it does, it
 * drops what comes from here, and a subnet manager that saw the link come
 * up on this side would sweep past a switch that cannot answer it. (Once
 * per link up: new peers are rate-limited, and the answer is no news to
 * the peer.) A peer made anew is answered too, and its port bounces back
 * to INIT: the SM hears of it by Trap 128 and configures the new switch.
 * A bye takes the link down at once. A hello over a family the switch
 * cannot send over binds nothing: the peer could not be answered. Nor
 * does one before the switch speaks (pib_switch_speak()).
 */
static void pib_switch_heard(struct pib_switch *sw, const struct pib_ip *addr,
			     const struct pib_hello *h)
{
	enum pib_hello_verdict v = PIB_HELLO_HEARD;
	u8 pkt[PIB_HELLO_PKT_LEN];
	int slot = -1;

	if (!(pib_switch_families(sw) & PIB_IP_BIT(pib_ip_family(addr)))) {
		atomic64_inc(&sw->hellos_no_addr);
		return;
	}
	spin_lock_bh(&sw->lock);
	if (sw->speaking)
		v = pib_peers_heard(&sw->peers, h, addr, pib_now_ms(), &slot);
	spin_unlock_bh(&sw->lock);
	if (v == PIB_HELLO_LINK_UP || v == PIB_HELLO_RESTART) {
		pib_switch_hello_build(sw, false, pkt);
		pib_switch_hello_to(sw, addr, pkt, GFP_ATOMIC);
	}
	if (v == PIB_HELLO_RESTART)
		pib_switch_bounce(sw, PIB_SW_FIRST_PEER_PORT + slot);
	else if (v == PIB_HELLO_LINK_UP || v == PIB_HELLO_BYE)
		pib_switch_track_links(sw);
}

/**
 * struct pib_rx - the datagrams of one skb from pib's socket, as they are
 *	taken apart (pib_udp_rcv())
 * @sw: the switch of the netdev the skb came in on
 * @saddr: the address they came from
 * @ttl: their IPv4 TTL or IPv6 hop limit
 * @slot: the peer slot of @saddr, PIB_RX_SLOT_UNKNOWN until looked up
 * @seg: the most bytes a datagram of the skb has (PIB_MAX_PKT_LEN at most)
 * @buf: a writable copy of the datagram at hand, where it is not in the
 *	skb's own head; NULL until one is needed
 */
struct pib_rx {
	struct pib_switch *sw;
	struct pib_ip saddr;
	u8 ttl;
	int slot;
	unsigned int seg;
	u8 *buf;
};

#define PIB_RX_SLOT_UNKNOWN	(-2)

/*
 * An IB packet from a peer (@pkt: its headers, parsed and checked) enters
 * the switch through that peer's port, with the hop budget its datagram's
 * TTL leaves (PIB_TTL_HERE). The peer is looked up once for the datagrams
 * of an skb, which all come from one address.
 */
static void pib_rx_from_peer(struct pib_rx *rx, u8 *buf, unsigned int len,
			     const struct pib_pkt *pkt)
{
	struct pib_switch *sw = rx->sw;

	if (rx->slot == PIB_RX_SLOT_UNKNOWN) {
		spin_lock_bh(&sw->lock);
		rx->slot = pib_peers_find_addr(&sw->peers, &rx->saddr);
		spin_unlock_bh(&sw->lock);
	}
	if (rx->slot < 0) {
		pib_switch_unrouted(sw, buf, len);
		return;
	}
	pib_switch_input(sw, PIB_SW_FIRST_PEER_PORT + rx->slot, buf, len, pkt,
			 rx->ttl ? rx->ttl - 1 : 0);
}

/*
 * A datagram's source address and TTL (IPv4) or hop limit (IPv6); false
 * for an IPv6 source in IPv4's mapped range, which only IPv4 may speak for.
 */
static bool pib_skb_source(const struct sock *sk, const struct sk_buff *skb,
			   struct pib_ip *saddr, u8 *ttl)
{
	const struct ipv6hdr *ip6h;

	if (sk->sk_family == AF_INET) {
		*saddr = pib_ip4(ip_hdr(skb)->saddr);
		*ttl = ip_hdr(skb)->ttl;
		return true;
	}
	ip6h = ipv6_hdr(skb);
	memcpy(saddr->b, &ip6h->saddr, sizeof(saddr->b));
	*ttl = ip6h->hop_limit;
	return pib_ip_family(saddr) == PIB_IP6;
}

/*
 * The @len bytes at @off of @skb, writable: in place where they are in
 * the skb's head and nobody else holds it, else copied into @rx->buf.
 * NULL without memory for that.
 */
static u8 *pib_rx_bytes(struct pib_rx *rx, struct sk_buff *skb,
			unsigned int off, unsigned int len)
{
	if (!skb_cloned(skb) && off + len <= skb_headlen(skb))
		return skb->data + off;
	if (!rx->buf) {
		rx->buf = kmalloc(rx->seg, GFP_ATOMIC);
		if (!rx->buf)
			return NULL;
	}
	if (skb_copy_bits(skb, off, rx->buf, len))
		return NULL;
	return rx->buf;
}

/*
 * One datagram of @rx's skb, @len bytes at @off: an IB packet from a
 * peer, or a hello.
 */
static void pib_rx_datagram(struct pib_rx *rx, struct sk_buff *skb,
			    unsigned int off, unsigned int len)
{
	struct pib_switch *sw = rx->sw;
	enum pib_pkt_err err;
	struct pib_hello h;
	struct pib_pkt pkt;
	u8 *buf;

	/* Too long for any IB packet: dropped before it is copied. */
	if (len > rx->seg) {
		atomic64_inc(&sw->drops[PIB_PKT_BAD_LEN]);
		return;
	}
	buf = pib_rx_bytes(rx, skb, off, len);
	if (!buf)
		return;
	err = pib_pkt_parse(buf, len, &pkt);
	if (err) {
		atomic64_inc(&sw->drops[err]);
		trace_pib_pkt_drop(netdev_name(sw->ndev), buf, len,
				   PIB_DROP_MALFORMED, err);
		return;
	}
	if (pkt.lrh.lnh != PIB_LNH_RAW) {
		pib_rx_from_peer(rx, buf, len, &pkt);
		return;
	}
	if (pib_hello_parse(buf + pkt.payload_off, pkt.payload_len, &h)) {
		atomic64_inc(&sw->bad_hellos);
		return;
	}
	if (h.switch_guid == sw->guid)
		return;		/* our own broadcast, looped back to us */
	atomic64_inc(&sw->hellos_rx);
	pib_switch_heard(sw, &rx->saddr, &h);
	rx->slot = PIB_RX_SLOT_UNKNOWN;	/* the peer table may have changed */
}

/*
 * An skb from pib's socket, its UDP header pulled: one datagram, or (UDP
 * GRO, or a batch that crossed a veth whole) a run of one peer's, back to
 * back, each gso_size bytes but the last. Each is taken on its own, as it
 * came off the wire. Consumes @skb.
 */
static void pib_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct pib_udp *udp = rcu_dereference_sk_user_data(sk);
	struct pib_rx rx = { .slot = PIB_RX_SLOT_UNKNOWN };
	unsigned int off = 0, seg, len, n = 0;

	/* the switch of the netdev it came in on, if that has one */
	rx.sw = udp ? xa_load(&udp->switches, skb->skb_iif) : NULL;
	if (!rx.sw || !pib_skb_source(sk, skb, &rx.saddr, &rx.ttl))
		goto out;
	/* A single datagram's UDP checksum, where nothing checked it. */
	if (!skb_is_gso(skb) && udp_lib_checksum_complete(skb)) {
		atomic64_inc(&rx.sw->udp_csum_errors);
		goto out;
	}
	/* (any other GSO skb is one datagram, too long for an IB packet) */
	seg = skb_is_gso(skb) && skb_shinfo(skb)->gso_type & SKB_GSO_UDP_L4 ?
		skb_shinfo(skb)->gso_size : skb->len;
	rx.seg = min_t(unsigned int, seg, PIB_MAX_PKT_LEN);
	/* (an empty datagram is taken once, and dropped as short) */
	do {
		len = min(seg, skb->len - off);
		pib_rx_datagram(&rx, skb, off, len);
		off += len;
		n++;
	} while (off < skb->len);
	if (n > 1) {
		atomic64_inc(&rx.sw->batches_rx);
		atomic64_add(n, &rx.sw->batched_rx);
	}
	kfree(rx.buf);
out:
	kfree_skb(skb);
}

#define PIB_RX_BUDGET		64	/* skbs a call of pib_udp_data_ready() takes */
#define PIB_RX_QUEUE_BYTES	(4 << 20)	/* a socket's receive buffer */

/*
 * What pib's socket receives (its sk_data_ready): the stack has queued
 * an skb, and pib takes what the queue holds, in the same softirq. Each
 * skb queued calls this once, and each call takes at least that one
 * while any is queued, so none is left behind; PIB_RX_BUDGET bounds a
 * call that other CPUs keep feeding.
 */
static void pib_udp_data_ready(struct sock *sk)
{
	struct sk_buff *skb;
	unsigned int n;
	int err;

	rcu_read_lock();
	for (n = 0; n < PIB_RX_BUDGET; n++) {
		skb = skb_recv_udp(sk, MSG_DONTWAIT, &err);
		if (!skb)
			break;
		pib_udp_rcv(sk, skb);
	}
	rcu_read_unlock();
}

/* A cached route's source address. */
union pib_route_saddr {
	__be32 v4;
	struct in6_addr v6;
};

/*
 * IPv6's half of the route cache: <net/dst_cache.h> declares it only
 * where the kernel has IPv6, and without IPv6 pib sends nothing over it.
 */
#if IS_ENABLED(CONFIG_IPV6)
#define pib_dst_cache_get_ip6	dst_cache_get_ip6
#define pib_dst_cache_set_ip6	dst_cache_set_ip6
#else
static struct dst_entry *pib_dst_cache_get_ip6(struct dst_cache *c,
					       struct in6_addr *saddr)
{
	return NULL;
}

static void pib_dst_cache_set_ip6(struct dst_cache *c, struct dst_entry *dst,
				  const struct in6_addr *saddr)
{
}
#endif

/* This CPU's cached route of slot @slot, if it is to @daddr (BH off). */
static struct dst_entry *pib_route_get(struct pib_switch *sw, int slot,
				       const struct pib_ip *daddr,
				       union pib_route_saddr *saddr)
{
	struct dst_cache *c = &sw->routes[slot];
	struct rtable *rt;

	if (!pib_ip_eq(&this_cpu_ptr(sw->route_tags)->addr[slot], daddr))
		return NULL;
	if (pib_ip_family(daddr) == PIB_IP6)
		return pib_dst_cache_get_ip6(c, &saddr->v6);
	rt = dst_cache_get_ip4(c, &saddr->v4);
	return rt ? &rt->dst : NULL;
}

/*
 * This CPU's cached route to peer slot @slot, if it was looked up for
 * @daddr and is still good (the stack's own checks: a changed route
 * makes it obsolete), from a source address the host still has, which
 * is set in @saddr; NULL if not, or for PIB_SLOT_NONE.
 */
static struct dst_entry *pib_route_cached(struct pib_switch *sw, int slot,
					  const struct pib_ip *daddr,
					  union pib_route_saddr *saddr)
{
	struct net_device *ndev = sw->ndev;
	struct dst_entry *dst;
	bool ok;

	if (slot == PIB_SLOT_NONE)
		return NULL;
	local_bh_disable();
	dst = pib_route_get(sw, slot, daddr, saddr);
	local_bh_enable();
	if (!dst)
		return NULL;
	ok = pib_ip_family(daddr) == PIB_IP4 ?
	     pib_ndev_has_ip4(ndev, saddr->v4) :
	     ipv6_chk_addr(dev_net(ndev), &saddr->v6, ndev, 0);
	if (!ok) {
		dst_release(dst);
		return NULL;
	}
	atomic64_inc(&sw->routes_cached);
	return dst;
}

/* Keep @dst, to @daddr from @saddr, as this CPU's route to slot @slot. */
static void pib_route_keep(struct pib_switch *sw, int slot,
			   const struct pib_ip *daddr, struct dst_entry *dst,
			   const union pib_route_saddr *saddr)
{
	struct dst_cache *c;

	if (slot == PIB_SLOT_NONE)
		return;
	c = &sw->routes[slot];
	local_bh_disable();
	if (pib_ip_family(daddr) == PIB_IP4)
		dst_cache_set_ip4(c, dst, saddr->v4);
	else
		pib_dst_cache_set_ip6(c, dst, &saddr->v6);
	this_cpu_ptr(sw->route_tags)->addr[slot] = *daddr;
	local_bh_enable();
	atomic64_inc(&sw->route_lookups);
}

/*
 * The route to @daddr (peer slot @slot) out of the switch's netdev, or
 * NULL without one or without an IPv4 address of the netdev's own to
 * send from.
 */
static struct rtable *pib_switch_route4(struct pib_switch *sw, int slot,
					const struct pib_ip *daddr,
					__be32 *saddr)
{
	struct net_device *ndev = sw->ndev;
	struct flowi4 fl = {
		.flowi4_oif = ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = pib_ip_v4(daddr),
	};
	union pib_route_saddr from;
	struct dst_entry *dst;
	struct rtable *rt;

	dst = pib_route_cached(sw, slot, daddr, &from);
	if (dst) {
		*saddr = from.v4;
		return container_of(dst, struct rtable, dst);
	}
	rt = ip_route_output_key(dev_net(ndev), &fl);
	if (IS_ERR(rt))
		return NULL;
	if (!fl.saddr || !pib_ndev_has_ip4(ndev, fl.saddr)) {
		ip_rt_put(rt);
		return NULL;
	}
	from.v4 = fl.saddr;
	pib_route_keep(sw, slot, daddr, &rt->dst, &from);
	*saddr = fl.saddr;
	return rt;
}

/* Send @skb to the IPv4 address @daddr (peer slot @slot); consumes @skb. */
static void pib_switch_xmit4(struct pib_switch *sw, const struct pib_ip *daddr,
			     int slot, struct sk_buff *skb, u8 ttl)
{
	struct rtable *rt;
	__be32 saddr;

	rt = pib_switch_route4(sw, slot, daddr, &saddr);
	if (!rt) {
		kfree_skb(skb);
		return;
	}
	/* Static peers may be behind routers: the route's TTL, not 1. */
	ttl = min_t(int, ttl, ip4_dst_hoplimit(&rt->dst));
	udp_tunnel_xmit_skb(rt, sw->udp->sk[PIB_IP4], skb, saddr,
			    pib_ip_v4(daddr), 0, ttl, 0, htons(pib_udp_port),
			    htons(pib_udp_port), false, false, 0);
}

/*
 * The route to @daddr (peer slot @slot) out of the switch's netdev (also
 * for a link-local or multicast @daddr: the netdev gives its scope), or
 * NULL without one or without an IPv6 source address there.
 */
static struct dst_entry *pib_switch_route6(struct pib_switch *sw, int slot,
					   const struct pib_ip *daddr,
					   struct in6_addr *saddr)
{
	struct net *net = dev_net(sw->ndev);
	struct flowi6 fl = {
		.flowi6_oif = sw->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
	};
	union pib_route_saddr from;
	struct dst_entry *dst;

	dst = pib_route_cached(sw, slot, daddr, &from);
	if (dst) {
		*saddr = from.v6;
		return dst;
	}
	memcpy(&fl.daddr, daddr->b, sizeof(fl.daddr));
	dst = ip6_dst_lookup_flow(net, sw->udp->sk[PIB_IP6], &fl, NULL);
	if (IS_ERR(dst))
		return NULL;
	if (ipv6_addr_any(&fl.saddr)) {
		dst_release(dst);
		return NULL;
	}
	from.v6 = fl.saddr;
	pib_route_keep(sw, slot, daddr, dst, &from);
	*saddr = fl.saddr;
	return dst;
}

/*
 * Send @skb to the IPv6 address @daddr (peer slot @slot); consumes @skb.
 * Unlike IPv4's, IPv6's UDP checksum is not optional (RFC 8200; RFC 6936
 * allows leaving it out only on paths known to take that), so pib
 * computes it.
 */
static void pib_switch_xmit6(struct pib_switch *sw, const struct pib_ip *daddr,
			     int slot, struct sk_buff *skb, u8 ttl)
{
	struct dst_entry *dst = NULL;
	struct in6_addr to, saddr;

	if (IS_ENABLED(CONFIG_IPV6) && sw->udp->sk[PIB_IP6])
		dst = pib_switch_route6(sw, slot, daddr, &saddr);
	if (!dst) {
		kfree_skb(skb);
		return;
	}
	memcpy(&to, daddr->b, sizeof(to));
	ttl = min_t(int, ttl, ip6_dst_hoplimit(dst));
	udp_tunnel6_xmit_skb(dst, sw->udp->sk[PIB_IP6], skb, NULL, &saddr,
			     &to, 0, ttl, 0, htons(pib_udp_port),
			     htons(pib_udp_port), false, 0);
}

/**
 * pib_switch_xmit_skb() - send an IB packet to a host on the LAN
 * @sw: the switch whose netdev carries it
 * @daddr: the host's address (struct pib_ip: IPv4 or IPv6), or the
 *	LAN's IPv4 broadcast address or IPv6 all-nodes group
 * @slot: the peer's slot in the switch's peer table, whose cached route
 *	it takes; PIB_SLOT_NONE for an address that is no peer's (hellos)
 * @skb: the packet, from skb->data on; consumed
 * @ttl: its hop budget: the IP TTL, or PIB_TTL_HERE for the route's
 *
 * Nothing is sent while the netdev has no address of @daddr's family or
 * no route. Every datagram carries a UDP checksum, which the NIC computes
 * where it can: the receiving host's GRO merges only checksummed
 * datagrams (pib_udp_open()), and a datagram without one would
 * overtake a run of its peer's that GRO holds. A batch (a UDP GSO skb of
 * whole IB packets, pib_switch_send()) gets one for each of its datagrams,
 * from GSO in the NIC or in software.
 */
void pib_switch_xmit_skb(struct pib_switch *sw, const struct pib_ip *daddr,
			 int slot, struct sk_buff *skb, u8 ttl)
{
	if (skb_cow_head(skb, pib_tx_headroom(sw->ndev))) {
		kfree_skb(skb);
		return;
	}
	/* A batch's UDP checksums: GSO computes them for each datagram. */
	if (skb_is_gso(skb)) {
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_headroom(skb) - sizeof(struct udphdr);
		skb->csum_offset = offsetof(struct udphdr, check);
	}
	if (pib_ip_family(daddr) == PIB_IP4)
		pib_switch_xmit4(sw, daddr, slot, skb, ttl);
	else
		pib_switch_xmit6(sw, daddr, slot, skb, ttl);
}

/**
 * pib_switch_xmit() - send a copy of an IB packet to a host on the LAN
 * @sw: the switch whose netdev carries it
 * @daddr: as for pib_switch_xmit_skb()
 * @slot: as for pib_switch_xmit_skb()
 * @pkt: the packet
 * @len: its length
 * @ttl: its hop budget: the IP TTL, or PIB_TTL_HERE for the route's
 * @gfp: allocation context
 */
void pib_switch_xmit(struct pib_switch *sw, const struct pib_ip *daddr,
		     int slot, const u8 *pkt, unsigned int len, u8 ttl,
		     gfp_t gfp)
{
	unsigned int headroom = pib_tx_headroom(sw->ndev);
	struct sk_buff *skb = alloc_skb(headroom + len, gfp);

	if (!skb)
		return;
	skb_reserve(skb, headroom);
	skb_put_data(skb, pkt, len);
	pib_switch_xmit_skb(sw, daddr, slot, skb, ttl);
}

/*
 * Static peers: hosts that hellos go to by unicast as well as to the LAN's
 * broadcast address and all-nodes group, for networks where those do not
 * reach them.
 */
static struct pib_ip pib_static_peers[PIB_MAX_PEERS];
static unsigned int pib_num_static_peers;
static DEFINE_SPINLOCK(pib_static_peers_lock);

/* Longest text of an address: IPv6 with an IPv4 tail, and a NUL. */
#define PIB_IP_TEXT_LEN		INET6_ADDRSTRLEN

/* @ip as text: dotted IPv4, or IPv6 in its compressed form. */
static void pib_ip_text(char *buf, const struct pib_ip *ip)
{
	__be32 v4 = pib_ip_v4(ip);

	if (pib_ip_family(ip) == PIB_IP4)
		snprintf(buf, PIB_IP_TEXT_LEN, "%pI4", &v4);
	else
		snprintf(buf, PIB_IP_TEXT_LEN, "%pI6c", ip->b);
}

/*
 * A peer's address, as text: a unicast IPv4 address, or an IPv6 address
 * that is neither unspecified, multicast nor IPv4-mapped (that is the
 * IPv4 address). Return: 0, or -EINVAL.
 */
static int pib_ip_parse(const char *text, struct pib_ip *ip)
{
	struct in6_addr a6;
	__be32 a4;

	if (in4_pton(text, -1, (u8 *)&a4, '\0', NULL)) {
		if (ipv4_is_multicast(a4) || ipv4_is_zeronet(a4) ||
		    ipv4_is_lbcast(a4))
			return -EINVAL;
		*ip = pib_ip4(a4);
		return 0;
	}
	if (!in6_pton(text, -1, a6.s6_addr, '\0', NULL) ||
	    ipv6_addr_any(&a6) || ipv6_addr_is_multicast(&a6) ||
	    ipv6_addr_v4mapped(&a6))
		return -EINVAL;
	memcpy(ip->b, a6.s6_addr, sizeof(ip->b));
	return 0;
}

/* "addr,addr,...": at most PIB_MAX_PEERS addresses, or nothing. */
static int pib_static_peers_set(const char *val, const struct kernel_param *kp)
{
	char *copy = kstrdup(val, GFP_KERNEL), *list, *tok;
	struct pib_ip addrs[PIB_MAX_PEERS];
	unsigned int n = 0;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	list = strim(copy);
	while (list && *list) {
		tok = strsep(&list, ",");
		if (n == PIB_MAX_PEERS || pib_ip_parse(tok, &addrs[n])) {
			pr_err("peers: want up to %d unicast IPv4 or IPv6 addresses separated by commas\n",
			       PIB_MAX_PEERS);
			err = -EINVAL;
			break;
		}
		n++;
	}
	kfree(copy);
	if (err)
		return err;
	spin_lock_bh(&pib_static_peers_lock);
	memcpy(pib_static_peers, addrs, n * sizeof(addrs[0]));
	pib_num_static_peers = n;
	spin_unlock_bh(&pib_static_peers_lock);
	return 0;
}

static int pib_static_peers_get(char *buf, const struct kernel_param *kp)
{
	char text[PIB_IP_TEXT_LEN];
	unsigned int i;
	int len = 0;

	spin_lock_bh(&pib_static_peers_lock);
	for (i = 0; i < pib_num_static_peers; i++) {
		pib_ip_text(text, &pib_static_peers[i]);
		len += sysfs_emit_at(buf, len, "%s%s", i ? "," : "", text);
	}
	spin_unlock_bh(&pib_static_peers_lock);
	return len + sysfs_emit_at(buf, len, "\n");
}

static const struct kernel_param_ops pib_static_peers_ops = {
	.set = pib_static_peers_set,
	.get = pib_static_peers_get,
};
module_param_cb(peers, &pib_static_peers_ops, NULL, 0644);
MODULE_PARM_DESC(peers, "IPv4 or IPv6 addresses of peer hosts that broadcasts and multicasts do not reach, comma-separated");

/* IPv6's link-local all-nodes group, ff02::1: IPv6's broadcast. */
static const struct pib_ip pib_ip6_all_nodes = {
	.b = { 0xff, 0x02, [15] = 0x01 },
};

/* Is there a LAN to say hello to: the netdev up, and no loopback? */
static bool pib_switch_on_lan(const struct pib_switch *sw)
{
	return netif_running(sw->ndev) && !(sw->ndev->flags & IFF_LOOPBACK);
}

/* Say hello, or bye (@bye), to the LAN and to the static peers. */
static void pib_switch_send_hello(struct pib_switch *sw, bool bye)
{
	struct pib_ip bcast = pib_ip4(htonl(INADDR_BROADCAST));
	struct pib_ip addrs[PIB_MAX_PEERS];
	u8 pkt[PIB_HELLO_PKT_LEN];
	unsigned int i, n;

	pib_switch_hello_build(sw, bye, pkt);
	pib_switch_hello_to(sw, &bcast, pkt, GFP_KERNEL);
	if (sw->udp->sk[PIB_IP6])
		pib_switch_hello_to(sw, &pib_ip6_all_nodes, pkt, GFP_KERNEL);
	spin_lock_bh(&pib_static_peers_lock);
	n = pib_num_static_peers;
	memcpy(addrs, pib_static_peers, n * sizeof(addrs[0]));
	spin_unlock_bh(&pib_static_peers_lock);
	for (i = 0; i < n; i++)
		pib_switch_hello_to(sw, &addrs[i], pkt, GFP_KERNEL);
}

/*
 * Every hello interval: say hello, take silent peers' links down and free
 * the slots of long-silent ones.
 */
static void pib_switch_hello_work(struct work_struct *work)
{
	struct pib_switch *sw = container_of(to_delayed_work(work),
					     struct pib_switch, hello_work);

	if (pib_switch_on_lan(sw))
		pib_switch_send_hello(sw, false);
	spin_lock_bh(&sw->lock);
	pib_peers_age(&sw->peers, pib_now_ms(), pib_switch_families(sw));
	spin_unlock_bh(&sw->lock);
	pib_switch_track_links(sw);
	spin_lock_bh(&sw->lock);
	if (!sw->dying)
		schedule_delayed_work(&sw->hello_work,
				      msecs_to_jiffies(PIB_HELLO_INTERVAL_MS));
	spin_unlock_bh(&sw->lock);
}

/*
 * The peer table, and the hellos and new peers it refused. Each peer's
 * "peer" line has the address its packets go to; a "peer_alt" line, its
 * address of the other family when it says hello over both. Its
 * "peer_stat" line says how its hellos come: how long ago the last one
 * came, the longest gap between two, and how often its link went down.
 */
static void pib_switch_show_peers(struct seq_file *m,
				  const struct pib_peer_table *t)
{
	char text[PIB_IP_TEXT_LEN];
	u64 now = pib_now_ms();
	const struct pib_peer *p;
	enum pib_ip_family alt;
	unsigned int i;

	seq_printf(m, "peers_refused %llu\npeers_rate_limited %llu\n",
		   t->full, t->rate_limited);
	seq_printf(m, "hellos_guid_elsewhere %llu\nhellos_addr_in_use %llu\n",
		   t->guid_elsewhere, t->addr_in_use);
	seq_printf(m, "peers_evicted %llu\npeer_restarts_limited %llu\n",
		   t->evicted, t->restarts_limited);
	for (i = 0; i < PIB_MAX_PEERS; i++) {
		p = &t->peer[i];
		if (!p->used)
			continue;
		pib_ip_text(text, &p->addr[p->primary]);
		seq_printf(m, "peer %016llx %s %s\n", p->guid, text,
			   p->up ? "up" : "down");
		alt = p->primary == PIB_IP4 ? PIB_IP6 : PIB_IP4;
		if (p->bound & PIB_IP_BIT(alt)) {
			pib_ip_text(text, &p->addr[alt]);
			seq_printf(m, "peer_alt %016llx %s\n", p->guid, text);
		}
		seq_printf(m, "peer_stat %016llx heard_ms_ago %llu max_gap_ms %llu restarts %u byes %u link_downs %u\n",
			   p->guid, now - p->last_heard, p->max_gap,
			   p->restarts, p->byes, p->link_downs);
	}
}

static int pib_switch_show(struct seq_file *m, void *unused)
{
	struct pib_switch *sw = m->private;
	unsigned int i;

	seq_printf(m, "netdev %s\nguid %016llx\nudp_port %u\n",
		   netdev_name(sw->ndev), sw->guid, pib_udp_port);
	seq_printf(m, "hellos_tx %lld\nhellos_rx %lld\nbad_hellos %lld\n",
		   atomic64_read(&sw->hellos_tx), atomic64_read(&sw->hellos_rx),
		   atomic64_read(&sw->bad_hellos));
	seq_printf(m, "hellos_no_addr %lld\n",
		   atomic64_read(&sw->hellos_no_addr));
	seq_printf(m, "unrouted %lld\ndr_discards %lld\ntraps_tx %lld\n",
		   atomic64_read(&sw->unrouted), atomic64_read(&sw->dr_discards),
		   atomic64_read(&sw->traps_tx));
	seq_printf(m, "hop_limit %lld\n", atomic64_read(&sw->hop_limit));
	seq_printf(m, "batches_tx %lld\nbatched_tx %lld\n",
		   atomic64_read(&sw->batches_tx),
		   atomic64_read(&sw->batched_tx));
	seq_printf(m, "batches_rx %lld\nbatched_rx %lld\nudp_csum_errors %lld\n",
		   atomic64_read(&sw->batches_rx),
		   atomic64_read(&sw->batched_rx),
		   atomic64_read(&sw->udp_csum_errors));
	seq_printf(m, "routes_cached %lld\nroute_lookups %lld\n",
		   atomic64_read(&sw->routes_cached),
		   atomic64_read(&sw->route_lookups));
	for (i = 1; i < PIB_PKT_NUM_ERRS; i++)
		seq_printf(m, "drop_%s %lld\n", pib_pkt_err_names[i],
			   atomic64_read(&sw->drops[i]));
	spin_lock_bh(&sw->lock);
	pib_switch_show_peers(m, &sw->peers);
	spin_unlock_bh(&sw->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pib_switch);

/* Close a socket that nothing receives through any more. */
static void pib_udp_close(struct sock *sk)
{
	struct socket *sock = sk->sk_socket;

	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
}

/*
 * Open @udp's socket of family @f on pib's port, with pib_udp_data_ready()
 * as its receiver. The IPv6 socket takes IPv6 alone, so that the IPv4 one
 * can have the same port.
 *
 * With UDP GRO on it (UDP_GRO), a NIC's GRO merges a peer's checksummed
 * datagrams of one size that come in one after the other into one skb
 * (SKB_GSO_UDP_L4, gso_size one datagram): one pass up the IP stack for
 * a run of them. A batch that crosses a veth, already one skb, stays one.
 * pib_udp_rcv() takes them apart. The stack only hands such skbs whole to
 * a plain socket (an encapsulation socket's receiver gets them cut up
 * again), so pib's is one, read from its queue as soon as the stack has
 * queued something.
 */
static int pib_udp_open(struct pib_udp *udp, enum pib_ip_family f)
{
	struct udp_port_cfg cfg = {
		.family = f == PIB_IP4 ? AF_INET : AF_INET6,
		.local_udp_port = htons(pib_udp_port),
		.ipv6_v6only = 1,
		.use_udp6_tx_checksums = 1,
		.use_udp6_rx_checksums = 1,
	};
	struct socket *sock;
	struct sock *sk;
	int one = 1, err;

	err = udp_sock_create(udp->net, &cfg, &sock);
	if (err)
		return err;
	sk = sock->sk;
	err = sock->ops->setsockopt(sock, SOL_UDP, UDP_GRO,
				    KERNEL_SOCKPTR(&one), sizeof(one));
	if (err) {
		pib_udp_close(sk);
		return err;
	}
	/* room for runs that several CPUs queue at once (one is 64 KiB) */
	sock_set_rcvbuf(sk, PIB_RX_QUEUE_BYTES);
	write_lock_bh(&sk->sk_callback_lock);
	rcu_assign_sk_user_data(sk, udp);
	sk->sk_data_ready = pib_udp_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	udp->sk[f] = sk;
	return 0;
}

/*
 * Both sockets of a namespace's new struct pib_udp; on a kernel whose IPv6
 * is disabled (ipv6.disable=1, or built without it) the IPv4 one alone.
 * On an error, what it opened stays for pib_udp_free().
 */
static int pib_udp_open_all(struct pib_udp *udp)
{
	int err = pib_udp_open(udp, PIB_IP4);

	if (err)
		return err;
	err = pib_udp_open(udp, PIB_IP6);
	if (err == -EAFNOSUPPORT || err == -EPFNOSUPPORT) {
		pr_info_once("IPv6 is not available: pib uses IPv4 alone\n");
		return 0;
	}
	return err;
}

/*
 * A switch no longer uses @udp; under pib_switches_lock. True for the
 * last one, which then frees it (pib_udp_free()): pib_udp_put() with the
 * lock dropped, a switch that failed to start under it.
 */
static bool pib_udp_unuse(struct pib_udp *udp)
{
	if (--udp->users)
		return false;
	list_del(&udp->list);
	return true;
}

/*
 * Close the sockets of @udp (those it has), which no switch uses any
 * more, and free it; @ndev is the netdev of its last switch, or of the
 * one that could not open them (pib_synchronize_rcu()).
 */
static void pib_udp_free(struct pib_udp *udp, const struct net_device *ndev)
{
	unsigned int f;

	for (f = 0; f < PIB_IP_FAMILIES; f++)
		if (udp->sk[f])
			rcu_assign_sk_user_data(udp->sk[f], NULL);
	pib_synchronize_rcu(ndev);	/* no receiver sees @udp any more */
	for (f = 0; f < PIB_IP_FAMILIES; f++)
		if (udp->sk[f])
			pib_udp_close(udp->sk[f]);
	xa_destroy(&udp->switches);
	kfree(udp);
}

/*
 * The switch of @ndev, out of @udp->switches and its receivers done, lets
 * @udp go.
 */
static void pib_udp_put(struct pib_udp *udp, const struct net_device *ndev)
{
	bool last;

	mutex_lock(&pib_switches_lock);
	last = pib_udp_unuse(udp);
	mutex_unlock(&pib_switches_lock);
	if (last)
		pib_udp_free(udp, ndev);
}

/*
 * The sockets of @ndev's namespace, opened by its first switch; under
 * pib_switches_lock.
 */
static struct pib_udp *pib_udp_get(const struct net_device *ndev)
{
	struct net *net = dev_net(ndev);
	struct pib_udp *udp;
	int err;

	list_for_each_entry(udp, &pib_udps, list) {
		if (net_eq(udp->net, net)) {
			udp->users++;
			return udp;
		}
	}
	udp = kzalloc(sizeof(*udp), GFP_KERNEL);
	if (!udp)
		return ERR_PTR(-ENOMEM);
	udp->net = net;
	udp->users = 1;
	xa_init(&udp->switches);
	err = pib_udp_open_all(udp);
	if (err) {
		pib_udp_free(udp, ndev);
		return ERR_PTR(err);
	}
	list_add(&udp->list, &pib_udps);
	return udp;
}

/*
 * The switch's debugfs file: the netdev's name in the initial network
 * namespace, NAME@INUM in another (INUM: the namespace's inode number, as
 * `readlink /proc/self/ns/net` says it there), where containers' netdevs
 * of the same name would otherwise clash.
 */
static void pib_switch_debugfs(struct pib_switch *sw)
{
	struct net *net = dev_net(sw->ndev);
	char name[IFNAMSIZ + 12];

	if (net_eq(net, &init_net))
		strscpy(name, netdev_name(sw->ndev), sizeof(name));
	else
		snprintf(name, sizeof(name), "%s@%u", netdev_name(sw->ndev),
			 net->ns.inum);
	sw->debugfs = debugfs_create_file(name, 0400, pib_debugfs, sw,
					  &pib_switch_fops);
}

/* A switch's routes, by peer slot: 0 or -ENOMEM. */
static int pib_switch_routes_init(struct pib_switch *sw)
{
	unsigned int i;

	sw->route_tags = alloc_percpu(struct pib_route_tags);
	if (!sw->route_tags)
		return -ENOMEM;
	for (i = 0; i < PIB_MAX_PEERS; i++)
		if (dst_cache_init(&sw->routes[i], GFP_KERNEL))
			return -ENOMEM;
	return 0;
}

/* Free a switch's memory (what is not there yet, too). */
static void pib_switch_free(struct pib_switch *sw)
{
	unsigned int i;

	for (i = 0; i < PIB_MAX_PEERS; i++)
		dst_cache_destroy(&sw->routes[i]);
	free_percpu(sw->route_tags);
	kvfree(sw->mft);
	kvfree(sw->lft);
	kfree(sw);
}

/* A new switch's tables, empty: 0 or -ENOMEM. */
static int pib_switch_tables_init(struct pib_switch *sw)
{
	sw->lft = kvmalloc(PIB_SW_LFT_CAP, GFP_KERNEL);
	if (!sw->lft)
		return -ENOMEM;
	memset(sw->lft, PIB_LFT_NO_PORT, PIB_SW_LFT_CAP);
	sw->mft = kvcalloc(PIB_SW_MFT_CAP, sizeof(*sw->mft), GFP_KERNEL);
	if (!sw->mft)
		return -ENOMEM;
	sw->mft_top = PIB_LID_MCAST + PIB_SW_MFT_CAP - 1;
	return pib_switch_routes_init(sw);
}

static struct pib_switch *pib_switch_create(struct net_device *ndev)
{
	struct pib_switch *sw = kzalloc(sizeof(*sw), GFP_KERNEL);
	unsigned int i;
	int err;

	if (!sw)
		return ERR_PTR(-ENOMEM);
	sw->ndev = ndev;
	sw->guid = pib_guid_from_mac(ndev->dev_addr, PIB_SWITCH_GUID_INDEX);
	snprintf(sw->node_desc, sizeof(sw->node_desc), "pib switch %s %s",
		 utsname()->nodename, netdev_name(ndev));
	sw->incarnation = get_random_u32() % PIB_HELLO_INCARNATION + 1;
	spin_lock_init(&sw->lock);
	pib_peers_init(&sw->peers, pib_now_ms());
	sw->subnet_prefix = PIB_GID_PREFIX;
	sw->pkeys[0] = PIB_DEFAULT_PKEY;
	for (i = 1; i <= PIB_SW_NUM_PORTS; i++)
		sw->ports[i].state = IB_PORT_DOWN;
	sw->ports[0].state = IB_PORT_INIT;	/* port 0 has no link to lose */
	sw->ports[0].up = true;
	INIT_DELAYED_WORK(&sw->hello_work, pib_switch_hello_work);
	INIT_DELAYED_WORK(&sw->trap_work, pib_switch_trap_work);
	sw->trap_tat = jiffies;
	err = pib_switch_tables_init(sw);
	if (err) {
		pib_switch_free(sw);
		return ERR_PTR(err);
	}
	sw->udp = pib_udp_get(ndev);
	err = PTR_ERR_OR_ZERO(sw->udp);
	if (!err) {
		/* from here on, what comes in on @ndev is the switch's */
		err = xa_insert(&sw->udp->switches, ndev->ifindex, sw,
				GFP_KERNEL);
		if (err && pib_udp_unuse(sw->udp))
			pib_udp_free(sw->udp, ndev);
	}
	if (err) {
		pr_info_ratelimited("cannot open UDP port %u for %s: %d\n",
				    pib_udp_port, netdev_name(ndev), err);
		pib_switch_free(sw);
		return ERR_PTR(err);
	}
	dev_hold(ndev);
	pib_switch_debugfs(sw);
	return sw;
}

/**
 * pib_switch_speak() - a device is on the switch: say hello now
 * @sw: the switch
 *
 * A new switch is silent, and deaf to hellos, until its first device is
 * registered and on it: its peers, and their SM, see it once it is whole,
 * not while the device is still being registered (which takes a while:
 * IPoIB, the MAD agents). Each device that comes sends a hello at once.
 */
void pib_switch_speak(struct pib_switch *sw)
{
	spin_lock_bh(&sw->lock);
	sw->speaking = true;
	if (!sw->dying)
		mod_delayed_work(system_wq, &sw->hello_work, 0);
	spin_unlock_bh(&sw->lock);
}

/**
 * pib_switch_get() - the virtual switch of a netdev, created on first use
 * @ndev: the netdev
 *
 * Return: the switch with one more user, or an ERR_PTR.
 */
struct pib_switch *pib_switch_get(struct net_device *ndev)
{
	struct pib_switch *sw;

	mutex_lock(&pib_switches_lock);
	list_for_each_entry(sw, &pib_switches, list) {
		if (sw->ndev == ndev) {
			sw->users++;
			goto out;
		}
	}
	sw = pib_switch_create(ndev);
	if (!IS_ERR(sw)) {
		sw->users = 1;
		list_add(&sw->list, &pib_switches);
	}
out:
	mutex_unlock(&pib_switches_lock);
	return sw;
}

/*
 * Stop a switch's receiving and works. Nothing may queue a work once it
 * has been cancelled: the switch is marked dying, which the works and
 * pib_switch_track_links() check before they queue, and the receive path
 * (which tracks links) stops before the works are cancelled: it finds the
 * switch under RCU, so taking it out of its sockets' table and waiting for
 * a grace period stops it. The sockets stay open until the works are
 * gone, since they send through them.
 */
static void pib_switch_stop(struct pib_switch *sw)
{
	spin_lock_bh(&sw->lock);
	sw->dying = true;
	spin_unlock_bh(&sw->lock);
	xa_erase(&sw->udp->switches, sw->ndev->ifindex);
	pib_synchronize_rcu(sw->ndev);	/* receivers in flight are done */
	cancel_delayed_work_sync(&sw->hello_work);
	cancel_delayed_work_sync(&sw->trap_work);
}

/**
 * pib_switch_put() - drop a user; the last one takes the switch down
 * @sw: the switch
 */
void pib_switch_put(struct pib_switch *sw)
{
	mutex_lock(&pib_switches_lock);
	if (--sw->users) {
		mutex_unlock(&pib_switches_lock);
		return;
	}
	list_del(&sw->list);
	mutex_unlock(&pib_switches_lock);

	debugfs_remove(sw->debugfs);
	pib_switch_stop(sw);
	/* (a netdev going away has no LAN left to say bye to) */
	if (sw->speaking && pib_switch_on_lan(sw))
		pib_switch_send_hello(sw, true);
	pib_udp_put(sw->udp, sw->ndev);
	dev_put(sw->ndev);
	pib_switch_free(sw);
}

/**
 * pib_debugfs_root() - pib's debugfs directory
 *
 * Return: /sys/kernel/debug/pib (an ERR_PTR without debugfs).
 */
struct dentry *pib_debugfs_root(void)
{
	return pib_debugfs;
}

/**
 * pib_net_init() - at module load: pib's debugfs directory
 */
void pib_net_init(void)
{
	pib_debugfs = debugfs_create_dir("pib", NULL);
}

/**
 * pib_net_exit() - at module unload: remove pib's debugfs directory
 */
void pib_net_exit(void)
{
	debugfs_remove(pib_debugfs);
}
