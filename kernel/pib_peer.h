/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The peer table of a switch: the other hosts' switches heard on the LAN,
 * and which GUID speaks from which address.
 *
 * Shared by the kernel module and the host-side unit tests, so it only
 * uses the fixed-width types of <linux/types.h>. Times are milliseconds of
 * a clock that does not wrap.
 *
 * Trust: a hello proves nothing (IB has no authentication), so the table
 * limits what a forged one can do. A GUID is bound to the address its
 * hellos come from, and an address to its GUID, for as long as that peer
 * keeps talking: a hello that would move a live peer to another address,
 * or give a live peer's address to another GUID, is refused. A peer silent
 * for PIB_PEER_TIMEOUT_MS loses its link and may then come back from
 * elsewhere; one silent for PIB_PEER_EVICT_MS gives its slot up. New peers
 * take slots at most PIB_PEER_NEW_BURST at once and then one each
 * PIB_PEER_NEW_MS, so a flood of made-up GUIDs neither fills the table at
 * once nor floods the SM with link changes.
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

/**
 * struct pib_peer - another host's switch, heard on the LAN
 * @guid: its switch GUID
 * @addr: the IPv4 address its hellos come from
 * @last_heard: time of its last hello
 * @max_gap: the longest time between two of its hellos while its link was
 *	up (a peer whose hellos come late, e.g. a starved host, shows here
 *	before its link starts to go down)
 * @link_downs: how often its link went down for want of hellos
 * @used: the slot holds a peer
 * @up: heard within PIB_PEER_TIMEOUT_MS
 */
struct pib_peer {
	__u64 guid;
	__be32 addr;
	__u64 last_heard;
	__u64 max_gap;
	__u32 link_downs;
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
 * @addr_in_use: hellos with a new GUID from a live peer's address
 * @evicted: silent peers whose slot was freed
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
};

/* What a hello did to the table. */
enum pib_hello_verdict {
	PIB_HELLO_HEARD,	/* a live peer, still there */
	PIB_HELLO_LINK_UP,	/* a new peer, or a silent one back: link up */
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

/**
 * pib_peers_find_addr() - the live peer that speaks from an address
 * @t: the table
 * @addr: the IPv4 address
 *
 * Return: its slot, or -1 if no peer whose link is up has that address.
 */
static inline int pib_peers_find_addr(const struct pib_peer_table *t,
				      __be32 addr)
{
	int i;

	for (i = 0; i < PIB_MAX_PEERS; i++)
		if (t->peer[i].up && t->peer[i].addr == addr)
			return i;
	return -1;
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

/* A new GUID: a free slot, if the rate and the table allow. */
static inline enum pib_hello_verdict pib_peers_add(struct pib_peer_table *t,
						   __u64 guid, __be32 addr,
						   __u64 now, int *slot)
{
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
	t->peer[i].guid = guid;
	t->peer[i].addr = addr;
	t->peer[i].last_heard = now;
	t->peer[i].used = 1;
	t->peer[i].up = 1;
	*slot = i;
	return PIB_HELLO_LINK_UP;
}

/**
 * pib_peers_heard() - a hello from @addr says it is switch @guid
 * @t: the table
 * @guid: the GUID the hello names
 * @addr: the IPv4 address it came from
 * @now: the time
 * @slot: set to the peer's slot unless the hello is refused
 *
 * Return: enum pib_hello_verdict; refusals are counted in @t.
 */
static inline enum pib_hello_verdict pib_peers_heard(struct pib_peer_table *t,
						     __u64 guid, __be32 addr,
						     __u64 now, int *slot)
{
	int i = pib_peers_find_guid(t, guid), owner;
	struct pib_peer *p;

	if (i >= 0 && t->peer[i].up && t->peer[i].addr != addr) {
		t->guid_elsewhere++;
		return PIB_HELLO_GUID_ELSEWHERE;
	}
	owner = pib_peers_find_addr(t, addr);
	if (owner >= 0 && owner != i) {
		t->addr_in_use++;
		return PIB_HELLO_ADDR_IN_USE;
	}
	if (i < 0)
		return pib_peers_add(t, guid, addr, now, slot);
	p = &t->peer[i];
	p->addr = addr;
	if (p->up && now - p->last_heard > p->max_gap)
		p->max_gap = now - p->last_heard;
	p->last_heard = now;
	*slot = i;
	if (p->up)
		return PIB_HELLO_HEARD;
	p->up = 1;
	return PIB_HELLO_LINK_UP;
}

/**
 * pib_peers_age() - take silent peers' links down, free long-silent slots
 * @t: the table
 * @now: the time
 *
 * Return: non-zero if a peer's link went down.
 */
static inline int pib_peers_age(struct pib_peer_table *t, __u64 now)
{
	struct pib_peer *p;
	int i, down = 0;

	for (i = 0; i < PIB_MAX_PEERS; i++) {
		p = &t->peer[i];
		if (!p->used)
			continue;
		if (p->up && now - p->last_heard > PIB_PEER_TIMEOUT_MS) {
			p->up = 0;
			p->link_downs++;
			down = 1;
		}
		if (!p->up && now - p->last_heard > PIB_PEER_EVICT_MS) {
			__builtin_memset(p, 0, sizeof(*p));
			t->evicted++;
		}
	}
	return down;
}

#endif /* PIB_PEER_H */
