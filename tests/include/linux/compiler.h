/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Host stand-in (tests/include/README.md): the attributes pib_hdr.h uses. */
#ifndef PIB_HOST_COMPILER_H
#define PIB_HOST_COMPILER_H

#ifndef __packed
#define __packed	__attribute__((packed))
#endif

#endif
