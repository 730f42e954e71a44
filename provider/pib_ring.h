/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The provider's view of a ring shared with pib.ko (see include/uapi/rdma/pib-abi.h):
 * where it is mapped, and the index arithmetic of both ends.
 *
 * Indices are free-running u32 counters. The side that produces entries
 * publishes them with a release store of the producer index after writing
 * them; the side that consumes publishes with a release store of the
 * consumer index after it is done reading them. Each side reads the other's
 * index with an acquire load, so that it sees the entries (or the freed
 * slots) that index covers. Nothing here calls the kernel, so the unit
 * tests run these functions on rings in ordinary memory.
 */
#ifndef PIB_RING_H
#define PIB_RING_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/pib-abi.h>

/* Entries hold u64 fields: only strides that keep them aligned will do. */
#define PIB_RING_ALIGN	8

/**
 * struct pib_ring - a mapped ring
 * @buf: the mapping (struct pib_ring_hdr, then the entries); NULL if none
 * @size: bytes mapped
 * @num: entries, a power of two
 * @stride: bytes per entry
 */
struct pib_ring {
	void *buf;
	size_t size;
	uint32_t num;
	uint32_t stride;
};

static inline struct pib_ring_hdr *pib_ring_hdr(const struct pib_ring *r)
{
	return r->buf;
}

/* Entry @idx (any free-running index) of @r. */
static inline void *pib_ring_entry(const struct pib_ring *r, uint32_t idx)
{
	return (char *)r->buf + PIB_RING_HDR_SIZE +
	       (size_t)(idx & (r->num - 1)) * r->stride;
}

/*
 * Rings the provider produces (SQ, RQ, SRQ). The producer index is ours,
 * so a relaxed load returns what we last stored; the consumer index is
 * the kernel's, read with acquire so that its reads of the slots it freed
 * are done before we overwrite them.
 */
static inline uint32_t pib_ring_producer(const struct pib_ring *r)
{
	return __atomic_load_n(&pib_ring_hdr(r)->producer, __ATOMIC_RELAXED);
}

static inline uint32_t pib_ring_consumer_acquire(const struct pib_ring *r)
{
	return __atomic_load_n(&pib_ring_hdr(r)->consumer, __ATOMIC_ACQUIRE);
}

/* Make entries up to @prod visible to the kernel, after they are written. */
static inline void pib_ring_publish(struct pib_ring *r, uint32_t prod)
{
	__atomic_store_n(&pib_ring_hdr(r)->producer, prod, __ATOMIC_RELEASE);
}

/*
 * Forget the entries the kernel has not consumed, as a QP's move to RESET
 * does: the ring restarts where the kernel's consumer index stands,
 * whatever the kernel did with it.
 */
static inline void pib_ring_discard(struct pib_ring *r)
{
	pib_ring_publish(r, pib_ring_consumer_acquire(r));
}

/*
 * Free slots from @prod on. A consumer index that claims to be ahead of
 * us, or further behind than the ring holds, cannot be right: the ring
 * then counts as full rather than letting us overwrite unread entries.
 */
static inline uint32_t pib_ring_room(const struct pib_ring *r, uint32_t prod)
{
	uint32_t used = prod - pib_ring_consumer_acquire(r);

	return used <= r->num ? r->num - used : 0;
}

/*
 * Rings the kernel produces (CQ). The consumer index is ours; the
 * producer index is read with acquire so that the entries it covers are
 * visible; the consumer index is published with release once we are done
 * reading the entries it frees.
 */
static inline uint32_t pib_ring_consumer(const struct pib_ring *r)
{
	return __atomic_load_n(&pib_ring_hdr(r)->consumer, __ATOMIC_RELAXED);
}

static inline uint32_t pib_ring_producer_acquire(const struct pib_ring *r)
{
	return __atomic_load_n(&pib_ring_hdr(r)->producer, __ATOMIC_ACQUIRE);
}

static inline void pib_ring_release(struct pib_ring *r, uint32_t cons)
{
	__atomic_store_n(&pib_ring_hdr(r)->consumer, cons, __ATOMIC_RELEASE);
}

/*
 * Entries ready from @cons on. A producer index that claims more than the
 * ring holds cannot be right: nothing counts as ready, as in the kernel.
 */
static inline uint32_t pib_ring_ready(const struct pib_ring *r, uint32_t cons)
{
	uint32_t n = pib_ring_producer_acquire(r) - cons;

	return n <= r->num ? n : 0;
}

int pib_ring_info_check(const struct pib_ring_info *info, size_t min_stride);
int pib_ring_map(struct pib_ring *r, int fd, const struct pib_ring_info *info,
		 size_t min_stride);
void pib_ring_unmap(struct pib_ring *r);

#endif /* PIB_RING_H */
