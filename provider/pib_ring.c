// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Mapping the rings pib.ko describes. The description comes from the
 * kernel, but a wrong one must not make the provider read or write past
 * its mapping, so it is checked before anything is mapped.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "pib_ring.h"

static_assert(sizeof(struct pib_ring_hdr) == PIB_RING_HDR_SIZE,
	      "the ring header is PIB_RING_HDR_SIZE bytes");
static_assert(PIB_RING_HDR_SIZE % PIB_RING_ALIGN == 0,
	      "entries start aligned");

/**
 * pib_ring_info_check() - is @info a ring the provider can use safely?
 * @info: what the kernel returned
 * @min_stride: the size of one entry's fixed part
 *
 * Return: 0, or EPROTO if the kernel broke the ABI: @num not a power of
 * two, @stride too small or misaligned, @size too small for the header
 * and @num entries, or an offset mmap cannot take.
 */
int pib_ring_info_check(const struct pib_ring_info *info, size_t min_stride)
{
	uint64_t need;

	if (!info->num || (info->num & (info->num - 1)))
		return EPROTO;
	if (info->stride < min_stride || info->stride % PIB_RING_ALIGN)
		return EPROTO;
	/* u32 * u32 fits in u64: no overflow can hide a short mapping. */
	need = PIB_RING_HDR_SIZE + (uint64_t)info->num * info->stride;
	if (info->size < need)
		return EPROTO;
	if (info->offset > (uint64_t)INT64_MAX)
		return EPROTO;
	return 0;
}

/**
 * pib_ring_map() - map the ring @info describes
 * @r: filled in; untouched on error
 * @fd: the uverbs command file
 * @info: what the kernel returned
 * @min_stride: the size of one entry's fixed part
 *
 * Return: 0, EPROTO for a bad @info, or mmap's errno.
 */
int pib_ring_map(struct pib_ring *r, int fd, const struct pib_ring_info *info,
		 size_t min_stride)
{
	int err = pib_ring_info_check(info, min_stride);
	void *buf;

	if (err)
		return err;
	buf = mmap(NULL, info->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)info->offset);
	if (buf == MAP_FAILED)
		return errno;
	r->buf = buf;
	r->size = info->size;
	r->num = info->num;
	r->stride = info->stride;
	return 0;
}

/* Unmap @r if it is mapped, and forget it. */
void pib_ring_unmap(struct pib_ring *r)
{
	if (r->buf)
		munmap(r->buf, r->size);
	memset(r, 0, sizeof(*r));
}
