// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rings shared with the provider (or kept in the kernel for kernel
 * consumers): allocation, mapping into a process, and index arithmetic
 * that never trusts what the other side wrote.
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include <rdma/uverbs_ioctl.h>

#include "pib.h"

/**
 * struct pib_mmap_entry - a ring the provider may map
 * @rdma: the RDMA core's entry (offset, size, reference count)
 * @buf: the ring's memory (vmalloc), freed with the entry (pib_mmap_free())
 */
struct pib_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
};

/**
 * pib_ring_init() - allocate a ring of @num entries of @stride bytes
 * @ring: the ring
 * @num: entries, a power of two
 * @stride: bytes per entry
 * @udata: the user's command, or NULL for a kernel consumer's ring
 *
 * A user's ring gets an mmap entry in the user's context; @info then
 * tells the provider where to map it.
 *
 * Return: 0 or a negative errno.
 */
int pib_ring_init(struct pib_ring *ring, u32 num, u32 stride,
		  struct ib_udata *udata)
{
	struct pib_ucontext *uc;
	struct pib_mmap_entry *e;
	size_t size = PAGE_ALIGN(PIB_RING_HDR_SIZE + (size_t)num * stride);
	int err;

	memset(ring, 0, sizeof(*ring));
	ring->num = num;
	ring->stride = stride;
	ring->size = size;
	/* vmalloc_user() would not charge the process for it. */
	ring->hdr = __vmalloc(size, PIB_GFP_USER | __GFP_ZERO);
	if (!ring->hdr)
		return -ENOMEM;
	if (!udata)
		return 0;
	uc = rdma_udata_to_drv_context(udata, struct pib_ucontext, ibuc);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		err = -ENOMEM;
		goto free_buf;
	}
	e->buf = ring->hdr;
	err = rdma_user_mmap_entry_insert(&uc->ibuc, &e->rdma, size);
	if (err) {
		kfree(e);
		goto free_buf;
	}
	ring->mmap = &e->rdma;
	return 0;

free_buf:
	vfree(ring->hdr);
	ring->hdr = NULL;
	return err;
}

/**
 * pib_ring_describe() - describe a user's ring for the provider
 * @ring: the ring
 * @info: filled in
 */
void pib_ring_describe(const struct pib_ring *ring, struct pib_ring_info *info)
{
	memset(info, 0, sizeof(*info));
	if (!ring->hdr)
		return;
	info->offset = ring->mmap ? rdma_user_mmap_get_offset(ring->mmap) : 0;
	info->size = ring->size;
	info->num = ring->num;
	info->stride = ring->stride;
}

/**
 * pib_ring_free() - release a ring
 * @ring: the ring
 *
 * A user's ring stops being mappable here, but its memory goes with the
 * mmap entry's last reference (pib_mmap_free()): pib_mmap() may be
 * mapping it still. A process that maps the ring keeps its pages (the
 * mapping holds references to them) until it unmaps.
 */
void pib_ring_free(struct pib_ring *ring)
{
	if (ring->mmap)
		rdma_user_mmap_entry_remove(ring->mmap);
	else
		vfree(ring->hdr);
	ring->mmap = NULL;
	ring->hdr = NULL;
}

/**
 * pib_mmap_free() - the mmap_free verb: free a ring's memory
 * @rdma: the ring's mmap entry, whose last reference went away
 */
void pib_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct pib_mmap_entry *e = container_of(rdma, struct pib_mmap_entry, rdma);

	vfree(e->buf);
	kfree(e);
}

/*
 * Map the pages of @buf (vmalloc, zeroed, page aligned) into all of @vma,
 * as remap_vmalloc_range() does for a vmalloc_user() area.
 */
static int pib_mmap_pages(struct vm_area_struct *vma, u8 *buf)
{
	unsigned long addr;
	int err;

	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		err = vm_insert_page(vma, addr, vmalloc_to_page(buf));
		if (err)
			return err;
		buf += PAGE_SIZE;
	}
	return 0;
}

/**
 * pib_mmap() - map a ring into the process
 * @ibuc: the process's context
 * @vma: the mapping; its offset names the ring
 *
 * Return: 0, -EINVAL for an unknown offset or a bigger size than the ring.
 */
int pib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct pib_mmap_entry *e;
	int err = -EINVAL;

	rdma = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma)
		return -EINVAL;
	e = container_of(rdma, struct pib_mmap_entry, rdma);
	if (vma->vm_end - vma->vm_start <= rdma->npages * PAGE_SIZE)
		err = pib_mmap_pages(vma, e->buf);
	rdma_user_mmap_entry_put(rdma);
	return err;
}

/**
 * pib_ring_avail() - entries the other side produced that we may consume
 * @ring: a ring we consume (SQ, RQ, SRQ)
 * @from: the index to count from, between ring->cons and the producer
 *
 * Reads the producer index once. A producer that claims more entries than
 * the ring holds is not believed: nothing is available.
 *
 * Return: entries from @from on that are ready.
 */
u32 pib_ring_avail(struct pib_ring *ring, u32 from)
{
	/* Pairs with the producer's release: the entries are written. */
	u32 prod = smp_load_acquire(&ring->hdr->producer);
	u32 n = prod - ring->cons;

	if (n > ring->num || from - ring->cons > n)
		return 0;
	return prod - from;
}

/**
 * pib_ring_room() - free entries in a ring we produce (CQ)
 * @ring: the ring
 *
 * A consumer index that claims to be ahead of us, or further behind than
 * the ring holds, is not believed: the ring counts as full.
 *
 * Return: entries we may produce.
 */
u32 pib_ring_room(struct pib_ring *ring)
{
	/* Pairs with the consumer's release: it is done reading the slots. */
	u32 cons = smp_load_acquire(&ring->hdr->consumer);
	u32 used = ring->prod - cons;

	return used <= ring->num ? ring->num - used : 0;
}

/**
 * pib_ring_consume_to() - publish consumed entries
 * @ring: the ring
 * @cons: the consumer index after the last entry consumed
 */
void pib_ring_consume_to(struct pib_ring *ring, u32 cons)
{
	ring->cons = cons;
	/* Our reads of the entries are done before the slots are freed. */
	smp_store_release(&ring->hdr->consumer, cons);
}

/**
 * pib_ring_consume() - publish one consumed entry
 * @ring: the ring
 */
void pib_ring_consume(struct pib_ring *ring)
{
	pib_ring_consume_to(ring, ring->cons + 1);
}

/**
 * pib_ring_produce() - publish one produced entry
 * @ring: the ring; the entry at its producer index is written
 *
 * Also what a kernel consumer's post does.
 */
void pib_ring_produce(struct pib_ring *ring)
{
	ring->prod++;
	/* The entry is written before the consumer may see it. */
	smp_store_release(&ring->hdr->producer, ring->prod);
}
