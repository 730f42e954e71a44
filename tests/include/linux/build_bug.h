/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Host stand-in (tests/include/README.md): static_assert() is C11's. */
#ifndef PIB_HOST_BUILD_BUG_H
#define PIB_HOST_BUILD_BUG_H

#include <assert.h>

#endif
