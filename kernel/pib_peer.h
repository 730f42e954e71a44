/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The peer table of a switch: the other hosts' switches heard on the LAN,
 * and which GUID speaks from which address.
 *
 * Shared by the kernel module and the host-side unit tests, so it only
 * uses the fixed-width types of <linux/types.h>. Times are milliseconds of
 * a clock that does not wrap.
 *
 * Addresses: a switch says hello over IPv4 and over IPv6 (pib_net.c), so
 * a peer on a dual-stack LAN is heard over both, one on a single-stack
 * LAN over one. A peer has an address of each family it is heard over,
 * bound while its hellos come over that family. Its packets go to its
 * primary address: that of the family its link came up with, while
 * bound, then that of the other. A second family's binding never moves
 * a live peer's packets; it keeps the link up when the first family's
 * path fails.
 *
 * Trust: a hello proves nothing (IB has no authentication), so the table
 * limits what a forged one can do. A GUID is bound to the address its
 * hellos come from (one per family), and an address to its GUID, for as
 * long as that peer keeps talking over that family: a hello that would
 * move a live peer to another address of a bound family, or give a live
 * peer's address to another GUID, is refused. A peer silent for
 * PIB_PEER_TIMEOUT_MS loses its link and may then come back from
 * elsewhere; one silent for PIB_PEER_EVICT_MS gives its slot up. New peers
 * take slots at most PIB_PEER_NEW_BURST at once and then one each
 * PIB_PEER_NEW_MS, so a flood of made-up GUIDs neither fills the table at
 * once nor floods the SM with link changes.
 *
 * A live peer that says hello as another incarnation of itself was made
 * anew (pib_hdr.h): its link bounces, as an IB link does when the port at
 * its other end resets. One that says bye from its bound address, as the
 * incarnation it is, has its link go down. A forged hello can do either
 * only to a peer's link whose hellos it can see and whose address it can
 * send from, as it could already by speaking for that peer, and at most
 * once per PIB_PEER_RESTART_MS.
 */
#ifndef PIB_PEER_H
#define PIB_PEER_H

#include <linux/types.h>

#include "pib_hdr.h"

/* Most peer hosts one switch keeps track of. */
#define PIB_MAX_PEERS		64
/* A peer silent this long gives its slot (and switch port) up. */
#define PIB_PEER_EVICT_MS	60000
/* New peers admitted at once... */
#define PIB_PEER_NEW_BURST	16
/* ...and then one per this many milliseconds. */
#define PIB_PEER_NEW_MS		1000
/* A peer's own word (a restart, a bye) moves its link at most this often. */
#define PIB_PEER_RESTART_MS	1000

/**
 * struct pib_ip - an IP address of a peer: IPv6, or IPv4 mapped into
 *	IPv6 (::ffff:a.b.c.d), so that one type and one comparison serve both
 * @b: the address, network byte order
 */
struct pib_ip {
	__u8 b[16];
};

/* The address families a peer can be heard over. */
enum pib_ip_family {
	PIB_IP4,
	PIB_IP6,
	PIB_IP_FAMILIES,
};

#define PIB_IP_BIT(f)		(1u << (f))

/* An IPv4-mapped address: 10 bytes 0, 2 bytes 0xff, the IPv4 address. */
#define PIB_IP4_MAPPED_ZEROS	10
#define PIB_IP4_MAPPED_FF	0xff

/**
 * pib_ip4() - an IPv4 address as a struct pib_ip
 * @addr: the IPv4 address, network byte order
 *
 * Return: ::ffff:@addr
 */
static inline struct pib_ip pib_ip4(__be32 addr)
{
	struct pib_ip ip = {
		.b = { [PIB_IP4_MAPPED_ZEROS] = PIB_IP4_MAPPED_FF,
		       [PIB_IP4_MAPPED_ZEROS + 1] = PIB_IP4_MAPPED_FF },
	};

	__builtin_memcpy(&ip.b[PIB_IP4_MAPPED_ZEROS + 2], &addr, sizeof(addr));
	return ip;
}

/**
 * pib_ip_family() - the family of an address
 * @ip: the address
 *
 * Return: PIB_IP4 for an IPv4-mapped address, PIB_IP6 otherwise.
 */
static inline enum pib_ip_family pib_ip_family(const struct pib_ip *ip)
{
	unsigned int i;

	for (i = 0; i < PIB_IP4_MAPPED_ZEROS; i++)
		if (ip->b[i])
			return PIB_IP6;
	return ip->b[i] == PIB_IP4_MAPPED_FF &&
	       ip->b[i + 1] == PIB_IP4_MAPPED_FF ? PIB_IP4 : PIB_IP6;
}

/* The IPv4 address of an IPv4-mapped @ip. */
static inline __be32 pib_ip_v4(const struct pib_ip *ip)
{
	__be32 addr;

	__builtin_memcpy(&addr, &ip->b[PIB_IP4_MAPPED_ZEROS + 2], sizeof(addr));
	return addr;
}

static inline int pib_ip_eq(const struct pib_ip *a, const struct pib_ip *b)
{
	return !__builtin_memcmp(a->b, b->b, sizeof(a->b));
}

/**
 * struct pib_peer - another host's switch, heard on the LAN
 * @guid: its switch GUID
 * @addr: per family, the address its hellos come from (the last one
 *	after that family's binding lapsed)
 * @heard: per family, the time of its last hello over that family
 * @last_heard: time of its last hello over either family
 * @max_gap: the longest time between two of its hellos while its link was
 *	up (a peer whose hellos come late, e.g. a starved host, shows here
 *	before its link starts to go down)
 * @link_downs: how often its link went down for want of hellos
 * @restarts: how often it came back as another incarnation while its link
 *	was up
 * @byes: how often it said bye while its link was up
 * @incarnation: the one it said last (0: none)
 * @said_at: the time of its last restart or bye
 * @bound: PIB_IP_BIT() of each family whose hellos came within
 *	PIB_PEER_TIMEOUT_MS: @addr of that family is the peer's
 * @primary: the family its packets go over: the one its link came up
 *	with, while bound, else the other
 * @used: the slot holds a peer
 * @up: heard within PIB_PEER_TIMEOUT_MS (@bound is not 0)
 */
struct pib_peer {
	__u64 guid;
	struct pib_ip addr[PIB_IP_FAMILIES];
	__u64 heard[PIB_IP_FAMILIES];
	__u64 last_heard;
	__u64 max_gap;
	__u32 link_downs;
	__u32 restarts;
	__u32 byes;
	__u64 said_at;
	__u16 incarnation;
	__u8 bound;
	__u8 primary;
	__u8 used;
	__u8 up;
};

/**
 * struct pib_peer_table - a switch's peers, by slot (switch port - 65)
 * @peer: the slots
 * @tokens: new peers that may still be admitted at once
 * @refill: when the last token was added
 * @full: new peers refused for want of a slot
 * @rate_limited: new peers refused for coming too fast
 * @guid_elsewhere: hellos with a live peer's GUID from another address
 *	of the same family
 * @addr_in_use: hellos with a new GUID from a live peer's address
 * @evicted: silent peers whose slot was freed
 * @restarts_limited: restarts and byes of a live peer that came sooner
 *	than PIB_PEER_RESTART_MS after its last one (ignored)
 */
struct pib_peer_table {
	struct pib_peer peer[PIB_MAX_PEERS];
	__u32 tokens;
	__u64 refill;
	__u64 full;
	__u64 rate_limited;
	__u64 guid_elsewhere;
	__u64 addr_in_use;
	__u64 evicted;
	__u64 restarts_limited;
};

/* What a hello did to the table. */
enum pib_hello_verdict {
	PIB_HELLO_HEARD,	/* a live peer, still there */
	PIB_HELLO_LINK_UP,	/* a new peer, or a silent one back: link up */
	PIB_HELLO_RESTART,	/* a live peer made anew: its link bounces */
	PIB_HELLO_BYE,		/* a live peer going away: its link goes down */
	PIB_HELLO_STRAY_BYE,	/* ignored: a bye of no live peer */
	PIB_HELLO_GUID_ELSEWHERE, /* refused: the GUID lives at another address */
	PIB_HELLO_ADDR_IN_USE,	/* refused: the address is another GUID's */
	PIB_HELLO_RATE_LIMITED,	/* refused: too many new peers lately */
	PIB_HELLO_FULL,		/* refused: no free slot */
};

/**
 * pib_peers_init() - an empty table
 * @t: the table
 * @now: the time
 */
static inline void pib_peers_init(struct pib_peer_table *t, __u64 now)
{
	__builtin_memset(t, 0, sizeof(*t));
	t->tokens = PIB_PEER_NEW_BURST;
	t->refill = now;
}

/* The slot of a used peer with @guid, or -1. */
static inline int pib_peers_find_guid(const struct pib_peer_table *t,
				      __u64 guid)
{
	int i;

	for (i = 0; i < PIB_MAX_PEERS; i++)
		if (t->peer[i].used && t->peer[i].guid == guid)
			return i;
	return -1;
}

/* Does live peer @p speak from @ip, of family @f? */
static inline int pib_peer_bound_to(const struct pib_peer *p,
				    enum pib_ip_family f,
				    const struct pib_ip *ip)
{
	return p->up && (p->bound & PIB_IP_BIT(f)) && pib_ip_eq(&p->addr[f], ip);
}

/**
 * pib_peers_find_addr() - the live peer that speaks from an address
 * @t: the table
 * @ip: the address
 *
 * Return: its slot, or -1 if no peer whose link is up is bound to it.
 */
static inline int pib_peers_find_addr(const struct pib_peer_table *t,
				      const struct pib_ip *ip)
{
	enum pib_ip_family f = pib_ip_family(ip);
	int i;

	for (i = 0; i < PIB_MAX_PEERS; i++)
		if (pib_peer_bound_to(&t->peer[i], f, ip))
			return i;
	return -1;
}

/**
 * pib_peers_dest() - where a peer's packets go
 * @t: the table
 * @slot: the peer's slot
 * @ip: set to the peer's primary address
 *
 * Return: 1, or 0 (and @ip untouched) if the slot has no live peer.
 */
static inline int pib_peers_dest(const struct pib_peer_table *t,
				 unsigned int slot, struct pib_ip *ip)
{
	const struct pib_peer *p;

	if (slot >= PIB_MAX_PEERS || !t->peer[slot].up)
		return 0;
	p = &t->peer[slot];
	*ip = p->addr[p->primary];
	return 1;
}

/* Take a token for a new peer; 0 if none is left. */
static inline int pib_peers_take_token(struct pib_peer_table *t, __u64 now)
{
	__u64 n = (now - t->refill) / PIB_PEER_NEW_MS;

	if (t->tokens + n >= PIB_PEER_NEW_BURST) {
		t->tokens = PIB_PEER_NEW_BURST;
		t->refill = now;
	} else {
		t->tokens += n;
		t->refill += n * PIB_PEER_NEW_MS;
	}
	if (!t->tokens)
		return 0;
	t->tokens--;
	return 1;
}

/* Bind @p to @ip of family @f, heard at @now. */
static inline void pib_peer_bind(struct pib_peer *p, enum pib_ip_family f,
				 const struct pib_ip *ip, __u64 now)
{
	p->addr[f] = *ip;
	p->heard[f] = now;
	p->bound |= PIB_IP_BIT(f);
}

/* A new GUID: a free slot, if the rate and the table allow. */
static inline enum pib_hello_verdict pib_peers_add(struct pib_peer_table *t,
						   const struct pib_hello *h,
						   const struct pib_ip *ip,
						   __u64 now, int *slot)
{
	enum pib_ip_family f = pib_ip_family(ip);
	struct pib_peer *p;
	int i;

	for (i = 0; i < PIB_MAX_PEERS && t->peer[i].used; i++)
		;
	if (i == PIB_MAX_PEERS) {
		t->full++;
		return PIB_HELLO_FULL;
	}
	if (!pib_peers_take_token(t, now)) {
		t->rate_limited++;
		return PIB_HELLO_RATE_LIMITED;
	}
	p = &t->peer[i];
	__builtin_memset(p, 0, sizeof(*p));
	p->guid = h->switch_guid;
	p->incarnation = h->incarnation;
	pib_peer_bind(p, f, ip, now);
	p->primary = f;
	p->last_heard = now;
	p->used = 1;
	p->up = 1;
	*slot = i;
	return PIB_HELLO_LINK_UP;
}

/* Did @p restart or say bye less than PIB_PEER_RESTART_MS ago? (counted) */
static inline int pib_peer_said_lately(struct pib_peer_table *t,
				       const struct pib_peer *p, __u64 now)
{
	if (!(p->restarts + p->byes) || now - p->said_at >= PIB_PEER_RESTART_MS)
		return 0;
	t->restarts_limited++;
	return 1;
}

/*
 * A bye from @ip as @h of slot @i (-1: no peer has its GUID) at @now: the
 * peer's link goes down, and @slot is set to @i, if it is live, bound to
 * @ip and the same incarnation, and did not restart or say bye just
 * before.
 */
static inline enum pib_hello_verdict pib_peers_bye(struct pib_peer_table *t,
						   int i,
						   const struct pib_hello *h,
						   const struct pib_ip *ip,
						   __u64 now, int *slot)
{
	struct pib_peer *p;

	if (i < 0)
		return PIB_HELLO_STRAY_BYE;
	p = &t->peer[i];
	if (!pib_peer_bound_to(p, pib_ip_family(ip), ip) ||
	    p->incarnation != h->incarnation)
		return PIB_HELLO_STRAY_BYE;
	if (pib_peer_said_lately(t, p, now))
		return PIB_HELLO_STRAY_BYE;
	p->said_at = now;
	p->bound = 0;
	p->up = 0;
	p->byes++;
	*slot = i;
	return PIB_HELLO_BYE;
}

/**
 * pib_peers_heard() - a hello @h from @ip
 * @t: the table
 * @h: what it says: the switch GUID, its incarnation, whether it is a bye
 * @ip: the address it came from
 * @now: the time
 * @slot: set to the peer's slot unless the hello is refused or a stray bye
 *
 * A live peer's hello over a family it is not bound to binds that
 * family's address too, without moving its packets (pib_peers_dest()).
 *
 * Return: enum pib_hello_verdict; refusals are counted in @t.
 */
static inline enum pib_hello_verdict pib_peers_heard(struct pib_peer_table *t,
						     const struct pib_hello *h,
						     const struct pib_ip *ip,
						     __u64 now, int *slot)
{
	enum pib_ip_family f = pib_ip_family(ip);
	int i = pib_peers_find_guid(t, h->switch_guid), owner;
	struct pib_peer *p;

	if (h->bye)
		return pib_peers_bye(t, i, h, ip, now, slot);
	if (i >= 0 && t->peer[i].up && (t->peer[i].bound & PIB_IP_BIT(f)) &&
	    !pib_ip_eq(&t->peer[i].addr[f], ip)) {
		t->guid_elsewhere++;
		return PIB_HELLO_GUID_ELSEWHERE;
	}
	owner = pib_peers_find_addr(t, ip);
	if (owner >= 0 && owner != i) {
		t->addr_in_use++;
		return PIB_HELLO_ADDR_IN_USE;
	}
	if (i < 0)
		return pib_peers_add(t, h, ip, now, slot);
	p = &t->peer[i];
	pib_peer_bind(p, f, ip, now);
	if (p->up && now - p->last_heard > p->max_gap)
		p->max_gap = now - p->last_heard;
	p->last_heard = now;
	*slot = i;
	if (p->up && h->incarnation && p->incarnation &&
	    h->incarnation != p->incarnation) {
		if (pib_peer_said_lately(t, p, now))
			return PIB_HELLO_HEARD;
		p->incarnation = h->incarnation;
		p->said_at = now;
		p->restarts++;
		return PIB_HELLO_RESTART;
	}
	p->incarnation = h->incarnation;
	if (p->up)
		return PIB_HELLO_HEARD;
	p->up = 1;
	p->primary = f;
	return PIB_HELLO_LINK_UP;
}

/*
 * Unbind @p's families silent past the timeout, or not in @families;
 * its link goes down with the last, or its packets move to the other
 * family. Return: 1 if its link went down.
 */
static inline int pib_peer_age(struct pib_peer *p, __u64 now,
			       unsigned int families)
{
	unsigned int f;

	for (f = 0; f < PIB_IP_FAMILIES; f++)
		if ((p->bound & PIB_IP_BIT(f)) &&
		    (now - p->heard[f] > PIB_PEER_TIMEOUT_MS ||
		     !(families & PIB_IP_BIT(f))))
			p->bound &= ~PIB_IP_BIT(f);
	if (!p->up)
		return 0;
	if (!p->bound) {
		p->up = 0;
		p->link_downs++;
		return 1;
	}
	if (!(p->bound & PIB_IP_BIT(p->primary)))
		p->primary = p->primary == PIB_IP4 ? PIB_IP6 : PIB_IP4;
	return 0;
}

/**
 * pib_peers_age() - take silent peers' links down, free long-silent slots
 * @t: the table
 * @now: the time
 * @families: PIB_IP_BIT() of the families the switch can send over now
 *	(it has an address of): bindings of the others go
 *
 * Return: non-zero if a peer's link went down.
 */
static inline int pib_peers_age(struct pib_peer_table *t, __u64 now,
				unsigned int families)
{
	struct pib_peer *p;
	int i, down = 0;

	for (i = 0; i < PIB_MAX_PEERS; i++) {
		p = &t->peer[i];
		if (!p->used)
			continue;
		down |= pib_peer_age(p, now, families);
		if (!p->up && now - p->last_heard > PIB_PEER_EVICT_MS) {
			__builtin_memset(p, 0, sizeof(*p));
			t->evicted++;
		}
	}
	return down;
}

#endif /* PIB_PEER_H */
