#pragma once
/// @file
/// The core of cunum: errors, backends, devices, streams, device memory and timers.
///
/// Conventions every cunum routine follows:
/// - Failures throw cunum::Error (cunum/core/error.hpp) naming the routine called;
///   argument errors are raised before anything is written or enqueued.
/// - Backend::cuda work is enqueued on the stream passed and returns at once unless
///   its documentation says it waits; Backend::cpu work returns when done.
/// - The core's free functions are thread-safe; objects (plans, buffers, timers)
///   serve one caller at a time.
#include "cunum/core/backend.hpp"
#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"
#include "cunum/core/event_timer.hpp"
#include "cunum/core/memory_resource.hpp"
#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/core/value_types.hpp"
#include "cunum/version.hpp"
