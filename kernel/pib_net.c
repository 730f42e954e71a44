// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Net glue: one virtual switch per netdev that carries pib devices, with
 * UDP sockets on pib's port bound to that netdev, one for IPv4 and one for
 * IPv6. Received datagrams are checked as IB packets; hellos from other
 * hosts make them peers of the switch (a peer that falls silent loses its
 * link), and IB packets from a peer enter the switch through that peer's
 * port (pib_switch.c). Hellos go to the LAN's IPv4 broadcast address and
 * to IPv6's link-local all-nodes group, so that hosts find each other on
 * IPv4, dual-stack and IPv6-only LANs alike; each peer's packets go over
 * the family its link came up with (pib_peer.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "pib.h"
#include "pib_trace.h"

static DEFINE_MUTEX(pib_switches_lock);
static LIST_HEAD(pib_switches);
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
	       (sw->sk[PIB_IP6] ? PIB_IP_BIT(PIB_IP6) : 0);
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
	pib_switch_xmit(sw, daddr, pkt, PIB_HELLO_PKT_LEN, PIB_TTL_HERE, gfp);
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

/*
 * An IB packet from a peer enters the switch through that peer's port,
 * with the hop budget its datagram's TTL leaves (PIB_TTL_HERE).
 */
static void pib_switch_from_peer(struct pib_switch *sw,
				 const struct pib_ip *saddr, u8 ttl,
				 struct sk_buff *skb)
{
	int slot;

	spin_lock_bh(&sw->lock);
	slot = pib_peers_find_addr(&sw->peers, saddr);
	spin_unlock_bh(&sw->lock);
	if (slot < 0 || skb_ensure_writable(skb, skb->len)) {
		pib_switch_unrouted(sw, skb->data, skb->len);
		return;
	}
	pib_switch_input(sw, PIB_SW_FIRST_PEER_PORT + slot, skb->data, skb->len,
			 ttl ? ttl - 1 : 0);
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

static int pib_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct pib_switch *sw = rcu_dereference_sk_user_data(sk);
	enum pib_pkt_err err;
	struct pib_ip saddr;
	struct pib_hello h;
	struct pib_pkt pkt;
	u8 ttl;

	if (!sw || !pib_skb_source(sk, skb, &saddr, &ttl))
		goto out;
	/* Too long for any IB packet: dropped before it is made linear. */
	if (skb->len > sizeof(struct udphdr) + PIB_MAX_PKT_LEN) {
		atomic64_inc(&sw->drops[PIB_PKT_BAD_LEN]);
		goto out;
	}
	if (skb_linearize(skb))
		goto out;
	__skb_pull(skb, sizeof(struct udphdr));
	err = pib_pkt_parse(skb->data, skb->len, &pkt);
	if (err) {
		atomic64_inc(&sw->drops[err]);
		trace_pib_pkt_drop(netdev_name(sw->ndev), skb->data, skb->len,
				   PIB_DROP_MALFORMED, err);
		goto out;
	}
	if (pkt.lrh.lnh != PIB_LNH_RAW) {
		pib_switch_from_peer(sw, &saddr, ttl, skb);
		goto out;
	}
	if (pib_hello_parse(skb->data + pkt.payload_off, pkt.payload_len, &h)) {
		atomic64_inc(&sw->bad_hellos);
		goto out;
	}
	if (h.switch_guid == sw->guid)
		goto out;	/* our own broadcast, looped back to us */
	atomic64_inc(&sw->hellos_rx);
	pib_switch_heard(sw, &saddr, &h);
out:
	kfree_skb(skb);
	return 0;
}

/*
 * The route to @daddr out of the switch's netdev, or NULL without one or
 * without an IPv4 address of the netdev's own to send from.
 */
static struct rtable *pib_switch_route4(struct pib_switch *sw, __be32 daddr,
					__be32 *saddr)
{
	struct net_device *ndev = sw->ndev;
	struct flowi4 fl = {
		.flowi4_oif = ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = daddr,
	};
	struct rtable *rt;

	rt = ip_route_output_key(dev_net(ndev), &fl);
	if (IS_ERR(rt))
		return NULL;
	if (!fl.saddr || !pib_ndev_has_ip4(ndev, fl.saddr)) {
		ip_rt_put(rt);
		return NULL;
	}
	*saddr = fl.saddr;
	return rt;
}

/* Send @skb to the IPv4 address @daddr; consumes @skb. */
static void pib_switch_xmit4(struct pib_switch *sw, __be32 daddr,
			     struct sk_buff *skb, u8 ttl)
{
	struct rtable *rt;
	__be32 saddr;

	rt = pib_switch_route4(sw, daddr, &saddr);
	if (!rt) {
		kfree_skb(skb);
		return;
	}
	/* Static peers may be behind routers: the route's TTL, not 1. */
	ttl = min_t(int, ttl, ip4_dst_hoplimit(&rt->dst));
	udp_tunnel_xmit_skb(rt, sw->sk[PIB_IP4], skb, saddr, daddr, 0, ttl, 0,
			    htons(pib_udp_port), htons(pib_udp_port), false,
			    !skb_is_gso(skb), 0);
}

/*
 * The route to @daddr out of the switch's netdev (also for a link-local
 * or multicast @daddr: the netdev gives its scope), or NULL without one
 * or without an IPv6 source address there.
 */
static struct dst_entry *pib_switch_route6(struct pib_switch *sw,
					   const struct in6_addr *daddr,
					   struct in6_addr *saddr)
{
	struct flowi6 fl = {
		.flowi6_oif = sw->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = *daddr,
	};
	struct dst_entry *dst;

	dst = ip6_dst_lookup_flow(dev_net(sw->ndev), sw->sk[PIB_IP6], &fl,
				  NULL);
	if (IS_ERR(dst))
		return NULL;
	if (ipv6_addr_any(&fl.saddr)) {
		dst_release(dst);
		return NULL;
	}
	*saddr = fl.saddr;
	return dst;
}

/*
 * Send @skb to the IPv6 address @daddr; consumes @skb. Unlike IPv4's,
 * IPv6's UDP checksum is not optional (RFC 8200; RFC 6936 allows leaving
 * it out only on paths known to take that), so pib computes it.
 */
static void pib_switch_xmit6(struct pib_switch *sw, const struct pib_ip *daddr,
			     struct sk_buff *skb, u8 ttl)
{
	struct dst_entry *dst = NULL;
	struct in6_addr to, saddr;

	memcpy(&to, daddr->b, sizeof(to));
	if (IS_ENABLED(CONFIG_IPV6) && sw->sk[PIB_IP6])
		dst = pib_switch_route6(sw, &to, &saddr);
	if (!dst) {
		kfree_skb(skb);
		return;
	}
	ttl = min_t(int, ttl, ip6_dst_hoplimit(dst));
	udp_tunnel6_xmit_skb(dst, sw->sk[PIB_IP6], skb, NULL, &saddr, &to, 0,
			     ttl, 0, htons(pib_udp_port), htons(pib_udp_port),
			     false, 0);
}

/**
 * pib_switch_xmit_skb() - send an IB packet to a host on the LAN
 * @sw: the switch whose netdev carries it
 * @daddr: the host's address (struct pib_ip: IPv4 or IPv6), or the
 *	LAN's IPv4 broadcast address or IPv6 all-nodes group
 * @skb: the packet, from skb->data on; consumed
 * @ttl: its hop budget: the IP TTL, or PIB_TTL_HERE for the route's
 *
 * Nothing is sent while the netdev has no address of @daddr's family or
 * no route. IPv4's UDP checksum is left out (0, as RoCEv2 does): the ICRC
 * and VCRC cover the IB packet end to end, and the receiver checks them.
 * A batch (a UDP GSO skb of whole IB packets, pib_switch_send()) is the
 * exception: GSO, in the NIC or in software, gives each of its datagrams
 * a UDP checksum, which the stack requires of it.
 */
void pib_switch_xmit_skb(struct pib_switch *sw, const struct pib_ip *daddr,
			 struct sk_buff *skb, u8 ttl)
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
		pib_switch_xmit4(sw, pib_ip_v4(daddr), skb, ttl);
	else
		pib_switch_xmit6(sw, daddr, skb, ttl);
}

/**
 * pib_switch_xmit() - send a copy of an IB packet to a host on the LAN
 * @sw: the switch whose netdev carries it
 * @daddr: as for pib_switch_xmit_skb()
 * @pkt: the packet
 * @len: its length
 * @ttl: its hop budget: the IP TTL, or PIB_TTL_HERE for the route's
 * @gfp: allocation context
 */
void pib_switch_xmit(struct pib_switch *sw, const struct pib_ip *daddr,
		     const u8 *pkt, unsigned int len, u8 ttl, gfp_t gfp)
{
	unsigned int headroom = pib_tx_headroom(sw->ndev);
	struct sk_buff *skb = alloc_skb(headroom + len, gfp);

	if (!skb)
		return;
	skb_reserve(skb, headroom);
	skb_put_data(skb, pkt, len);
	pib_switch_xmit_skb(sw, daddr, skb, ttl);
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
	if (sw->sk[PIB_IP6])
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
	for (i = 1; i < PIB_PKT_NUM_ERRS; i++)
		seq_printf(m, "drop_%s %lld\n", pib_pkt_err_names[i],
			   atomic64_read(&sw->drops[i]));
	spin_lock_bh(&sw->lock);
	pib_switch_show_peers(m, &sw->peers);
	spin_unlock_bh(&sw->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pib_switch);

/*
 * Open the switch's UDP socket of family @f on pib's port, bound to its
 * netdev, with pib_udp_rcv() as its receiver. The IPv6 socket takes IPv6
 * alone, so that the IPv4 one can have the same port.
 */
static int pib_switch_open_socket(struct pib_switch *sw, enum pib_ip_family f)
{
	struct udp_port_cfg cfg = {
		.family = f == PIB_IP4 ? AF_INET : AF_INET6,
		.local_udp_port = htons(pib_udp_port),
		.bind_ifindex = sw->ndev->ifindex,
		.ipv6_v6only = 1,
		.use_udp6_tx_checksums = 1,
		.use_udp6_rx_checksums = 1,
	};
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = sw,
		.encap_type = 1,
		.encap_rcv = pib_udp_rcv,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(dev_net(sw->ndev), &cfg, &sock);
	if (err)
		return err;
	sw->sk[f] = sock->sk;
	setup_udp_tunnel_sock(dev_net(sw->ndev), sw->sk[f], &tcfg);
	return 0;
}

/*
 * Both sockets; on a kernel whose IPv6 is disabled (ipv6.disable=1, or
 * built without it) the IPv4 one alone.
 */
static int pib_switch_open_sockets(struct pib_switch *sw)
{
	int err = pib_switch_open_socket(sw, PIB_IP4);

	if (err)
		return err;
	err = pib_switch_open_socket(sw, PIB_IP6);
	if (err == -EAFNOSUPPORT || err == -EPFNOSUPPORT) {
		pr_info_once("IPv6 is not available: pib uses IPv4 alone\n");
		return 0;
	}
	if (err) {
		udp_tunnel_sock_release(sw->sk[PIB_IP4]);
		sw->sk[PIB_IP4] = NULL;
	}
	return err;
}

/* Close the sockets that pib_switch_open_sockets() opened. */
static void pib_switch_close_sockets(struct pib_switch *sw)
{
	unsigned int f;

	for (f = 0; f < PIB_IP_FAMILIES; f++)
		if (sw->sk[f])
			udp_tunnel_sock_release(sw->sk[f]);
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

static struct pib_switch *pib_switch_create(struct net_device *ndev)
{
	struct pib_switch *sw = kzalloc(sizeof(*sw), GFP_KERNEL);
	unsigned int i;
	int err;

	if (!sw)
		return ERR_PTR(-ENOMEM);
	sw->ndev = ndev;
	sw->guid = pib_guid_from_mac(ndev->dev_addr, PIB_SWITCH_GUID_INDEX);
	sw->incarnation = get_random_u32() % PIB_HELLO_INCARNATION + 1;
	spin_lock_init(&sw->lock);
	pib_peers_init(&sw->peers, pib_now_ms());
	sw->subnet_prefix = PIB_GID_PREFIX;
	sw->pkeys[0] = PIB_DEFAULT_PKEY;
	for (i = 1; i <= PIB_SW_NUM_PORTS; i++)
		sw->ports[i].state = IB_PORT_DOWN;
	sw->ports[0].state = IB_PORT_INIT;	/* port 0 has no link to lose */
	sw->ports[0].up = true;
	sw->lft = kvmalloc(PIB_SW_LFT_CAP, GFP_KERNEL);
	if (!sw->lft) {
		kfree(sw);
		return ERR_PTR(-ENOMEM);
	}
	memset(sw->lft, PIB_LFT_NO_PORT, PIB_SW_LFT_CAP);
	sw->mft = kvcalloc(PIB_SW_MFT_CAP, sizeof(*sw->mft), GFP_KERNEL);
	sw->mft_top = PIB_LID_MCAST + PIB_SW_MFT_CAP - 1;
	INIT_DELAYED_WORK(&sw->hello_work, pib_switch_hello_work);
	INIT_DELAYED_WORK(&sw->trap_work, pib_switch_trap_work);
	sw->trap_tat = jiffies;
	err = sw->mft ? pib_switch_open_sockets(sw) : -ENOMEM;
	if (err) {
		pr_info_ratelimited("cannot open UDP port %u on %s: %d\n",
				    pib_udp_port, netdev_name(ndev), err);
		kvfree(sw->mft);
		kvfree(sw->lft);
		kfree(sw);
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
 * switch under RCU, so clearing the socket's user data and waiting for a
 * grace period stops it. The socket stays open until the works are gone,
 * since they send through it.
 */
static void pib_switch_stop(struct pib_switch *sw)
{
	unsigned int f;

	spin_lock_bh(&sw->lock);
	sw->dying = true;
	spin_unlock_bh(&sw->lock);
	for (f = 0; f < PIB_IP_FAMILIES; f++)
		if (sw->sk[f])
			rcu_assign_sk_user_data(sw->sk[f], NULL);
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
	pib_switch_close_sockets(sw);
	dev_put(sw->ndev);
	kvfree(sw->mft);
	kvfree(sw->lft);
	kfree(sw);
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
