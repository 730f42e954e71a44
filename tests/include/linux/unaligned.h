/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Host stand-in (tests/include/README.md): big-endian loads and stores at
 * any address, as the kernel's <linux/unaligned.h> has them.
 */
#ifndef PIB_HOST_UNALIGNED_H
#define PIB_HOST_UNALIGNED_H

#include <linux/types.h>

static inline __u16 get_unaligned_be16(const void *p)
{
	const __u8 *b = p;

	return (__u16)(b[0] << 8 | b[1]);
}

static inline __u32 get_unaligned_be24(const void *p)
{
	const __u8 *b = p;

	return (__u32)b[0] << 16 | (__u32)b[1] << 8 | b[2];
}

static inline __u32 get_unaligned_be32(const void *p)
{
	const __u8 *b = p;

	return (__u32)b[0] << 24 | get_unaligned_be24(b + 1);
}

static inline __u64 get_unaligned_be64(const void *p)
{
	const __u8 *b = p;

	return (__u64)get_unaligned_be32(b) << 32 | get_unaligned_be32(b + 4);
}

static inline void put_unaligned_be16(__u16 v, void *p)
{
	__u8 *b = p;

	b[0] = v >> 8;
	b[1] = v & 0xff;
}

static inline void put_unaligned_be24(__u32 v, void *p)
{
	__u8 *b = p;

	b[0] = (v >> 16) & 0xff;
	b[1] = (v >> 8) & 0xff;
	b[2] = v & 0xff;
}

static inline void put_unaligned_be32(__u32 v, void *p)
{
	__u8 *b = p;

	b[0] = v >> 24;
	put_unaligned_be24(v, b + 1);
}

static inline void put_unaligned_be64(__u64 v, void *p)
{
	__u8 *b = p;

	put_unaligned_be32(v >> 32, b);
	put_unaligned_be32(v & 0xffffffff, b + 4);
}

static inline __u16 get_unaligned_le16(const void *p)
{
	const __u8 *b = p;

	return (__u16)(b[0] | b[1] << 8);
}

static inline __u32 get_unaligned_le32(const void *p)
{
	const __u8 *b = p;

	return get_unaligned_le16(b) | (__u32)get_unaligned_le16(b + 2) << 16;
}

static inline void put_unaligned_le16(__u16 v, void *p)
{
	__u8 *b = p;

	b[0] = v & 0xff;
	b[1] = v >> 8;
}

static inline void put_unaligned_le32(__u32 v, void *p)
{
	__u8 *b = p;

	put_unaligned_le16(v & 0xffff, b);
	put_unaligned_le16(v >> 16, b + 2);
}

#endif
