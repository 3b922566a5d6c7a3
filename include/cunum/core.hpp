#pragma once
/// @file
/// The core of cunum: errors, backends, devices, streams, device memory and timers.
#include "cunum/core/backend.hpp"
#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/event_timer.hpp"
#include "cunum/core/memory_resource.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/core/value_types.hpp"
#include "cunum/version.hpp"
