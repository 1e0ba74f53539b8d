// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: everything at once.
#pragma once

#include "slabctl/client.hpp"
#include "slabctl/error.hpp"
#include "slabctl/format.hpp"
#include "slabctl/json.hpp"
#include "slabctl/names.hpp"
#include "slabctl/native.hpp"
#include "slabctl/parse.hpp"
#include "slabctl/replay.hpp"
#include "slabctl/stats.hpp"
#include "slabctl/types.hpp"
#include "slabctl/version.hpp"
