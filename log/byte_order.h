// Forwarding header: the big-endian loads and stores live in common/byte_order.h
// (one copy for the whole broker). Kept only so files outside this change that
// still include "log/byte_order.h" build; include common/byte_order.h instead.
#pragma once

#include "common/byte_order.h"
